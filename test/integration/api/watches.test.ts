import t from 'tap'
import { retireProgram } from '../../../server/api/catalogue/program-editor.ts'
import { browser, buildStack, signedInTab } from '../../helpers.ts'

// Watchlists, through the BFF as the browser calls them (a signed-in tab, the rid
// header on writes), and the settings that go with them on the user's record.

const stack = await buildStack(t, { auth: true, env: { AUTH_RATE_LIMIT_MAX: '1000', RATE_LIMIT_MAX: '100000', LOG_LEVEL: 'warn' } })
let people = 0
const person = () => signedInTab(stack, `watcher-${++people}@example.com`)
type Tab = Awaited<ReturnType<typeof person>>
const watches = async (tab: Tab) => (await tab.get('/api/user/watches')).json() as { items: Array<{ programId: string; events: string[]; createdAt: string }> }

t.test('PUT watches a program for the events asked, in a stable order; PUT again replaces them; GET lists them privately', async (t) => {
  const tab = await person()
  const put = await tab.put('/api/user/watches/blender', { events: ['licence', 'release'] })
  t.equal(put.statusCode, 200)
  t.equal(put.headers['cache-control'], 'no-store')
  const watch = put.json()
  t.same(Object.keys(watch).sort(), ['createdAt', 'events', 'programId'])
  t.match(watch, { programId: 'blender', events: ['release', 'licence'] })
  t.ok(Math.abs(Date.parse(watch.createdAt) - Date.now()) < 60_000)

  const again = await tab.put('/api/user/watches/blender', { events: ['price'] })
  t.same(again.json(), { programId: 'blender', events: ['price'], createdAt: watch.createdAt }, 'the events replaced, the watch kept its date')
  t.equal((await tab.put('/api/user/watches/gimp', { events: ['release', 'price', 'licence'] })).statusCode, 200)

  const listed = await tab.get('/api/user/watches')
  t.equal(listed.statusCode, 200)
  t.equal(listed.headers['cache-control'], 'no-store')
  t.same(listed.json().items.map((w: { programId: string; events: string[] }) => [w.programId, w.events]).sort(), [['blender', ['price']], ['gimp', ['release', 'price', 'licence']]])
  t.same(await watches(await person()), { items: [] }, 'another account watches nothing')
})

t.test('events must be 1 to 3 distinct of release, price, licence: else 400 naming the field, and nothing changes', async (t) => {
  const tab = await person()
  for (const [body, pattern] of [
    [{ events: [] }, /events/],
    [{ events: ['release', 'release'] }, /events/],
    [{ events: ['rumour'] }, /events.*release, price, licence/],
    [{ events: ['release', 'price', 'licence', 'release'] }, /events/],
    [{}, /events is required/],
  ] as const) {
    const answer = await tab.put('/api/user/watches/blender', body)
    t.equal(answer.statusCode, 400, JSON.stringify(body))
    t.match(answer.json(), { code: 'API_VALIDATION_FAILED', message: pattern })
  }
  t.same(await watches(tab), { items: [] })
})

t.test('an unknown program is the catalogue\'s 404, a retired one its 410; neither is watched', async (t) => {
  const tab = await person()
  const unknown = await tab.put('/api/user/watches/no-such-program', { events: ['release'] })
  t.equal(unknown.statusCode, 404)
  t.match(unknown.json(), { code: 'API_CATALOGUE_NOT_FOUND', message: 'There is no program "no-such-program" in the catalogue.' })
  t.equal((await tab.put('/api/user/watches/inkscape', { events: ['release'] })).statusCode, 200, 'watched before it is retired')
  await retireProgram(stack.db, 'inkscape', { actor: { id: 'u-ed', email: 'ed@example.com' }, requestId: 'req-watches' }, new Date())
  const retired = await tab.put('/api/user/watches/inkscape', { events: ['price'] })
  t.equal(retired.statusCode, 410)
  t.equal(retired.json().code, 'API_PROGRAM_RETIRED')
  t.same((await watches(tab)).items.map((w) => [w.programId, w.events]), [['inkscape', ['release']]], 'the watch it had stays as it was')
  t.equal((await tab.delete('/api/user/watches/inkscape')).statusCode, 204, 'and can be dropped')
  t.same(await watches(tab), { items: [] })
})

t.test('DELETE stops watching, and says 204 again when there is nothing to stop', async (t) => {
  const tab = await person()
  await tab.put('/api/user/watches/blender', { events: ['release'] })
  const first = await tab.delete('/api/user/watches/blender')
  t.equal(first.statusCode, 204)
  t.equal(first.body, '')
  t.equal((await tab.delete('/api/user/watches/blender')).statusCode, 204, 'idempotent')
  t.equal((await tab.delete('/api/user/watches/no-such-program')).statusCode, 204, 'nothing to stop')
  t.same(await watches(tab), { items: [] })
})

t.test('signed out, or a write without the anti-forgery header: refused, nothing changes', async (t) => {
  const stranger = browser(stack.bff)
  for (const [method, url] of [['GET', '/api/user/watches'], ['PUT', '/api/user/watches/blender'], ['DELETE', '/api/user/watches/blender']] as const) {
    const answer = await stack.bff.inject({ method, url, headers: { rid: 'anti-csrf' }, ...(method === 'PUT' ? { payload: { events: ['release'] } } : {}) })
    t.equal(answer.statusCode, 401, `${method} signed out`)
  }
  t.equal((await stranger.get('/api/user/watches')).statusCode, 401)
  const tab = await person()
  const forged = await stack.bff.inject({ method: 'PUT', url: '/api/user/watches/blender', headers: { cookie: tab.jar.header('/api/user'), 'content-type': 'application/json' }, payload: { events: ['release'] } })
  t.equal(forged.statusCode, 403)
  t.equal(forged.json().code, 'BFF_CSRF_REJECTED')
  await tab.put('/api/user/watches/gimp', { events: ['release'] })
  const forgedDelete = await stack.bff.inject({ method: 'DELETE', url: '/api/user/watches/gimp', headers: { cookie: tab.jar.header('/api/user') } })
  t.equal(forgedDelete.statusCode, 403)
  t.same((await watches(tab)).items.map((w) => w.programId), ['gimp'], 'still watched')
})

t.test('PATCH /api/user sets notify and watchOnAdd; GET /api/user carries them; wrong values are 400 naming the field', async (t) => {
  const tab = await person()
  t.match((await tab.get('/api/user')).json(), { notify: 'daily', watchOnAdd: true, unreadNotifications: 0 }, 'the defaults')
  const changed = await tab.send('PATCH', '/api/user', { notify: 'immediate', watchOnAdd: false })
  t.equal(changed.statusCode, 200)
  t.match(changed.json(), { notify: 'immediate', watchOnAdd: false, name: null })
  t.match((await tab.send('PATCH', '/api/user', { notify: 'off' })).json(), { notify: 'off', watchOnAdd: false }, 'one setting alone keeps the other')
  t.match((await tab.send('PATCH', '/api/user', { name: 'Wanda' })).json(), { name: 'Wanda', notify: 'off', watchOnAdd: false }, 'a name alone keeps both')
  t.match((await tab.get('/api/user')).json(), { name: 'Wanda', notify: 'off', watchOnAdd: false })

  const wrongMode = await tab.send('PATCH', '/api/user', { notify: 'weekly' })
  t.equal(wrongMode.statusCode, 400)
  t.match(wrongMode.json(), { code: 'API_VALIDATION_FAILED', message: 'notify must be one of: off, immediate, daily' })
  const wrongFlag = await tab.send('PATCH', '/api/user', { watchOnAdd: 'yes' })
  t.equal(wrongFlag.statusCode, 400)
  t.match(wrongFlag.json(), { code: 'API_VALIDATION_FAILED', message: /^watchOnAdd / })
  const nothing = await tab.send('PATCH', '/api/user', {})
  t.equal(nothing.statusCode, 400)
  t.match(nothing.json(), { message: 'Give a name, a language, notify or watchOnAdd to change.' })
  t.match((await tab.get('/api/user')).json(), { notify: 'off', watchOnAdd: false }, 'refused changes changed nothing')
})

t.test('adding to the library watches every event with watchOnAdd, leaves a watch it has as it is, and watches nothing without it', async (t) => {
  const tab = await person()
  await tab.put('/api/user/watches/gimp', { events: ['price'] })
  t.equal((await tab.post('/api/user/program/blender')).statusCode, 200)
  t.equal((await tab.post('/api/user/program/gimp')).statusCode, 200)
  const after = (await watches(tab)).items.map((w) => [w.programId, w.events]).sort()
  t.same(after, [['blender', ['release', 'price', 'licence']], ['gimp', ['price']]])
  t.equal((await tab.send('DELETE', '/api/user/program/blender')).statusCode, 200)
  t.same((await watches(tab)).items.map((w) => w.programId).sort(), ['blender', 'gimp'], 'leaving the library does not stop the watch')

  const other = await person()
  t.equal((await other.send('PATCH', '/api/user', { watchOnAdd: false })).statusCode, 200)
  t.equal((await other.post('/api/user/program/blender')).statusCode, 200)
  t.same(await watches(other), { items: [] }, 'watchOnAdd false: added, not watched')
  t.equal((await other.post('/api/user/program/no-such-program')).statusCode, 404)
})
