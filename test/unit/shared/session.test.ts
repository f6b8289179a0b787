import t from 'tap'
import { protectedRedirect, signedInHome, stateFromFailedClaims, termsRedirect } from '../../../shared/session.ts'

// The route guard's decisions (spec §4), shared by the server render and the browser.

t.test('the multi-factor claim is checked before email verification', async (t) => {
  t.equal(stateFromFailedClaims([]), 'LOGGED_IN')
  t.equal(stateFromFailedClaims(['st-ev']), 'EMAIL_VERIFICATION_REQUIRED')
  t.equal(stateFromFailedClaims(['st-mfa']), 'MFA_REQUIRED')
  t.equal(stateFromFailedClaims(['st-ev', 'st-mfa']), 'MFA_REQUIRED')
})

t.test('protected routes send each state to its page', async (t) => {
  t.equal(protectedRedirect('LOGGED_OUT'), '/login')
  t.equal(protectedRedirect('MFA_REQUIRED'), '/mfa')
  t.equal(protectedRedirect('EMAIL_VERIFICATION_REQUIRED'), '/email-not-verified')
  t.equal(protectedRedirect('LOGGED_IN'), null)
})

t.test('a signed-in user on a public page goes to its twin, else to /@', async (t) => {
  t.equal(signedInHome('/programs/blender'), '/@/programs/blender')
  t.equal(signedInHome('/programs'), '/@/programs')
  t.equal(signedInHome('/category/3d', '?sort=nameAsc'), '/@/category/3d?sort=nameAsc')
  t.equal(signedInHome('/developer/adobe/'), '/@/developer/adobe')
  // Issue 12: the drive's public page has the drive itself as its twin.
  t.equal(signedInHome('/files'), '/@/files')
  t.equal(signedInHome('/files/'), '/@/files')
  for (const path of ['/', '/library', '/publisher/x', '/license-type/freeware', '/welcome', '/programs/a/b', '/files/x', '/sharing/abc']) t.equal(signedInHome(path, '?q=1'), '/@', path)
})

t.test('terms: asked until accepted, and never again after', async (t) => {
  t.equal(termsRedirect(false, false), '/tos')
  t.equal(termsRedirect(false, true), null)
  t.equal(termsRedirect(true, true), '/@')
  t.equal(termsRedirect(true, false), null)
})
