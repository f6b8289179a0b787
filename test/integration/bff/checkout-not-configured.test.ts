import t from 'tap'
import { LOCALE_COOKIE_NAME } from '../../../shared/constants.ts'
import { buildStack, LogCapture, signedInTab } from '../../helpers.ts'

// Without STRIPE_SECRET_KEY, the page Stripe would return to offered "Check again" for
// ever and each look wrote an error line with a stack trace. A server without card payments says
// so, once and in the visitor's language; it is the operator's choice, not a fault: no error line.

const errorLines = (logs: LogCapture) => logs.lines.filter((line) => (JSON.parse(line) as { level: number }).level >= 50)

t.test('without Stripe, /stripe/success says card payments are not set up here, and nothing is logged as an error', async (t) => {
  const bffLogs = new LogCapture()
  const apiLogs = new LogCapture()
  const stack = await buildStack(t, { auth: true, env: { LOG_LEVEL: 'info' }, bffLogStream: bffLogs, apiLogStream: apiLogs })
  t.equal(stack.config.stripe, undefined, 'no card payments on this server')
  const tab = await signedInTab(stack, 'no-stripe@example.com')

  for (const url of ['/stripe/success?session_id=cs_test_a1b2c3', '/stripe/success/?session_id=cs_test_a1b2c3', '/Stripe/Success?session_id=cs_test_a1b2c3']) {
    const page = await tab.get(url, { accept: 'text/html' })
    t.equal(page.statusCode, 200, url)
    t.match(page.body, /data-outcome="notConfigured"/, url)
    t.match(page.body, /Card payments are not set up here/, url)
    t.match(page.body, /nothing was charged/)
    t.notMatch(page.body, /<button[^>]*>Check again</, `${url}: nothing to check again`)
  }
  const german = await tab.get('/stripe/success?session_id=cs_test_a1b2c3', { accept: 'text/html', cookie: `${tab.jar.header('/')}; ${LOCALE_COOKIE_NAME}=de` })
  t.match(german.body, /Kartenzahlungen sind hier nicht eingerichtet/)
  t.notMatch(german.body, /<button[^>]*>Erneut prüfen</)

  // The API says the same to any caller, through the BFF as directly: a fact of this server, not an outage.
  const read = await tab.get('/api/user/checkout/cs_test_a1b2c3')
  t.equal(read.statusCode, 503)
  t.equal(read.json().code, 'CHECKOUT_NOT_CONFIGURED')
  t.match(read.json().message, /Card payments are not set up on this server/)
  t.equal(read.headers['retry-after'], undefined, 'trying again later changes nothing')
  const buy = await tab.post('/api/user/checkout', { programId: 'reaper' })
  t.equal(buy.statusCode, 503)
  t.equal(buy.json().code, 'CHECKOUT_NOT_CONFIGURED')

  // Streaming without clusters is the same kind of answer: the menu does not offer it, and a caller
  // who asks anyway hears so, with no error line either.
  const stream = await tab.post('/api/user/assign-cluster', { programId: 'blender', keyboardLayout: 'en-us' })
  t.equal(stream.statusCode, 503)
  t.equal(stream.json().code, 'STREAMING_NOT_CONFIGURED')

  t.same(errorLines(bffLogs), [], 'no error line in the BFF log')
  t.same(errorLines(apiLogs), [], 'no error line in the API log')
  t.notMatch(apiLogs.text + bffLogs.text, /"stack"/, 'no stack trace anywhere')
  t.ok(apiLogs.lines.some((line) => line.includes('/api/user/checkout/cs_test_a1b2c3')), 'the log was captured')
})
