import type { Database } from '../db/database.ts'
import { DEFAULT_SETTINGS, type CoreSettings } from './settings.ts'

// Apps hosted by one core (AUTH-CORE.md §5): each with its own users, sessions, keys
// and settings. The default app "public" always exists; its API keys may also come from the
// process configuration.

const CACHE_MS = 2_000

export const APP_ID_PATTERN = /^[a-z0-9-]{1,64}$/

export class AppRegistry {
  private readonly cache = new Map<string, { settings: CoreSettings | null; at: number }>()

  constructor(
    private readonly db: Database,
    private readonly publicApiKeys: string[] | null,
    /** The deployment's settings for the default app, under what the app stores itself. */
    private readonly publicDefaults: Partial<CoreSettings> = {},
    /** The deployment's settings for every app, under what the default app is given and what each app stores. */
    deploymentDefaults: Partial<CoreSettings> = {},
  ) {
    this.defaults = { ...DEFAULT_SETTINGS, ...deploymentDefaults }
  }

  private readonly defaults: CoreSettings

  /** The app's effective settings, or null when there is no such app. */
  async settings(appId: string): Promise<CoreSettings | null> {
    const cached = this.cache.get(appId)
    if (cached && Date.now() - cached.at < CACHE_MS) return cached.settings
    const { rows } = await this.db.query<{ config: Partial<CoreSettings> }>('SELECT config FROM authcore.apps WHERE app_id = $1', [appId])
    const row = rows[0]
    let settings: CoreSettings | null = null
    if (row) {
      settings = { ...this.defaults, ...(appId === 'public' ? this.publicDefaults : {}), ...row.config }
      if (appId === 'public' && this.publicApiKeys && !row.config.apiKeys) settings.apiKeys = this.publicApiKeys
    }
    this.cache.set(appId, { settings, at: Date.now() })
    return settings
  }

  /** Creates the app or updates its settings; true when it was created. */
  async put(appId: string, config: Partial<CoreSettings>): Promise<boolean> {
    this.cache.delete(appId)
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ created: boolean }>(
        `INSERT INTO authcore.apps (app_id, config, created_at) VALUES ($1, $2, $3)
         ON CONFLICT (app_id) DO UPDATE SET config = apps.config || EXCLUDED.config
         RETURNING (xmax = 0) AS created`,
        [appId, JSON.stringify(config), Date.now()],
      )
      await tx.query("INSERT INTO authcore.tenants (app_id, tenant_id) VALUES ($1, 'public') ON CONFLICT DO NOTHING", [appId])
      return rows[0]?.created ?? false
    })
  }

  /** Removes the app and all its data; false when there was none. */
  async remove(appId: string): Promise<boolean> {
    this.cache.delete(appId)
    for (const key of this.tenants.keys()) if (key.startsWith(`${appId}\u0000`)) this.tenants.delete(key)
    const { rowCount } = await this.db.query('DELETE FROM authcore.apps WHERE app_id = $1', [appId])
    return rowCount > 0
  }

  async list(): Promise<Array<{ appId: string; config: Partial<CoreSettings> }>> {
    const { rows } = await this.db.query<{ app_id: string; config: Partial<CoreSettings> }>('SELECT app_id, config FROM authcore.apps ORDER BY created_at, app_id')
    return rows.map((row) => ({ appId: row.app_id, config: row.config }))
  }

  private readonly tenants = new Map<string, { config: Record<string, unknown> | null; at: number }>()

  /** A tenant's stored settings, or null when it does not exist; read on every sign-in, so cached briefly. */
  async tenant(appId: string, tenantId: string): Promise<Record<string, unknown> | null> {
    const key = `${appId}\u0000${tenantId}`
    const cached = this.tenants.get(key)
    if (cached && Date.now() - cached.at < CACHE_MS) return cached.config
    const { rows } = await this.db.query<{ config: Record<string, unknown> }>('SELECT config FROM authcore.tenants WHERE app_id = $1 AND tenant_id = $2', [appId, tenantId])
    const config = rows[0]?.config ?? null
    this.tenants.set(key, { config, at: Date.now() })
    return config
  }

  async tenantExists(appId: string, tenantId: string): Promise<boolean> {
    return (await this.tenant(appId, tenantId)) !== null
  }
}
