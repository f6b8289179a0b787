import fs from 'node:fs'
import path from 'node:path'
import { generateKeyPairSync, sign } from 'node:crypto'
import t from 'tap'
import { ACCOUNT_DISABLED_MESSAGE } from '../../../shared/constants.ts'
import { browser, buildStack, formFields } from '../../helpers.ts'

// The product's user record: made at sign-up with the extra fields, read with the
// access token the BFF forwards, terms acceptance, and the email-existence check.


t.test('the user record', async (t) => {
  const stack = await buildStack(t, { auth: true })
  const tab = browser(stack.bff)
  const utm = { timestamp: 1763800000000, utmParams: { utm_source: 'newsletter', utm_campaign: 'launch' }, sessionId: 's-1' }
  const signUp = await tab.post('/auth/signup', formFields({ email: 'Lin@Example.com', password: 'a good long password', isInMailList: true, utm }), { cookie: 'lang=hu' })
  t.equal(signUp.json().status, 'OK')
  const userId = signUp.json().user.id as string

  await t.test('is made with the sign-up, with the mailing-list choice, the UTM record and the language', async (t) => {
    const { rows } = await stack.db.query<{ email: string; is_in_mail_list: boolean; utm: unknown; language: string; tos_version: string | null }>(
      'SELECT email, is_in_mail_list, utm, language, tos_version FROM api.users WHERE id = $1',
      [userId],
    )
    t.same(rows, [{ email: 'lin@example.com', is_in_mail_list: true, utm, language: 'hu', tos_version: null }])
  })

  await t.test('is private to a verified, signed-in session', async (t) => {
    const anonymous = await stack.bff.inject({ method: 'GET', url: '/api/user' })
    t.equal(anonymous.statusCode, 401)
    t.equal(anonymous.json().code, 'API_SESSION_REQUIRED')
    const unverified = await tab.get('/api/user')
    t.equal(unverified.statusCode, 403)
    t.equal(unverified.json().code, 'API_EMAIL_NOT_VERIFIED')
    // A token signed with a key that is not the core's.
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url')
    const unsigned = `${part({ alg: 'RS256', typ: 'JWT', kid: 'd-1' })}.${part({ sub: userId, exp: Math.floor(Date.now() / 1000) + 600, 'st-ev': { v: true } })}`
    const forged = `${unsigned}.${sign('sha256', Buffer.from(unsigned), privateKey).toString('base64url')}`
    const answer = await stack.bff.inject({ method: 'GET', url: '/api/user', headers: { cookie: `sAccessToken=${forged}` } })
    t.equal(answer.statusCode, 401, 'a forged token is refused')
  })

  await t.test('reads the account once the email is verified', async (t) => {
    const mailDir = path.join(stack.config.dataDir, 'mail')
    const mail = JSON.parse(fs.readFileSync(path.join(mailDir, fs.readdirSync(mailDir).sort()[0]!), 'utf8')) as { text: string }
    const token = new URL(/https?:\/\/\S+/.exec(mail.text)![0]).searchParams.get('token')!
    t.equal((await tab.post('/auth/user/email/verify', { method: 'token', token })).json().status, 'OK')
    const response = await tab.get('/api/user')
    t.equal(response.statusCode, 200)
    t.equal(response.headers['cache-control'], 'no-store')
    const user = response.json()
    t.same(Object.keys(user).sort(), ['avatarUrl', 'email', 'id', 'isInMailList', 'isTosAccepted', 'language', 'languageChosen', 'librarySize', 'name', 'notify', 'roles', 'timeJoined', 'unreadNotifications', 'watchOnAdd'])
    t.match(user, { id: userId, email: 'lin@example.com', isTosAccepted: false, isInMailList: true, language: 'hu', languageChosen: false, name: null, avatarUrl: null, librarySize: 0, notify: 'daily', watchOnAdd: true, unreadNotifications: 0 })
    t.ok(Math.abs(Date.parse(user.timeJoined) - Date.now()) < 60_000)
  })

  await t.test('accepting the terms records them and the mailing-list choice', async (t) => {
    const noHeader = await stack.bff.inject({ method: 'POST', url: '/api/user/accept-tos', headers: { cookie: tab.jar.header('/api/user/accept-tos'), 'content-type': 'application/json' }, payload: { isInMailList: false } })
    t.equal(noHeader.statusCode, 403, 'a write without the custom header is refused')
    t.equal((await tab.get('/api/user')).json().isTosAccepted, false, 'and changed nothing')
    const bad = await tab.post('/api/user/accept-tos', { isInMailList: 'no' })
    t.equal(bad.statusCode, 400)
    const accepted = await tab.post('/api/user/accept-tos', { isInMailList: false })
    t.equal(accepted.statusCode, 200)
    t.match(accepted.json(), { isTosAccepted: true, isInMailList: false })
    t.match((await tab.get('/api/user')).json(), { isTosAccepted: true, isInMailList: false })
  })

  await t.test('the personal library: add, remove, list with the public filters and sorts', async (t) => {
    const ids = async (query = '') => ((await tab.get(`/api/user/programs${query}`)).json().items as Array<{ id: string }>).map((p) => p.id)
    t.same(await ids(), [], 'empty at first')
    const added = await tab.post('/api/user/program/blender')
    t.equal(added.statusCode, 200)
    t.same(added.json(), { programId: 'blender', inLibrary: true, librarySize: 1 })
    t.same((await tab.post('/api/user/program/blender')).json(), { programId: 'blender', inLibrary: true, librarySize: 1 }, 'adding twice is one add')
    for (const id of ['autodesk-maya', 'gimp']) t.equal((await tab.post(`/api/user/program/${id}`)).statusCode, 200)
    const unknown = await tab.post('/api/user/program/no-such-program')
    t.equal(unknown.statusCode, 404)
    t.equal(unknown.json().code, 'API_CATALOGUE_NOT_FOUND')
    t.same(await ids('?sort=nameAsc'), ['autodesk-maya', 'blender', 'gimp'])
    t.same(await ids('?sort=nameDesc'), ['gimp', 'blender', 'autodesk-maya'])
    t.same(await ids('?price=paid'), ['autodesk-maya'])
    t.same(await ids('?price=free&category=graphics'), ['gimp'])
    t.same(await ids('?q=blend'), ['blender'])
    t.equal((await tab.get('/api/user/programs?sort=sideways')).statusCode, 400)
    // "recently added", newest first, with the other filters; its own days, so the order
    // is neither the order of the adds above nor the names'.
    for (const [id, day] of [['blender', '2026-03-03'], ['autodesk-maya', '2026-03-01'], ['gimp', '2026-03-02']]) {
      await stack.db.query('UPDATE api.user_programs SET added_at = $3 WHERE user_id = $1 AND program_id = $2', [userId, id, day])
    }
    t.same(await ids('?sort=recentlyAdded'), ['blender', 'gimp', 'autodesk-maya'])
    t.same(await ids('?sort=recentlyAdded&price=free'), ['blender', 'gimp'])
    t.same(await ids('?sort=recentlyAdded&pageSize=1&page=2'), ['gimp'])
    t.same(await ids('?sort=recentlyAdded&q=gimp'), ['gimp'])
    t.same(await ids('?q=blender'), ['blender'], 'the search box of the library')
    t.equal((await tab.get('/api/user')).json().librarySize, 3)
    const removed = await tab.put('/api/user/program/blender')
    t.equal(removed.statusCode, 404, 'PUT is not a way to change the library')
    const del = await tab.delete('/api/user/program/blender')
    t.same(del.json(), { programId: 'blender', inLibrary: false, librarySize: 2 })
    const again = await tab.delete('/api/user/program/blender')
    t.equal(again.statusCode, 200, 'removing twice is fine')
    const crossSite = await stack.bff.inject({ method: 'DELETE', url: '/api/user/program/gimp', headers: { cookie: tab.jar.header('/api') } })
    t.equal(crossSite.statusCode, 403, 'a remove without the custom header is refused')
    t.same(await ids('?sort=nameAsc'), ['autodesk-maya', 'gimp'], 'and changed nothing')
    t.equal((await stack.bff.inject({ method: 'GET', url: '/api/user/programs' })).statusCode, 401, 'private')
  })

  await t.test('a disabled account is answered 403 with the spec\'s message', async (t) => {
    await stack.db.query('UPDATE api.users SET disabled_at = now() WHERE id = $1', [userId])
    const response = await tab.get('/api/user')
    t.equal(response.statusCode, 403)
    t.match(response.json(), { code: 'API_ACCOUNT_DISABLED', message: ACCOUNT_DISABLED_MESSAGE })
    await stack.db.query('UPDATE api.users SET disabled_at = NULL WHERE id = $1', [userId])
  })

  await t.test('a sign-in makes a record a failed sign-up could not', async (t) => {
    await stack.db.query('DELETE FROM api.users WHERE id = $1', [userId])
    t.equal((await tab.get('/api/user')).json().code, 'API_USER_NOT_FOUND')
    t.equal((await browser(stack.bff).post('/auth/signin', formFields({ email: 'lin@example.com', password: 'a good long password' }))).json().status, 'OK')
    const { rows } = await stack.db.query('SELECT email FROM api.users WHERE id = $1', [userId])
    t.same(rows, [{ email: 'lin@example.com' }])
  })

  await t.test('check-email says whether an account uses the address', async (t) => {
    t.same((await tab.get('/api/user/check-email?email=%20LIN@example.com')).json(), { success: true })
    t.same((await tab.get('/api/user/check-email?email=nobody@example.com')).json(), { success: false })
    t.equal((await tab.get('/api/user/check-email')).json().code, 'BFF_EMAIL_REQUIRED')
  })
})
