// Operator command: read the catalogue feeds (CATALOGUE_FEEDS) now, and print what it
// did: per feed, the releases recorded, what was ignored, the proposed changes, the problem.
//   npm run catalogue -- sync
// Through the running API's /internal endpoint when one listens (PGlite cannot be opened by two
// processes; the API's own pass and this one then never overlap), else — or with DATABASE_URL and
// no API running — in the database directly. Exits 1 when a feed failed.
import { describeSync, syncExitCode } from '../server/api/catalogue/feeds/summary.ts'
import { FeedSync, feedSyncOptions, type SyncSummary } from '../server/api/catalogue/feeds/sync.ts'
import { migrateApiSchema } from '../server/api/schema.ts'
import type { Config } from '../server/config.ts'
import { openDatabase } from '../server/db/open.ts'
import { fail, internalCall, operatorConfig } from './operator.ts'

const USAGE = 'Usage: npm run catalogue -- sync'

const quiet = { info: () => {}, warn: () => {}, error: () => {} }

async function viaDatabase(config: Config): Promise<SyncSummary> {
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir })
  try {
    await migrateApiSchema(db)
    return await new FeedSync(db, feedSyncOptions(config, Date.now, quiet)).run()
  } finally {
    await db.close()
  }
}

async function main(): Promise<void> {
  const [action] = process.argv.slice(2)
  if (action !== 'sync') fail(USAGE, 2)
  const config = operatorConfig()
  const { feeds, timeoutMs } = config.catalogueFeeds
  // The running API reads the feeds its own CATALOGUE_FEEDS names; each may take its whole timeout, then the writes.
  let summary = await internalCall<SyncSummary>(config, 'POST', '/internal/catalogue/sync', undefined, Math.max(feeds.length, 10) * timeoutMs + 120_000)
  if (summary === undefined) {
    if (feeds.length === 0) fail('No catalogue feeds are configured: set CATALOGUE_FEEDS (e.g. appstream:https://dl.flathub.org/repo/appstream/x86_64/appstream.xml.gz).', 2)
    summary = await viaDatabase(config)
  }
  for (const line of describeSync(summary)) console.log(line)
  process.exitCode = syncExitCode(summary)
}

main().catch((error: unknown) => fail(`catalogue sync failed: ${error instanceof Error ? error.message : String(error)}`))
