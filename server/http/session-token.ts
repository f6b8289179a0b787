// What makes a JWT a session access token. The auth core signs other JWTs with the
// same keys (POST /recipe/jwt, for the app's own use), so a valid signature and a `sub` are not
// enough: the product API and the BFF's page guard also require what only a session's access
// token carries — the v5 header, the session claims the core adds, and the issuer
// supertokens-node puts in every session's payload (its apiDomain + apiBasePath).

/** The `iss` of our sessions' access tokens: APP_URL + "/auth" (supertokens-node's apiDomain + apiBasePath). */
export function sessionIssuer(appUrl: string): string {
  return `${new URL(appUrl).origin}/auth`
}

const nonEmpty = (value: unknown) => typeof value === 'string' && value !== ''
const nullOrString = (value: unknown) => value === null || typeof value === 'string'

/** Null when header and payload are a session access token's, else what is missing. */
export function sessionTokenProblem(header: Record<string, unknown>, payload: Record<string, unknown>, issuer: string): string | null {
  if (header.typ !== 'JWT' || header.version !== '5' || !nonEmpty(header.kid)) return 'not a v5 access token header'
  for (const claim of ['sub', 'rsub', 'sessionHandle', 'refreshTokenHash1', 'tId']) if (!nonEmpty(payload[claim])) return `no ${claim}`
  if (typeof payload.exp !== 'number' || typeof payload.iat !== 'number') return 'no exp or iat'
  if (!nullOrString(payload.parentRefreshTokenHash1) || !nullOrString(payload.antiCsrfToken)) return 'no session token claims'
  if (payload.iss !== issuer) return 'another issuer'
  return null
}

/** Header and payload of a JWT, unverified (the caller has verified it or is about to). */
export function jwtParts(token: string): { header: Record<string, unknown>; payload: Record<string, unknown> } | null {
  const [header, payload] = token.split('.')
  if (!header || !payload) return null
  try {
    const parts = { header: JSON.parse(Buffer.from(header, 'base64url').toString('utf8')), payload: JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) }
    return parts.header && typeof parts.header === 'object' && parts.payload && typeof parts.payload === 'object' ? parts : null
  } catch {
    return null
  }
}
