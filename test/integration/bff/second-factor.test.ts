import { randomBytes } from 'node:crypto'
import t from 'tap'
import { base32Decode } from '../../../server/authcore/totp.ts'
import { browser, buildStack, confirmedAuthenticator, signedInTab, TestClock, credentials } from '../../helpers.ts'

// The second factor the account has guards every change to it.
// §1 — another authenticator is added only with a current code of a confirmed device or a
// recovery code (a signed-in session alone added one, verified it, and used its codes to remove the
// owner's device and delete the account), on every spelling of the path the SDK routes; a first
// authenticator needs none; a code of a device not yet confirmed proves nothing.
// §7 — one attempt limit for the second factor, whichever way it is tried: wrong recovery codes
// and wrong TOTP codes count together, at sign-in's MFA step and wherever a code is checked.

const PASSWORD = 'correct horse battery'

// One clock, the test's, for the BFF, the auth core and the codes the test computes.
const clock = new TestClock()
const stack = await buildStack(t, { auth: true, now: clock.fixed, coreNow: clock.now, env: { RATE_LIMIT_MAX: '10000', AUTH_RATE_LIMIT_MAX: '10000' } })

type Tab = ReturnType<typeof browser>
/** A code no window the core accepts (period −1…+1) would take for any of these secrets. */

const send = (tab: Tab, method: 'POST' | 'DELETE', url: string, payload?: unknown, headers?: Record<string, string>) => tab.send(method, url, payload, headers)

const setUpTotp = (tab: Tab, name = 'owner-phone') => confirmedAuthenticator(tab, name, {}, clock)

/** A new sign-in with the password: the first factor done, the second owed. */
async function signIn(email: string): Promise<Tab> {
  const tab = browser(stack.bff)
  const answer = await tab.post('/auth/signin', credentials(email))
  if (answer.json().status !== 'OK') throw new Error(`sign-in failed: ${answer.body}`)
  return tab
}

const devicesOf = async (tab: Tab) => ((await tab.get('/auth/totp/device/list')).json().devices as Array<{ name: string; verified: boolean }>).map((device) => `${device.name}:${device.verified}`).sort()
const deleteAccount = (tab: Tab, email: string, totp: string) => send(tab, 'POST', '/api/user/delete', { reason: 'found-alternative', confirmEmail: email, totp })
const redeem = (tab: Tab, code: string) => send(tab, 'POST', '/api/user/recovery-codes/redeem', { code })

t.test('issue 26 §1: a signed-in session cannot add an authenticator without a code and take the account with it', async (t) => {
  const email = 'owner@example.com'
  const tab = await signedInTab(stack, email, PASSWORD)
  const { secret: owner } = await setUpTotp(tab)

  // The attack as reported, step by step; on main every step succeeded.
  const created = await tab.post('/auth/totp/device', { deviceName: 'intruder' })
  t.equal(created.statusCode, 400, 'adding a device without a code is refused')
  t.equal(created.json().code, 'BFF_TOTP_CODE_REQUIRED')
  t.match(created.json().message, /Adding another authenticator needs a current code/)
  t.equal(created.json().secret, undefined, 'no secret handed out')
  const intruder = typeof created.json().secret === 'string' ? base32Decode(created.json().secret) : randomBytes(20)
  const verified = await tab.post('/auth/totp/device/verify', { deviceName: 'intruder', totp: clock.totp(intruder) })
  t.not(verified.json().status, 'OK', 'there is no intruder device to confirm')
  const removed = await send(tab, 'DELETE', '/api/user/totp/devices/owner-phone', { totp: clock.totp(intruder, 1) })
  t.equal(removed.statusCode, 400, 'the owner\'s device stays')
  t.equal(removed.json().code, 'BFF_TOTP_INVALID')
  const deleted = await deleteAccount(tab, email, clock.totp(intruder, -1))
  t.equal(deleted.statusCode, 400, 'the account stays')
  t.equal(deleted.json().code, 'BFF_TOTP_INVALID')
  t.same(await devicesOf(tab), ['owner-phone:true'])
  t.equal((await tab.get('/api/user')).statusCode, 200)
  // The owner's own code still does what it should (the two wrong ones above are counted, not locking).
  t.equal((await send(tab, 'DELETE', '/api/user/totp/devices/owner-phone', { totp: clock.totp(owner, 1) })).statusCode, 204)
})

t.test('issue 26 §1: every spelling of the device creation path asks for the code', async (t) => {
  const tab = await signedInTab(stack, 'spellings@example.com', PASSWORD)
  await setUpTotp(tab)
  const spellings = ['/auth/totp/device', '/auth/totp/device/', '/auth/public/totp/device', '/auth/public/totp/device/', '/auth/totp/device?deviceName=x', '/auth/public/totp/device?tenantId=public&x=1', '/auth/totp/device/?']
  for (const url of spellings) {
    for (const body of [{ deviceName: 'intruder' }, {}, { deviceName: 'intruder', totp: '' }, { deviceName: 'intruder', totp: '   ', recoveryCode: '' }, { deviceName: 'intruder', totp: 123456 }]) {
      const answer = await tab.post(url, body)
      t.equal(answer.statusCode, 400, `${url} ${JSON.stringify(body)}`)
      t.equal(answer.json().code, 'BFF_TOTP_CODE_REQUIRED')
    }
  }
  // What the router does not take as the creation path makes no device either.
  for (const url of ['/auth/TOTP/device', '/auth/totp/DEVICE', '/auth/totp//device', '/auth/other/totp/device', '/auth/totp/device%2F']) {
    const answer = await tab.post(url, { deviceName: 'intruder' })
    t.not(answer.statusCode, 200, url)
    t.equal(answer.json().secret, undefined, `${url}: no secret`)
  }
  t.same(await devicesOf(tab), ['owner-phone:true'], 'no device was made')
})

t.test('issue 26 §1: another authenticator with a current code or a recovery code; a first one needs none', async (t) => {
  const email = 'second@example.com'
  const tab = await signedInTab(stack, email, PASSWORD)
  const first = await tab.post('/auth/totp/device', { deviceName: 'owner-phone' })
  t.equal(first.json().status, 'OK', 'the first authenticator needs no code')
  t.match(first.json().secret, /^[A-Z2-7]{32}$/)
  // An abandoned set-up is no authenticator: making it again needs no code either.
  t.equal((await tab.post('/auth/totp/device', { deviceName: 'owner-phone' })).json().status, 'OK')
  t.equal((await tab.post('/auth/totp/device/remove', { deviceName: 'owner-phone' })).json().status, 'OK')
  const { secret: owner, codes } = await setUpTotp(tab)

  // The confirmed device's own name makes nothing, so it asks for no code (none spent).
  const same = await tab.post('/auth/totp/device', { deviceName: 'owner-phone' })
  t.equal(same.statusCode, 200)
  t.same(same.json(), { status: 'DEVICE_ALREADY_EXISTS_ERROR' })

  const wrong = await tab.post('/auth/totp/device', { deviceName: 'tablet', totp: clock.wrongTotp(owner) })
  t.equal(wrong.statusCode, 400)
  t.equal(wrong.json().code, 'BFF_TOTP_INVALID')
  const wrongRecovery = await tab.post('/auth/totp/device', { deviceName: 'tablet', recoveryCode: 'zzzz-zzzz-zzzz-zzzz' })
  t.equal(wrongRecovery.statusCode, 400)
  t.equal(wrongRecovery.json().code, 'BFF_RECOVERY_CODE_INVALID')
  t.same(await devicesOf(tab), ['owner-phone:true'])

  // A current code of the confirmed device, spaced as an app shows it.
  const code = clock.totp(owner, 1)
  const added = await tab.post('/auth/totp/device', { deviceName: 'tablet', totp: `${code.slice(0, 3)} ${code.slice(3)}` })
  t.equal(added.statusCode, 200, added.body)
  t.match(added.json(), { status: 'OK', deviceName: 'tablet', secret: /^[A-Z2-7]{32}$/ })
  const tablet = base32Decode(added.json().secret)
  t.same(await devicesOf(tab), ['owner-phone:true', 'tablet:false'])

  // Until it is confirmed, the new device's codes prove nothing: not to remove, delete, or add.
  const notYet = clock.totp(tablet)
  t.equal((await send(tab, 'DELETE', '/api/user/totp/devices/owner-phone', { totp: notYet })).json().code, 'BFF_TOTP_INVALID', 'removal: a code of an unconfirmed device is wrong')
  t.equal((await deleteAccount(tab, email, notYet)).json().code, 'BFF_TOTP_INVALID', 'deletion: likewise')
  t.equal((await tab.post('/auth/totp/device', { deviceName: 'third', totp: notYet })).json().code, 'BFF_TOTP_INVALID', 'another device: likewise')
  t.equal((await send(tab, 'POST', '/api/user/recovery-codes', { totp: notYet })).json().code, 'BFF_TOTP_INVALID', 'new recovery codes: likewise')

  t.match((await tab.post('/auth/totp/device/verify', { deviceName: 'tablet', totp: notYet })).json(), { status: 'OK', wasAlreadyVerified: false })
  t.same(await devicesOf(tab), ['owner-phone:true', 'tablet:true'])

  // A recovery code (the way for someone who has it but not the phone), spent.
  const before = (await tab.get('/api/user/security')).json().recoveryCodes.remaining as number
  const byRecovery = await tab.post('/auth/public/totp/device/', { deviceName: 'laptop', recoveryCode: codes[0] })
  t.equal(byRecovery.json().status, 'OK', byRecovery.body)
  t.equal((await tab.get('/api/user/security')).json().recoveryCodes.remaining, before - 1, 'the recovery code is spent')
  const reused = await tab.post('/auth/totp/device', { deviceName: 'laptop-2', recoveryCode: codes[0] })
  t.equal(reused.json().code, 'BFF_RECOVERY_CODE_INVALID', 'and works once')
})

t.test('issue 26 §1: a session that still owes the second factor spends no recovery code on a device', async (t) => {
  const email = 'pending-add@example.com'
  const owner = await signedInTab(stack, email, PASSWORD)
  const { codes } = await setUpTotp(owner)
  const pending = await signIn(email)
  const refused = await pending.post('/auth/totp/device', { deviceName: 'intruder', recoveryCode: codes[0] })
  t.equal(refused.statusCode, 403, 'the SDK\'s claim check: the factor is owed')
  t.equal((await owner.get('/api/user/security')).json().recoveryCodes.remaining, 10, 'no code spent')
  t.same(await devicesOf(owner), ['owner-phone:true'])
})

t.test('issue 26 §1: new recovery codes need a current code or a recovery code', async (t) => {
  const tab = await signedInTab(stack, 'renew@example.com', PASSWORD)
  const { secret, codes } = await setUpTotp(tab)
  const bare = await send(tab, 'POST', '/api/user/recovery-codes', {})
  t.equal(bare.statusCode, 400, 'a session alone gets no codes')
  t.equal(bare.json().code, 'BFF_TOTP_CODE_REQUIRED')
  t.equal(bare.json().codes, undefined)
  t.equal((await send(tab, 'POST', '/api/user/recovery-codes', { totp: clock.wrongTotp(secret) })).json().code, 'BFF_TOTP_INVALID')
  const renewed = await send(tab, 'POST', '/api/user/recovery-codes', { totp: clock.totp(secret, 1) })
  t.equal(renewed.statusCode, 200, renewed.body)
  t.equal((renewed.json().codes as string[]).length, 10)
  t.equal((await send(tab, 'POST', '/api/user/recovery-codes', { recoveryCode: codes[0] })).json().code, 'BFF_RECOVERY_CODE_INVALID', 'the old set is gone')
  const byRecovery = await send(tab, 'POST', '/api/user/recovery-codes', { recoveryCode: renewed.json().codes[0] })
  t.equal(byRecovery.statusCode, 200, 'a code of the current set makes a new set')
})

t.test('issue 26 §7: wrong recovery codes lock the TOTP factor too, everywhere a code is checked', async (t) => {
  const email = 'one-lock@example.com'
  const owner = await signedInTab(stack, email, PASSWORD)
  const { secret, codes } = await setUpTotp(owner)
  const attacker = await signIn(email)
  const answers: number[] = []
  for (let i = 0; i < 5; i++) answers.push((await redeem(attacker, `wrong-code-${i}`)).statusCode)
  t.same(answers, [400, 400, 400, 400, 429], 'five wrong recovery codes lock')

  const right = clock.totp(secret, 1)
  const verify = await attacker.post('/auth/totp/verify', { totp: right })
  t.match(verify.json(), { status: 'LIMIT_REACHED_ERROR', currentNumberOfFailedAttempts: 5, maxNumberOfFailedAttempts: 5 }, 'the right TOTP code at sign-in waits too')
  t.equal(verify.json().retryAfterMs, 900_000, 'for the cool-down after the newest wrong code')
  t.equal((await attacker.get('/api/user')).statusCode, 403, 'still owes the second factor')

  // The owner's fully signed-in session: every place that checks a current code.
  const remove = await send(owner, 'DELETE', '/api/user/totp/devices/owner-phone', { totp: right })
  t.equal(remove.statusCode, 429)
  t.equal(remove.json().code, 'BFF_TOTP_BLOCKED')
  t.equal(remove.headers['retry-after'], '900')
  t.equal((await deleteAccount(owner, email, right)).json().code, 'BFF_TOTP_BLOCKED')
  t.equal((await owner.post('/auth/totp/device', { deviceName: 'tablet', totp: right })).json().code, 'BFF_TOTP_BLOCKED')
  t.equal((await send(owner, 'POST', '/api/user/recovery-codes', { totp: right })).json().code, 'BFF_TOTP_BLOCKED')
  t.equal((await redeem(attacker, codes[0]!)).json().code, 'BFF_RECOVERY_CODE_BLOCKED', 'and a right recovery code')

  clock.advance(900_000)
  // Fifteen minutes on, the right code is the authenticator's code of then.
  t.match((await attacker.post('/auth/totp/verify', { totp: clock.totp(secret) })).json(), { status: 'OK' }, 'past the cool-down the right code passes')
  t.equal((await attacker.get('/api/user')).statusCode, 200)
})

t.test('issue 26 §7: wrong TOTP codes lock the recovery codes too', async (t) => {
  const email = 'totp-first@example.com'
  const owner = await signedInTab(stack, email, PASSWORD)
  const { secret, codes } = await setUpTotp(owner)
  const attacker = await signIn(email)
  const statuses: string[] = []
  for (let i = 0; i < 5; i++) statuses.push((await attacker.post('/auth/totp/verify', { totp: clock.wrongTotp(secret) })).json().status)
  t.same(statuses, Array(5).fill('INVALID_TOTP_ERROR'))
  const refused = await redeem(attacker, codes[0]!)
  t.equal(refused.statusCode, 429, 'the right recovery code waits')
  t.equal(refused.json().code, 'BFF_RECOVERY_CODE_BLOCKED')
  t.equal((await attacker.get('/api/user')).statusCode, 403)
  t.equal((await owner.get('/api/user/security')).json().recoveryCodes.remaining, 10, 'no code spent')
})

t.test('issue 26 §7: both kinds count in one run, a right code ends it, a confirmed device\'s OK does not', async (t) => {
  const email = 'mixed@example.com'
  const owner = await signedInTab(stack, email, PASSWORD)
  const { secret, codes } = await setUpTotp(owner)
  const attacker = await signIn(email)
  t.equal((await redeem(attacker, 'wrong-1')).statusCode, 400)
  t.equal((await redeem(attacker, 'wrong-2')).statusCode, 400)
  t.match((await attacker.post('/auth/totp/verify', { totp: clock.wrongTotp(secret) })).json(), { status: 'INVALID_TOTP_ERROR', currentNumberOfFailedAttempts: 3, maxNumberOfFailedAttempts: 5 }, 'the SDK\'s answer counts the recovery codes')
  // "Confirming" the device confirmed already answers OK without checking a code: it ends nothing.
  t.match((await owner.post('/auth/totp/device/verify', { deviceName: 'owner-phone', totp: clock.wrongTotp(secret) })).json(), { status: 'OK', wasAlreadyVerified: true })
  t.match((await attacker.post('/auth/totp/verify', { totp: clock.wrongTotp(secret) })).json(), { status: 'INVALID_TOTP_ERROR', currentNumberOfFailedAttempts: 4 })
  const fifth = await redeem(attacker, 'wrong-5')
  t.equal(fifth.statusCode, 429, 'the fifth wrong code of either kind locks')
  t.match((await attacker.post('/auth/totp/verify', { totp: clock.totp(secret, 1) })).json(), { status: 'LIMIT_REACHED_ERROR' })

  clock.advance(900_000)
  // A right code ends the run: four more wrong ones do not lock.
  t.equal((await redeem(attacker, codes[0]!)).statusCode, 200)
  const other = await signIn(email)
  const after: number[] = []
  for (let i = 0; i < 4; i++) after.push((await redeem(other, `again-${i}`)).statusCode)
  t.same(after, [400, 400, 400, 400])
  t.match((await other.post('/auth/totp/verify', { totp: clock.totp(secret, 1) })).json(), { status: 'OK' }, 'the fifth try, a right one, passes')
})

t.test('issue 26 §7: parallel wrong codes of both kinds cannot exceed the one limit', async (t) => {
  const email = 'parallel-mixed@example.com'
  const owner = await signedInTab(stack, email, PASSWORD)
  const { secret } = await setUpTotp(owner)
  const attacker = await signIn(email)
  const wrong = clock.wrongTotp(secret)
  const answers = await Promise.all(
    Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? attacker.post('/auth/totp/verify', { totp: wrong }).then((a) => a.json().status as string) : redeem(attacker, `guess-number-${i}`).then((a) => String(a.statusCode)))),
  )
  const checkedWrong = answers.filter((answer) => answer === 'INVALID_TOTP_ERROR' || answer === '400').length
  t.ok(checkedWrong >= 4 && checkedWrong <= 5, `at most five were checked (${answers.join(', ')})`)
  t.same(answers.filter((answer) => !['INVALID_TOTP_ERROR', '400', 'LIMIT_REACHED_ERROR', '429'].includes(answer)), [], 'the rest were refused unchecked')
  const { rows } = await stack.db.query<{ failures: number }>('SELECT failures FROM bff.recovery_code_attempts WHERE user_id = (SELECT id FROM api.users WHERE email = $1)', [email])
  t.same(rows, [{ failures: 5 }])
  t.match((await attacker.post('/auth/totp/verify', { totp: clock.totp(secret, 1) })).json(), { status: 'LIMIT_REACHED_ERROR' }, 'and the right code waits')
})

t.test('issue 26 §7: the /mfa form without script shares the one limit', async (t) => {
  const email = 'no-script@example.com'
  const owner = await signedInTab(stack, email, PASSWORD)
  const { secret } = await setUpTotp(owner)
  const attacker = await signIn(email)
  const postForm = async (fields: Record<string, string>) => {
    const response = await stack.bff.inject({
      method: 'POST',
      url: '/mfa',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://localhost:3000', 'sec-fetch-site': 'same-origin', cookie: attacker.jar.header('/mfa') },
      payload: new URLSearchParams(fields).toString(),
    })
    attacker.jar.store(response)
    return response
  }
  const statuses: number[] = []
  for (let i = 0; i < 4; i++) statuses.push((await postForm({ recoveryCode: `wrong-code-${i}` })).statusCode)
  statuses.push((await postForm({ totp: clock.wrongTotp(secret) })).statusCode)
  t.same(statuses, [400, 400, 400, 400, 400], 'four wrong recovery codes and a wrong TOTP code, each in the page')
  const right = await postForm({ totp: clock.totp(secret, 1) })
  t.equal(right.statusCode, 403, 'the fifth wrong code of either kind locked: the right one waits (the page\'s "locked" answer)')
  t.match(String(right.headers['content-type']), /^text\/html/)
  t.match(right.body, /data-testid="mfa-error"/, 'the page says so')
  t.notOk(right.headers.location, 'and goes nowhere')
  t.equal((await attacker.get('/api/user')).statusCode, 403)
})
