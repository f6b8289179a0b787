import { execFile } from 'node:child_process'
import path from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { buildStack, freePort, root, signedInTab, tempDir, TEST_AUTH_CORE_API_KEY, waitUntil, type Stack } from '../../helpers.ts'

// `npm run accounts -- role add|remove <email> <role>`, `role list [<role>]`: the first
// admin is made from the command line, through the running API's /internal endpoints, under the
// console's rules (the last admin keeps admin), each change audited as the operator command's.

const run = promisify(execFile)

async function accounts(stack: Stack, dataDir: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const port = new URL(stack.apiUrl).port
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', path.join(root, 'scripts', 'accounts.ts'), ...args], {
      cwd: root,
      env: { ...process.env, NODE_ENV: 'test', DATA_DIR: dataDir, API_HOST: '127.0.0.1', API_PORT: port, OPERATOR_TOKEN: stack.operatorToken, LOG_LEVEL: 'silent' },
      encoding: 'utf8',
      timeout: 60_000,
    })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string }
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' }
  }
}

const rolesInCore = async (stack: Stack, userId: string) =>
  (await stack.authCore!.inject({ method: 'GET', url: `/recipe/user/roles?userId=${userId}`, headers: { 'api-key': TEST_AUTH_CORE_API_KEY, 'cdi-version': '5.4' } })).json<{ roles: string[] }>().roles.sort()

t.test('role add, remove and list through the running API', async (t) => {
  const stack = await buildStack(t, { auth: true })
  const dataDir = tempDir(t)
  const first = await signedInTab(stack, 'first@example.com')
  const firstId = (await first.get('/api/user')).json().id as string
  const second = await signedInTab(stack, 'second@example.com')
  const secondId = (await second.get('/api/user')).json().id as string

  const added = await accounts(stack, dataDir, 'role', 'add', ' First@Example.com ', 'admin')
  t.equal(added.code, 0, added.stderr)
  t.equal(added.stdout, 'first@example.com: admin\n')
  t.same(await rolesInCore(stack, firstId), ['admin'])
  // Within a second the account's own session sees it, without signing in again.
  await waitUntil(async () => (await first.get('/api/user')).json().roles.includes('admin'), 2_000)

  t.equal((await accounts(stack, dataDir, 'role', 'add', 'second@example.com', 'editor')).code, 0)
  const list = await accounts(stack, dataDir, 'role', 'list')
  t.equal(list.code, 0, list.stderr)
  t.equal(list.stdout, 'admin: 1 account(s)\n\tfirst@example.com\neditor: 1 account(s)\n\tsecond@example.com\nsupport: nobody\n')
  t.equal((await accounts(stack, dataDir, 'role', 'list', 'editor')).stdout, 'editor: 1 account(s)\n\tsecond@example.com\n')

  await t.test('the last admin keeps admin', async (t) => {
    const last = await accounts(stack, dataDir, 'role', 'remove', 'first@example.com', 'admin')
    t.equal(last.code, 1)
    t.match(last.stderr, /The API refused: This is the last administrator/)
    t.same(await rolesInCore(stack, firstId), ['admin'])
    t.equal((await accounts(stack, dataDir, 'role', 'add', 'second@example.com', 'admin')).code, 0)
    const removed = await accounts(stack, dataDir, 'role', 'remove', 'first@example.com', 'admin')
    t.equal(removed.code, 0, removed.stderr)
    t.equal(removed.stdout, 'first@example.com: no roles\n')
    t.same(await rolesInCore(stack, secondId), ['admin', 'editor'])
  })

  await t.test('each change is audited as the operator command', async (t) => {
    const { rows } = await stack.db.query<{ actor_id: string; actor_email: string; action: string; target: string; before: unknown; after: unknown }>(
      'SELECT actor_id, actor_email, action, target, before, after FROM api.audit_log ORDER BY id',
    )
    const command = { actor_id: 'operator-command', actor_email: 'npm run accounts', action: 'user.roles' }
    t.same(rows, [
      { ...command, target: `user:${firstId}`, before: { roles: [] }, after: { roles: ['admin'] } },
      { ...command, target: `user:${secondId}`, before: { roles: [] }, after: { roles: ['editor'] } },
      { ...command, target: `user:${secondId}`, before: { roles: ['editor'] }, after: { roles: ['admin', 'editor'] } },
      { ...command, target: `user:${firstId}`, before: { roles: ['admin'] }, after: { roles: [] } },
    ])
  })

  await t.test('an unknown role, account or verb is refused', async (t) => {
    const role = await accounts(stack, dataDir, 'role', 'add', 'first@example.com', 'owner')
    t.equal(role.code, 2)
    t.match(role.stderr, /owner is not a role: the roles are admin, editor, support/)
    const nobody = await accounts(stack, dataDir, 'role', 'add', 'nobody@example.com', 'editor')
    t.equal(nobody.code, 1)
    t.match(nobody.stderr, /The API refused: There is no account with this id or email/)
    t.equal((await accounts(stack, dataDir, 'role', 'grant', 'first@example.com', 'editor')).code, 2)
  })
})

t.test('without a running API the role commands say so and change nothing', async (t) => {
  const dataDir = tempDir(t)
  const stack = { apiUrl: `http://127.0.0.1:${await freePort()}`, operatorToken: 'x' } as Stack
  const answer = await accounts(stack, dataDir, 'role', 'list')
  t.equal(answer.code, 1)
  t.match(answer.stderr, /The API is not running/)
})
