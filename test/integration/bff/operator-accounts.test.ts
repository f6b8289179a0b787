import t from 'tap'
import { ACCOUNT_DISABLED_MESSAGE } from '../../../shared/constants.ts'
import { browser, buildStack, confirmedAuthenticator, mailsIn, operatorTab, signedInTab, waitUntil } from '../../helpers.ts'

// The operator console's accounts: find accounts with the auth core's search, look at
// one, disable it with a reason (its sessions end, it sees the disabled message and
// API_ACCOUNT_DISABLED) and enable it, end its sessions; support and admin may, an editor may not;
// every action is in the audit log. Through the BFF, as the console calls it.

const PASSWORD = 'correct horse battery'
// The polls below ask many times a second: the per-account limit (decision 027) stays out of it.
const stack = await buildStack(t, { auth: true, env: { AUTH_RATE_LIMIT_MAX: '1000', RATE_LIMIT_MAX: '100000', RATE_LIMIT_ACCOUNT_MAX: '100000' } })
type Tab = Awaited<ReturnType<typeof signedInTab>>

const support = await operatorTab(stack, 'support@softshelf.test', ['support'])
const admin = await operatorTab(stack, 'admin@softshelf.test', ['admin'])
const editor = await operatorTab(stack, 'editor@softshelf.test', ['editor'])
const anna = await signedInTab(stack, 'anna.berg@mailhost.example')
const annaId = (await anna.get('/api/user')).json().id as string
await signedInTab(stack, 'bob@annex.example')
await signedInTab(stack, 'carol@example.org')
const dora = await signedInTab(stack, 'dora@example.org')
const doraId = (await dora.get('/api/user')).json().id as string
const supportId = (await support.get('/api/user')).json().id as string

const signIn = async (email: string) => {
  const tab = browser(stack.bff)
  const answer = await tab.post('/auth/signin', { formFields: [{ id: 'email', value: email }, { id: 'password', value: PASSWORD }] })
  t.equal(answer.json().status, 'OK', `${email} signs in`)
  return tab
}
const emailsOf = (tab: Tab, query: string) => tab.get(`/api/operator/users?email=${encodeURIComponent(query)}`).then((r) => (r.json().users as Array<{ email: string }>).map((u) => u.email).sort())
const auditOf = async (target: string) =>
  (await stack.db.query<{ actor_email: string; action: string; before: unknown; after: unknown; request_id: string }>('SELECT actor_email, action, before, after, request_id FROM api.audit_log WHERE target = $1 ORDER BY id', [target])).rows

t.test('who may: support and admin; an editor, a plain user and a signed-out caller may not', async (t) => {
  const plain = await signedInTab(stack, 'plain@example.org')
  const routes: Array<[method: 'GET' | 'POST', path: string, body?: unknown]> = [
    ['GET', '/api/operator/users?email=anna'],
    ['GET', `/api/operator/users/${annaId}`],
    ['POST', `/api/operator/users/${annaId}/disable`, { reason: 'test' }],
    ['POST', `/api/operator/users/${annaId}/enable`],
    ['POST', `/api/operator/users/${annaId}/sessions/end`],
    ['POST', `/api/operator/users/${annaId}/verification/resend`],
  ]
  for (const [method, path, body] of routes) {
    for (const [who, tab] of [['an editor', editor], ['a user without a role', plain]] as const) {
      const answer = method === 'GET' ? await tab.get(path) : await tab.post(path, body ?? {})
      t.equal(answer.statusCode, 403, `${who}: ${method} ${path}`)
      t.equal(answer.json().code, 'BFF_PERMISSION_DENIED', 'refused by the BFF before the API')
    }
    const signedOut = browser(stack.bff)
    const answer = method === 'GET' ? await signedOut.get(path) : await signedOut.post(path, body ?? {})
    t.equal(answer.statusCode, 401, `signed out: ${method} ${path}`)
  }
  t.equal((await support.get('/api/operator/users?email=anna')).statusCode, 200, 'support may')
  t.equal((await admin.get('/api/operator/users?email=anna')).statusCode, 200, 'an admin may')
  t.same(await auditOf(`user:${annaId}`), [], 'nothing refused was done')
  t.equal((await anna.get('/api/user')).statusCode, 200, 'anna is untouched')
})

t.test('the search: a prefix of the address or of its domain, several terms separated by ";"', async (t) => {
  t.same(await emailsOf(support, 'anna'), ['anna.berg@mailhost.example'], 'the start of the address')
  t.same(await emailsOf(support, 'ANNA'), ['anna.berg@mailhost.example'], 'in any case')
  t.same(await emailsOf(support, 'mailhost'), ['anna.berg@mailhost.example'], 'the start of the domain')
  t.same(await emailsOf(support, 'anna;carol'), ['anna.berg@mailhost.example', 'carol@example.org'], 'two terms')
  t.same(await emailsOf(support, ' carol ; '), ['carol@example.org'], 'padding and an empty term are ignored')
  t.same(await emailsOf(support, 'nobody-here'), [], 'no match')
  t.same(await emailsOf(support, 'berg'), [], 'not the middle of the address')
  t.same(await emailsOf(support, 'host'), [], 'nor of the domain')
  t.same(await emailsOf(support, 'anna%'), [], 'a LIKE wildcard is a character like any other')

  const row = (await support.get('/api/operator/users?email=anna')).json()
  t.same(row, { users: [{ id: annaId, email: 'anna.berg@mailhost.example', joined: row.users[0].joined, verified: true, disabled: false }], next: null })
  t.ok(Date.parse(row.users[0].joined) > Date.now() - 600_000, 'joined is the time the account was made')

  for (const query of ['', '%20', ';', '%20;%20']) {
    const empty = await support.get(`/api/operator/users?email=${query}`)
    t.equal(empty.statusCode, 400, `email=${query}`)
    t.match(empty.json(), { code: 'API_VALIDATION_FAILED', message: /email/ })
  }
  const missing = await support.get('/api/operator/users')
  t.equal(missing.statusCode, 400)
  t.match(missing.json().message, /email/)
})

t.test('the search pages with next', async (t) => {
  for (let i = 0; i < 21; i++) await stack.authCore!.inject({
    method: 'POST',
    url: '/recipe/signup',
    headers: { 'api-key': 'test-core-api-key-0123456789', 'cdi-version': '5.4', 'content-type': 'application/json' },
    payload: { email: `pager${String(i).padStart(2, '0')}@paging.example`, password: PASSWORD },
  })
  const first = (await support.get('/api/operator/users?email=pager')).json()
  t.equal(first.users.length, 20)
  t.type(first.next, 'string')
  const second = (await support.get(`/api/operator/users?email=pager&next=${encodeURIComponent(first.next)}`)).json()
  t.same(second.users.map((u: { email: string }) => u.email), ['pager20@paging.example'])
  t.equal(second.next, null)
  t.equal(second.users[0].disabled, false, 'an account with no product record yet is not disabled')
  const forged = await support.get('/api/operator/users?email=pager&next=bm90LWEtdG9rZW4')
  t.equal(forged.statusCode, 400)
  t.match(forged.json(), { code: 'API_VALIDATION_FAILED', message: /next/ })
})

t.test('one account: the core\'s facts with the product\'s record', async (t) => {
  await confirmedAuthenticator(anna)
  t.equal((await anna.post('/api/user/program/blender')).statusCode, 200)
  await stack.db.query(
    `INSERT INTO api.purchases (user_id, program_id, checkout_session_id, kind, amount_minor, currency, period, payment_intent_id, status, purchased_at)
     VALUES ($1, 'blender', 'cs_test_operator', 'payment', 1200, 'EUR', 'one-time', 'pi_test', 'active', now())`,
    [annaId],
  )
  const second = await signIn('anna.berg@mailhost.example')
  t.ok(second, 'a second session')
  const answer = await support.get(`/api/operator/users/${annaId}`)
  t.equal(answer.statusCode, 200)
  t.equal(answer.headers['cache-control'], 'no-store')
  const detail = answer.json()
  t.match(detail, {
    id: annaId,
    email: 'anna.berg@mailhost.example',
    verified: true,
    authenticator: true,
    roles: [],
    librarySize: 1,
    purchases: [{ programId: 'blender', kind: 'payment', status: 'active', amount: '€12.00', checkoutSessionId: 'cs_test_operator' }],
    disabled: null,
  })
  t.equal(detail.sessions.count, 2, 'two live sessions')
  t.equal(detail.sessions.list.length, 2)
  for (const session of detail.sessions.list) t.ok(Date.parse(session.lastUsedAt) >= Date.parse(session.createdAt))
  t.notOk(JSON.stringify(detail).includes('handle'), 'no session handle leaves')

  const supportDetail = (await admin.get(`/api/operator/users/${supportId}`)).json()
  t.same(supportDetail.roles, (await stack.authCore!.inject({ url: `/recipe/user/roles?userId=${supportId}`, headers: { 'api-key': 'test-core-api-key-0123456789', 'cdi-version': '5.4' } })).json().roles, 'the roles the core holds')
  t.equal(supportDetail.authenticator, false)

  const unknown = await support.get('/api/operator/users/no-such-user')
  t.equal(unknown.statusCode, 404)
  t.equal(unknown.json().code, 'API_USER_NOT_FOUND')
})

t.test('disable: a reason is required; the account\'s sessions end and it sees the disabled message; enable', async (t) => {
  for (const body of [{}, { reason: '' }, { reason: '   ' }, { reason: 'x'.repeat(501) }]) {
    const refused = await support.post(`/api/operator/users/${doraId}/disable`, body)
    t.equal(refused.statusCode, 400, JSON.stringify(body).slice(0, 40))
    t.match(refused.json(), { code: 'API_VALIDATION_FAILED', message: /reason/ })
  }
  t.equal((await dora.get('/api/user')).statusCode, 200, 'not disabled by a refused call')

  const disabled = await support.post(`/api/operator/users/${doraId}/disable`, { reason: 'Chargeback fraud, ticket 4411' })
  t.equal(disabled.statusCode, 200)
  t.match(disabled.json(), { id: doraId, disabled: { reason: 'Chargeback fraud, ticket 4411', by: { id: supportId, email: 'support@softshelf.test' } }, sessions: { count: 0, list: [] } })

  // Within 2 seconds the signed-in tab is refused: API_ACCOUNT_DISABLED while its token still
  // passes, then signed out (its session ended, the revocation list read).
  const seen = new Set<string>()
  await waitUntil(async () => {
    const answer = await dora.get('/api/user')
    seen.add(answer.statusCode === 403 ? answer.json().code : String(answer.statusCode))
    return answer.statusCode === 401
  }, 2_000)
  t.ok([...seen].every((outcome) => outcome === 'API_ACCOUNT_DISABLED' || outcome === '401'), `only refusals: ${[...seen].join(', ')}`)
  t.equal((await dora.post('/auth/session/refresh')).statusCode, 401, 'the session cannot be refreshed: signed out')

  const again = await signIn('dora@example.org')
  const api = await again.get('/api/user')
  t.equal(api.statusCode, 403, 'signing in again: the API refuses')
  t.match(api.json(), { code: 'API_ACCOUNT_DISABLED', message: ACCOUNT_DISABLED_MESSAGE })
  for (const path of ['/@/library', '/@/my-profile', '/@/files']) {
    const page = await again.get(path, { accept: 'text/html' })
    t.equal(page.statusCode, 403, path)
    t.match(page.body, ACCOUNT_DISABLED_MESSAGE)
  }

  const view = (await support.get(`/api/operator/users/${doraId}`)).json()
  t.match(view.disabled, { reason: 'Chargeback fraud, ticket 4411', by: { email: 'support@softshelf.test' } })
  t.ok(Date.parse(view.disabled.at) > Date.now() - 60_000)
  t.equal((await support.get('/api/operator/users?email=dora')).json().users[0].disabled, true, 'the search shows it')

  const enabled = await admin.post(`/api/operator/users/${doraId}/enable`)
  t.equal(enabled.statusCode, 200)
  t.equal(enabled.json().disabled, null)
  t.equal((await again.get('/api/user')).statusCode, 200, 'the account works again')

  const entries = await auditOf(`user:${doraId}`)
  t.match(entries, [
    { actor_email: 'support@softshelf.test', action: 'user.disable', before: { disabled: false, reason: null, by: null, disabledAt: null }, after: { disabled: true, reason: 'Chargeback fraud, ticket 4411', by: { id: supportId, email: 'support@softshelf.test' } } },
    { actor_email: 'admin@softshelf.test', action: 'user.enable', before: { disabled: true, reason: 'Chargeback fraud, ticket 4411' }, after: { disabled: false, reason: null, by: null, disabledAt: null } },
  ])
  t.equal(entries[0]!.request_id, disabled.headers['x-request-id'], 'the entry names the request')
  // Enabling it again changes nothing, and records nothing.
  t.equal((await admin.post(`/api/operator/users/${doraId}/enable`)).statusCode, 200)
  t.equal((await auditOf(`user:${doraId}`)).length, 2, 'no entry for a change that changed nothing')

  const unknown = await support.post('/api/operator/users/no-such-user/disable', { reason: 'x' })
  t.equal(unknown.statusCode, 404)
  t.equal(unknown.json().code, 'API_USER_NOT_FOUND')
  t.equal((await support.post('/api/operator/users/no-such-user/enable')).statusCode, 404)
})

t.test('an operator cannot disable themselves, in any spelling of the id', async (t) => {
  for (const id of [supportId, supportId.toUpperCase(), encodeURIComponent(` ${supportId} `)]) {
    const refused = await support.post(`/api/operator/users/${id}/disable`, { reason: 'oops' })
    t.equal(refused.statusCode, 409, id)
    t.equal(refused.json().code, 'API_CANNOT_DISABLE_SELF')
  }
  t.equal((await support.get('/api/operator/users?email=support')).statusCode, 200, 'still working')
  t.same(await auditOf(`user:${supportId}`), [])
})

t.test('end sessions: every session of the account ends, audited', async (t) => {
  const carol = await signIn('carol@example.org')
  const carolId = (await carol.get('/api/user')).json().id as string
  await signIn('carol@example.org')
  const ended = await support.post(`/api/operator/users/${carolId}/sessions/end`)
  t.equal(ended.statusCode, 200)
  t.ok(ended.json().sessionsEnded >= 2, `${ended.json().sessionsEnded} ended`)
  t.equal((await carol.post('/auth/session/refresh')).statusCode, 401, 'signed out')
  t.equal((await support.get(`/api/operator/users/${carolId}`)).json().sessions.count, 0)
  t.match(await auditOf(`user:${carolId}`), [{ action: 'user.sessions.end', actor_email: 'support@softshelf.test', after: { sessions: 0 } }])
  t.equal((await support.post('/api/operator/users/no-such-user/sessions/end')).statusCode, 404)
})

t.test('resend verification: a new link to an account whose address is not verified, audited; the BFF sends it', async (t) => {
  const fresh = browser(stack.bff)
  const signUp = await fresh.post('/auth/signup', { formFields: [{ id: 'email', value: 'erin@unverified.example' }, { id: 'password', value: PASSWORD }] })
  t.equal(signUp.json().status, 'OK')
  const erinId = signUp.json().user.id as string
  const before = mailsIn(stack.config.dataDir, 'erin@unverified.example').length
  const unverified = (await support.get('/api/operator/users?email=erin')).json().users[0]
  t.equal(unverified.verified, false, 'the search says it is not verified')

  const resent = await support.post(`/api/operator/users/${erinId}/verification/resend`)
  t.equal(resent.statusCode, 202)
  t.same(resent.json(), { sent: true })
  const mails = mailsIn(stack.config.dataDir, 'erin@unverified.example')
  t.equal(mails.length, before + 1, 'one more mail')
  const token = new URL(/https?:\/\/\S+/.exec(mails.at(-1)!.text)![0]).searchParams.get('token')
  t.equal((await fresh.post('/auth/user/email/verify', { method: 'token', token })).json().status, 'OK', 'its link verifies the address')
  t.match(await auditOf(`user:${erinId}`), [{ action: 'user.verification.resend', actor_email: 'support@softshelf.test', before: null, after: { email: 'erin@unverified.example' } }])

  const again = await support.post(`/api/operator/users/${erinId}/verification/resend`)
  t.equal(again.statusCode, 409)
  t.equal(again.json().code, 'API_ALREADY_VERIFIED')
  t.equal((await support.post('/api/operator/users/no-such-user/verification/resend')).statusCode, 404)
  const noRid = await support.post(`/api/operator/users/${erinId}/verification/resend`, {}, { rid: '' })
  t.equal(noRid.statusCode, 403, 'the anti-forgery rule holds')
  t.equal(noRid.json().code, 'BFF_CSRF_REJECTED')
  t.equal(mailsIn(stack.config.dataDir, 'erin@unverified.example').length, before + 1, 'no mail for a refused call')
})

t.test('npm run accounts -- disable|enable: audited as the command, the sessions end', async (t) => {
  const bob = await signIn('bob@annex.example')
  const bobId = (await bob.get('/api/user')).json().id as string
  const call = (payload: unknown) =>
    stack.api.inject({ method: 'PUT', url: '/internal/users/disabled', headers: { authorization: `Bearer ${stack.operatorToken}` }, payload: payload as Record<string, unknown> })
  t.equal((await call({ email: 'BOB@annex.example', disabled: true, reason: 'spam' })).statusCode, 200)
  t.equal((await bob.post('/auth/session/refresh')).statusCode, 401, 'its sessions ended')
  t.match((await admin.get(`/api/operator/users/${bobId}`)).json().disabled, { reason: 'spam', by: { id: 'operator-command', email: 'npm run accounts' } })
  t.equal((await call({ email: 'bob@annex.example', disabled: false })).statusCode, 200)
  const nobody = await call({ email: 'nobody@annex.example', disabled: true })
  t.equal(nobody.statusCode, 404)
  t.match(nobody.json(), { code: 'API_USER_NOT_FOUND', message: 'There is no account with this id or email.' }, 'the account named, not "this session"')
  t.match(await auditOf(`user:${bobId}`), [
    { action: 'user.disable', actor_email: 'npm run accounts', after: { disabled: true, reason: 'spam' } },
    { action: 'user.enable', actor_email: 'npm run accounts', after: { disabled: false } },
  ])
})

t.test('the console\'s pages: the search and one account, rendered for support; an editor is refused', async (t) => {
  const html = { accept: 'text/html' }
  const search = await support.get('/@/operator/accounts?email=anna', html)
  t.equal(search.statusCode, 200)
  t.match(search.body, 'anna.berg@mailhost.example')
  t.match(search.body, `/@/operator/accounts/${annaId}`)
  const empty = await support.get('/@/operator/accounts?email=%3B', html)
  t.equal(empty.statusCode, 200)
  t.match(empty.body, /class="field-error"[^>]*>email: /, 'the refusal next to the search box')
  const detail = await support.get(`/@/operator/accounts/${annaId}`, html)
  t.equal(detail.statusCode, 200)
  t.match(detail.body, 'data-testid="disable-reason"')
  t.notMatch(detail.body, 'data-testid="save-roles"', 'support does not get the roles editor')
  t.match((await admin.get(`/@/operator/accounts/${annaId}`, html)).body, 'data-testid="save-roles"', 'an admin does')
  const german = await support.get(`/@/operator/accounts/${annaId}`, { ...html, cookie: `${support.jar.header('/')}; lang=de` })
  t.match(german.body, 'Konto sperren')
  t.equal((await support.get('/@/operator/accounts/no-such-user', html)).statusCode, 404)
  t.equal((await editor.get('/@/operator/accounts?email=anna', html)).statusCode, 403, 'an editor: the API refuses, the page says so')
})
