import t from 'tap'
import { browser, buildStack, signedInTab } from '../../helpers.ts'

// "Your data" (issue 11): GET /api/user/export through the BFF — one JSON file with everything the
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
  t.match(data.library[0], { name: String, addedAt: String })
  t.notMatch(response.body, /other-export@example\.com|inkscape/, "nothing of another account's")
  t.notMatch(response.body, /correct horse|\$argon2|\$2[aby]\$/, 'no password or hash')
})

t.test('without a full session there is nothing to download', async (t) => {
  t.equal((await browser(stack.bff).get('/api/user/export')).statusCode, 401)
})
