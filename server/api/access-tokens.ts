import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from 'jose'
import { Failover, splitCoreUrls } from '../http/core-urls.ts'
import type { RevokedSessions } from '../http/revoked-sessions.ts'
import { sessionTokenProblem } from '../http/session-token.ts'

// The API authorises by the access token alone: an RS256 JWT signed by the auth core,
// checked against the core's published keys (JWKS, fetched and cached by jose). The BFF forwards
// it as `Authorization: Bearer` from the session cookie; the API never sees the cookie.

export interface Viewer {
  userId: string
  /** The session's own login method (the token's `rsub`). */
  recipeUserId: string
  /** From the token's `email` claim, set at session creation by the BFF (and after an email change). */
  email: string | undefined
  /** When the core issued this token (the `iat` claim, seconds). */
  issuedAt: number
  emailVerified: boolean
  mfaComplete: boolean
  /** The account's roles and their permissions as the token carries them (the SDK's `st-role` and `st-perm` claims); empty without them. */
  roles: string[]
  permissions: string[]
  /** When the BFF read those from the auth core (the claims' `t`, ms); undefined without them. */
  rolesReadAt: number | undefined
}

export type TokenCheck = { ok: true; viewer: Viewer } | { ok: false; reason: 'missing' | 'invalid' | 'unavailable' }

interface SessionClaims extends JWTPayload {
  email?: unknown
  'st-ev'?: { v?: unknown }
  'st-mfa'?: { v?: unknown }
  'st-role'?: { v?: unknown; t?: unknown }
  'st-perm'?: { v?: unknown; t?: unknown }
}

function claimList(claim: { v?: unknown } | undefined): string[] {
  return Array.isArray(claim?.v) ? claim.v.filter((item): item is string => typeof item === 'string') : []
}

export interface AccessTokenRules {
  /** The `iss` every session access token carries (server/http/session-token.ts). */
  issuer: string
  /** Sessions ended before their tokens expire. */
  revocations: RevokedSessions
}

type KeySet = ReturnType<typeof createRemoteJWKSet>
type KeyGetter = (header: Parameters<KeySet>[0], token: Parameters<KeySet>[1]) => Promise<CryptoKey>

export class AccessTokens {
  private readonly jwks: KeyGetter

  /** `coreUrl`: AUTH_CORE_URL's form, one core or several separated by ";". */
  constructor(
    coreUrl: string,
    private readonly rules: AccessTokenRules,
  ) {
    // The core publishes a new key a minute before it signs with it; a token with an unknown kid
    // makes jose refetch, at most every 30 s. Each core's set is cached apart: when the one read
    // last cannot be reached, the next core's set is read. A set read without the token's key is
    // an answer (the cores share their keys), not a failure to fall over on.
    const sets = new Failover(
      splitCoreUrls(coreUrl).map((base) => createRemoteJWKSet(new URL(`${base}/.well-known/jwks.json`), { timeoutDuration: 2_000, cooldownDuration: 30_000, cacheMaxAge: 600_000 })),
    )
    this.jwks = (header, token) => sets.attempt((set) => set(header, token), (error) => !(error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys))
  }

  async check(authorization: string | undefined): Promise<TokenCheck> {
    const token = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/.exec(authorization ?? '')?.[1]
    if (!token) return { ok: false, reason: authorization ? 'invalid' : 'missing' }
    let payload: SessionClaims
    let header: Record<string, unknown>
    try {
      const verified = await jwtVerify<SessionClaims>(token, this.jwks, { algorithms: ['RS256'] })
      payload = verified.payload
      header = verified.protectedHeader as Record<string, unknown>
    } catch (error) {
      // The core unreachable is not the caller's fault: no refresh loop, a 503.
      if (error instanceof errors.JWKSTimeout || !(error instanceof errors.JOSEError)) return { ok: false, reason: 'unavailable' }
      return { ok: false, reason: 'invalid' }
    }
    // Signed by the core is not enough: only a session's access token is a session.
    if (sessionTokenProblem(header, payload, this.rules.issuer) !== null || typeof payload.sub !== 'string') return { ok: false, reason: 'invalid' }
    // A list that could not be read lately might miss a sign-out: no answer rather than a wrong one.
    if (!this.rules.revocations.fresh) return { ok: false, reason: 'unavailable' }
    if (this.rules.revocations.isRevoked(payload.sessionHandle as string)) return { ok: false, reason: 'invalid' }
    return {
      ok: true,
      viewer: {
        userId: payload.sub,
        recipeUserId: payload.rsub as string,
        email: typeof payload.email === 'string' ? payload.email : undefined,
        issuedAt: payload.iat as number,
        emailVerified: payload['st-ev']?.v === true,
        // No MFA claim means no factor beyond the first was ever required.
        mfaComplete: payload['st-mfa'] === undefined || payload['st-mfa'].v === true,
        roles: claimList(payload['st-role']),
        permissions: claimList(payload['st-perm']),
        rolesReadAt: typeof payload['st-perm']?.t === 'number' ? payload['st-perm'].t : undefined,
      },
    }
  }
}
