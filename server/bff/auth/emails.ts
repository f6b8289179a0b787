import fs from 'node:fs'
import path from 'node:path'
import i18next from 'i18next'
import { escapeHtml } from '../../../shared/html.ts'
import { DEFAULT_LOCALE, LOCALES, type Locale } from '../../../shared/locales.ts'
import type { OutgoingMail } from './mailer.ts'

// The emails the auth flows send, in the language of the person who asked for them (DESIGN.md
// §4.7): locales/<lng>/email.json, English filling any gap.

export type EmailKind = 'verify' | 'reset'

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

  render(kind: EmailKind, locale: Locale, to: string, link: string): OutgoingMail {
    // The client's typed resources do not cover this server-only namespace.
    const translate = this.i18n.t.bind(this.i18n) as unknown as (key: string, options: Record<string, unknown>) => string
    const t = (key: string, values: Record<string, unknown> = {}) => translate(key, { ...values, lng: locale, ns: 'email' })
    const values = { appName: this.appName, email: to }
    const subject = t(`${kind}.subject`, values)
    const paragraphs = [t('greeting'), t(`${kind}.intro`, values)]
    const after = [t(`${kind}.validity`), t(`${kind}.ignore`)]
    const footer = t('footer', values)
    const text = [...paragraphs, '', `${t(`${kind}.action`)}: ${link}`, '', ...after, '', '--', footer].join('\n')
    const p = (value: string) => `<p style="margin:0 0 16px">${escapeHtml(value)}</p>`
    const html = `<!doctype html><html lang="${locale}"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>
<body style="margin:0;padding:24px;background:#f4f5f7;font-family:system-ui,-apple-system,'Segoe UI',sans-serif;color:#1d2433;line-height:1.5">
<div style="max-width:560px;margin:0 auto;background:#fff;border-radius:8px;padding:32px">
${paragraphs.map(p).join('\n')}
<p style="margin:24px 0"><a href="${escapeHtml(link)}" style="display:inline-block;background:#3346d3;color:#fff;text-decoration:none;padding:12px 20px;border-radius:6px;font-weight:600">${escapeHtml(t(`${kind}.action`))}</a></p>
${after.map(p).join('\n')}
<p style="margin:0 0 16px;font-size:13px;color:#5b6478">${escapeHtml(t('linkFallback'))}<br><a href="${escapeHtml(link)}" style="color:#3346d3;word-break:break-all">${escapeHtml(link)}</a></p>
<p style="margin:24px 0 0;font-size:13px;color:#5b6478">${escapeHtml(footer)}</p>
</div></body></html>`
    return { to, subject, text, html }
  }
}
