import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { base32Decode } from '../../../server/authcore/totp.ts'
import { browser, buildStack, TestClock, credentials } from '../../helpers.ts'

// Two-factor sign-in through the BFF: a TOTP device made and confirmed with a code an
// authenticator app would show for the secret given, then required at the next sign-in, with the
// attempts left and the lockout the core keeps.

const EMAIL = 'ada@example.com'
const PASSWORD = 'two factors are better'

t.test('TOTP as a second factor', async (t) => {
  // The auth core on the test's clock, the codes from it.
  const clock = new TestClock()
  const stack = await buildStack(t, { auth: true, coreNow: clock.now, env: { AUTH_RATE_LIMIT_MAX: '1000' } })
  const tab = browser(stack.bff)
  t.equal((await tab.post('/auth/signup', credentials(EMAIL, PASSWORD))).json().status, 'OK')
  const folder = path.join(stack.config.dataDir, 'mail')
  const mail = JSON.parse(fs.readFileSync(path.join(folder, fs.readdirSync(folder)[0]!), 'utf8')) as { text: string }
  const token = new URL(/https?:\/\/\S+/.exec(mail.text)![0]).searchParams.get('token')!
  t.equal((await tab.post('/auth/user/email/verify', { method: 'token', token })).json().status, 'OK')

  let secret: Buffer
  await t.test('a device is made with the product name, a secret and a QR code string, and confirmed by a code', async (t) => {
    const created = await tab.post('/auth/totp/device', { deviceName: 'Softshelf' })
    t.match(created.json(), { status: 'OK', deviceName: 'Softshelf', secret: /^[A-Z2-7]{32}$/, qrCodeString: /^otpauth:\/\/totp\/Softshelf:ada@example\.com\?/ })
    secret = base32Decode(created.json().secret)
    t.match((await tab.post('/auth/totp/device/verify', { deviceName: 'Softshelf', totp: '000000' === clock.totp(secret) ? '111111' : '000000' })).json(), { status: 'INVALID_TOTP_ERROR' })
    t.match((await tab.post('/auth/totp/device/verify', { deviceName: 'Softshelf', totp: clock.totp(secret) })).json(), { status: 'OK' })
    t.match((await tab.get('/auth/totp/device/list')).json(), { status: 'OK', devices: [{ name: 'Softshelf' }] })
  })

  await t.test('the next sign-in needs a code before the account can be used', async (t) => {
    const next = browser(stack.bff)
    t.equal((await next.post('/auth/signin', credentials(EMAIL, PASSWORD))).json().status, 'OK')
    const blocked = await next.get('/api/user')
    t.equal(blocked.statusCode, 403)
    t.equal(blocked.json().code, 'API_MFA_REQUIRED')
    t.match((await next.put('/auth/mfa/info')).json(), { status: 'OK', factors: { next: ['totp'] } })
    const wrong = await next.post('/auth/totp/verify', { totp: '000000' === clock.totp(secret, 1) ? '111111' : '000000' })
    t.match(wrong.json(), { status: 'INVALID_TOTP_ERROR', currentNumberOfFailedAttempts: 1, maxNumberOfFailedAttempts: 5 })
    // The code of the next period: the one of this period was used to confirm the device.
    t.match((await next.post('/auth/totp/verify', { totp: clock.totp(secret, 1) })).json(), { status: 'OK' })
    t.equal((await next.get('/api/user')).statusCode, 200, 'signed in fully')
  })

  await t.test('five wrong codes lock the second factor for a while', async (t) => {
    const attacker = browser(stack.bff)
    t.equal((await attacker.post('/auth/signin', credentials(EMAIL, PASSWORD))).json().status, 'OK')
    const statuses: string[] = []
    let last: Record<string, unknown> = {}
    for (let i = 0; i < 6; i++) {
      last = (await attacker.post('/auth/totp/verify', { totp: String(100000 + i) === clock.totp(secret) ? '999999' : String(100000 + i) })).json()
      statuses.push(last.status as string)
    }
    t.same(statuses, ['INVALID_TOTP_ERROR', 'INVALID_TOTP_ERROR', 'INVALID_TOTP_ERROR', 'INVALID_TOTP_ERROR', 'INVALID_TOTP_ERROR', 'LIMIT_REACHED_ERROR'], 'the fifth failure locks')
    t.ok((last.retryAfterMs as number) > 800_000 && (last.retryAfterMs as number) <= 900_000, 'about 15 minutes to wait')
    t.match((await attacker.post('/auth/totp/verify', { totp: clock.totp(secret, 1) })).json(), { status: 'LIMIT_REACHED_ERROR' }, 'even the right code waits')
    t.equal((await attacker.get('/api/user')).statusCode, 403)
  })
})
