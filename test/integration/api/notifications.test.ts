import t from 'tap'
import { insertNotification } from '../../../server/api/notifications/notifications.ts'
import { recordRelease } from '../../../server/api/catalogue/releases.ts'
import { buildStack, operatorTab, waitUntil, signedInPerson } from '../../helpers.ts'

// A watched program's release reaches the watcher's notifications through the API's own
// fan-out; the list, its paging and marking read, through the BFF as a signed-in tab calls them.

const stack = await buildStack(t, { auth: true, env: { AUTH_RATE_LIMIT_MAX: '1000', RATE_LIMIT_MAX: '100000', LOG_LEVEL: 'warn' } })
const person = async () => {
  const { tab, userId } = await signedInPerson(stack, 'reader')
  return Object.assign(tab, { id: userId })
}
type Tab = Awaited<ReturnType<typeof person>>
interface Listed { items: Array<{ id: string; type: string; programId: string; at: string; read: boolean; data: Record<string, unknown> }>; unread: number }
const list = async (tab: Tab, query = '') => (await tab.get(`/api/user/notifications${query}`)).json() as Listed
const context = { actor: { id: 'u-editor', email: 'editor@example.com' }, requestId: 'req-notifications' }
let versions = 0

async function releaseOf(programId: string): Promise<string> {
  const version = `20.${++versions}`
  const outcome = await stack.db.transaction((tx) => recordRelease(tx, { programId, version, date: '2026-12-05', source: 'editor' }, context))
  t.equal(outcome.outcome, 'recorded')
  stack.api.notificationFanout.wake()
  return version
}

/** `count` saved-search notifications for the account (the helper the saved searches use). */
async function searchNotifications(userId: string, count: number, programId = 'gimp'): Promise<void> {
  for (let i = 0; i < count; i++) {
    await insertNotification(stack.db, { userId, type: 'search', programId, dedupe: `search:s-${i}:${programId}`, data: { searchId: `s-${i}`, searchName: `Search ${i}`, query: 'q=paint', programName: 'GIMP' } })
  }
}

t.test('a release of a watched program is a notification for its watcher, and the bell\'s count', async (t) => {
  const tab = await person()
  const bystander = await person()
  t.equal((await tab.put('/api/user/watches/blender', { events: ['release'] })).statusCode, 200)
  t.equal((await bystander.put('/api/user/watches/blender', { events: ['price'] })).statusCode, 200)
  t.same(await list(tab), { items: [], unread: 0 })

  const version = await releaseOf('blender')
  await waitUntil(async () => (await list(tab)).items.length > 0)
  const answer = await tab.get('/api/user/notifications')
  t.equal(answer.statusCode, 200)
  t.equal(answer.headers['cache-control'], 'no-store')
  const body = answer.json() as Listed
  t.equal(body.unread, 1)
  t.equal(body.items.length, 1)
  const [item] = body.items
  t.same(Object.keys(item!).sort(), ['at', 'data', 'id', 'programId', 'read', 'type'])
  t.match(item, { id: /^[1-9][0-9]*$/, type: 'release', programId: 'blender', read: false, data: { version, date: '2026-12-05', source: 'editor', programName: 'Blender' } })
  t.ok(Math.abs(Date.parse(item!.at) - Date.now()) < 60_000)
  t.equal((await tab.get('/api/user')).json().unreadNotifications, 1, 'GET /api/user carries the count')
  t.same(await list(bystander), { items: [], unread: 0 }, 'a watcher of price only is not told of a release')
})

t.test('notify off: the notification is listed, and marked mailed at once so no mail looks at it', async (t) => {
  const tab = await person()
  const daily = await person()
  t.equal((await tab.send('PATCH', '/api/user', { notify: 'off' })).statusCode, 200)
  for (const who of [tab, daily]) t.equal((await who.put('/api/user/watches/krita', { events: ['release', 'price'] })).statusCode, 200)
  await releaseOf('krita')
  await waitUntil(async () => (await list(tab)).items.length > 0 && (await list(daily)).items.length > 0)
  const { rows } = await stack.db.query<{ user_id: string; mailed: boolean }>("SELECT user_id, mailed_at IS NOT NULL AS mailed FROM api.notifications WHERE program_id = 'krita' AND user_id = ANY($1::text[])", [[tab.id, daily.id]])
  t.same(Object.fromEntries(rows.map((row) => [row.user_id, row.mailed])), { [tab.id]: true, [daily.id]: false })

  t.equal(await insertNotification(stack.db, { userId: tab.id, type: 'search', programId: 'gimp', dedupe: 'search:s-x:gimp', data: { searchId: 's-x', searchName: 'Paint', query: 'q=paint', programName: 'GIMP' } }), true)
  t.equal(await insertNotification(stack.db, { userId: tab.id, type: 'search', programId: 'gimp', dedupe: 'search:s-x:gimp', data: { searchId: 's-x', searchName: 'Paint', query: 'q=paint', programName: 'GIMP' } }), false, 'the same dedupe twice is one notification')
  const helper = await stack.db.query<{ mailed: boolean }>("SELECT mailed_at IS NOT NULL AS mailed FROM api.notifications WHERE user_id = $1 AND dedupe = 'search:s-x:gimp'", [tab.id])
  t.same(helper.rows, [{ mailed: true }], 'the helper honours notify off too')
})

t.test('pages: newest first, `limit` (default 50, at most 100), `before` the last id of the page before', async (t) => {
  const tab = await person()
  await searchNotifications(tab.id, 55)
  const first = await list(tab)
  t.equal(first.items.length, 50, 'fifty by default')
  t.equal(first.unread, 55)
  const ids = first.items.map((item) => BigInt(item.id))
  t.ok(ids.every((id, i) => i === 0 || id < ids[i - 1]!), 'newest first')
  const rest = await list(tab, `?before=${first.items.at(-1)!.id}`)
  t.equal(rest.items.length, 5)
  t.ok(BigInt(rest.items[0]!.id) < ids.at(-1)!)
  t.equal((await list(tab, `?before=${rest.items.at(-1)!.id}`)).items.length, 0, 'past the oldest: empty')
  const two = await list(tab, '?limit=2')
  t.same(two.items.map((item) => item.id), first.items.slice(0, 2).map((item) => item.id))
  t.equal((await list(tab, '?limit=100')).items.length, 55)
  for (const query of ['?limit=101', '?limit=0', '?limit=ten', '?before=abc', '?before=0', '?before=99999999999999999999']) {
    const answer = await tab.get(`/api/user/notifications${query}`)
    t.equal(answer.statusCode, 400, query)
    t.match(answer.json(), { code: 'API_VALIDATION_FAILED', message: /limit|before/ })
  }
})

t.test('marking read: some ids, or all; another account\'s ids change nothing', async (t) => {
  const tab = await person()
  const other = await person()
  await searchNotifications(tab.id, 4)
  await searchNotifications(other.id, 2)
  const mine = (await list(tab)).items.map((item) => item.id)
  const theirs = (await list(other)).items.map((item) => item.id)

  const some = await tab.post('/api/user/notifications/read', { ids: [mine[0], mine[2]] })
  t.equal(some.statusCode, 200)
  t.equal(some.headers['cache-control'], 'no-store')
  t.same(some.json(), { unread: 2 })
  t.same((await list(tab)).items.map((item) => item.read), [true, false, true, false])
  t.same((await tab.post('/api/user/notifications/read', { ids: [mine[0]] })).json(), { unread: 2 }, 'read again: the same')
  t.same((await tab.post('/api/user/notifications/read', { ids: theirs })).json(), { unread: 2 }, "another account's ids")
  t.same(await list(other).then((l) => [l.unread, l.items.every((item) => !item.read)]), [2, true], 'and theirs are untouched')
  t.same((await tab.post('/api/user/notifications/read', { ids: [] })).json(), { unread: 2 }, 'no ids: nothing')
  t.same((await tab.post('/api/user/notifications/read', { all: true })).json(), { unread: 0 })
  t.equal((await tab.get('/api/user')).json().unreadNotifications, 0)
  t.equal((await list(other)).unread, 2)

  for (const body of [{}, { ids: [mine[0]], all: true }, { all: false }, { ids: ['x'] }, { ids: ['0'] }]) {
    const answer = await tab.post('/api/user/notifications/read', body)
    t.equal(answer.statusCode, 400, JSON.stringify(body))
    t.equal(answer.json().code, 'API_VALIDATION_FAILED')
  }
  t.match((await tab.post('/api/user/notifications/read', {})).json(), { message: 'Give either ids (the notifications to mark read) or all: true.' })
})

t.test('signed out: 401; a write without the anti-forgery header: 403, nothing read', async (t) => {
  for (const [method, url] of [['GET', '/api/user/notifications'], ['POST', '/api/user/notifications/read']] as const) {
    const answer = await stack.bff.inject({ method, url, headers: { rid: 'anti-csrf' }, ...(method === 'POST' ? { payload: { all: true } } : {}) })
    t.equal(answer.statusCode, 401, `${method} ${url}`)
  }
  const tab = await person()
  await searchNotifications(tab.id, 1)
  const forged = await stack.bff.inject({ method: 'POST', url: '/api/user/notifications/read', headers: { cookie: tab.jar.header('/api/user'), 'content-type': 'application/json' }, payload: { all: true } })
  t.equal(forged.statusCode, 403)
  t.equal(forged.json().code, 'BFF_CSRF_REJECTED')
  t.equal((await list(tab)).unread, 1)
})

t.test('a program an editor renames is listed by its new name; what happened stays as it was told', async (t) => {
  const tab = await person()
  t.equal((await tab.put('/api/user/watches/krita', { events: ['release'] })).statusCode, 200)
  const version = await releaseOf('krita')
  await waitUntil(async () => (await list(tab)).items.length > 0)
  t.match((await list(tab)).items[0], { programId: 'krita', data: { version, programName: 'Krita' } })
  const editor = await operatorTab(stack, 'renamer@example.com', ['editor'])
  const current = (await editor.get('/api/operator/programs/krita')).json() as { revision: number }
  const renamed = await editor.send('PATCH', '/api/operator/programs/krita', { baseRevision: current.revision, name: 'Krita Studio' })
  t.equal(renamed.statusCode, 200, renamed.body)
  t.match((await list(tab)).items[0], { programId: 'krita', data: { version, programName: 'Krita Studio' } })
})
