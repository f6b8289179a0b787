import fs from 'node:fs'
import path from 'node:path'
import i18next from 'i18next'
import { escapeHtml } from '../../../shared/web/html.ts'
import { DEFAULT_LOCALE, LOCALES, type Locale } from '../../../shared/locales.ts'
import type { DeviceName } from '../../../shared/account/user-agent.ts'
import type { Notification, NotificationData } from '../../../shared/catalogue/living.ts'
import type { OutgoingMail } from './mailer.ts'

// The emails the auth flows send, in the language of the person who asked for them (DESIGN.md
// §4.7): locales/<lng>/email.json, English filling any gap.

/** Mails with a link: verification, password reset, and the link that confirms a new email address. */
export type EmailKind = 'verify' | 'reset' | 'changeEmail'

/** What changed in the account's security: the parameter of the one security notice. */
export const SECURITY_CHANGES = [
  'authenticatorAdded',
  'authenticatorRemoved',
  'recoveryCodesRenewed',
  'passwordChanged',
  'passwordReset',
  'emailChanged',
  'sessionEnded',
  'otherSessionsEnded',
] as const
export type SecurityChange = (typeof SECURITY_CHANGES)[number]

export interface NoticeValues {
  /** When the change was made. */
  at: Date
  /** The browser and system of the request that made it (shared/account/user-agent.ts). */
  device: DeviceName
  ip: string
  forgotPasswordUrl: string
  profileUrl: string
  contact: string
  /** The address an email change made the account's (shown masked). */
  newEmail?: string
}

export class EmailTexts {
  private readonly i18n = i18next.createInstance()

  constructor(
    root: string,
    private readonly appName: string,
  ) {
    const resources = Object.fromEntries(
      LOCALES.map((lng) => [lng, { email: JSON.parse(fs.readFileSync(path.join(root, 'locales', lng, 'email.json'), 'utf8')) as Record<string, unknown> }]),
    )
    // Values are escaped where they are placed (HTML or text), not by i18next.
    void this.i18n.init({ resources, lng: DEFAULT_LOCALE, fallbackLng: DEFAULT_LOCALE, ns: ['email'], defaultNS: 'email', initAsync: false, interpolation: { escapeValue: false } })
  }

  private translator(locale: Locale) {
    // The client's typed resources do not cover this server-only namespace.
    const translate = this.i18n.t.bind(this.i18n) as unknown as (key: string, options: Record<string, unknown>) => string
    return (key: string, values: Record<string, unknown> = {}) => translate(key, { ...values, lng: locale, ns: 'email' })
  }

  render(kind: EmailKind, locale: Locale, to: string, link: string): OutgoingMail {
    const t = this.translator(locale)
    const values = { appName: this.appName, email: to }
    return this.compose(locale, to, t(`${kind}.subject`, values), [t('greeting'), t(`${kind}.intro`, values)], { link, label: t(`${kind}.action`) }, [t(`${kind}.validity`), t(`${kind}.ignore`)])
  }

  /**
   * A security notice (security-notices.ts): what changed — in the subject and the
   * first line — when (UTC, written the language's way), from which device and IP, and what to do
   * if it was not the owner: reset the password, then review the devices and authenticators on
   * the profile. The email change tells the address the account had, with the new one masked,
   * and whom to write to.
   */
  renderSecurityNotice(locale: Locale, to: string, change: SecurityChange, values: NoticeValues): OutgoingMail {
    const t = this.translator(locale)
    const when = new Intl.DateTimeFormat(locale, { year: 'numeric', month: 'long', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZone: 'UTC', timeZoneName: 'short' }).format(values.at)
    const device = t('notice.deviceName', { browser: values.device.browser ?? t('notice.unknownBrowser'), system: values.device.system ?? t('notice.unknownSystem') })
    const all = { appName: this.appName, email: to, newEmail: values.newEmail ? maskEmail(values.newEmail) : '', contact: values.contact, profileUrl: values.profileUrl }
    const details = [t('notice.when', { time: when }), t('notice.device', { device }), t('notice.ip', { ip: values.ip })]
    const ifNotYou = change === 'emailChanged' ? t('notice.ifNotYouEmail', all) : t('notice.ifNotYou', all)
    return this.compose(
      locale,
      to,
      t(`notice.subject.${change}`, all),
      // What to do comes before the button it points to ("with the button below").
      [t('greeting'), t(`notice.intro.${change}`, all), ...details, t('notice.ifYou'), ifNotYou],
      { link: values.forgotPasswordUrl, label: t('notice.action') },
      [],
    )
  }

  /**
   * A notification mail (server/bff/mail/notification-mail.ts): one event in the subject
   * ("New version of Blender: 4.5"), or the digest of every event since the last mail; each a line
   * with its program page's link; the notifications page; why the mail came and how to stop it.
   */
  renderNotifications(locale: Locale, to: string, notifications: Notification[], more: number, links: { appUrl: string; unsubscribeUrl: string }): OutgoingMail {
    const t = this.translator(locale)
    const values = { appName: this.appName }
    const lines = notifications.map((notification) => ({ text: this.notificationLine(locale, notification), link: `${links.appUrl}/programs/${encodeURIComponent(notification.programId)}` }))
    const only = notifications.length === 1 && more === 0 ? notifications[0] : undefined
    const subject = only ? this.notificationLine(locale, only, 'subject') : t('notifications.digestSubject', values)
    const intro = only ? t('notifications.introOne', values) : t('notifications.introDigest', values)
    const moreLine = more > 0 ? t('notifications.more', { countText: new Intl.NumberFormat(locale).format(more) }) : null
    const action = { link: `${links.appUrl}/@/notifications`, label: t('notifications.action') }
    const why = t('notifications.why', values)
    const stop = t('notifications.stop', values)
    const settings = t('notifications.settings', { profileUrl: `${links.appUrl}/@/my-profile` })
    const footer = t('footer', values)
    const text = [
      t('greeting'),
      intro,
      '',
      ...lines.flatMap((line) => [`- ${line.text}`, `  ${line.link}`]),
      ...(moreLine ? ['', moreLine] : []),
      '',
      `${action.label}: ${action.link}`,
      '',
      why,
      `${stop}: ${links.unsubscribeUrl}`,
      settings,
      '',
      '--',
      footer,
    ].join('\n')
    const p = (value: string, style = 'margin:0 0 16px') => `<p style="${style}">${value}</p>`
    const small = 'margin:0 0 8px;font-size:13px;color:#5b6478'
    const list = lines.map((line) => `<li style="margin:0 0 8px"><a href="${escapeHtml(line.link)}" style="color:#3346d3">${escapeHtml(line.text)}</a></li>`).join('\n')
    const html = `<!doctype html><html lang="${locale}"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>
<body style="margin:0;padding:24px;background:#f4f5f7;font-family:system-ui,-apple-system,'Segoe UI',sans-serif;color:#1d2433;line-height:1.5">
<div style="max-width:560px;margin:0 auto;background:#fff;border-radius:8px;padding:32px">
${p(escapeHtml(t('greeting')))}
${p(escapeHtml(intro))}
<ul style="margin:0 0 16px;padding-left:20px">
${list}
</ul>
${moreLine ? p(escapeHtml(moreLine)) : ''}
<p style="margin:24px 0"><a href="${escapeHtml(action.link)}" style="display:inline-block;background:#3346d3;color:#fff;text-decoration:none;padding:12px 20px;border-radius:6px;font-weight:600">${escapeHtml(action.label)}</a></p>
${p(escapeHtml(why), small)}
${p(`<a href="${escapeHtml(links.unsubscribeUrl)}" style="color:#3346d3">${escapeHtml(stop)}</a>`, small)}
${p(escapeHtml(settings), small)}
<p style="margin:24px 0 0;font-size:13px;color:#5b6478">${escapeHtml(footer)}</p>
</div></body></html>`
    return { to, subject, text, html }
  }

  /** One notification as a line of the mail (or, alone, its subject). */
  private notificationLine(locale: Locale, notification: Notification, form: 'line' | 'subject' = 'line'): string {
    const t = this.translator(locale)
    const key = (name: string) => `notifications.${form}.${name}`
    switch (notification.type) {
      case 'release': {
        const data = notification.data as NotificationData['release']
        return t(key('release'), { program: data.programName, version: data.version })
      }
      case 'price': {
        const data = notification.data as NotificationData['price']
        const money = (price: NotificationData['price']['before']) => {
          if (price === null || price.amount === 0) return t('notifications.free')
          const amount = new Intl.NumberFormat(locale, { style: 'currency', currency: price.currency }).format(price.amount)
          return price.period === 'month' || price.period === 'year' ? t(`notifications.per.${price.period}`, { amount }) : amount
        }
        return t(key('price'), { program: data.programName, before: money(data.before), after: money(data.after) })
      }
      case 'licence': {
        const data = notification.data as NotificationData['licence']
        return t(key('licence'), { program: data.programName, before: data.before, after: data.after })
      }
      default: {
        const data = notification.data as NotificationData['search']
        return t(key('search'), { program: data.programName, search: data.searchName })
      }
    }
  }

  /** The page of a mail's unsubscribe link (server/bff/mail/notification-mail.ts): its texts in one language. */
  unsubscribePage(locale: Locale): Record<'title' | 'question' | 'button' | 'done' | 'invalid' | 'expired' | 'failed', string> {
    const t = this.translator(locale)
    const values = { appName: this.appName }
    return {
      title: t('unsubscribe.title', values),
      question: t('unsubscribe.question', values),
      button: t('unsubscribe.button', values),
      done: t('unsubscribe.done', values),
      invalid: t('unsubscribe.invalid', values),
      expired: t('unsubscribe.expired', values),
      failed: t('unsubscribe.failed', values),
    }
  }

  private compose(locale: Locale, to: string, subject: string, paragraphs: string[], action: { link: string; label: string } | null, after: string[]): OutgoingMail {
    const t = this.translator(locale)
    const footer = t('footer', { appName: this.appName })
    const text = [...paragraphs, '', ...(action ? [`${action.label}: ${action.link}`, ''] : []), ...(after.length > 0 ? [...after, ''] : []), '--', footer].join('\n')
    const p = (value: string) => `<p style="margin:0 0 16px">${escapeHtml(value)}</p>`
    const button = action
      ? `<p style="margin:24px 0"><a href="${escapeHtml(action.link)}" style="display:inline-block;background:#3346d3;color:#fff;text-decoration:none;padding:12px 20px;border-radius:6px;font-weight:600">${escapeHtml(action.label)}</a></p>\n`
      : ''
    const fallback = action
      ? `<p style="margin:0 0 16px;font-size:13px;color:#5b6478">${escapeHtml(t('linkFallback'))}<br><a href="${escapeHtml(action.link)}" style="color:#3346d3;word-break:break-all">${escapeHtml(action.link)}</a></p>\n`
      : ''
    const html = `<!doctype html><html lang="${locale}"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>
<body style="margin:0;padding:24px;background:#f4f5f7;font-family:system-ui,-apple-system,'Segoe UI',sans-serif;color:#1d2433;line-height:1.5">
<div style="max-width:560px;margin:0 auto;background:#fff;border-radius:8px;padding:32px">
${paragraphs.map(p).join('\n')}
${button}${after.map(p).join('\n')}
${fallback}<p style="margin:24px 0 0;font-size:13px;color:#5b6478">${escapeHtml(footer)}</p>
</div></body></html>`
    return { to, subject, text, html }
  }
}

/**
 * An address shown to someone who may not own it: the first character of the local part, then
 * stars; the domain as it is, so the owner can still recognise their own provider.
 */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@')
  if (at <= 0) return '***'
  return `${[...email.slice(0, at)][0]}***${email.slice(at)}`
}
