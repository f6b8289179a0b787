// Operator command: disable an account, or enable it again (spec §6, §8: a disabled account sees
// "Your account has been disabled…" and reaches nothing of its own); list why accounts were
// deleted (reason, comment, language and day — nothing that identifies anyone).
//   npm run accounts -- disable someone@example.com [reason…]   (audited, its sessions end)
//   npm run accounts -- enable someone@example.com
//   npm run accounts -- deletion-reasons
//   npm run accounts -- purchases someone@example.com   (what the account bought, for support)
//   npm run accounts -- role add someone@example.com admin      (the first admin, and any role)
//   npm run accounts -- role remove someone@example.com editor
//   npm run accounts -- role list [admin|editor|support]
// Roles live in the auth core: the role commands go through the running API only (its /internal
// endpoints), under the console's rules (the last admin keeps admin), audited as done by
// { id: 'operator-command', email: 'npm run accounts' }.
// Like `npm run maintenance`: through the running API's /internal endpoint when one listens,
// else (or with DATABASE_URL) in the database directly.
import { deletionReasons, type DeletionRecord } from '../server/api/users/deletions.ts'
import { purchasesOfEmail } from '../server/api/checkout/purchases.ts'
import { migrateApiSchema } from '../server/api/schema.ts'
import { setDisabledByCommand } from '../server/api/operator/users.ts'
import { randomUUID } from 'node:crypto'
import type { Database } from '../server/db/database.ts'
import { openDatabase } from '../server/db/open.ts'
import { fail, internalCall, operatorConfig } from './operator.ts'
import { isOperatorRole, OPERATOR_ROLES } from '../shared/operator.ts'

const USAGE = 'Usage: npm run accounts -- disable <email> [reason] | enable <email> | deletion-reasons | purchases <email> | role add|remove <email> <role> | role list [<role>]'

interface RoleList {
  roles: Array<{ role: string; users: Array<{ id: string; email: string | null }> }>
}

/** `role add|remove <email> <role>`, `role list [<role>]`: through the running API, never the database. */
async function roleCommand(config: ReturnType<typeof operatorConfig>, args: string[]): Promise<void> {
  const [verb, first, second] = args
  const role = verb === 'list' ? first : second
  if (role !== undefined && !isOperatorRole(role)) fail(`${role} is not a role: the roles are ${OPERATOR_ROLES.join(', ')}.`, 2)
  const notRunning = () => fail('The API is not running: roles live in the auth core, and are changed through the running app (npm start).')
  if (verb === 'list') {
    const answer = (await internalCall<RoleList>(config, 'GET', `/internal/roles${role ? `?role=${role}` : ''}`)) ?? notRunning()
    for (const { role: name, users } of answer.roles) {
      console.log(`${name}: ${users.length === 0 ? 'nobody' : `${users.length} account(s)`}`)
      for (const user of users) console.log(`\t${user.email ?? `(no Softshelf record) ${user.id}`}`)
    }
    return
  }
  if ((verb !== 'add' && verb !== 'remove') || !first || !first.includes('@') || role === undefined) fail(USAGE, 2)
  const answer = (await internalCall<{ email: string; roles: string[] }>(config, 'PUT', '/internal/users/roles', { email: first, role, granted: verb === 'add' })) ?? notRunning()
  console.log(`${answer.email}: ${answer.roles.length === 0 ? 'no roles' : answer.roles.join(', ')}`)
}

type Purchases = Awaited<ReturnType<typeof purchasesOfEmail>>

function printPurchases(email: string, purchases: Purchases): void {
  if (purchases.length === 0) {
    console.log(`${email} has bought nothing.`)
    return
  }
  console.log(`${purchases.length} purchase(s) of ${email}:`)
  for (const p of purchases) {
    const period = p.kind === 'subscription' ? `${p.period}ly subscription${p.cancelAtPeriodEnd ? ', cancelled' : ''}${p.currentPeriodEnd ? `, period ends ${p.currentPeriodEnd}` : ''}` : 'one-time'
    const ended = p.endedAt ? ` since ${p.endedAt}` : ''
    console.log(`${p.purchasedAt}\t${p.programId}\t${p.amount}\t${period}\t${p.status}${ended}\t${p.checkoutSessionId}`)
  }
}

async function withDatabase<T>(config: ReturnType<typeof operatorConfig>, work: (db: Database) => Promise<T>): Promise<T> {
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir })
  try {
    await migrateApiSchema(db)
    return await work(db)
  } finally {
    await db.close()
  }
}

function printReasons(deletions: DeletionRecord[]): void {
  if (deletions.length === 0) {
    console.log('No account has been deleted.')
    return
  }
  const counts = new Map<string, number>()
  for (const deletion of deletions) counts.set(deletion.reason, (counts.get(deletion.reason) ?? 0) + 1)
  console.log(`${deletions.length} deleted account(s): ${[...counts].map(([reason, count]) => `${reason} ${count}`).join(', ')}`)
  for (const deletion of deletions) {
    const comment = deletion.comment === null ? '' : `\t${JSON.stringify(deletion.comment)}`
    console.log(`${deletion.day}\t${deletion.language}\t${deletion.reason}${comment}`)
  }
}

async function main(): Promise<void> {
  const [action, email, ...words] = process.argv.slice(2)
  const config = operatorConfig()
  if (action === 'role') {
    await roleCommand(config, process.argv.slice(3))
    return
  }
  if (action === 'deletion-reasons') {
    const viaApi = config.databaseUrl ? undefined : await internalCall<{ deletions: DeletionRecord[] }>(config, 'GET', '/internal/deletion-reasons')
    printReasons(viaApi?.deletions ?? (await withDatabase(config, (db) => deletionReasons(db))))
    return
  }
  if (action === 'purchases') {
    if (!email || !email.includes('@')) fail(USAGE, 2)
    const viaApi = config.databaseUrl ? undefined : await internalCall<{ purchases: Purchases }>(config, 'GET', `/internal/purchases?email=${encodeURIComponent(email)}`)
    printPurchases(email, viaApi?.purchases ?? (await withDatabase(config, (db) => purchasesOfEmail(db, email))))
    return
  }
  if ((action !== 'disable' && action !== 'enable') || !email || !email.includes('@')) fail(USAGE, 2)
  const disabled = action === 'disable'
  const reason = words.join(' ').trim().slice(0, 500) || undefined
  const viaApi = config.databaseUrl ? undefined : await internalCall<{ disabled: boolean }>(config, 'PUT', '/internal/users/disabled', { email, disabled, ...(disabled && reason ? { reason } : {}) })
  if (viaApi === undefined) {
    // No API running: the record and its audit entry only; sessions end when the API next checks
    // the account (every request of a disabled account is refused).
    await withDatabase(config, async (db) => {
      const change = disabled ? { disabled, reason: reason ?? null } : { disabled }
      if (!(await setDisabledByCommand(db, undefined, email, change, `operator-command-${randomUUID()}`))) fail(`No Softshelf account uses ${email}.`)
    })
  }
  console.log(`${email}: ${disabled ? 'disabled' : 'enabled'}`)
}

main().catch((error: unknown) => fail(`accounts failed: ${error instanceof Error ? error.message : String(error)}`))
