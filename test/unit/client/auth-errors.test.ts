import fs from 'node:fs'
import path from 'node:path'
import i18next, { type TFunction } from 'i18next'
import t from 'tap'
import { outcomeOfAnswer, problemOfHttp, afterWrongCredentials, type AuthProblem } from '../../../shared/auth/forms.ts'
import { PASSWORD_ERRORS } from '../../../shared/auth/sign-up.ts'
import { EMAIL_EXISTS_SDK_MESSAGE, fieldMessage, problemMessage, SDK_FIELD_ERRORS } from '../../../client/lib/account/auth-errors.ts'
import { root } from '../../helpers.ts'

// Every message the SDK can answer an account form with reads in the page's
// language; English pages keep the SDK's field errors as they are (spec §5).

const sdk = path.join(root, 'node_modules', 'supertokens-node', 'lib', 'build', 'recipe', 'emailpassword')

/** The field errors supertokens-node's email-password recipe can answer, read from its code. */
function sdkFieldErrors(): string[] {
  const api = fs.readdirSync(path.join(sdk, 'api')).flatMap((file) => [...fs.readFileSync(path.join(sdk, 'api', file), 'utf8').matchAll(/\berror: "([^"]+)"/g)].map((m) => m[1]!))
  const validators = fs.readFileSync(path.join(sdk, 'utils.js'), 'utf8')
  const defaults = [...validators.matchAll(/return "([^"]+)";/g)].map((m) => m[1]!)
  return [...new Set([...api, ...defaults])]
}

/**
 * Texts of the SDK our set-up never lets through: its default password rules (ours replace them,
 * server/bff/auth/supertokens.ts), and the "Development bug" of a non-string value (the SDK answers
 * 400 before any validator for those).
 */
const NOT_REACHABLE = [
  'Password must contain at least 8 characters, including a number',
  "Password's length must be lesser than 100 characters",
  'Password must contain at least one alphabet',
  'Password must contain at least one number',
  'Development bug: Please make sure the password field yields a string',
  'Development bug: Please make sure the email field yields a string',
]

function translator(lng: string): TFunction<readonly ['auth', 'common']> {
  const read = (ns: string) => JSON.parse(fs.readFileSync(path.join(root, 'locales', lng, `${ns}.json`), 'utf8')) as Record<string, unknown>
  const i18n = i18next.createInstance()
  void i18n.init({ lng, resources: { [lng]: { auth: read('auth'), common: read('common') } }, ns: ['auth', 'common'], defaultNS: 'auth', initAsync: false, interpolation: { escapeValue: false } })
  return i18n.t as unknown as TFunction<readonly ['auth', 'common']>
}

const en = translator('en')
const others = ['de', 'hu', 'es', 'pl', 'ro', 'cs', 'sk'].map((lng) => ({ lng, t: translator(lng) }))

t.test('every field error the SDK has is translated, or cannot reach a page', async (t) => {
  const texts = sdkFieldErrors()
  t.ok(texts.includes('Field is not optional') && texts.includes('Email is invalid') && texts.includes(EMAIL_EXISTS_SDK_MESSAGE), 'the SDK\'s texts were found')
  const known = new Set(Object.values(SDK_FIELD_ERRORS).flatMap((byText) => Object.keys(byText)))
  t.same(texts.filter((text) => !known.has(text) && !NOT_REACHABLE.includes(text)), [], 'no SDK text without a translation')
})

t.test('English pages show the SDK\'s field errors unchanged (spec §5), the duplicate in the product\'s words', async (t) => {
  for (const [id, byText] of Object.entries(SDK_FIELD_ERRORS)) {
    for (const text of Object.keys(byText)) {
      const expected = text === EMAIL_EXISTS_SDK_MESSAGE ? 'This email already exists. Please log in.' : text
      t.equal(fieldMessage(id, text, en, 'en'), expected, `${id}: ${text}`)
    }
  }
  t.equal(fieldMessage('utm', 'utm must be the UTM record: …', en, 'en'), 'utm must be the UTM record: …', 'one the list does not know passes through')
})

t.test('other languages never show an SDK field error in English', async (t) => {
  const english = new Set([...sdkFieldErrors(), ...Object.values(PASSWORD_ERRORS), 'isInMailList must be true or false'])
  for (const { lng, t: tr } of others) {
    for (const [id, byText] of Object.entries(SDK_FIELD_ERRORS)) {
      for (const text of Object.keys(byText)) {
        const shown = fieldMessage(id, text, tr, lng)
        t.notOk(english.has(shown), `${lng} ${id}: ${shown}`)
        t.not(shown, fieldMessage(id, text, en, 'en'), `${lng} ${id}: translated`)
      }
    }
    t.equal(fieldMessage('isInMailList', 'isInMailList must be true or false', tr, lng), tr('auth:fieldErrors.invalid'), `${lng}: an unknown one reads as "not accepted"`)
  }
})

t.test('statuses and error codes read in the page\'s language, never the SDK\'s English', async (t) => {
  const problems: AuthProblem[] = [
    outcomeOfAnswer({ status: 'WRONG_CREDENTIALS_ERROR' }).problem!,
    outcomeOfAnswer({ status: 'SIGN_IN_NOT_ALLOWED', reason: 'Cannot sign in due to security reasons. Please try resetting your password, use a different login method or contact support. (ERR_CODE_008)' }).problem!,
    outcomeOfAnswer({ status: 'SIGN_UP_NOT_ALLOWED', reason: 'Cannot sign up due to security reasons. Please try logging in, use a different login method or contact support. (ERR_CODE_007)' }).problem!,
    outcomeOfAnswer({ status: 'PASSWORD_RESET_NOT_ALLOWED', reason: 'Reset password link was not created because of account take over risk. Please contact support. (ERR_CODE_001)' }).problem!,
    outcomeOfAnswer({ status: 'SIGN_IN_UP_NOT_ALLOWED', reason: 'Cannot sign in / up due to security reasons. Please try a different login method or contact support. (ERR_CODE_004)' }).problem!,
    outcomeOfAnswer({ status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' }).problem!,
    outcomeOfAnswer({ status: 'INVALID_TOTP_ERROR', maxNumberOfFailedAttempts: 5, currentNumberOfFailedAttempts: 2 }).problem!,
    outcomeOfAnswer({ status: 'LIMIT_REACHED_ERROR', retryAfterMs: 60_000 }).problem!,
    problemOfHttp(429, { status: 'ACCOUNT_BLOCKED', message: 'Too many failed sign-in attempts.', blockedUntil: new Date(Date.now() + 900_000).toISOString(), attemptCount: 5 }),
    problemOfHttp(429, { code: 'BFF_RATE_LIMITED', message: 'Too many requests. Please wait 40 seconds and try again.' }),
    problemOfHttp(503, { code: 'BFF_MAIL_UNAVAILABLE', message: 'Mail cannot be sent right now.' }),
    problemOfHttp(403, { code: 'BFF_CSRF_REJECTED', message: 'Cross-site request refused.' }),
    problemOfHttp(400, { message: 'Are you sending too many formFields?' }),
    problemOfHttp(401, { message: 'unauthorised' }),
    problemOfHttp(502, { code: 'BFF_UPSTREAM_BAD_RESPONSE', message: 'The upstream service answered badly.' }),
    problemOfHttp(400, { code: 'BFF_RECOVERY_CODE_INVALID', message: 'That recovery code is not valid.' }),
    problemOfHttp(404, { code: 'BFF_TENANT_NOT_FOUND', message: 'This address names a tenant that does not exist.' }),
    outcomeOfAnswer({ status: 'GENERAL_ERROR', message: 'Something the server said' }).problem!,
  ]
  t.same(problems.map((problem) => problem.kind), ['wrongCredentials', 'notAllowed', 'notAllowed', 'notAllowed', 'notAllowed', 'invalidToken', 'wrongCode', 'codeLocked', 'blocked', 'tooManyRequests', 'mailUnavailable', 'refused', 'badRequest', 'signedOut', 'unavailable', 'recoveryWrong', 'invalidToken', 'generalError'])
  t.equal(problemMessage(problems[1]!, en, 'en'), 'For security reasons you cannot log in this way. Try resetting your password, use another way to log in, or contact support. (ERR_CODE_008)', 'the support code is kept')
  t.equal(problemMessage(problems.at(-1)!, en, 'en'), 'Something the server said', 'spec §8: GENERAL_ERROR shows its message on English pages')
  const sdkEnglish = ['Cannot sign', 'Reset password link', 'Too many failed sign-in', 'Please wait 40 seconds', 'Mail cannot', 'Cross-site', 'formFields', 'unauthorised', 'upstream', 'recovery code is not valid', 'Something the server said']
  for (const { lng, t: tr } of others) {
    for (const problem of problems) {
      const shown = problemMessage(problem, tr, lng)
      t.not(shown, problemMessage(problem, en, 'en'), `${lng} ${problem.kind}`)
      t.notOk(sdkEnglish.some((text) => shown.includes(text)), `${lng} ${problem.kind}: ${shown}`)
    }
  }
})

t.test('the warning before the lock and the lock itself come from the block status (spec §5)', async (t) => {
  t.same(afterWrongCredentials(null), { kind: 'wrongCredentials' })
  t.same(afterWrongCredentials({ attemptsRemaining: 3, blocked: false, blockedUntil: null }), { kind: 'wrongCredentials' })
  t.same(afterWrongCredentials({ attemptsRemaining: 2, blocked: false, blockedUntil: null }), { kind: 'wrongCredentials', attemptsRemaining: 2 })
  t.same(afterWrongCredentials({ attemptsRemaining: 0, blocked: true, blockedUntil: '2026-11-27T12:00:00.000Z' }), { kind: 'blocked', blockedUntil: '2026-11-27T12:00:00.000Z' })
  t.same(outcomeOfAnswer({ status: 'FIELD_ERROR', formFields: [{ id: 'email', error: 'Email is invalid' }] }), { fields: { email: 'Email is invalid' } })
})

// Failures of the account calls, in this module's words:
// what the sign-in page says for a 429 — a block names its end; a sign-in held back by others in
// flight for the same account says so and is not a block; any other 429 is the rate limit.
t.test('a sign-in held back by others in flight is not told "blocked"', async (t) => {
  const inProgress = problemOfHttp(429, { status: 'SIGN_IN_IN_PROGRESS', message: 'A sign-in for this account is already in progress, try again' })
  t.same(inProgress, { kind: 'signInInProgress' })
  t.equal(problemMessage(inProgress, en, 'en'), 'A sign-in for this account is already in progress. Please try again in a moment.')
  t.equal(problemMessage(inProgress, translator('de'), 'de'), 'Für dieses Konto läuft bereits eine Anmeldung. Bitte versuchen Sie es gleich noch einmal.')
  t.equal(problemMessage(inProgress, translator('hu'), 'hu'), 'Ebbe a fiókba már folyamatban van egy bejelentkezés. Próbálja újra egy pillanat múlva.')
})

t.test('a block and the rate limit keep their answers', async (t) => {
  const blocked = problemOfHttp(429, { status: 'ACCOUNT_BLOCKED', message: 'Too many failed sign-in attempts.', blockedUntil: '2026-11-27T12:15:00.000Z', attemptCount: 5 })
  t.same(blocked, { kind: 'blocked', blockedUntil: '2026-11-27T12:15:00.000Z' })
  t.match(problemMessage(blocked, en, 'en'), /^Too many failed attempts\. Your account is locked until /)
  t.equal(problemMessage(problemOfHttp(429, { code: 'BFF_RATE_LIMITED' }), en, 'en'), 'Too many requests. Please wait a minute and try again.')
})
