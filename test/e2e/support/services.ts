import http from 'node:http'
import { startOidcProvider } from '../../oidc-provider.ts'
import { decodeQuotedPrintable, startSmtpServer } from '../../smtp-server.ts'
import { startSentrySink } from '../../sentry-sink.ts'
import { startStripeFake } from '../../stripe-fake.ts'
import { startOutsideScripts } from './outside-scripts.ts'
import { E2E_CHAT_WIDGET_PORT, E2E_MAIL_PORT, E2E_OIDC_PORT, E2E_PORT, E2E_SENTRY_PORT, E2E_SMTP_PORT, E2E_STRIPE, E2E_STRIPE_PORT, E2E_TAG_MANAGER_PORT, OIDC_CLIENT } from './ports.ts'

// The outside services the browser tests need, as real local servers (DESIGN.md §4.13): an SMTP
// server that keeps what it receives (readable at GET /messages?to= on the mail port) and an
// OpenID Connect provider with its development login and consent pages, and the two outside
// script hosts (a chat widget's loader, a tag manager), the error tracker's envelope
// sink and the fake of Stripe. Playwright starts this
// process beside the app and stops it after the run.

interface Message {
  to: string[]
  subject: string
  links: string[]
}

const cleanups: Array<() => unknown> = []
const owner = { teardown: (fn: () => unknown) => void cleanups.push(fn) }
const smtp = await startSmtpServer(owner, E2E_SMTP_PORT)

function parse(raw: string, to: string[]): Message {
  const body = decodeQuotedPrintable(raw)
  return {
    to: to.map((address) => address.toLowerCase()),
    subject: /^Subject: (.*)$/m.exec(body)?.[1]?.trim() ?? '',
    links: [...new Set(body.match(/https?:\/\/[^\s"<>]+/g) ?? [])].map((link) => link.replace(/&amp;/g, '&')),
  }
}

const mailbox = http.createServer((request, response) => {
  const url = new URL(request.url ?? '/', 'http://127.0.0.1')
  if (url.pathname === '/healthz') return response.end('ok')
  if (url.pathname !== '/messages') return response.writeHead(404).end()
  const to = (url.searchParams.get('to') ?? '').toLowerCase()
  response.setHeader('content-type', 'application/json')
  const messages = smtp.received.map((mail) => parse(mail.raw, mail.to))
  response.end(JSON.stringify(messages.filter((message) => message.to.includes(to))))
})
await new Promise<void>((resolve) => mailbox.listen(E2E_MAIL_PORT, '127.0.0.1', resolve))
cleanups.push(() => new Promise<void>((resolve) => mailbox.close(() => resolve())))

const provider = await startOidcProvider(owner, `http://127.0.0.1:${E2E_PORT}/auth-callback/oidc`, E2E_OIDC_PORT)
if (provider.clientId !== OIDC_CLIENT.id || provider.clientSecret !== OIDC_CLIENT.secret) throw new Error('the test provider changed its client')

cleanups.push(await startOutsideScripts(E2E_CHAT_WIDGET_PORT, E2E_TAG_MANAGER_PORT))

// The error tracker's stand-in; what it received is at GET /envelopes on its port.
const sentrySink = await startSentrySink(E2E_SENTRY_PORT)
cleanups.push(() => sentrySink.close())
// Stripe's endpoints and hosted page; "Pay" also delivers the signed webhook to the app.
const stripe = await startStripeFake(owner, { secretKey: E2E_STRIPE.secretKey, port: E2E_STRIPE_PORT })
stripe.deliverTo({ url: `http://127.0.0.1:${E2E_PORT}/api/stripe/webhook`, secret: E2E_STRIPE.webhookSecret })

const stop = async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
  process.exit(0)
}
process.on('SIGTERM', () => void stop())
process.on('SIGINT', () => void stop())
