import type { Database } from '../db/database.ts'
import type { AppRegistry } from './apps.ts'
import type { DashboardService } from './dashboard.ts'
import type { KeyStore } from './keys.ts'
import type { RoleService } from './roles.ts'
import type { SessionService } from './sessions.ts'
import type { CoreSettings } from './settings.ts'
import type { TotpService } from './totp.ts'

// What the core's routes are given (app.ts builds it, routes/ use it), kept apart from app.ts so
// that a route module never imports the module that registers it.

export interface CoreScope {
  appId: string
  tenantId: string
  settings: CoreSettings
}

export interface CoreServices {
  db: Database
  apps: AppRegistry
  keys: KeyStore
  sessions: SessionService
  totp: TotpService
  roles: RoleService
  dashboard: DashboardService
}

declare module 'fastify' {
  interface FastifyRequest {
    core: CoreScope
  }
  interface FastifyContextConfig {
    /** App-level endpoints answer for the whole app, never a tenant. */
    appLevel?: boolean
    /** Endpoints that need no API key. */
    open?: boolean
  }
}
