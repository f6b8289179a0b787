import t from 'tap'
import { browser, buildStack, lastMailLink, LogCapture } from '../../helpers.ts'

// The SDK's paths also take a tenant first (/auth/{tenantId}/…), and the pages take the tenant from
// an emailed link's `tenantId`. A tenant the auth core does not have — a link mangled by a mail
// program ("tenantId=publicnnThe", found by hand in the browser), or a guess — answered 500
// BFF_INTERNAL_ERROR with an error line: the core's 400 "AppId or tenantId not found" was a fault.
// It is the caller's address: 404 BFF_TENANT_NOT_FOUND, and the pages say the link is not valid.

const APP = 'http://localhost:3000'
const PASSWORD = 'correct horse battery'
const fields = (pairs: Record<string, string>) => ({ formFields: Object.entries(pairs).map(([id, value]) => ({ id, value })) })

t.test('an /auth path naming a tenant the core does not have is a 404 with its own code, never a 500', async (t) => {
  const logs = new LogCapture()
  const stack = await buildStack(t, { auth: true, bffLogStream: logs, env: { AUTH_RATE_LIMIT_MAX: '1000', LOG_LEVEL: 'info' } })
  const tab = browser(stack.bff)
  const calls: Array<['GET' | 'POST', string, unknown?]> = [
    ['POST', '/user/email/verify', { method: 'token', token: 'not-a-token' }],
    ['POST', '/user/password/reset', { method: 'token', token: 'not-a-token', ...fields({ password: 'a brand new passphrase' }) }],
    ['POST', '/signup', fields({ email: 'new@example.com', password: PASSWORD })],
    ['GET', '/emailpassword/email/exists?email=new%40example.com'],
    ['GET', '/loginmethods'],
  ]
  for (const tenant of ['nosuch', 'publicnnThe', 'PUBLIC']) {
    for (const [method, path, body] of calls) {
      const url = `/auth/${tenant}${path}`
      const response = method === 'GET' ? await tab.get(url) : await tab.post(url, body)
      t.equal(response.statusCode, 404, `${method} ${url}`)
      t.match(response.json(), { statusCode: 404, code: 'BFF_TENANT_NOT_FOUND', message: /tenant that does not exist/, requestId: String }, `${method} ${url}: its own code`)
    }
  }
  t.notOk((await tab.get('/auth/public/loginmethods')).statusCode >= 400, 'the tenant that exists still answers')
  t.equal((await tab.post('/auth/public/signup', fields({ email: 'new@example.com', password: PASSWORD }))).json().status, 'OK', 'and signs up')
  const lines = logs.lines.map((line) => JSON.parse(line) as { level: number; msg?: string; err?: { message?: string } })
  t.ok(lines.some((line) => line.msg === 'request completed'), 'the BFF logged its requests')
  t.same(lines.filter((line) => line.level >= 50).map((line) => line.err?.message ?? line.msg), [], 'no error line: it is not our fault')
})

t.test('a verification link whose tenant was mangled says the link is not valid, with and without the script', async (t) => {
  const stack = await buildStack(t, { auth: true, env: { AUTH_RATE_LIMIT_MAX: '1000' } })
  const tab = browser(stack.bff)
  t.equal((await tab.post('/auth/signup', fields({ email: 'mangled@example.com', password: PASSWORD }))).json().status, 'OK')
  const link = lastMailLink(stack, 'mangled@example.com')
  link.searchParams.set('tenantId', `${link.searchParams.get('tenantId') ?? 'public'}nnThe`)

  // The page's "Verify my email" sent before the script ran (server/bff/auth/page-forms.ts).
  const posted = await stack.bff.inject({
    method: 'POST',
    url: `${link.pathname}${link.search}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: APP, 'sec-fetch-site': 'same-origin', cookie: tab.jar.header('/verify-email') },
    payload: '',
  })
  t.equal(posted.statusCode, 400, 'an honest status')
  t.match(posted.headers['content-type'], /^text\/html/)
  t.match(posted.body, /data-testid="verify-invalid"/, 'the page says the link is not valid')

  // The same link with its tenant as sent still verifies: nothing was used up.
  const verified = await tab.post(`/auth/${link.searchParams.get('tenantId')!.replace(/nnThe$/, '')}/user/email/verify`, { method: 'token', token: link.searchParams.get('token') })
  t.equal(verified.json().status, 'OK')
})
