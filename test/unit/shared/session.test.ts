import t from 'tap'
import { protectedRedirect, stateFromFailedClaims, termsRedirect } from '../../../shared/auth/session.ts'

// The route guard's decisions (spec §4), shared by the server render and the browser. Where a
// signed-in user goes from a public page: test/unit/client/catalogue/twins.test.ts.

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

t.test('terms: asked until accepted, and never again after', async (t) => {
  t.equal(termsRedirect(false, false), '/tos')
  t.equal(termsRedirect(false, true), null)
  t.equal(termsRedirect(true, true), '/@')
  t.equal(termsRedirect(true, false), null)
})
