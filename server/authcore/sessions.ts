import { isDeepStrictEqual } from 'node:util'
import type { Database, Queryable } from '../db/database.ts'
import { randomToken, sha256Hex, uuid, type SecretBox } from './crypto.ts'
import { decodeJwt, signJwt, verifyJwtSignature, type DecodedJwt, type KeyStore } from './keys.ts'
import type { CoreSettings } from './settings.ts'

// Sessions and their tokens (AUTH-CORE.md §5.3): v5 access tokens, refresh-token rotation with
// promotion on first use of a child, token-theft detection, verification with an optional
// database check, and regeneration. The database keeps only the hash of the hash of the current
// parent refresh token; a refresh token carries its own session handle, parent hash and anti-CSRF
// token, sealed so that nobody can make one from what an access token reveals.

export const PROTECTED_PROPS = ['sub', 'exp', 'iat', 'sessionHandle', 'refreshTokenHash1', 'parentRefreshTokenHash1', 'antiCsrfToken', 'tId', 'rsub']

export class ProtectedPropError extends Error {
  constructor(prop: string) {
    super(`The user payload contains protected field: ${prop}`)
  }
}

export interface SessionScope {
  appId: string
  tenantId: string
  settings: CoreSettings
}

interface SessionRow {
  session_handle: string
  tenant_id: string
  user_id: string
  refresh_token_hash2: string
  expiry: string | number
  time_created: string | number
  jwt_payload: Record<string, unknown>
  session_data: Record<string, unknown>
  use_static_key: boolean
}

interface RefreshContent {
  /** session handle */
  h: string
  /** parent refresh token's hash1, null for the first token of a session */
  p: string | null
  /** anti-CSRF token */
  a: string | null
  /** tenant */
  t: string
  n: string
}

export interface TokenInfo {
  token: string
  expiry: number
  createdTime: number
}

interface SessionView {
  handle: string
  userId: string
  recipeUserId: string
  userDataInJWT: Record<string, unknown>
  tenantId: string
}

type Unauthorised = { status: 'UNAUTHORISED'; message: string }

const hash2Of = (hash1: string) => sha256Hex(hash1)

/** What an access token is minted from: claims, the session's payload, the key kind and times. */
interface MintPlan {
  claims: { sub: string; rsub: string; handle: string; tenantId: string; hash1: string; parentHash1: string | null; antiCsrf: string | null }
  payload: Record<string, unknown>
  useStatic: boolean
  times?: { iat: number; exp: number }
}

export class SessionService {
  private lastRevocationSweep = 0

  constructor(
    private readonly db: Database,
    private readonly keys: KeyStore,
    private readonly box: SecretBox,
    private readonly now: () => number = () => Date.now(),
  ) {}

  static checkPayload(payload: Record<string, unknown>): void {
    for (const prop of PROTECTED_PROPS) if (prop in payload) throw new ProtectedPropError(prop)
  }

  private sealRefresh(appId: string, content: Omit<RefreshContent, 'n'>): string {
    return this.box.seal(`refresh:${appId}`, JSON.stringify({ ...content, n: randomToken(16) }))
  }

  private openRefresh(appId: string, token: string): RefreshContent | null {
    const text = this.box.open(`refresh:${appId}`, token)
    if (text === null) return null
    try {
      const content = JSON.parse(text) as RefreshContent
      return typeof content.h === 'string' ? content : null
    } catch {
      return null
    }
  }

  private async primaryOf(db: Queryable, appId: string, recipeUserId: string): Promise<string> {
    const { rows } = await db.query<{ primary_user_id: string }>('SELECT primary_user_id FROM authcore.users WHERE app_id = $1 AND user_id = $2', [appId, recipeUserId])
    return rows[0]?.primary_user_id ?? recipeUserId
  }

  /**
   * Signs an access token. Never called inside a transaction: the key store may have to read or
   * make keys, which on PGlite's single connection would wait for that very transaction.
   */
  private async mintAccessToken(scope: SessionScope, plan: MintPlan): Promise<TokenInfo> {
    const { claims, times } = plan
    const iat = times?.iat ?? Math.floor(this.now() / 1000)
    const exp = times?.exp ?? iat + scope.settings.accessTokenValidity
    const key = await this.keys.signingKey(scope.appId, scope.settings, plan.useStatic)
    const token = signJwt(key, {
      sub: claims.sub,
      exp,
      iat,
      tId: claims.tenantId,
      rsub: claims.rsub,
      sessionHandle: claims.handle,
      refreshTokenHash1: claims.hash1,
      parentRefreshTokenHash1: claims.parentHash1,
      antiCsrfToken: claims.antiCsrf,
      ...plan.payload,
    })
    return { token, expiry: exp * 1000, createdTime: iat * 1000 }
  }

  private async loadSession(db: Queryable, appId: string, handle: string, lock: boolean): Promise<SessionRow | null> {
    const { rows } = await db.query<SessionRow>(
      `SELECT * FROM authcore.sessions WHERE app_id = $1 AND session_handle = $2 AND expiry > $3${lock ? ' FOR UPDATE' : ''}`,
      [appId, handle, this.now()],
    )
    return rows[0] ?? null
  }

  async create(
    scope: SessionScope,
    input: { userId: string; userDataInJWT: Record<string, unknown>; userDataInDatabase: Record<string, unknown>; useDynamicSigningKey: boolean; enableAntiCsrf: boolean },
  ) {
    SessionService.checkPayload(input.userDataInJWT)
    const handle = scope.tenantId === 'public' ? uuid() : `${uuid()}_${scope.tenantId}`
    const antiCsrf = input.enableAntiCsrf ? uuid() : null
    const refreshToken = this.sealRefresh(scope.appId, { h: handle, p: null, a: antiCsrf, t: scope.tenantId })
    const hash1 = sha256Hex(refreshToken)
    const now = this.now()
    const createdTime = Math.floor(now / 1000) * 1000
    const expiry = createdTime + scope.settings.refreshTokenValidity * 60_000
    // One statement: the session row, and the primary user its tokens name.
    const { rows } = await this.db.query<{ sub: string | null }>(
      `INSERT INTO authcore.sessions (app_id, session_handle, tenant_id, user_id, refresh_token_hash2, expiry, time_created, jwt_payload, session_data, use_static_key)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       RETURNING (SELECT u.primary_user_id FROM authcore.users u WHERE u.app_id = $1 AND u.user_id = $4) AS sub`,
      [scope.appId, handle, scope.tenantId, input.userId, hash2Of(hash1), expiry, now, JSON.stringify(input.userDataInJWT), JSON.stringify(input.userDataInDatabase), !input.useDynamicSigningKey],
    )
    const sub = rows[0]?.sub ?? input.userId
    const accessToken = await this.mintAccessToken(scope, {
      claims: { sub, rsub: input.userId, handle, tenantId: scope.tenantId, hash1, parentHash1: null, antiCsrf },
      payload: input.userDataInJWT,
      useStatic: !input.useDynamicSigningKey,
    })
    return {
      status: 'OK' as const,
      session: { handle, userId: sub, recipeUserId: input.userId, userDataInJWT: input.userDataInJWT, tenantId: scope.tenantId },
      accessToken,
      refreshToken: { token: refreshToken, expiry, createdTime },
      ...(antiCsrf ? { antiCsrfToken: antiCsrf } : {}),
    }
  }

  /** Signature, key and expiry of an access token; the reason when it fails. */
  private async checkAccessToken(appId: string, token: string): Promise<{ decoded: DecodedJwt } | { problem: string }> {
    const decoded = decodeJwt(token)
    // Only an access token's header names its version: a JWT made by /recipe/jwt is no session.
    if (!decoded || decoded.header.version !== '5') return { problem: 'Invalid JWT' }
    const kid = decoded.header.kid
    if (typeof kid !== 'string') return { problem: 'Access token has no key id' }
    const key = await this.keys.verificationKey(appId, kid)
    if (!key) return { problem: 'Access token signed with an unknown or retired key' }
    if (!verifyJwtSignature(decoded, key)) return { problem: 'Invalid JWT signature' }
    const p = decoded.payload
    if (typeof p.sessionHandle !== 'string' || typeof p.sub !== 'string' || typeof p.rsub !== 'string' || typeof p.refreshTokenHash1 !== 'string' || typeof p.exp !== 'number') {
      return { problem: 'Access token does not contain all the necessary information' }
    }
    if (p.exp * 1000 <= this.now()) return { problem: 'Access token expired' }
    return { decoded }
  }

  private static userPayload(payload: Record<string, unknown>): Record<string, unknown> {
    const out: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(payload)) if (!PROTECTED_PROPS.includes(key)) out[key] = value
    return out
  }

  async verify(
    scope: SessionScope,
    input: { accessToken: string; antiCsrfToken?: string | undefined; doAntiCsrfCheck: boolean; enableAntiCsrf: boolean; checkDatabase: boolean },
  ): Promise<{ status: 'OK'; session: SessionView; accessToken?: TokenInfo } | { status: 'TRY_REFRESH_TOKEN'; message: string } | Unauthorised> {
    const checked = await this.checkAccessToken(scope.appId, input.accessToken)
    if ('problem' in checked) return { status: 'TRY_REFRESH_TOKEN', message: checked.problem }
    const p = checked.decoded.payload as Record<string, unknown> & { sub: string; rsub: string; sessionHandle: string; refreshTokenHash1: string; exp: number }
    const tenantId = typeof p.tId === 'string' ? p.tId : 'public'
    if (input.enableAntiCsrf && input.doAntiCsrfCheck) {
      if (typeof input.antiCsrfToken !== 'string') return { status: 'TRY_REFRESH_TOKEN', message: 'Provided antiCsrfToken is undefined. If you do not want anti-csrf check for this API, please set doAntiCsrfCheck to false for this API' }
      if (input.antiCsrfToken !== p.antiCsrfToken) return { status: 'TRY_REFRESH_TOKEN', message: 'anti-csrf check failed' }
    }
    const tokenPayload = SessionService.userPayload(p)
    const parentHash1 = typeof p.parentRefreshTokenHash1 === 'string' ? p.parentRefreshTokenHash1 : null
    let stored: SessionRow | null = null
    if (input.checkDatabase) {
      stored = await this.loadSession(this.db, scope.appId, p.sessionHandle, false)
      if (!stored) return { status: 'UNAUTHORISED', message: 'Either the session has ended or has been blacklisted' }
    }
    const needsUpdate = stored !== null && !isDeepStrictEqual(tokenPayload, stored.jwt_payload)
    const view = (payload: Record<string, unknown>, sub = p.sub): SessionView => ({ handle: p.sessionHandle, userId: sub, recipeUserId: p.rsub, userDataInJWT: payload, tenantId })
    if (parentHash1 === null && !needsUpdate) return { status: 'OK', session: view(tokenPayload) }

    const outcome = await this.db.transaction(async (tx) => {
      const session = await this.loadSession(tx, scope.appId, p.sessionHandle, true)
      if (!session) return { status: 'UNAUTHORISED' as const, message: 'Either the session has ended or has been blacklisted' }
      let promoted = false
      if (parentHash1 !== null && hash2Of(parentHash1) === session.refresh_token_hash2) {
        await tx.query('UPDATE authcore.sessions SET refresh_token_hash2 = $3, expiry = $4 WHERE app_id = $1 AND session_handle = $2', [
          scope.appId,
          session.session_handle,
          hash2Of(p.refreshTokenHash1),
          this.now() + scope.settings.refreshTokenValidity * 60_000,
        ])
        promoted = true
      }
      const isCurrentParent = hash2Of(p.refreshTokenHash1) === session.refresh_token_hash2
      const payloadChanged = input.checkDatabase && !isDeepStrictEqual(tokenPayload, session.jwt_payload)
      // A stale child of a session rotated since: still valid until it expires, not renewed, and not theft here.
      if (!(promoted || isCurrentParent || payloadChanged)) return { status: 'OK' as const, session: view(tokenPayload) }
      const sub = await this.primaryOf(tx, scope.appId, session.user_id)
      const plan: MintPlan = {
        claims: { sub, rsub: session.user_id, handle: session.session_handle, tenantId: session.tenant_id, hash1: p.refreshTokenHash1, parentHash1: null, antiCsrf: typeof p.antiCsrfToken === 'string' ? p.antiCsrfToken : null },
        payload: session.jwt_payload,
        useStatic: session.use_static_key,
      }
      return { status: 'OK' as const, session: view(session.jwt_payload, sub), plan }
    })
    if (!('plan' in outcome) || !outcome.plan) return outcome
    // Signed once the transaction has committed (see mintAccessToken).
    return { status: 'OK', session: outcome.session, accessToken: await this.mintAccessToken(scope, outcome.plan) }
  }

  async refresh(
    scope: SessionScope,
    input: { refreshToken: string; antiCsrfToken?: string | undefined; enableAntiCsrf: boolean; useDynamicSigningKey: boolean },
  ) {
    const content = this.openRefresh(scope.appId, input.refreshToken)
    if (!content) return { status: 'UNAUTHORISED' as const, message: 'Refresh token not valid' }
    if (input.enableAntiCsrf && content.a !== null && content.a !== input.antiCsrfToken) {
      return { status: 'UNAUTHORISED' as const, message: 'Anti CSRF token missing, or not matching' }
    }
    const hash1 = sha256Hex(input.refreshToken)
    const outcome = await this.db.transaction(async (tx) => {
      const session = await this.loadSession(tx, scope.appId, content.h, true)
      if (!session) return { status: 'UNAUTHORISED' as const, message: 'Session missing in db or has expired' }
      let expiry = Number(session.expiry)
      if (hash2Of(hash1) !== session.refresh_token_hash2) {
        if (content.p !== null && hash2Of(content.p) === session.refresh_token_hash2) {
          // The token is the unpromoted child of the current parent: it becomes the parent.
          expiry = this.now() + scope.settings.refreshTokenValidity * 60_000
          await tx.query('UPDATE authcore.sessions SET refresh_token_hash2 = $3, expiry = $4 WHERE app_id = $1 AND session_handle = $2', [
            scope.appId,
            session.session_handle,
            hash2Of(hash1),
            expiry,
          ])
        } else {
          const userId = await this.primaryOf(tx, scope.appId, session.user_id)
          return { status: 'TOKEN_THEFT_DETECTED' as const, session: { handle: session.session_handle, userId, recipeUserId: session.user_id } }
        }
      }
      const useStatic = !input.useDynamicSigningKey
      if (useStatic !== session.use_static_key) {
        await tx.query('UPDATE authcore.sessions SET use_static_key = $3 WHERE app_id = $1 AND session_handle = $2', [scope.appId, session.session_handle, useStatic])
      }
      const sub = await this.primaryOf(tx, scope.appId, session.user_id)
      return { status: 'ROTATE' as const, session, expiry, useStatic, sub }
    })
    if (outcome.status !== 'ROTATE') return outcome
    // The child tokens are made once the transaction has committed (see mintAccessToken).
    const { session, expiry, useStatic, sub } = outcome
    const antiCsrf = input.enableAntiCsrf ? uuid() : null
    const child = this.sealRefresh(scope.appId, { h: session.session_handle, p: hash1, a: antiCsrf, t: session.tenant_id })
    const accessToken = await this.mintAccessToken(scope, {
      claims: { sub, rsub: session.user_id, handle: session.session_handle, tenantId: session.tenant_id, hash1: sha256Hex(child), parentHash1: hash1, antiCsrf },
      payload: session.jwt_payload,
      useStatic,
    })
    return {
      status: 'OK' as const,
      session: { handle: session.session_handle, userId: sub, recipeUserId: session.user_id, userDataInJWT: session.jwt_payload, tenantId: session.tenant_id },
      accessToken,
      refreshToken: { token: child, expiry, createdTime: accessToken.createdTime },
      ...(antiCsrf ? { antiCsrfToken: antiCsrf } : {}),
    }
  }

  async regenerate(scope: SessionScope, input: { accessToken: string; userDataInJWT?: Record<string, unknown> | undefined }) {
    const decoded = decodeJwt(input.accessToken)
    const p = decoded?.payload
    if (!p || typeof p.sessionHandle !== 'string') return { status: 'UNAUTHORISED' as const, message: 'Invalid access token' }
    if (input.userDataInJWT) SessionService.checkPayload(input.userDataInJWT)
    // One statement: the live session (with its payload replaced when one is given) and its primary user.
    const { rows } = await this.db.query<SessionRow & { sub: string | null }>(
      input.userDataInJWT
        ? `UPDATE authcore.sessions s SET jwt_payload = $4 WHERE s.app_id = $1 AND s.session_handle = $2 AND s.expiry > $3
           RETURNING s.*, (SELECT u.primary_user_id FROM authcore.users u WHERE u.app_id = s.app_id AND u.user_id = s.user_id) AS sub`
        : `SELECT s.*, (SELECT u.primary_user_id FROM authcore.users u WHERE u.app_id = s.app_id AND u.user_id = s.user_id) AS sub
             FROM authcore.sessions s WHERE s.app_id = $1 AND s.session_handle = $2 AND s.expiry > $3`,
      input.userDataInJWT ? [scope.appId, p.sessionHandle, this.now(), JSON.stringify(input.userDataInJWT)] : [scope.appId, p.sessionHandle, this.now()],
    )
    const session = rows[0]
    if (!session) return { status: 'UNAUTHORISED' as const, message: 'Session does not exist.' }
    const payload = session.jwt_payload
    const sub = session.sub ?? session.user_id
    const view = { handle: session.session_handle, userId: sub, recipeUserId: session.user_id, userDataInJWT: payload, tenantId: session.tenant_id }
    const exp = typeof p.exp === 'number' ? p.exp : 0
    if (exp * 1000 <= this.now()) return { status: 'OK' as const, session: view }
    const accessToken = await this.mintAccessToken(scope, {
      claims: {
        sub,
        rsub: session.user_id,
        handle: session.session_handle,
        tenantId: session.tenant_id,
        hash1: String(p.refreshTokenHash1),
        parentHash1: typeof p.parentRefreshTokenHash1 === 'string' ? p.parentRefreshTokenHash1 : null,
        antiCsrf: typeof p.antiCsrfToken === 'string' ? p.antiCsrfToken : null,
      },
      payload,
      useStatic: session.use_static_key,
      times: { iat: Math.floor(this.now() / 1000), exp },
    })
    return { status: 'OK' as const, session: view, accessToken }
  }

  async info(scope: SessionScope, handle: string) {
    const session = await this.loadSession(this.db, scope.appId, handle, false)
    if (!session) return { status: 'UNAUTHORISED' as const, message: 'Session does not exist.' }
    return {
      status: 'OK' as const,
      sessionHandle: session.session_handle,
      userId: await this.primaryOf(this.db, scope.appId, session.user_id),
      recipeUserId: session.user_id,
      userDataInDatabase: session.session_data,
      userDataInJWT: session.jwt_payload,
      expiry: Number(session.expiry),
      timeCreated: Number(session.time_created),
      tenantId: session.tenant_id,
    }
  }

  /** Live session handles of a user: optionally with its linked login methods, in every tenant or one. */
  async handlesOfUser(scope: SessionScope, userId: string, linked: boolean, allTenants: boolean, db: Queryable = this.db): Promise<string[]> {
    const users = linked
      ? (
          await db.query<{ user_id: string }>(
            `SELECT user_id FROM authcore.users WHERE app_id = $1 AND primary_user_id = (SELECT primary_user_id FROM authcore.users WHERE app_id = $1 AND (user_id = $2 OR primary_user_id = $2) LIMIT 1)`,
            [scope.appId, userId],
          )
        ).rows.map((r) => r.user_id)
      : []
    const ids = users.length > 0 ? users : [userId]
    const { rows } = await db.query<{ session_handle: string }>(
      `SELECT session_handle FROM authcore.sessions WHERE app_id = $1 AND user_id = ANY($2::text[]) AND expiry > $3 ${allTenants ? '' : 'AND tenant_id = $4'} ORDER BY time_created`,
      allTenants ? [scope.appId, ids, this.now()] : [scope.appId, ids, this.now(), scope.tenantId],
    )
    return rows.map((r) => r.session_handle)
  }

  /** Until when a session ended now stays on the revocation list: its last access token's expiry. */
  revokedUntil(scope: SessionScope): number {
    return this.now() + scope.settings.accessTokenValidity * 1000
  }

  /** Ends sessions: their rows go, and their handles join the revocation list (decision 009). */
  async remove(scope: SessionScope, handles: string[]): Promise<string[]> {
    if (handles.length === 0) return []
    const { rows } = await this.db.query<{ session_handle: string }>(
      `WITH gone AS (DELETE FROM authcore.sessions WHERE app_id = $1 AND session_handle = ANY($2::text[]) RETURNING session_handle),
       noted AS (INSERT INTO authcore.revoked_sessions (app_id, session_handle, expires_at) SELECT $1, session_handle, $3 FROM gone ON CONFLICT DO NOTHING)
       SELECT session_handle FROM gone`,
      [scope.appId, handles, this.revokedUntil(scope)],
    )
    return rows.map((r) => r.session_handle)
  }

  /**
   * The revocation list from `since` (the database's ms clock) on, oldest first: what the API and
   * the BFF poll. `until` is the newest revocation returned; a reader asks again from a little
   * before it, since a revocation committed late can carry an earlier time.
   */
  async revokedSince(scope: SessionScope, since: number, limit: number): Promise<{ revoked: Array<{ sessionHandle: string; expiresAt: number }>; until: number; more: boolean }> {
    const now = this.now()
    if (now - this.lastRevocationSweep > 60_000) {
      this.lastRevocationSweep = now
      await this.db.query('DELETE FROM authcore.revoked_sessions WHERE expires_at <= $1', [now])
    }
    const { rows } = await this.db.query<{ session_handle: string; expires_at: string | number; revoked_at: string | number }>(
      `SELECT session_handle, expires_at, revoked_at FROM authcore.revoked_sessions
        WHERE app_id = $1 AND revoked_at >= $2 AND expires_at > $3 ORDER BY revoked_at, session_handle LIMIT $4`,
      [scope.appId, since, now, limit + 1],
    )
    const page = rows.slice(0, limit)
    const until = page.length > 0 ? Number(page[page.length - 1]!.revoked_at) : since
    return { revoked: page.map((r) => ({ sessionHandle: r.session_handle, expiresAt: Number(r.expires_at) })), until, more: rows.length > limit }
  }

  async updateData(scope: SessionScope, handle: string, column: 'session_data' | 'jwt_payload', value: Record<string, unknown>): Promise<boolean> {
    const { rowCount } = await this.db.query(`UPDATE authcore.sessions SET ${column} = $3 WHERE app_id = $1 AND session_handle = $2 AND expiry > $4`, [
      scope.appId,
      handle,
      JSON.stringify(value),
      this.now(),
    ])
    return rowCount > 0
  }

  /** POST /recipe/jwt: a JWT for the app's own use, signed with the same keys. */
  async createJwt(scope: SessionScope, input: { payload: Record<string, unknown>; validity: number; useStaticSigningKey: boolean; jwksDomain: string }): Promise<string> {
    const key = await this.keys.signingKey(scope.appId, scope.settings, input.useStaticSigningKey)
    const iat = Math.floor(this.now() / 1000)
    // As the real core: the jwksDomain is the issuer only when the caller names none. No "version"
    // in its header, unlike an access token: the API and the BFF refuse it as a session.
    return signJwt(key, { iss: input.jwksDomain, ...input.payload, iat, exp: iat + input.validity }, { accessToken: false })
  }

  /** Expired sessions are gone for every purpose; this clears their rows. */
  async sweep(): Promise<number> {
    const { rowCount } = await this.db.query('DELETE FROM authcore.sessions WHERE expiry <= $1', [this.now()])
    return rowCount
  }
}
