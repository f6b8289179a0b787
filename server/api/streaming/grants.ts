import { SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose'
import type { Database } from '../../db/database.ts'

// Streaming grants (decision 017): a short-lived ES256 JWT that tells a cluster "this
// user may stream this program here, with this keyboard layout, until exp". Clusters verify it
// offline against GET /api/streaming/jwks. The key is made once, by whichever API instance needs
// it first (under a lock, so two instances starting together still make one), and kept in
// PostgreSQL so every instance signs with the same key and the JWKS survives restarts.

export const GRANT_ALGORITHM = 'ES256'
/** The JWT header's typ: a grant cannot pass for another kind of token, nor another for a grant. */
export const GRANT_TYPE = 'softshelf-stream+jwt'

/** A public key as stored (key() writes it): the members a verifier needs are always there. */
export type PublicJwk = JWK & { kty: string; kid: string; alg: string; use: string }

export interface GrantClaims {
  assignmentId: string
  userId: string
  programId: string
  clusterId: string
  region: string
  keyboardLayout: string
  issuedAtMs: number
  expiresAtMs: number
}

interface SigningKey {
  kid: string
  privateKey: CryptoKey | Uint8Array
}

interface KeyRow {
  kid: string
  public_jwk: string
  private_jwk: string
}

export class StreamingGrants {
  private signing: Promise<SigningKey> | undefined

  constructor(
    private readonly db: Database,
    /** The grants' `iss`: APP_URL. */
    private readonly issuer: string,
  ) {}

  private async ensureKey(): Promise<KeyRow> {
    const newest = async (db: Pick<Database, 'query'>) =>
      (await db.query<KeyRow>('SELECT kid, public_jwk, private_jwk FROM api.streaming_keys ORDER BY created_at DESC, kid DESC LIMIT 1')).rows[0]
    const found = await newest(this.db)
    if (found) return found
    // Generated before the transaction: on PGlite the transaction holds the only connection.
    const pair = await generateKeyPair(GRANT_ALGORITHM, { extractable: true })
    const publicJwk = await exportJWK(pair.publicKey)
    const privateJwk = await exportJWK(pair.privateKey)
    const kid = await calculateJwkThumbprint(publicJwk)
    return this.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['softshelf:api:streaming-keys'])
      const made = await newest(tx)
      if (made) return made
      const row = { kid, public_jwk: JSON.stringify({ ...publicJwk, kid, alg: GRANT_ALGORITHM, use: 'sig' }), private_jwk: JSON.stringify(privateJwk) }
      await tx.query('INSERT INTO api.streaming_keys (kid, public_jwk, private_jwk, created_at) VALUES ($1, $2, $3, now())', [row.kid, row.public_jwk, row.private_jwk])
      return row
    })
  }

  private key(): Promise<SigningKey> {
    this.signing ??= (async () => {
      const row = await this.ensureKey()
      return { kid: row.kid, privateKey: await importJWK(JSON.parse(row.private_jwk) as JWK, GRANT_ALGORITHM) }
    })().catch((error: unknown) => {
      this.signing = undefined
      throw error
    })
    return this.signing
  }

  /** The grant for an assignment; `exp` is the assignment's end, `aud` its cluster. */
  async sign(claims: GrantClaims): Promise<string> {
    const key = await this.key()
    return new SignJWT({ program: claims.programId, cluster: claims.clusterId, region: claims.region, layout: claims.keyboardLayout })
      .setProtectedHeader({ alg: GRANT_ALGORITHM, typ: GRANT_TYPE, kid: key.kid })
      .setIssuer(this.issuer)
      .setSubject(claims.userId)
      .setAudience(claims.clusterId)
      .setJti(claims.assignmentId)
      .setIssuedAt(Math.floor(claims.issuedAtMs / 1000))
      .setExpirationTime(Math.floor(claims.expiresAtMs / 1000))
      .sign(key.privateKey)
  }

  /** The public keys, as a JWKS; the key is made first if no grant was ever signed. */
  async jwks(): Promise<{ keys: PublicJwk[] }> {
    await this.key()
    const { rows } = await this.db.query<{ public_jwk: string }>('SELECT public_jwk FROM api.streaming_keys ORDER BY created_at DESC, kid DESC')
    return { keys: rows.map((row) => JSON.parse(row.public_jwk) as PublicJwk) }
  }
}
