import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { describeAuthFailure } from '../../../client/lib/auth-errors.ts'
import { createI18n } from '../../../client/lib/i18n.ts'
import { root } from '../../helpers.ts'

// What the sign-in page says for a 429 (issue 18): a block names its end; a sign-in held back by
// others in flight for the same account says so and is not a block; any other 429 is the rate limit.

const read = (locale: string, ns: string) => JSON.parse(fs.readFileSync(path.join(root, 'locales', locale, `${ns}.json`), 'utf8')) as Record<string, unknown>

function translator(locale: 'en' | 'de' | 'hu') {
  return createI18n({ locale, namespaces: ['auth', 'common'], resources: { auth: read(locale, 'auth'), common: read(locale, 'common') } }).getFixedT(locale, ['auth', 'common'] as const)
}

const answer = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })

t.test('a sign-in held back by others in flight is not told "blocked"', async (t) => {
  const inProgress = { status: 'SIGN_IN_IN_PROGRESS', message: 'A sign-in for this account is already in progress, try again' }
  t.same(await describeAuthFailure(answer(429, inProgress), translator('en')), { message: 'A sign-in for this account is already in progress. Please try again in a moment.' })
  t.same(await describeAuthFailure(answer(429, inProgress), translator('de')), { message: 'Für dieses Konto läuft bereits eine Anmeldung. Bitte versuchen Sie es gleich noch einmal.' })
  t.same(await describeAuthFailure(answer(429, inProgress), translator('hu')), { message: 'Ebbe a fiókba már folyamatban van egy bejelentkezés. Próbálja újra egy pillanat múlva.' })
})

t.test('a block and the rate limit keep their answers', async (t) => {
  const blocked = { status: 'ACCOUNT_BLOCKED', message: 'Too many failed sign-in attempts.', blockedUntil: '2026-11-27T12:15:00.000Z', attemptCount: 5 }
  t.same(await describeAuthFailure(answer(429, blocked), translator('en')), { message: 'Too many failed sign-in attempts.', blocked: { blockedUntil: '2026-11-27T12:15:00.000Z', attemptCount: 5 } })
  t.same(await describeAuthFailure(answer(429, { code: 'BFF_RATE_LIMITED' }), translator('en')), { message: 'Too many requests. Please wait a minute and try again.' })
})
