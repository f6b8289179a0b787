import type { FastifyBaseLogger } from 'fastify'
import { RepeatedFailureLog } from '../../http/outage-log.ts'
import { DEFAULT_LOCALE, isLocale } from '../../../shared/locales.ts'
import type { NotificationMailClaim } from '../../../shared/catalogue/living.ts'
import type { EmailTexts } from './emails.ts'
import type { MailOutbox } from './mail-outbox.ts'
import type { OutgoingMail } from './mailer.ts'
import type { UpstreamApi } from '../upstream-api.ts'

// The notification mail worker (decision 030). Every few seconds it claims from the API
// the accounts a mail is due to (POST /internal/notification-mail/claim: 'immediate' accounts with
// news, 'daily' ones whose last mail is a day old; verified, enabled accounts only), renders one
// mail per account in its language, writes them to the durable outbox — whose worker sends them —
// and says so (POST /internal/notification-mail/queued), a batch at a time. The outbox's id of a
// mail is its claim's: a worker that dies between writing and saying so leaves the claim to run
// out, and the claim taken again writes a mail with the same id, which the outbox already has.
// Every mail carries the one-click unsubscribe headers of RFC 8058.

/** How often the worker looks for mail that is due. */
export const NOTIFICATION_MAIL_INTERVAL_MS = 5_000
/** Accounts one batch claims. */
export const NOTIFICATION_MAIL_BATCH = 500
/** Batches one round takes at most (then the next round goes on). */
const ROUND_BATCHES_MAX = 1_000
/** How long closing waits for a round still running. */
const STOP_WAIT_MS = 2_000

export interface NotificationMailWorkerOptions {
  upstreamApi: UpstreamApi
  outbox: MailOutbox
  emails: EmailTexts
  appUrl: string
  /** The auth core's API key (or the operator token), which the API's internal routes take; without one the worker does nothing. */
  secret: string | undefined
  log: FastifyBaseLogger
}

/** The link of a mail's List-Unsubscribe header and of its page. */
export function unsubscribeUrl(appUrl: string, token: string): string {
  return `${appUrl}/mail/unsubscribe?token=${encodeURIComponent(token)}`
}

export class NotificationMailWorker {
  private readonly rounds: RepeatedFailureLog
  private timer: NodeJS.Timeout | undefined
  private round: Promise<void> | undefined
  private offSaid = false

  constructor(private readonly options: NotificationMailWorkerOptions) {
    this.rounds = new RepeatedFailureLog(options.log, 'notification mail', { event: 'notification-mail' })
  }

  start(intervalMs = NOTIFICATION_MAIL_INTERVAL_MS): void {
    if (this.timer) return
    if (!this.options.secret) {
      if (this.offSaid) return
      this.offSaid = true
      this.options.log.warn(
        { event: 'notification-mail' },
        'Notification mail is off: this BFF has neither the auth core API key (AUTH_CORE_API_KEYS) nor OPERATOR_TOKEN to ask the API which mails are due. Notifications still show in the app.',
      )
      return
    }
    this.timer = setInterval(() => {
      if (this.round) return
      this.tick().then(
        () => this.rounds.succeeded(),
        (err: unknown) => this.rounds.failed(err, 'notification mail could not be queued; the worker tries again in a few seconds'),
      )
    }, intervalMs)
    this.timer.unref()
  }

  async stop(): Promise<void> {
    clearInterval(this.timer)
    this.timer = undefined
    if (!this.round) return
    let timer: NodeJS.Timeout | undefined
    await Promise.race([this.round.catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, STOP_WAIT_MS)))])
    clearTimeout(timer)
  }

  /** One round: batches until none is full (or the round's bound). Rounds do not overlap in one process. How many mails were queued. */
  async tick(): Promise<number> {
    const previous = this.round
    let queued = 0
    const round = (async () => {
      await previous?.catch(() => undefined)
      for (let batch = 0; batch < ROUND_BATCHES_MAX; batch++) {
        const claims = await this.claim(NOTIFICATION_MAIL_BATCH)
        if (claims.length === 0) break
        queued += await this.write(claims)
        await this.acknowledge(claims)
        if (claims.length < NOTIFICATION_MAIL_BATCH) break
      }
    })()
    this.round = round
    try {
      await round
    } finally {
      if (this.round === round) this.round = undefined
    }
    return queued
  }

  /** The accounts a mail is due to, claimed for this worker (the first step of a round; tests call the steps one by one). */
  async claim(limit: number): Promise<NotificationMailClaim[]> {
    const answer = await this.call('/internal/notification-mail/claim', { limit })
    return (answer as { claims: NotificationMailClaim[] }).claims
  }

  /** Renders and writes one mail per claim to the outbox, under the claim's id; how many were new. */
  async write(claims: NotificationMailClaim[]): Promise<number> {
    const { emails, appUrl } = this.options
    const mails = claims.map((claim) => {
      const locale = isLocale(claim.language) ? claim.language : DEFAULT_LOCALE
      const link = unsubscribeUrl(appUrl, claim.unsubscribeToken)
      const mail: OutgoingMail = {
        ...emails.renderNotifications(locale, claim.email, claim.notifications, claim.more, { appUrl, unsubscribeUrl: link }),
        headers: { 'List-Unsubscribe': `<${link}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
      }
      return { id: claim.claimId, mail, kind: 'notification' as const, locale, userId: claim.userId }
    })
    return this.options.outbox.enqueue(mails)
  }

  /** The mails are in the outbox: the API marks what they carried as mailed. */
  async acknowledge(claims: NotificationMailClaim[]): Promise<void> {
    await this.call('/internal/notification-mail/queued', { claims: claims.map(({ claimId, userId }) => ({ claimId, userId })) })
  }

  private async call(path: string, body: unknown): Promise<unknown> {
    const response = await this.options.upstreamApi.request({
      method: 'POST',
      path,
      headers: { authorization: `Bearer ${this.options.secret ?? ''}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
    })
    if (response.status !== 200) throw new Error(`the API answered ${path} with ${response.status}`)
    return JSON.parse(response.body.toString('utf8')) as unknown
  }
}
