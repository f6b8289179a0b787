import { randomUUID } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import { Counter, Gauge, type Registry } from 'prom-client'
import type { Database } from '../../db/database.ts'
import { isDatabaseUnreachable } from '../../db/reachability.ts'
import { OutageLog, RepeatedFailureLog } from '../../http/outage-log.ts'
import type { Locale } from '../../../shared/locales.ts'
import { redactText } from '../../../shared/redaction.ts'
import { recipientHash } from './mail-quota.ts'
import type { Mailer, OutgoingMail } from './mailer.ts'

// The durable outbox of outgoing mail (with the mail server down a sign-up answered OK
// and its verification mail was never sent, not even once the server was back). Every mail is
// written to bff.mail_outbox before it is handed to the mail server, and tried at once:
// - a mail the asker waits on and can ask for again (a resend, a reset, an email-change link) is
//   'fail': when the try fails the caller is told (503) and nothing is left to send later;
// - a mail nobody can ask for again in that moment (the verification mail of a sign-up, the note
//   to an old address) is 'queue': when the try fails, or takes longer than a moment, the worker
//   sends it later, with exponential backoff and jitter, for at most a day;
// - a mail that must not delay what it tells of (a security notice) is 'later': as
//   'queue', but the caller waits only for the row to be written, not for the first try.
// Delivery is at least once (a sender that dies after the server took the mail leaves it to be
// sent again); every try carries the same Message-ID. Several BFF instances share the table: a
// sender claims rows with FOR UPDATE SKIP LOCKED and holds them for a lease, so one mail goes to
// one sender at a time. The message holds a link with its token: it is cleared once the mail is
// sent or given up, the row a day later, and the body is never logged.

/** 'emailChanged' is the old note to a former address, now a 'securityNotice' (rows written before may still wait). 'notification': a watched program's news. */
export type MailKind = 'verify' | 'reset' | 'changeEmail' | 'emailChanged' | 'securityNotice' | 'notification'
/** Mails with a link: a newer one sent makes the older ones still waiting pointless. */
const LINK_KINDS: ReadonlySet<MailKind> = new Set(['verify', 'reset', 'changeEmail'])
/** What /check-email shows of the verification mail (docs/API.md). */
export type MailState = 'sent' | 'queued' | 'failed'
/**
 * 'fail': the caller is told when the first try fails. 'queue': the worker tries again. 'later':
 * as 'queue', without waiting for the first try.
 */
export type WhenNotSent = 'fail' | 'queue' | 'later'

/** How long a sign-up waits for the first try before leaving the mail to the worker. */
export const MAIL_INLINE_WAIT_MS = 3_000
/** The first retry comes after 15–30 s; each one after waits twice as long … */
export const MAIL_RETRY_BASE_MS = 30_000
/** … up to 30–60 min between tries. */
export const MAIL_RETRY_MAX_MS = 60 * 60_000
/** A mail not sent within a day of being written is given up (the verification link is valid a day). */
export const MAIL_GIVE_UP_AFTER_MS = 24 * 60 * 60_000
/** Rows of sent and given-up mails (no message left in them) are deleted this long after. */
export const MAIL_PURGE_AFTER_MS = 24 * 60 * 60_000
/** How often the worker looks for mail that is due. */
export const MAIL_WORKER_INTERVAL_MS = 5_000
/** A sender holds a claimed row this long: more than the SMTP transport's own bounds (about 40 s). */
export const MAIL_CLAIM_LEASE_MS = 2 * 60_000
/** Mails one worker round claims at most. */
const BATCH = 20
/** How long closing waits for a worker round still running. */
const STOP_WAIT_MS = 2_000

/**
 * The wait after the `attempt`-th failed try: the base doubled per try up to the bound, then
 * "equal jitter" (between half and all of it), so the senders of many mails queued during one
 * outage do not all come back in the same second.
 */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(MAIL_RETRY_MAX_MS, MAIL_RETRY_BASE_MS * 2 ** Math.max(0, attempt - 1))
  return Math.round(ceiling / 2 + (ceiling / 2) * random())
}

/** What a log line and the row may say about a failed try: the transport's code and the server's status, never the message. */
function describeFailure(err: unknown): string {
  const e = err as { code?: unknown; responseCode?: unknown; message?: unknown }
  const code = typeof e.code === 'string' ? e.code : 'ERROR'
  const status = typeof e.responseCode === 'number' ? ` ${e.responseCode}` : ''
  const message = typeof e.message === 'string' ? `: ${e.message}` : ''
  // A refusal often names the recipient: kept a day in `last_error` and logged, so addresses go.
  return redactText(`${code}${status}${message}`.replace(/[\r\n]+/g, ' ')).slice(0, 300)
}

/** The server refused this one message for good (5xx to its envelope or data): trying again changes nothing. */
function isPermanent(err: unknown): boolean {
  const e = err as { code?: unknown; responseCode?: unknown }
  return typeof e.responseCode === 'number' && e.responseCode >= 500 && (e.code === 'EENVELOPE' || e.code === 'EMESSAGE')
}

/**
 * The mail server could not be reached (no answer of its own): the outbox's outage log has said so,
 * once per outage, so a request that fails for it writes no line of its own.
 */
export function mailServerUnreachable(err: unknown): boolean {
  return (err as { responseCode?: unknown } | null)?.responseCode === undefined
}

interface Row {
  id: string
  kind: MailKind
  user_id: string | null
  recipient: string
  subject: string
  text_body: string
  html_body: string
  headers?: Record<string, string> | null
  attempts: number
  created_at: string | number
}

export interface MailOutboxOptions {
  db: Database
  mailer: Mailer
  log: FastifyBaseLogger
  /** The clock of retries and purges; tests move it. */
  now?: (() => number) | undefined
  /** The jitter's source; tests fix it. */
  random?: () => number
  /** The service's metrics registry: the outbox's figures join /metrics. */
  registry?: Registry
}

export class MailOutbox {
  readonly mailer: Mailer
  private readonly db: Database
  private readonly log: FastifyBaseLogger
  private readonly now: () => number
  private readonly random: () => number
  private readonly sent: Counter<'kind'>
  private readonly failed: Counter<'kind'>
  /** A mail server that does not answer is one warn line when it begins and one when it ends. */
  private readonly outage: OutageLog
  /** A round that keeps failing (not for an outage) is one line when it begins and one when it ends. */
  private readonly rounds: RepeatedFailureLog
  private timer: NodeJS.Timeout | undefined
  private round: Promise<void> | undefined
  /** Sends started inline that outlived the wait: their outcome is still recorded. */
  private readonly pending = new Set<Promise<void>>()

  constructor(options: MailOutboxOptions) {
    this.db = options.db
    this.mailer = options.mailer
    this.log = options.log
    this.now = options.now ?? Date.now
    this.random = options.random ?? Math.random
    this.outage = new OutageLog(this.log, 'mail server', this.now)
    this.rounds = new RepeatedFailureLog(this.log, 'the mail outbox', { event: 'mail-outbox' })
    const registers = options.registry ? [options.registry] : []
    this.sent = new Counter({ name: 'softshelf_mail_sent_total', help: 'Mails handed to the mail server, by kind.', labelNames: ['kind'], registers })
    this.failed = new Counter({
      name: 'softshelf_mail_failed_total',
      help: 'Mails that will not be sent, by kind: given up after a day of tries, refused for good by the server, or failed while the asker was told so.',
      labelNames: ['kind'],
      registers,
    })
    if (options.registry) {
      // Read from the table at each scrape: the figures of every instance, as operators need them.
      // The registry collects both gauges at once: they share one query, and so one snapshot.
      let scrape: ReturnType<MailOutbox['stats']> | undefined
      const stats = () =>
        (scrape ??= this.stats().finally(() => {
          scrape = undefined
        }))
      new Gauge({
        name: 'softshelf_mail_outbox_queued',
        help: 'Mails waiting in the outbox to be sent (all instances).',
        registers,
        async collect() {
          this.set((await stats()).queued)
        },
      })
      new Gauge({
        name: 'softshelf_mail_outbox_oldest_queued_age_seconds',
        help: 'How long the oldest mail waiting in the outbox has waited (0 when none waits).',
        registers,
        async collect() {
          this.set((await stats()).oldestQueuedAgeMs / 1000)
        },
      })
    }
  }

  /**
   * Writes the mail and tries it at once. Resolves 'sent', or 'queued' when the worker will send
   * it ('queue'; always for 'later', which resolves once the row is written); throws the transport's error when the try failed ('fail': the row is marked
   * failed and nothing more is tried, the caller answers it).
   */
  async deliver(mail: OutgoingMail, about: { kind: MailKind; locale: Locale; userId?: string | undefined }, whenNotSent: WhenNotSent): Promise<'sent' | 'queued'> {
    const id = randomUUID()
    const now = this.now()
    await this.db.query(
      `INSERT INTO bff.mail_outbox (id, kind, user_id, recipient, locale, subject, text_body, html_body, status, attempts, next_attempt_at, claimed_until, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'queued', 1, $9, $10, $9)`,
      [id, about.kind, about.userId ?? null, mail.to, about.locale, mail.subject, mail.text, mail.html, now, now + MAIL_CLAIM_LEASE_MS],
    )
    const row: Row = { id, kind: about.kind, user_id: about.userId ?? null, recipient: mail.to, subject: mail.subject, text_body: mail.text, html_body: mail.html, attempts: 1, created_at: now }
    if (whenNotSent === 'fail') {
      try {
        await this.send(row)
      } catch (err) {
        await this.finish(row, 'failed', describeFailure(err), { askerTold: true })
        throw err
      }
      await this.finish(row, 'sent', null)
      return 'sent'
    }
    // The normal case stays instant; a slow or dead server leaves the mail to the worker. A try
    // that outlives the wait goes on, and its outcome is recorded when it ends (the row stays
    // claimed until then, so the worker does not send it a second time meanwhile).
    const attempt = this.tryOnce(row)
    const settled = attempt.then(
      () => undefined,
      (err: unknown) => this.log.warn({ err, event: 'mail-outbox' }, 'the outcome of a mail could not be recorded'),
    )
    this.pending.add(settled)
    void settled.finally(() => this.pending.delete(settled))
    if (whenNotSent === 'later') return 'queued'
    let timer: NodeJS.Timeout | undefined
    const outcome = await Promise.race([attempt, new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), MAIL_INLINE_WAIT_MS)))])
    clearTimeout(timer)
    return outcome === 'sent' ? 'sent' : 'queued'
  }

  /**
   * Writes mails the worker sends ('later', without a first try here), many in one statement: the
   * notification mails. Each `id` is the caller's and is the dedupe key: a mail whose id
   * is already in the outbox (written before a crash) is not written again. How many were written.
   */
  async enqueue(mails: Array<{ id: string; mail: OutgoingMail; kind: MailKind; locale: Locale; userId?: string | undefined }>): Promise<number> {
    if (mails.length === 0) return 0
    const now = this.now()
    // Column arrays (unnest), not one JSON document: the HTML bodies are most of the bytes, and
    // are not parsed again as JSON.
    const column = <T>(pick: (entry: (typeof mails)[number]) => T) => mails.map(pick)
    const { rowCount } = await this.db.query(
      `INSERT INTO bff.mail_outbox (id, kind, user_id, recipient, locale, subject, text_body, html_body, headers, status, attempts, next_attempt_at, created_at)
       SELECT x.id, x.kind, x.user_id, x.recipient, x.locale, x.subject, x.text_body, x.html_body, x.headers::jsonb, 'queued', 0, $10, $10
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[])
           AS x(id, kind, user_id, recipient, locale, subject, text_body, html_body, headers)
       ON CONFLICT (id) DO NOTHING`,
      [
        column((m) => m.id),
        column((m) => m.kind),
        column((m) => m.userId ?? null),
        column((m) => m.mail.to),
        column((m) => m.locale),
        column((m) => m.mail.subject),
        column((m) => m.mail.text),
        column((m) => m.mail.html),
        column((m) => (m.mail.headers ? JSON.stringify(m.mail.headers) : null)),
        now,
      ],
    )
    return rowCount
  }

  /**
   * The account's verification mail, for /check-email: 'sent' when one of the last day went out
   * (or none is on record), else 'queued' while one waits, else 'failed'.
   */
  async verificationState(userId: string): Promise<MailState> {
    const { rows } = await this.db.query<{ status: MailState }>(
      `SELECT status FROM bff.mail_outbox WHERE user_id = $1 AND kind = 'verify'
        ORDER BY CASE status WHEN 'sent' THEN 0 WHEN 'queued' THEN 1 ELSE 2 END LIMIT 1`,
      [userId],
    )
    return rows[0]?.status ?? 'sent'
  }

  async stats(): Promise<{ queued: number; oldestQueuedAgeMs: number }> {
    const { rows } = await this.db.query<{ queued: number; oldest: string | number | null }>(
      `SELECT count(*)::int AS queued, min(created_at) AS oldest FROM bff.mail_outbox WHERE status = 'queued'`,
    )
    const oldest = rows[0]?.oldest
    return { queued: rows[0]?.queued ?? 0, oldestQueuedAgeMs: oldest === null || oldest === undefined ? 0 : Math.max(0, this.now() - Number(oldest)) }
  }

  /**
   * One round of the worker: deletes what is past keeping, then sends what is due. Rounds do not
   * overlap in one process; a call during a round waits for it and then runs its own.
   */
  async tick(): Promise<void> {
    const previous = this.round
    const round = (async () => {
      await previous?.catch(() => undefined)
      await this.purge()
      await this.sendDue()
    })()
    this.round = round
    try {
      await round
    } finally {
      if (this.round === round) this.round = undefined
    }
  }

  start(intervalMs = MAIL_WORKER_INTERVAL_MS): void {
    if (this.timer) return
    this.timer = setInterval(() => {
      if (this.round) return
      this.tick().then(
        () => this.rounds.succeeded(),
        (err: unknown) => {
          // A database outage has its own log (one line when it begins); anything else is said here, once while it lasts.
          if (!isDatabaseUnreachable(err)) this.rounds.failed(err, 'the mail outbox could not be read')
        },
      )
    }, intervalMs)
    this.timer.unref()
  }

  /** Stops the worker; a round or inline try still running gets a moment, then is left to its lease. */
  async stop(): Promise<void> {
    clearInterval(this.timer)
    this.timer = undefined
    const running = [this.round, ...this.pending].filter(Boolean).map((p) => p!.catch(() => undefined))
    let timer: NodeJS.Timeout | undefined
    await Promise.race([Promise.all(running), new Promise<void>((resolve) => (timer = setTimeout(resolve, STOP_WAIT_MS)))])
    clearTimeout(timer)
  }

  private async purge(): Promise<void> {
    await this.db.query(`DELETE FROM bff.mail_outbox WHERE status <> 'queued' AND coalesce(sent_at, failed_at) <= $1`, [this.now() - MAIL_PURGE_AFTER_MS])
  }

  private async sendDue(): Promise<void> {
    const now = this.now()
    // One statement: rows another sender holds (its lease running, or its transaction locking
    // them right now) are skipped, never waited for nor taken twice.
    const { rows } = await this.db.query<Row>(
      `UPDATE bff.mail_outbox SET claimed_until = $1::bigint + $2::bigint, attempts = attempts + 1
        WHERE id IN (
          SELECT id FROM bff.mail_outbox
           WHERE status = 'queued' AND next_attempt_at <= $1 AND (claimed_until IS NULL OR claimed_until <= $1)
           ORDER BY next_attempt_at LIMIT $3
           FOR UPDATE SKIP LOCKED)
        RETURNING id, kind, user_id, recipient, subject, text_body, html_body, headers, attempts, created_at`,
      [now, MAIL_CLAIM_LEASE_MS, BATCH],
    )
    for (const [index, row] of rows.entries()) {
      const outcome = await this.tryOnce(row)
      if (outcome === 'sent') {
        this.log.info({ event: 'mail-sent', kind: row.kind, messageId: row.id, attempts: row.attempts }, 'a mail from the outbox was sent')
        continue
      }
      if (outcome.unreachable) {
        // The server cannot be reached: the rest of this round would fail the same way, each
        // after the transport's timeouts. They count the same failed try and wait their turn.
        for (const rest of rows.slice(index + 1)) await this.afterFailure(rest, outcome.error)
        break
      }
    }
  }

  /** One try of a claimed row; records the outcome. */
  private async tryOnce(row: Row): Promise<'sent' | { error: string; unreachable: boolean }> {
    try {
      await this.send(row)
    } catch (err) {
      const error = describeFailure(err)
      if (isPermanent(err)) await this.finish(row, 'failed', error)
      else await this.afterFailure(row, error)
      return { error, unreachable: !isPermanent(err) && mailServerUnreachable(err) }
    }
    await this.finish(row, 'sent', null)
    return 'sent'
  }

  /** Hands one mail to the mailer; whether the server answered feeds the outage log (not a line per mail). */
  private async send(row: Row): Promise<void> {
    try {
      await this.mailer.send({ to: row.recipient, subject: row.subject, text: row.text_body, html: row.html_body, messageId: row.id, ...(row.headers ? { headers: row.headers } : {}) })
    } catch (err) {
      this.heard(err)
      throw err
    }
    this.outage.reached()
  }

  /** Whether mail could go out now (the mailer's own check), said to the outage log like a send. */
  async checkMailer(): Promise<void> {
    try {
      await this.mailer.check()
    } catch (err) {
      this.heard(err)
      throw err
    }
    this.outage.reached()
  }

  /** A failure feeds the outage log: unreachable, or the server answered (it is up). */
  private heard(err: unknown): void {
    if (mailServerUnreachable(err)) this.outage.unreachable(describeFailure(err))
    else this.outage.reached()
  }

  /** A failed try: again after the backoff, or given up once a day has passed. */
  private async afterFailure(row: Row, error: string): Promise<void> {
    const now = this.now()
    const giveUpAt = Number(row.created_at) + MAIL_GIVE_UP_AFTER_MS
    if (now >= giveUpAt) {
      await this.finish(row, 'failed', error)
      return
    }
    // The last try comes at the day's end, not after it.
    const next = Math.min(now + retryDelayMs(row.attempts, this.random), giveUpAt)
    await this.db.query(`UPDATE bff.mail_outbox SET next_attempt_at = $2, claimed_until = NULL, last_error = $3 WHERE id = $1 AND status = 'queued'`, [row.id, next, error])
  }

  /** Sent or given up: the message (the link and its token) is cleared at once. */
  private async finish(row: Row, status: 'sent' | 'failed', error: string | null, options: { askerTold?: boolean } = {}): Promise<void> {
    const now = this.now()
    await this.db.query(
      `UPDATE bff.mail_outbox SET status = $2, ${status === 'sent' ? 'sent_at' : 'failed_at'} = $3, last_error = $4, claimed_until = NULL,
              recipient = NULL, subject = NULL, text_body = NULL, html_body = NULL, headers = NULL
        WHERE id = $1`,
      [row.id, status, now, error],
    )
    if (status === 'sent') {
      this.sent.inc({ kind: row.kind })
      // A newer link went out: older ones of its kind still waiting for this account would only
      // confuse (and their tokens need not be kept). One a sender holds right now may still go out.
      // Notices are not links: each tells of its own change, and every one must arrive.
      if (row.user_id !== null && LINK_KINDS.has(row.kind)) {
        await this.db.query(`DELETE FROM bff.mail_outbox WHERE user_id = $1 AND kind = $2 AND status = 'queued' AND id <> $3 AND created_at <= $4`, [
          row.user_id,
          row.kind,
          row.id,
          Number(row.created_at),
        ])
      }
      return
    }
    this.failed.inc({ kind: row.kind })
    const about = { kind: row.kind, messageId: row.id, recipientHash: recipientHash(row.recipient), attempts: row.attempts, error }
    // Its asker got 503 and may ask again: an answer, not a fault. The server out of reach is the
    // outage log's; a server that refused it is said by the caller.
    if (options.askerTold) this.log.info({ event: 'mail-not-sent', ...about }, 'a mail could not be sent; its asker was told')
    else this.log.error({ event: 'mail-given-up', ...about }, 'a mail will not be sent')
  }
}
