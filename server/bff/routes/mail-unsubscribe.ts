import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { escapeHtml } from '../../../shared/web/html.ts'
import { isLocale, negotiateLocale, type Locale } from '../../../shared/locales.ts'
import type { EmailTexts } from '../mail/emails.ts'
import { simplePage } from '../html-page.ts'

// The one-click unsubscribe of notification mails (RFC 8058; docs/API.md "Notification
// mail and one-click unsubscribe"). The mail's List-Unsubscribe link is this page:
// - POST /mail/unsubscribe?token=… with the body `List-Unsubscribe=One-Click` (form-encoded) is what
//   a mail provider sends on the person's click: no session, no cookie, no anti-forgery header, from
//   any site. The signed token is the whole of the permission (the API checks it); this route, and
//   only it, has no anti-forgery check (none is added here: the check belongs to the /api proxy and
//   to the BFF's own /api and /auth writes, which keep it). Answers 200 when mail is off, 400 when
//   the token is not valid or too old (nothing changed).
// - GET shows a page with a button that makes that POST: a GET changes nothing, so the scanners
//   that open every link of a mail turn nothing off.

const FORM_BODY_LIMIT = 1_024
const TOKEN_MAX = 1_000

/** The language the token says its account had (only the page's language: the API checks the token itself). */
function tokenLanguage(token: string): Locale | undefined {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString('utf8')) as { l?: unknown }
    return isLocale(payload.l) ? payload.l : undefined
  } catch {
    return undefined
  }
}

function tokenOf(request: FastifyRequest): string | undefined {
  const token = (request.query as { token?: unknown }).token
  return typeof token === 'string' && token.length > 0 && token.length <= TOKEN_MAX ? token : undefined
}

async function mailUnsubscribeRoutes(app: FastifyInstance, opts: { emails: EmailTexts; rateLimitMax: number }): Promise<void> {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT }, (_request, body, done) =>
    done(null, new URLSearchParams(String(body))),
  )

  const languageOf = (request: FastifyRequest, token: string | undefined): Locale =>
    (token ? tokenLanguage(token) : undefined) ?? negotiateLocale(request.cookies?.lang, request.headers['accept-language'])

  const page = (reply: FastifyReply, status: number, locale: Locale, body: string): FastifyReply => {
    const texts = opts.emails.unsubscribePage(locale)
    return reply
      .code(status)
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .header('x-robots-tag', 'noindex')
      .type('text/html; charset=utf-8')
      .send(
        simplePage({ lang: locale, title: texts.title, noindex: true, body: `<main><h1>${escapeHtml(texts.title)}</h1>${body}</main>` }),
      )
  }
  const rateLimit = { rateLimit: { max: opts.rateLimitMax, timeWindow: 60_000 } }

  app.get('/mail/unsubscribe', { config: rateLimit, schema: { hide: true } }, async (request, reply) => {
    const token = tokenOf(request)
    const locale = languageOf(request, token)
    const texts = opts.emails.unsubscribePage(locale)
    if (!token) return page(reply, 400, locale, `<p>${escapeHtml(texts.invalid)}</p>`)
    // The button sends what a mail provider sends (RFC 8058), so both take one path.
    return page(
      reply,
      200,
      locale,
      `<p>${escapeHtml(texts.question)}</p><form method="post" action="/mail/unsubscribe?token=${escapeHtml(encodeURIComponent(token))}"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">${escapeHtml(texts.button)}</button></form>`,
    )
  })

  app.post('/mail/unsubscribe', { config: rateLimit, schema: { hide: true } }, async (request, reply) => {
    const token = tokenOf(request)
    const locale = languageOf(request, token)
    const texts = opts.emails.unsubscribePage(locale)
    const body = request.body instanceof URLSearchParams ? request.body : undefined
    if (!token || body?.get('List-Unsubscribe') !== 'One-Click') return page(reply, 400, locale, `<p>${escapeHtml(texts.invalid)}</p>`)
    let response
    try {
      response = await app.upstreamApi.request({
        method: 'POST',
        path: '/api/notifications/unsubscribe',
        headers: { 'content-type': 'application/json', accept: 'application/json', 'x-request-id': request.id },
        body: JSON.stringify({ token }),
      })
    } catch {
      // The API out of reach: its outage log says so once; the person may try again.
      return page(reply, 503, locale, `<p>${escapeHtml(texts.failed)}</p>`)
    }
    if (response.status === 200) return page(reply, 200, locale, `<p>${escapeHtml(texts.done)}</p>`)
    if (response.status === 400) {
      const code = (JSON.parse(response.body.toString('utf8')) as { code?: unknown }).code
      return page(reply, 400, locale, `<p>${escapeHtml(code === 'API_UNSUBSCRIBE_LINK_EXPIRED' ? texts.expired : texts.invalid)}</p>`)
    }
    request.log.warn({ upstreamStatus: response.status }, 'the product API did not turn notification mail off')
    return page(reply, 503, locale, `<p>${escapeHtml(texts.failed)}</p>`)
  })
}

export default fp(mailUnsubscribeRoutes, { name: 'mail-unsubscribe-routes', encapsulate: true, dependencies: ['@fastify/cookie', 'rate-limit', 'upstream-api'] })
