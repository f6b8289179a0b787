import type { FastifyPluginAsync, FastifyRequest } from 'fastify'
import { escapeHtml } from '../../../shared/web/html.ts'
import { isLoopbackHttpUrl } from '../../config.ts'
import { createError } from '../../http/errors.ts'
import { BffNotFound } from '../errors.ts'
import type { MailboxMailer } from './mailer.ts'
import { simplePage } from '../html-page.ts'

// /dev/mail: the local mailbox of embedded mode (no SMTP_URL), so whoever runs `npm start` can
// open a verification or reset link. The messages hold sign-in links, so only the browser of the
// person at this machine may read them:
// - the socket is loopback, and no forwarding header is present: behind a reverse proxy on the
//   same host (TRUST_PROXY) the socket is loopback for every visitor, and the proxy says so;
// - the Host is a loopback name, so a page on another domain that rebinds its DNS to 127.0.0.1
//   cannot read it from the visitor's own browser;
// - APP_URL is a loopback http:// address: a deployment never has a mailbox (and cannot start
//   without SMTP_URL, config.ts mailProblem);
// - and never with NODE_ENV=production (plugin.ts does not register these routes):
//   a proxy on the same host that adds no forwarding header passes the client's loopback Host
//   on, and nothing here can tell that request from the operator's own browser.
// Anything else is the ordinary not-found answer: nothing tells that the mailbox exists.

export const BffDevMailNotFound = createError('BFF_DEV_MAIL_NOT_FOUND', 'There is no such message in the local mailbox.', 404)

const LOOPBACK_SOCKET = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/
const LOOPBACK_HOST = /^(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/i
const FORWARDING_HEADERS = ['x-forwarded-for', 'forwarded', 'x-real-ip'] as const

function fromThisMachine(request: FastifyRequest): boolean {
  if (!LOOPBACK_SOCKET.test(request.socket.remoteAddress ?? '')) return false
  if (FORWARDING_HEADERS.some((name) => request.headers[name] !== undefined)) return false
  return LOOPBACK_HOST.test(request.headers.host ?? '')
}

const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; frame-ancestors 'none'; form-action 'none'"

const PAGE_STYLE =
  'body{font-family:system-ui,sans-serif;margin:0 auto;max-width:960px;padding:24px;color:#1d2433}table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:8px;border-bottom:1px solid #dde1e8}a{color:#3346d3}'

function page(title: string, body: string): string {
  return simplePage({ lang: 'en', title, noindex: true, head: `<style>${PAGE_STYLE}</style>`, body })
}

export const devMailRoutes: FastifyPluginAsync<{ mailbox: MailboxMailer; appUrl: string }> = async (app, { mailbox, appUrl }) => {
  const localApp = isLoopbackHttpUrl(appUrl)
  app.addHook('onRequest', async (request) => {
    if (!localApp || !fromThisMachine(request)) throw new BffNotFound(request.method, request.url.split('?')[0] ?? '/')
  })

  app.get('/dev/mail', async (_request, reply) => {
    const mails = await mailbox.list()
    const rows = mails
      .map((mail) => `<tr><td>${escapeHtml(mail.sentAt.replace('T', ' ').slice(0, 19))} UTC</td><td>${escapeHtml(mail.to)}</td><td><a href="/dev/mail/${mail.id}">${escapeHtml(mail.subject)}</a></td></tr>`)
      .join('')
    const body = `<h1>Local mailbox</h1><p>Mail the app sent while no SMTP server is configured (SMTP_URL), newest first. Only readable from this machine.</p>${
      mails.length ? `<table><thead><tr><th>Sent</th><th>To</th><th>Subject</th></tr></thead><tbody>${rows}</tbody></table>` : '<p>No mail yet.</p>'
    }`
    reply.header('content-security-policy', PAGE_CSP).header('cache-control', 'no-store')
    return reply.type('text/html; charset=utf-8').send(page('Local mailbox', body))
  })

  app.get<{ Params: { id: string } }>('/dev/mail/:id', async (request, reply) => {
    const mail = await mailbox.read(request.params.id)
    if (!mail) throw new BffDevMailNotFound()
    reply.header('content-security-policy', PAGE_CSP).header('cache-control', 'no-store')
    // The message as the recipient's mail program shows it: our own template, no script (CSP above).
    return reply.type('text/html; charset=utf-8').send(mail.html)
  })
}
