import t from 'tap'
import Fastify from 'fastify'
import { OPERATOR_ROLES, OPERATOR_ROUTES, ROLE_PERMISSIONS, type OperatorRoute } from '../../../shared/operator.ts'
import operatorRoutes from '../../../server/api/operator/index.ts'
import type { OperatorRoutesOptions } from '../../../server/api/operator/options.ts'
import { browser, buildStack, LogCapture, operatorTab, signedInTab, waitUntil } from '../../helpers.ts'

// Every operator route is checked (decision 028): each row of OPERATOR_ROUTES through
// the BFF — signed out, signed in without a role, with each role that lacks its permission, and
// with one that has it — and the API again on its own; whatever spelling of the path the BFF
// accepts never reaches the API unchecked; and a role granted or taken away applies within two
// seconds on another BFF and API on the same auth core.

type Tab = ReturnType<typeof browser>
const SOME_ID = '00000000-0000-4000-8000-000000000000'
const concrete = (route: OperatorRoute) => route.url.replace(/:[a-zA-Z]+/g, SOME_ID)

function call(tab: Tab, route: OperatorRoute, url = concrete(route)) {
  if (route.method === 'GET') return tab.get(url)
  if (route.method === 'PUT') return tab.put(url, {})
  if (route.method === 'DELETE') return tab.delete(url)
  return tab.send(route.method, url, {})
}

/** The API's request lines (one per request, when answered) for the console's routes. */
const incoming = (log: LogCapture) => log.lines.filter((line) => line.includes('"msg":"request completed"') && /\/api\/operator/i.test(line)).length

t.test('every row of the operator route table, through the BFF and at the API', async (t) => {
  const apiLog = new LogCapture()
  const stack = await buildStack(t, { auth: true, apiLogStream: apiLog, bffLogStream: new LogCapture(), env: { LOG_LEVEL: 'info', AUTH_RATE_LIMIT_MAX: '1000', RATE_LIMIT_MAX: '10000' } })
  const signedOut = browser(stack.bff)
  const noRole = await signedInTab(stack, 'nobody@example.com')
  const tabs = new Map<string, Tab>()
  for (const role of OPERATOR_ROLES) tabs.set(role, await operatorTab(stack, `${role}@example.com`, [role]))

  for (const route of OPERATOR_ROUTES) {
    await t.test(`${route.method} ${route.url} (${route.permission})`, async (t) => {
      const before = incoming(apiLog)
      const out = await call(signedOut, route)
      t.equal(out.statusCode, 401, 'signed out')
      const none = await call(noRole, route)
      t.equal(none.statusCode, 403, 'no role')
      t.equal(none.json().code, 'BFF_PERMISSION_DENIED', 'no role')
      const lacking = OPERATOR_ROLES.filter((role) => !ROLE_PERMISSIONS[role].includes(route.permission))
      for (const role of lacking) {
        const refused = await call(tabs.get(role)!, route)
        t.equal(refused.statusCode, 403, role)
        t.equal(refused.json().code, 'BFF_PERMISSION_DENIED', role)
      }
      t.equal(incoming(apiLog), before, 'none of the refused reached the API')
      for (const role of OPERATOR_ROLES.filter((candidate) => !lacking.includes(candidate))) {
        const allowed = await call(tabs.get(role)!, route)
        t.ok(incoming(apiLog) > before, `${role}'s call reached the API (the count above can fail)`)
        t.notOk([401, 403].includes(allowed.statusCode) && /^(BFF_PERMISSION_DENIED|API_PERMISSION_DENIED)$|^$/.test(allowed.json<{ code?: string }>().code ?? ''), `${role} is not refused by the check (${allowed.statusCode} ${allowed.body.slice(0, 80)})`)
      }
      // The API checks on its own too: the tokens of those the BFF refused, sent straight to it.
      if (stack.api.hasRoute({ method: route.method, url: route.url })) {
        for (const tab of [noRole, ...lacking.map((role) => tabs.get(role)!)]) {
          const direct = await fetch(`${stack.apiUrl}${concrete(route)}`, {
            method: route.method,
            headers: { authorization: `Bearer ${tab.jar.get('sAccessToken')}`, ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { 'content-type': 'application/json' }) },
            ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { body: '{}' }),
          })
          t.equal(direct.status, 403, 'the API refuses it too')
          t.equal(((await direct.json()) as { code: string }).code, 'API_PERMISSION_DENIED')
        }
        const anonymous = await fetch(`${stack.apiUrl}${concrete(route)}`, { method: route.method })
        t.equal(anonymous.status, 401, 'the API without a token')
      }
    })
  }

  await t.test('every spelling the BFF takes is checked or refused before the API', async (t) => {
    const editor = tabs.get('editor')!
    const before = incoming(apiLog)
    const spellings = [
      '/api/operator/users',
      '/api/operator/users/',
      '/api/operator/users?email=a',
      '/api/operator/users/?email=a',
      '/api/operator/user%73',
      '/api/%6Fperator/users',
      '/api/%6fperator/users',
      '/api/Operator/users',
      '/API/operator/users',
      '/Api/Operator/Users',
      '/api/operator%2Fusers',
      '/api/operator%2fusers',
      '/api//operator/users',
      '//api/operator/users',
      '/api/operator//users',
      '/api/operator/./users',
      '/api/operator/x/../users',
      '/api/operator/users;x',
      '/api/operator;x/users',
      '/api/operator/users#x',
      '/api/operator/users%23x',
      '/api/operator/users%3Fx',
      `/api/operator/users/${SOME_ID}/`,
      `/api/operator/users/${SOME_ID}/roles/`,
      '/api/operator',
      '/api/operator/',
      '/api/operator/nothing',
    ]
    for (const url of spellings) {
      for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const) {
        const answer = await stack.bff.inject({
          method,
          url,
          headers: { cookie: editor.jar.header('/'), rid: 'anti-csrf', origin: 'http://localhost:3000', 'content-type': 'application/json' },
          ...(method === 'GET' || method === 'HEAD' || method === 'OPTIONS' ? {} : { payload: '{}' }),
        })
        t.ok(answer.statusCode >= 400 && answer.statusCode < 500, `${method} ${url}: ${answer.statusCode}`)
      }
    }
    t.equal(incoming(apiLog), before, 'not one reached the API')
    // And the permission is what refused the spellings that name a row.
    for (const url of ['/api/operator/users', '/api/operator/users?email=a', '/api/operator/user%73', '/api/%6Fperator/users']) {
      const answer = await editor.get(url)
      t.equal(answer.statusCode, 403, url)
      t.equal(answer.json().code, 'BFF_PERMISSION_DENIED', url)
    }
    const head = await stack.bff.inject({ method: 'HEAD', url: '/api/operator/users', headers: { cookie: editor.jar.header('/'), rid: 'anti-csrf' } })
    t.equal(head.statusCode, 403, 'HEAD like GET')
    for (const url of ['/api/operator/users/', '/api/Operator/users', '/api/operator/nothing', '/api/operator']) {
      const answer = await editor.get(url)
      t.equal(answer.statusCode, 404, url)
      t.equal(answer.json().code, 'BFF_NOT_FOUND', url)
    }
  })
})

t.test('the API refuses to start with an operator route missing from the table', async (t) => {
  // The operator scope's own hooks, on an app of its own: a route added in it without a row.
  const app = Fastify()
  t.teardown(() => app.close())
  // The slices declare the database they read (fastify-plugin's decorators); none is asked here.
  app.decorate('db', {} as never)
  const opts = { guard: { authenticate: () => async () => {} }, core: {}, roles: {}, now: Date.now } as unknown as OperatorRoutesOptions
  await operatorRoutes(app, opts)
  t.throws(() => app.get('/api/operator/secret', async () => ({ ok: true })), /The operator route GET \/api\/operator\/secret has no permission in shared\/operator\.ts/)
  t.throws(() => app.post('/api/operator/users', async () => ({ ok: true })), /POST \/api\/operator\/users has no permission/, 'a row\'s path with another method')
  // A route of the table is accepted: the slices' own routes (registered above) are all rows.
  await app.ready()
  t.ok(app.hasRoute({ method: 'GET', url: '/api/operator/users' }), 'a route of the table')
})

t.test('a grant and a removal apply within two seconds on another BFF and API on the same core', async (t) => {
  // The polls below ask many times a second: the per-account limit (decision 027) stays out of it.
  const env = { AUTH_RATE_LIMIT_MAX: '1000', RATE_LIMIT_MAX: '100000', RATE_LIMIT_ACCOUNT_MAX: '100000' }
  const a = await buildStack(t, { auth: true, env })
  const admin = await operatorTab(a, 'admin@example.com', ['admin'])
  const b = await buildStack(t, { db: a.db, authCore: a.authCore!, env })
  // Signed in on B without a role; A's admin makes the account an admin.
  const person = await signedInTab(b, 'person@example.com')
  const personId = JSON.parse(Buffer.from((person.jar.get('sAccessToken') ?? '').split('.')[1]!, 'base64url').toString('utf8')).sub as string
  // The polls read (a write that got through while the roles were stale would grant them again).
  const tryRead = () => person.get('/api/operator/users?email=person')
  const tryRoles = () => person.put(`/api/operator/users/${personId}/roles`, { roles: ['admin'] })
  t.equal((await tryRoles()).json().code, 'BFF_PERMISSION_DENIED')
  t.equal((await tryRead()).json().code, 'BFF_PERMISSION_DENIED')
  t.same((await person.get('/api/user')).json().roles, [])

  const granted = await admin.put(`/api/operator/users/${personId}/roles`, { roles: ['admin'] })
  t.equal(granted.statusCode, 200)
  const grantedAt = Date.now()
  await waitUntil(async () => (await tryRead()).statusCode === 200, 2_000)
  t.ok(Date.now() - grantedAt < 2_000, 'B\'s BFF and API let the new admin in within 2 s')
  t.same((await person.get('/api/user')).json().roles, ['admin'])
  // B's BFF read the roles again into the token: the browser holds the new one.
  const claims = JSON.parse(Buffer.from((person.jar.get('sAccessToken') ?? '').split('.')[1]!, 'base64url').toString('utf8'))
  t.same(claims['st-role'].v, ['admin'])
  const stale = person.jar.get('sAccessToken')!
  // B's API on its own, with the token that says admin.
  const direct = () => fetch(`${b.apiUrl}/api/operator/users?email=person`, { headers: { authorization: `Bearer ${stale}` } })
  t.equal((await direct()).status, 200, 'B\'s API reads the token\'s roles')

  const removed = await admin.put(`/api/operator/users/${personId}/roles`, { roles: [] })
  t.equal(removed.statusCode, 200)
  const removedAt = Date.now()
  // Each instance reads the change on its own: B's BFF and B's API, each within 2 s.
  await Promise.all([
    waitUntil(async () => (await tryRead()).statusCode === 403, 2_000),
    waitUntil(async () => (await direct()).status === 403, 2_000),
  ])
  t.ok(Date.now() - removedAt < 2_000, 'and refuse them within 2 s after the removal')
  t.equal((await tryRoles()).json().code, 'BFF_PERMISSION_DENIED')
  t.same((await person.get('/api/user')).json().roles, [])
  // The token that still says admin is refused by B's API, from the feed and the core.
  const refused = await direct()
  t.equal(refused.status, 403)
  t.equal(((await refused.json()) as { code: string }).code, 'API_PERMISSION_DENIED')
})
