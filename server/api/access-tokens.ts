import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from 'jose'

// The API authorises by the access token alone (issue 5): an RS256 JWT signed by the auth core,
// checked against the core's published keys (JWKS, fetched and cached by jose). The BFF forwards
// it as `Authorization: Bearer` from the session cookie; the API never sees the cookie.

export interface Viewer {
  userId: string
  /** From the token's `email` claim, set at session creation by the BFF. */
  email: string | undefined
  emailVerified: boolean
  mfaComplete: boolean
}

export type TokenCheck = { ok: true; viewer: Viewer } | { ok: false; reason: 'missing' | 'invalid' | 'unavailable' }

interface SessionClaims extends JWTPayload {
  email?: unknown
  'st-ev'?: { v?: unknown }
  'st-mfa'?: { v?: unknown }
}

export class AccessTokens {
  private readonly jwks: ReturnType<typeof createRemoteJWKSet>

  constructor(coreUrl: string) {
    // The core publishes a new key a minute before it signs with it; a token with an unknown kid
    // makes jose refetch, at most every 30 s.
    this.jwks = createRemoteJWKSet(new URL(`${coreUrl.replace(/\/+$/, '')}/.well-known/jwks.json`), { timeoutDuration: 2_000, cooldownDuration: 30_000, cacheMaxAge: 600_000 })
  }

  async check(authorization: string | undefined): Promise<TokenCheck> {
    const token = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/.exec(authorization ?? '')?.[1]
    if (!token) return { ok: false, reason: authorization ? 'invalid' : 'missing' }
    let payload: SessionClaims
    try {
      payload = (await jwtVerify<SessionClaims>(token, this.jwks, { algorithms: ['RS256'] })).payload
    } catch (error) {
      // The core unreachable is not the caller's fault: no refresh loop, a 503.
      if (error instanceof errors.JWKSTimeout || !(error instanceof errors.JOSEError)) return { ok: false, reason: 'unavailable' }
      return { ok: false, reason: 'invalid' }
    }
    if (typeof payload.sub !== 'string' || payload.sub === '') return { ok: false, reason: 'invalid' }
    return {
      ok: true,
      viewer: {
        userId: payload.sub,
        email: typeof payload.email === 'string' ? payload.email : undefined,
        emailVerified: payload['st-ev']?.v === true,
        // No MFA claim means no factor beyond the first was ever required.
        mfaComplete: payload['st-mfa'] === undefined || payload['st-mfa'].v === true,
      },
    }
  }
}
