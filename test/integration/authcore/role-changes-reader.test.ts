import t from 'tap'
import { ROLE_CHANGES_STALE_MS, ROLE_CLAIM_MAX_AGE_MS, ROLE_COMMIT_MARGIN_MS, RoleChanges } from '../../../server/http/role-changes.ts'
import { startCore } from './harness.ts'
import { CurrentRoles } from '../../../server/api/operator/guard.ts'
import { coreAccounts } from '../../../server/api/users/core-accounts.ts'
import type { FastifyRequest } from 'fastify'

// The role-change feed as an API or BFF instance reads it (decision 028), against a
// real core: when roles read at some time are still current, and when the feed is too old to
// trust — each at its edge, on clocks the test moves.

const KEY = 'role-changes-test-key-0123456789'
const { core, url } = await startCore(t, { apiKeys: [KEY] })
const headers = { 'cdi-version': '5.4', 'content-type': 'application/json', 'api-key': KEY }
const send = async (method: 'PUT' | 'POST', path: string, payload: unknown) => (await core.inject({ method, url: path, headers, payload: JSON.stringify(payload) })).json()

t.test('roles read before a change of the user\'s are not current; read after it, they are', async (t) => {
  let wall = Date.now()
  const feed = new RoleChanges({ coreUrl: url, apiKey: KEY, now: () => wall })
  await send('PUT', '/recipe/role', { role: 'editor', permissions: ['catalogue:read'] })
  const readBefore = Date.now() - 5_000
  await feed.read()
  t.ok(feed.isCurrent('ana', readBefore), 'no change yet')
  t.notOk(feed.isCurrent('ana', undefined), 'roles never read are not current')

  t.equal((await send('PUT', '/recipe/user/role', { userId: 'ana', role: 'editor' })).status, 'OK')
  await feed.read()
  const changedAt = feed.changedAt('ana')!
  t.type(changedAt, 'number')
  t.notOk(feed.isCurrent('ana', readBefore), 'a claim read before the grant is stale')
  t.notOk(feed.isCurrent('ana', changedAt + ROLE_COMMIT_MARGIN_MS), 'within the commit margin: read again')
  wall = changedAt + ROLE_COMMIT_MARGIN_MS + 10
  t.ok(feed.isCurrent('ana', changedAt + ROLE_COMMIT_MARGIN_MS + 1), 'read after it: current')
  t.ok(feed.isCurrent('bo', readBefore), 'another user is not touched')

  // A role's permissions changing changes its holders too.
  const holderChange = feed.changedAt('ana')!
  await send('POST', '/recipe/role/permissions/remove', { role: 'editor', permissions: ['catalogue:read'] })
  await feed.read()
  t.ok(feed.changedAt('ana')! > holderChange, 'the holder of a role whose permissions changed')

  // Claims older than an hour are read again whatever the feed says.
  wall = Date.now()
  t.ok(feed.isCurrent('bo', wall - ROLE_CLAIM_MAX_AGE_MS + 1_000))
  t.notOk(feed.isCurrent('bo', wall - ROLE_CLAIM_MAX_AGE_MS - 1_000), 'past an hour: stale')

  // This instance's own change counts at once, before the next read.
  feed.add('bo', wall)
  t.notOk(feed.isCurrent('bo', wall - 1))
})

t.test('the feed is trusted for 10 s after a read, not a moment longer, and a core that cannot be read keeps it stale', async (t) => {
  let tick = 0
  const feed = new RoleChanges({ coreUrl: url, apiKey: KEY, monotonic: () => tick })
  t.notOk(feed.fresh, 'never read: not trusted')
  await feed.read()
  t.ok(feed.fresh)
  tick += ROLE_CHANGES_STALE_MS - 1
  t.ok(feed.fresh, 'just inside the bound')
  tick += 1
  t.notOk(feed.fresh, 'at the bound: stale')
  const wrongKey = new RoleChanges({ coreUrl: url, apiKey: 'not-the-key-0123456789abc', monotonic: () => tick })
  await t.rejects(wrongKey.read())
  t.notOk(wrongKey.fresh, 'a core that refuses the key gives no feed')
  const gone = new RoleChanges({ coreUrl: 'http://127.0.0.1:9', apiKey: KEY, monotonic: () => tick })
  await t.rejects(gone.read())
  t.notOk(gone.fresh, 'nor does one that cannot be reached')
})

t.test('the API\'s current roles: the token\'s while current, else the core\'s kept until the next change; a stale feed is a 503', async (t) => {
  let tick = 0
  let wall = Date.now()
  const feed = new RoleChanges({ coreUrl: url, apiKey: KEY, monotonic: () => tick, now: () => wall })
  const accounts = coreAccounts(url, KEY)
  let coreReads = 0
  const roles = new CurrentRoles(
    feed,
    async (userId) => {
      coreReads++
      return accounts.userRoles(userId)
    },
    () => wall,
  )
  await send('PUT', '/recipe/role', { role: 'support', permissions: ['accounts:read'] })
  const request = (rolesReadAt: number | undefined, claimed: string[]) =>
    ({ id: 'req-1', viewer: { userId: 'cy', roles: claimed, permissions: claimed.length ? ['accounts:read'] : [], rolesReadAt } }) as unknown as FastifyRequest
  await feed.read()
  t.same(await roles.of(request(Date.now() - 1_000, [])), { roles: [], permissions: [] }, 'the token\'s claims, no core call')
  t.equal(coreReads, 0)

  await send('PUT', '/recipe/user/role', { userId: 'cy', role: 'support' })
  await feed.read()
  const changedAt = feed.changedAt('cy')!
  wall = changedAt + 10
  const stale = request(changedAt - 60_000, [])
  t.same(await roles.of(stale), { roles: ['support'], permissions: ['accounts:read', 'accounts:write', 'audit:read'] }, 'the core\'s roles, their permissions from ROLE_PERMISSIONS')
  t.equal(coreReads, 1)
  // Within the commit margin the kept answer is read again; past it, it is kept.
  await roles.of(stale)
  t.equal(coreReads, 2, 'read within the margin: read again')
  wall = changedAt + ROLE_COMMIT_MARGIN_MS + 50
  await roles.of(stale)
  const reads = coreReads
  await roles.of(stale)
  await roles.of(stale)
  t.equal(coreReads, reads, 'kept until the next change')
  await send('POST', '/recipe/user/role/remove', { userId: 'cy', role: 'support' })
  await feed.read()
  wall = Math.max(wall, feed.changedAt('cy')! + ROLE_COMMIT_MARGIN_MS + 50)
  t.same((await roles.of(stale)).roles, [], 'the removal is seen')
  t.equal(coreReads, reads + 1)

  tick += ROLE_CHANGES_STALE_MS
  await t.rejects(roles.of(stale), { code: 'API_AUTH_UNAVAILABLE', statusCode: 503 }, 'a stale feed: 503, not a guess')
})
