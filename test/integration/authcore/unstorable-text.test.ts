import t from 'tap'
import { buildAuthCore } from '../../../server/authcore/app.ts'
import { LogCapture, openTestDatabase, TEST_AUTH_CORE_SECRET, testCoreConfig } from '../../helpers.ts'

// At the auth core's edge: a NUL in a string reached PostgreSQL ("invalid byte
// sequence for encoding UTF8: 0x00") and the core answered 500 "Internal Error" with an error
// line; an app id that is no UTF-8 (/appid-%ED%A0%80/…) threw before routing, an uncaught
// exception. The core refuses these as it refuses any malformed input (AUTH-CORE.md §1): HTTP 400
// with a plain-text message, no error line.

const KEY = 'unstorable-text-core-key-0123456789'

t.test('a NUL or a lone surrogate in the path, the query or the body is a 400 in plain text, without an error line', async (t) => {
  const logs = new LogCapture()
  const core = await buildAuthCore({ config: testCoreConfig('info'), db: await openTestDatabase(t), secret: TEST_AUTH_CORE_SECRET, apiKeys: [KEY], logStream: logs })
  t.teardown(() => core.close())
  const headers = { 'api-key': KEY, 'content-type': 'application/json', 'cdi-version': '5.4' }
  const signUp = await core.inject({ method: 'POST', url: '/public/recipe/signup', headers, payload: { email: 'core@example.com', password: 'correct horse battery' } })
  t.equal(signUp.json().status, 'OK')
  const cases: Array<[string, string, unknown?]> = [
    ['POST', '/public/recipe/signin', { email: 'a\u0000b@c.de', password: 'correct horse battery' }],
    ['POST', '/recipe/signin', { email: 'core@example.com', password: 'x\ud800' }],
    ['POST', '/public/recipe/user/password/reset/token', { userId: signUp.json().user.id, email: 'a\u0000@b.c' }],
    ['PUT', '/recipe/user/metadata', { userId: signUp.json().user.id, metadataUpdate: { nested: { 'k\u0000': 'v' } } }],
    ['GET', '/users/by-accountinfo?email=a%00@b.c&doUnionOfAccountInfo=false'],
    ['GET', '/public/users/by-accountinfo?email=a%ED%A0%80@b.c&doUnionOfAccountInfo=false'],
    ['GET', '/user/id?userId=x%00'],
    ['GET', '/appid-a%00/user/id?userId=x'],
    ['GET', '/appid-%ED%A0%80/user/id?userId=x'],
    ['GET', '/t%00/recipe/user/metadata?userId=x'],
  ]
  for (const [method, url, body] of cases) {
    const response = await core.inject({ method: method as 'GET', url, headers, ...(body !== undefined ? { payload: JSON.stringify(body) } : {}) })
    const label = `${method} ${url}${body !== undefined ? ` ${JSON.stringify(body)}` : ''}`
    t.equal(response.statusCode, 400, label)
    t.match(response.headers['content-type'], /^text\/plain; charset=utf-8/, `${label}: plain text`)
    t.match(response.body, /character that cannot be accepted/, `${label}: says why`)
  }
  // Non-ASCII text that is fine still works.
  const unicode = await core.inject({ method: 'POST', url: '/public/recipe/signup', headers, payload: { email: 'zoë@example.com', password: 'pässwörd 漢字 😀' } })
  t.equal(unicode.json().status, 'OK')
  t.equal((await core.inject({ method: 'POST', url: '/public/recipe/signin', headers, payload: { email: 'zoë@example.com', password: 'pässwörd 漢字 😀' } })).json().status, 'OK')

  const lines = logs.lines.map((line) => JSON.parse(line) as { level: number; msg?: string; err?: { message?: string } })
  t.ok(lines.some((line) => line.msg === 'request completed'), 'its requests were logged')
  t.same(lines.filter((line) => line.level >= 50).map((line) => line.err?.message ?? line.msg), [], 'no error line')
})
