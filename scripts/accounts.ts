// Operator command: disable an account, or enable it again (spec §6, §8: a disabled account sees
// "Your account has been disabled…" and reaches nothing of its own).
//   npm run accounts -- disable someone@example.com
//   npm run accounts -- enable someone@example.com
// Like `npm run maintenance`: through the running API's /internal endpoint when one listens,
// else (or with DATABASE_URL) in the database directly.
import { migrateApiSchema } from '../server/api/schema.ts'
import { setDisabled } from '../server/api/users-repository.ts'
import { openDatabase } from '../server/db/open.ts'
import { fail, internalCall, operatorConfig } from './operator.ts'

const USAGE = 'Usage: npm run accounts -- disable <email> | enable <email>'

async function main(): Promise<void> {
  const [action, email] = process.argv.slice(2)
  if ((action !== 'disable' && action !== 'enable') || !email || !email.includes('@')) fail(USAGE, 2)
  const disabled = action === 'disable'
  const config = operatorConfig()
  let done = false
  const viaApi = config.databaseUrl ? undefined : await internalCall<{ disabled: boolean }>(config, 'PUT', '/internal/users/disabled', { email, disabled })
  if (viaApi !== undefined) done = true
  else {
    const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir })
    try {
      await migrateApiSchema(db)
      if (!(await setDisabled(db, email, disabled))) fail(`No Softshelf account uses ${email}.`)
      done = true
    } finally {
      await db.close()
    }
  }
  if (done) console.log(`${email}: ${disabled ? 'disabled' : 'enabled'}`)
}

main().catch((error: unknown) => fail(`accounts failed: ${error instanceof Error ? error.message : String(error)}`))
