import fp from 'fastify-plugin'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { createBackup } from '../backup/backup.ts'
import { bearerMatches } from '../operator-token.ts'
import type { FeedSync } from './catalogue/feeds/sync.ts'
import { purchasesOfEmail } from './checkout/purchases.ts'
import { ApiBackupNotEmbedded, ApiInvalidMaintenanceTime, ApiUnauthorized, ApiUserNotFound, USER_NOT_FOUND } from './errors.ts'
import { changeMaintenanceTime, MAINTENANCE_COMMAND_ACTOR, parseMaintenanceTime } from './maintenance-repository.ts'
import { SyncSummarySchema } from './operator/feeds.ts'
import type { CurrentRoles } from './operator/guard.ts'
import { internalRoleRoutes } from './operator/roles.ts'
import { DISABLE_REASON_MAX, setDisabledByCommand } from './operator/users.ts'
import type { coreAccounts } from './users/core-accounts.ts'
import { deletionReasons } from './users/deletions.ts'

// The operator commands' endpoints (npm run maintenance, accounts, db, catalogue): /internal/*, each
// behind the operator token. Not under /api, so the BFF never proxies them; without a token they
// are not registered at all (404).

export interface InternalRoutesOptions {
  operatorToken: string
  /** What a backup holds: DATA_DIR, the embedded database's folder under it, the drive's directory (null: S3). */
  dataDir: string
  databaseFolder: string
  filesRoot: string | null
  appVersion: string
  core: ReturnType<typeof coreAccounts>
  roles: CurrentRoles
  feeds: FeedSync
}

async function internalRoutes(plugin: FastifyInstance, options: InternalRoutesOptions): Promise<void> {
  const db = plugin.db
  const internal = plugin.withTypeProvider<TypeBoxTypeProvider>()
  internal.addHook('onRequest', async (request) => {
    if (!bearerMatches(options.operatorToken, request.headers.authorization)) throw new ApiUnauthorized()
  })
  internal.put(
    '/internal/maintenance',
    { schema: { body: Type.Object({ maintenanceTime: Type.String({ maxLength: 64 }) }, { additionalProperties: false }) } },
    async (request) => {
      const time = parseMaintenanceTime(request.body.maintenanceTime)
      if (!time) throw new ApiInvalidMaintenanceTime()
      // The log is of every action: the command's as well as the console's.
      await changeMaintenanceTime(db, time, MAINTENANCE_COMMAND_ACTOR, request.id)
      request.log.info({ maintenanceTime: time.toISOString() }, 'maintenance time set')
      return { maintenanceTime: time.toISOString() }
    },
  )
  internal.delete('/internal/maintenance', async (request) => {
    await changeMaintenanceTime(db, null, MAINTENANCE_COMMAND_ACTOR, request.id)
    request.log.info('maintenance time cleared')
    return { maintenanceTime: null }
  })
  // npm run accounts -- deletion-reasons: why accounts were deleted, nothing else.
  internal.get('/internal/deletion-reasons', async () => ({ deletions: await deletionReasons(db) }))
  // npm run accounts -- purchases <email>: what an account bought, for support.
  internal.get(
    '/internal/purchases',
    { schema: { querystring: Type.Object({ email: Type.String({ minLength: 3, maxLength: 320 }) }) } },
    async (request) => ({ purchases: await purchasesOfEmail(db, request.query.email) }),
  )
  // npm run db -- backup <file> (decision 020): the embedded database, the drive and
  // the secrets as one gzip'd tar, taken here because this process has PGlite open.
  internal.get('/internal/backup', async (request, reply) => {
    if (!db.dump) throw new ApiBackupNotEmbedded()
    const { manifest, stream } = await createBackup({
      db,
      dataDir: options.dataDir,
      databaseFolder: options.databaseFolder,
      filesRoot: options.filesRoot,
      appVersion: options.appVersion,
    })
    request.log.info({ event: 'backup', databaseBytes: manifest.database.bytes, files: manifest.files }, 'a backup is being taken')
    const stamp = manifest.createdAt.replace(/[:.]/g, '-')
    return reply
      .header('content-type', 'application/gzip')
      .header('content-disposition', `attachment; filename="softshelf-backup-${stamp}.tar.gz"`)
      .header('cache-control', 'no-store')
      .send(stream)
  })
  // npm run accounts -- disable|enable <email> [reason] (spec §6: disabled accounts are blocked);
  // audited as the command, and a disabled account's sessions end as from the console.
  internal.put(
    '/internal/users/disabled',
    {
      schema: {
        body: Type.Object(
          { email: Type.String({ minLength: 3, maxLength: 320 }), disabled: Type.Boolean(), reason: Type.Optional(Type.String({ minLength: 1, maxLength: DISABLE_REASON_MAX })) },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => {
      const { email, disabled, reason } = request.body
      if (!(await setDisabledByCommand(db, options.core, email, disabled ? { disabled, reason: reason?.trim() || null } : { disabled }, request.id))) throw new ApiUserNotFound(USER_NOT_FOUND.named)
      request.log.info({ disabled }, 'an operator changed an account')
      return { disabled }
    },
  )
  // npm run catalogue -- sync: one pass over the feeds now, and what it did.
  internal.post('/internal/catalogue/sync', { schema: { response: { 200: SyncSummarySchema } } }, async (request) => {
    const summary = await options.feeds.run({ requestId: request.id })
    request.log.info({ event: 'feeds-synced', feeds: summary.feeds.map((f) => ({ feed: f.feed, status: f.status })) }, 'the catalogue command ran the feeds')
    return summary
  })
  // npm run accounts -- role add|remove <email> <role>, role list [<role>].
  internalRoleRoutes(plugin, { db, core: options.core, roles: options.roles })
}

export default fp(internalRoutes, { name: 'internal-routes', encapsulate: true, decorators: { fastify: ['db'] } })
