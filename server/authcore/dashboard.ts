import type { Database } from '../db/database.ts'
import { sha256Hex, uuid } from './crypto.ts'
import { hashingKey, hashPassword, verifyPassword } from './passwords.ts'
import type { CoreSettings } from './settings.ts'
import { normaliseEmail } from './users.ts'

// The user-management dashboard's accounts, as the real core keeps them: per app,
// apart from the app's users, with sessions of their own that supertokens-node's dashboard recipe
// signs in, verifies on every dashboard call and signs out. Never gated by a licence (decision
// 006), so no account is ever suspended.

/** A dashboard session lasts 30 days, as the real core's. */
export const DASHBOARD_SESSION_MS = 30 * 24 * 60 * 60 * 1000

/** The real core's (and supertokens-node's default) email syntax. */
const EMAIL_PATTERN = /^(([^<>()[\]\\.,;:\s@"]+(\.[^<>()[\]\\.,;:\s@"]+)*)|(".+"))@((\[[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\])|(([a-zA-Z\-0-9]+\.)+[a-zA-Z]{2,}))$/

/** The real core's password rule for dashboard accounts, in its words; null when the password is good. */
export function weakPasswordMessage(password: string): string | null {
  if (password.length < 8) return 'Password must contain at least 8 characters, including a number'
  if (password.length >= 100) return "Password's length must be lesser than 100 characters"
  if (!/[A-Za-z]/.test(password)) return 'Password must contain at least one alphabet'
  if (!/[0-9]/.test(password)) return 'Password must contain at least one number'
  return null
}

export interface DashboardUser {
  userId: string
  email: string
  timeJoined: number
}

type Refusal = { status: 'INVALID_EMAIL_ERROR' } | { status: 'PASSWORD_WEAK_ERROR'; message: string } | { status: 'EMAIL_ALREADY_EXISTS_ERROR' }

interface UserRow {
  user_id: string
  email: string
  password_hash: string
  time_joined: string | number
}

const toUser = (row: UserRow): DashboardUser => ({ userId: row.user_id, email: row.email, timeJoined: Number(row.time_joined) })

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string }).code === '23505'
}

export class DashboardService {
  private readonly decoys = new Map<string, Promise<string>>()

  constructor(
    private readonly db: Database,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** Checks a new email and password the way the real core does, in its order. */
  private refusal(email: string | undefined, password: string | undefined): Refusal | null {
    if (email !== undefined && !EMAIL_PATTERN.test(email)) return { status: 'INVALID_EMAIL_ERROR' }
    const weak = password === undefined ? null : weakPasswordMessage(password)
    if (weak) return { status: 'PASSWORD_WEAK_ERROR', message: weak }
    return null
  }

  async create(appId: string, settings: CoreSettings, rawEmail: string, password: string): Promise<{ status: 'OK'; user: DashboardUser } | Refusal> {
    const email = normaliseEmail(rawEmail)
    const refused = this.refusal(email, password)
    if (refused) return refused
    const hash = await hashPassword(password, settings)
    try {
      const { rows } = await this.db.query<UserRow>(
        'INSERT INTO authcore.dashboard_users (app_id, user_id, email, password_hash, time_joined) VALUES ($1, $2, $3, $4, $5) RETURNING *',
        [appId, uuid(), email, hash, this.now()],
      )
      return { status: 'OK', user: toUser(rows[0]!) }
    } catch (error) {
      if (isUniqueViolation(error)) return { status: 'EMAIL_ALREADY_EXISTS_ERROR' }
      throw error
    }
  }

  async list(appId: string): Promise<DashboardUser[]> {
    const { rows } = await this.db.query<UserRow>('SELECT * FROM authcore.dashboard_users WHERE app_id = $1 ORDER BY time_joined, user_id', [appId])
    return rows.map(toUser)
  }

  /** The account's id by its id or its email; null when there is none. */
  async find(appId: string, by: { userId: string } | { email: string }): Promise<DashboardUser | null> {
    const { rows } =
      'userId' in by
        ? await this.db.query<UserRow>('SELECT * FROM authcore.dashboard_users WHERE app_id = $1 AND user_id = $2', [appId, by.userId])
        : await this.db.query<UserRow>('SELECT * FROM authcore.dashboard_users WHERE app_id = $1 AND email = $2', [appId, normaliseEmail(by.email)])
    return rows[0] ? toUser(rows[0]) : null
  }

  /** A new email and/or password. A new password ends the account's sessions. */
  async update(
    appId: string,
    settings: CoreSettings,
    userId: string,
    change: { newEmail?: string | undefined; newPassword?: string | undefined },
  ): Promise<{ status: 'OK'; user: DashboardUser } | { status: 'UNKNOWN_USER_ERROR' } | Refusal> {
    const newEmail = change.newEmail === undefined ? undefined : normaliseEmail(change.newEmail)
    const refused = this.refusal(newEmail, change.newPassword)
    if (refused) return refused
    const hash = change.newPassword === undefined ? null : await hashPassword(change.newPassword, settings)
    try {
      return await this.db.transaction(async (tx) => {
        const { rows } = await tx.query<UserRow>(
          `UPDATE authcore.dashboard_users SET email = coalesce($3, email), password_hash = coalesce($4, password_hash)
            WHERE app_id = $1 AND user_id = $2 RETURNING *`,
          [appId, userId, newEmail ?? null, hash],
        )
        if (!rows[0]) return { status: 'UNKNOWN_USER_ERROR' as const }
        if (hash !== null) await tx.query('DELETE FROM authcore.dashboard_sessions WHERE app_id = $1 AND user_id = $2', [appId, userId])
        return { status: 'OK' as const, user: toUser(rows[0]) }
      })
    } catch (error) {
      if (isUniqueViolation(error)) return { status: 'EMAIL_ALREADY_EXISTS_ERROR' }
      throw error
    }
  }

  /** Removes the account and its sessions; false when there was none. */
  async remove(appId: string, userId: string): Promise<boolean> {
    const { rowCount } = await this.db.query('DELETE FROM authcore.dashboard_users WHERE app_id = $1 AND user_id = $2', [appId, userId])
    return rowCount > 0
  }

  /** Email and password → a new session's id. An unknown email takes as long as a wrong password. */
  async signIn(appId: string, settings: CoreSettings, rawEmail: string, password: string): Promise<{ status: 'OK'; sessionId: string } | { status: 'INVALID_CREDENTIALS_ERROR' }> {
    const { rows } = await this.db.query<UserRow>('SELECT * FROM authcore.dashboard_users WHERE app_id = $1 AND email = $2', [appId, normaliseEmail(rawEmail)])
    const row = rows[0]
    if (!row) {
      await verifyPassword(password, await this.decoyFor(settings))
      return { status: 'INVALID_CREDENTIALS_ERROR' }
    }
    if (!(await verifyPassword(password, row.password_hash))) return { status: 'INVALID_CREDENTIALS_ERROR' }
    const sessionId = uuid()
    const now = this.now()
    await this.db.query('DELETE FROM authcore.dashboard_sessions WHERE expiry <= $1', [now])
    await this.db.query('INSERT INTO authcore.dashboard_sessions (app_id, session_id_hash, user_id, time_created, expiry) VALUES ($1, $2, $3, $4, $5)', [
      appId,
      sha256Hex(sessionId),
      row.user_id,
      now,
      now + DASHBOARD_SESSION_MS,
    ])
    return { status: 'OK', sessionId }
  }

  /** The session's account email while it lasts. */
  async verify(appId: string, sessionId: string): Promise<{ status: 'OK'; email: string } | { status: 'INVALID_SESSION_ERROR' }> {
    const { rows } = await this.db.query<{ email: string }>(
      `SELECT u.email FROM authcore.dashboard_sessions s JOIN authcore.dashboard_users u ON u.app_id = s.app_id AND u.user_id = s.user_id
        WHERE s.app_id = $1 AND s.session_id_hash = $2 AND s.expiry > $3`,
      [appId, sha256Hex(sessionId), this.now()],
    )
    return rows[0] ? { status: 'OK', email: rows[0].email } : { status: 'INVALID_SESSION_ERROR' }
  }

  async signOut(appId: string, sessionId: string): Promise<void> {
    await this.db.query('DELETE FROM authcore.dashboard_sessions WHERE app_id = $1 AND session_id_hash = $2', [appId, sha256Hex(sessionId)])
  }

  private decoyFor(settings: CoreSettings): Promise<string> {
    const key = hashingKey(settings)
    let decoy = this.decoys.get(key)
    if (!decoy) this.decoys.set(key, (decoy = hashPassword('decoy password', settings)))
    return decoy
  }
}
