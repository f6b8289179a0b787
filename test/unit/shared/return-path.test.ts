import t from 'tap'
import { nextAccountStep, readReturn, returnSearch, safeReturnPath } from '../../../shared/auth/return-path.ts'

// The target an account page carries is a path on this site, never an open
// redirect, whatever its spelling; the pending "add" belongs to a program page only.

t.test('a path on this site is kept, with its query', async (t) => {
  t.equal(safeReturnPath('/@/programs/blender'), '/@/programs/blender')
  t.equal(safeReturnPath('/@/programs?q=caf%C3%A9&sort=nameAsc'), '/@/programs?q=caf%C3%A9&sort=nameAsc')
  t.equal(safeReturnPath('/@/programs?q=100%25'), '/@/programs?q=100%25', 'a literal % in the query')
  t.equal(safeReturnPath('/@/programs?q=a%2F%2Fb'), '/@/programs?q=a%2F%2Fb', 'slashes inside the query are no host')
  t.equal(safeReturnPath('/mfa?redirectToPath=%2F%40%2Fmy-profile'), '/mfa?redirectToPath=%2F%40%2Fmy-profile')
  t.equal(safeReturnPath('/@/programs/blender#details'), '/@/programs/blender', 'the fragment is dropped')
})

t.test('every spelling of another host, a script or a non-page is refused', async (t) => {
  const refused = [
    '',
    '//evil.com',
    '///evil.com',
    '/\\evil.com',
    '\\\\evil.com',
    '\\/evil.com',
    'https://evil.com',
    'HTTPS://evil.com',
    'http:evil.com',
    'http:/evil.com',
    'evil.com',
    '/%2F/evil.com',
    '/%2f/evil.com',
    '%2F%2Fevil.com',
    '/%252F%252Fevil.com',
    '/%25252F/evil.com',
    '\t//evil.com',
    '/\t/evil.com',
    '/%09/evil.com',
    '/\n/evil.com',
    '/\r/evil.com',
    '/%0A/evil.com',
    '/%00/x',
    '/\u007f',
    '/%5Cevil.com',
    '/%5cevil.com',
    '/%255Cevil.com',
    '/@/x\\y',
    '/..//evil.com',
    '/./..//evil.com',
    '/%2e%2e//evil.com',
    '/.%2E//evil.com',
    'javascript:alert(1)',
    'JavaScript:alert(1)',
    ' /@/library',
    'data:text/html,x',
    '/api/user',
    '/API/user',
    '/auth/signout',
    '/auth',
    `/${'a'.repeat(1100)}`,
  ]
  for (const value of refused) t.equal(safeReturnPath(value), null, JSON.stringify(value))
  t.equal(safeReturnPath(null), null)
  t.equal(safeReturnPath(undefined), null)
})

t.test('the action rides only with a program page of the signed-in area', async (t) => {
  t.same(readReturn('?redirectToPath=%2F%40%2Fprograms%2Fblender&action=add'), { path: '/@/programs/blender', action: { kind: 'add', programId: 'blender' } })
  t.same(readReturn('?redirectToPath=%2F%40%2Fprograms%2Fblender'), { path: '/@/programs/blender' })
  t.same(readReturn('?redirectToPath=%2F%40%2Fmy-profile&action=add'), { path: '/@/my-profile' }, 'not a program page: no action')
  t.same(readReturn('?redirectToPath=%2F%40%2Fprograms%2Fblender%3Fx%3D1&action=add'), { path: '/@/programs/blender?x=1' }, 'a program page with a query is not one to add from')
  t.same(readReturn('?redirectToPath=%2Fprograms%2Fblender&action=add'), { path: '/programs/blender' }, 'the public page is not the signed-in one')
  t.same(readReturn('?redirectToPath=%2F%40%2Fprograms%2Fblender&action=delete'), { path: '/@/programs/blender' }, 'only add exists')
  t.equal(readReturn('?redirectToPath=%2F%2Fevil.com&action=add'), null)
  t.equal(readReturn(''), null)
})

t.test('the query carries the target on, and nothing for the signed-in home', async (t) => {
  t.equal(returnSearch({ path: '/@/programs/blender', action: { kind: 'add', programId: 'blender' } }), '?redirectToPath=%2F%40%2Fprograms%2Fblender&action=add')
  t.equal(returnSearch({ path: '/@/programs?q=a b' }), '?redirectToPath=%2F%40%2Fprograms%3Fq%3Da%20b')
  t.equal(returnSearch({ path: '/@' }), '')
  t.equal(returnSearch({ path: '/@/library' }), '')
  t.equal(returnSearch(null), '')
  const target = { path: '/@/programs?q=100%25&sort=nameAsc', action: undefined }
  t.same(readReturn(returnSearch(target)), { path: target.path }, 'what one page writes the next reads back')
})

t.test('the next account step follows the guard\'s order', async (t) => {
  t.equal(nextAccountStep(200, { isTosAccepted: true }), 'ready')
  t.equal(nextAccountStep(200, { isTosAccepted: false }), '/tos')
  t.equal(nextAccountStep(401, { code: 'API_SESSION_REQUIRED' }), '/login')
  t.equal(nextAccountStep(401, null), '/login')
  t.equal(nextAccountStep(403, { code: 'API_MFA_REQUIRED' }), '/mfa')
  t.equal(nextAccountStep(403, { code: 'API_EMAIL_NOT_VERIFIED' }), '/email-not-verified')
  t.equal(nextAccountStep(403, { code: 'API_ACCOUNT_DISABLED' }), 'unknown', 'the target page says the account is disabled')
  t.equal(nextAccountStep(503, null), 'unknown')
})
