import t from 'tap'
import { recordSignIn } from '../../../server/api/users/repository.ts'
import { browser, buildStack, signedInTab } from '../../helpers.ts'

// "Your data": GET /api/user/export through the BFF — one JSON file with everything the
// product keeps about the account (record, terms, library, sign-in methods), and nobody else's.

const PASSWORD = 'correct horse battery'
const stack = await buildStack(t, { auth: true, env: { AUTH_RATE_LIMIT_MAX: '1000' } })

t.test('the export is an attachment with the account, its terms, its library and its sign-in methods', async (t) => {
  const ada = await signedInTab(stack, 'export@example.com', PASSWORD)
  const bob = await signedInTab(stack, 'other-export@example.com', PASSWORD)
  await ada.post('/api/user/program/blender')
  await ada.post('/api/user/program/gimp')
  await bob.post('/api/user/program/inkscape')
  await stack.bff.inject({ method: 'PATCH', url: '/api/user', headers: { cookie: ada.jar.header('/api/user'), rid: 'anti-csrf', 'content-type': 'application/json' }, payload: '{"name":"Ada"}' })

  const phone = browser(stack.bff)
  const signedIn = await phone.post('/auth/signin', { formFields: [{ id: 'email', value: 'export@example.com' }, { id: 'password', value: PASSWORD }] }, { 'user-agent': 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) Safari/604.1' })
  t.equal(signedIn.json().status, 'OK')

  const response = await ada.get('/api/user/export')
  t.equal(response.statusCode, 200)
  t.match(response.headers['content-disposition'], /^attachment; filename="softshelf-data-\d{4}-\d{2}-\d{2}\.json"$/)
  t.match(response.headers['content-type'], /^application\/json/)
  t.equal(response.headers['cache-control'], 'no-store')
  const data = response.json()
  t.match(data, {
    exportedAt: String,
    account: { email: 'export@example.com', name: 'Ada', isInMailList: false, timeJoined: String },
    terms: { acceptedVersion: String, acceptedAt: String },
    signInMethods: [{ method: 'emailpassword', email: 'export@example.com', verified: true, timeJoined: String }],
  })
  t.same(data.library.map((entry: { programId: string }) => entry.programId).sort(), ['blender', 'gimp'])
  t.match(data.account, { notify: 'daily', watchOnAdd: true }, 'issue 29: the notification settings')
  t.same(data.watches.map((entry: { programId: string; events: string[] }) => [entry.programId, entry.events]).sort(), [['blender', ['release', 'price', 'licence']], ['gimp', ['release', 'price', 'licence']]], 'and the watchlist (adding to the library watched them)')
  t.same(data.notifications, [])
  t.match(data.library[0], { name: String, addedAt: String })
  t.equal(data.signInHistory.length, 2, 'the sign-up and the sign-in')
  t.match(data.signInHistory[0], { at: String, method: 'password', userAgent: /iPhone/, ip: '127.0.0.1' }, 'newest first, with the browser and address')
  t.match(data.signInHistory[1], { method: 'password' })
  t.notMatch(response.body, /other-export@example\.com|inkscape/, "nothing of another account's")
  t.notMatch(response.body, /correct horse|\$argon2|\$2[aby]\$/, 'no password or hash')
})

t.test('without a full session there is nothing to download', async (t) => {
  t.equal((await browser(stack.bff).get('/api/user/export')).statusCode, 401)
})

t.test('the sign-in history keeps the last 20', async (t) => {
  const tab = await signedInTab(stack, 'frequent@example.com', PASSWORD)
  const id = (await tab.get('/api/user')).json().id as string
  for (let i = 0; i < 25; i++) await recordSignIn(stack.db, id, { method: 'password', userAgent: `agent ${i}`, ip: null })
  const history = (await tab.get('/api/user/export')).json().signInHistory as Array<{ userAgent: string }>
  t.equal(history.length, 20)
  t.equal(history[0]!.userAgent, 'agent 24')
  t.equal(history[19]!.userAgent, 'agent 5')
})
