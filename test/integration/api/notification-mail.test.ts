import t from 'tap'
import { browser, buildStack, mailsIn, notifyRelease, signedInTab, type Stack, TEST_AUTH_CORE_API_KEY, userIdOf } from '../../helpers.ts'
import { NOTIFICATION_MAIL_LEASE_MS, UNVERIFIED_RECHECK_MS } from '../../../server/api/notifications/mail.ts'
import type { NotificationMailClaim } from '../../../shared/catalogue/living.ts'

// Notification mail (docs/API.md "Notification mail and one-click unsubscribe",
// decision 030): which accounts the API hands the BFF's mail worker, the mails the worker queues
// (one per account, in its language, with RFC 8058's headers), and the one-click unsubscribe.
// This file: the API's claims and their authentication; the worker and the unsubscribe are
// test/integration/bff/notification-mail.test.ts. Time is the test's clock.

const HOUR = 60 * 60_000
const DAY = 24 * HOUR
const PASSWORD = 'correct horse battery'
const key = { authorization: `Bearer ${TEST_AUTH_CORE_API_KEY}` }


async function claim(stack: Stack, limit = 100, headers: Record<string, string> = key) {
  return stack.api.inject({ method: 'POST', url: '/internal/notification-mail/claim', headers, payload: { limit } })
}
const claimed = async (stack: Stack, limit = 100): Promise<NotificationMailClaim[]> => (await claim(stack, limit)).json().claims as NotificationMailClaim[]
async function acknowledge(stack: Stack, claims: NotificationMailClaim[]) {
  const response = await stack.api.inject({ method: 'POST', url: '/internal/notification-mail/queued', headers: key, payload: { claims: claims.map(({ claimId, userId }) => ({ claimId, userId })) } })
  return response.json().acknowledged as number
}

t.test('claims: immediate at once, daily once a day, never disabled, unverified or off accounts; the internal routes want the key', async (t) => {
  let now = Date.parse('2026-11-27T09:00:00Z')
  const stack = await buildStack(t, { auth: true, now: () => now })
  const emails = ['immediate@example.com', 'daily@example.com', 'disabled@example.com', 'off@example.com']
  for (const email of emails) await signedInTab(stack, email)
  // Signed up, never verified.
  const unverifiedTab = browser(stack.bff)
  await unverifiedTab.post('/auth/signup', { formFields: [{ id: 'email', value: 'unverified@example.com' }, { id: 'password', value: PASSWORD }] })
  const [immediate, daily, disabled, off, unverified] = await Promise.all([...emails, 'unverified@example.com'].map((email) => userIdOf(stack, email)))
  await stack.db.query(`UPDATE api.users SET notify = 'immediate' WHERE id = $1`, [immediate])
  await stack.db.query(`UPDATE api.users SET notify = 'off' WHERE id = $1`, [off])
  await stack.db.query(`UPDATE api.users SET disabled_at = now() WHERE id = $1`, [disabled])
  for (const id of [immediate, daily, disabled, off, unverified]) await notifyRelease(stack, id!, 'blender', `4.5.${[immediate, daily, disabled, off, unverified].indexOf(id)}`)

  t.equal((await claim(stack, 10, {})).statusCode, 401, 'no key: refused')
  t.equal((await claim(stack, 10, { authorization: 'Bearer test-core-api-key-0123456780' })).statusCode, 401, 'a forged key: refused')
  t.equal((await claim(stack, 10, { authorization: TEST_AUTH_CORE_API_KEY })).statusCode, 401, 'the key without Bearer: refused')
  t.equal((await stack.api.inject({ method: 'POST', url: '/internal/notification-mail/queued', headers: { authorization: 'Bearer nope' }, payload: { claims: [] } })).statusCode, 401)
  t.equal((await claim(stack, 0)).statusCode, 400, 'limit is at least 1')

  const first = await claimed(stack)
  t.same(first.map((c) => c.userId).sort(), [immediate, daily].sort(), 'the immediate and the never-mailed daily account; not the disabled, the unverified, the off one')
  const mine = first.find((c) => c.userId === immediate)!
  t.equal(mine.email, 'immediate@example.com')
  t.equal(mine.notifications.length, 1)
  t.equal(mine.notifications[0]!.type, 'release')
  t.equal(mine.more, 0)
  t.match(mine.unsubscribeToken, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/)
  t.same(await claimed(stack), [], 'claimed accounts are not handed out twice while their lease runs')
  t.equal(await acknowledge(stack, first), 2)
  t.equal(await acknowledge(stack, first), 0, 'a claim acknowledged twice changes nothing the second time')
  const mailed = await stack.db.query<{ user_id: string }>(`SELECT user_id FROM api.notifications WHERE mailed_at IS NOT NULL`)
  t.same(mailed.rows.map((r) => r.user_id).sort(), [immediate, daily].sort(), 'exactly what the mails carried is mailed')

  // News for both: the immediate account gets it at once, the daily one a day after its last mail.
  now += 60_000
  await notifyRelease(stack, immediate!, 'gimp', '3.2')
  await notifyRelease(stack, daily!, 'gimp', '3.2')
  const second = await claimed(stack)
  t.same(second.map((c) => c.userId), [immediate], 'immediate: at once; daily: not before a day has passed')
  await acknowledge(stack, second)
  now = Date.parse('2026-11-27T09:00:00Z') + DAY - 1_000
  t.same(await claimed(stack), [], 'a second before the 24 hours: nothing')
  now += 2_000
  const third = await claimed(stack)
  t.same(third.map((c) => c.userId), [daily], 'past the 24 hours: the digest')
  t.same(third[0]!.notifications.map((n) => n.programId), ['gimp'])
  await acknowledge(stack, third)

  // The unverified account is not asked about every round: once per UNVERIFIED_RECHECK_MS.
  const skipped = await stack.db.query<{ skipped_until: Date }>(`SELECT skipped_until FROM api.notification_mail_accounts WHERE user_id = $1`, [unverified])
  t.ok(skipped.rows[0]?.skipped_until, 'the unverified account is set aside')
  // Verified now (the emailed link opened): it gets its mail once it is looked at again.
  await unverifiedTab.post('/auth/user/email/verify', { method: 'token', token: new URL(/https?:\/\/\S+/.exec(mailsIn(stack.config.dataDir, 'unverified@example.com').at(-1)!.text)![0]).searchParams.get('token') })
  t.same(await claimed(stack), [], 'not before its recheck')
  now += UNVERIFIED_RECHECK_MS
  const verifiedNow = await claimed(stack)
  t.same(verifiedNow.map((c) => c.userId), [unverified], 'verified: its notifications are mailed')
  await acknowledge(stack, verifiedNow)

  // Enabled again: its notifications wait for it.
  await stack.db.query(`UPDATE api.users SET disabled_at = NULL WHERE id = $1`, [disabled])
  t.same((await claimed(stack)).map((c) => c.userId), [disabled], 'enabled again: mailed what waited')
  t.equal((await stack.db.query(`SELECT 1 FROM api.notifications WHERE user_id = $1 AND mailed_at IS NULL`, [off])).rowCount, 1, 'the off account: never claimed')

  // The operator token works too.
  t.equal((await claim(stack, 1, { authorization: `Bearer ${stack.operatorToken}` })).statusCode, 200)
})

t.test('two claimers never take one account; a claim not acknowledged comes back as the same claim after its lease', async (t) => {
  let now = Date.parse('2026-11-27T09:00:00Z')
  const stack = await buildStack(t, { auth: true, now: () => now })
  const ids: string[] = []
  for (let i = 0; i < 6; i++) {
    await signedInTab(stack, `watcher${i}@example.com`)
    ids.push(await userIdOf(stack, `watcher${i}@example.com`))
  }
  await stack.db.query(`UPDATE api.users SET notify = 'immediate'`)
  for (const id of ids) await notifyRelease(stack, id, 'blender', `5.0.${ids.indexOf(id)}`)
  const [a, b] = await Promise.all([claimed(stack, 4), claimed(stack, 4)])
  // What one claimer holds the other skips (it may then find fewer than it asked for); the rest come next.
  const rest = await claimed(stack, 10)
  const all = [...a!, ...b!, ...rest]
  const taken = all.map((c) => c.userId)
  t.equal(new Set(taken).size, taken.length, 'no account in two claims')
  t.same(taken.sort(), [...ids].sort(), 'and every one in one of them')
  now += NOTIFICATION_MAIL_LEASE_MS + 1
  const again = await claimed(stack, 10)
  t.same(
    again.map((c) => c.claimId).sort(),
    all.map((c) => c.claimId).sort(),
    'the lease ran out without an acknowledgement: the same claims, with their ids',
  )
})
