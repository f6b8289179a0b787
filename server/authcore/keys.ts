import { createPrivateKey, createPublicKey, generateKeyPair, sign, verify, type KeyObject } from 'node:crypto'
import { promisify } from 'node:util'
import type { Database, Queryable } from '../db/database.ts'
import { uuid, type SecretBox } from './crypto.ts'
import type { CoreSettings } from './settings.ts'

// Access-token signing keys (AUTH-CORE.md §5.3 "Signing keys / JWKS"). Dynamic keys ("d-<ms>")
// rotate lazily, as the real core's do: a new one is made when the newest is within the lead of
// its update interval, is published at once but signs only once it is the lead old (the previous
// key signs until its own interval ends), and stays in the JWKS for the interval plus two
// access-token lifetimes. The static key ("s-<uuid>") never rotates. Keys live in the database,
// shared by every core instance; each instance caches them.

const generateRsa = promisify(generateKeyPair)

/**
 * How long a new key is published before it signs (with an update interval of 7.5 minutes or
 * more; a shorter one, as the SDK's own tests use, has a fifth of it, as the real core does in its
 * test mode). The real core waits 60 s; ours waits longer because its JWKS answer may be cached
 * for JWKS_MAX_AGE_S and an instance may learn of a key another one made KEY_CACHE_MS late:
 * 60 + 5 < 90 leaves 25 s for clocks and slow fetches.
 */
export const KEY_OVERLAP_MS = 90_000
/** How long an instance trusts its key cache before looking for keys another instance made. */
export const KEY_CACHE_MS = 5_000
/**
 * The longest a client may cache the JWKS (its `Cache-Control: max-age`): the real core's
 * 60 s, which supertokens-node also assumes when the header is missing. Never longer
 * than the time until the next scheduled key, nor than the lead minus the key cache, so a set
 * fetched just before a rotation is fetched again before the new key signs.
 */
export const JWKS_MAX_AGE_S = 60
export interface Jwk {
  kty: 'RSA'
  kid: string
  n: string
  e: string
  alg: 'RS256'
  use: 'sig'
}

export interface SigningKey {
  kid: string
  kind: 'dynamic' | 'static'
  createdAt: number
  privateKey: KeyObject
  publicKey: KeyObject
  jwk: Jwk
}

interface KeyRow {
  kid: string
  kind: 'dynamic' | 'static'
  public_key: string
  private_key_encrypted: string
  created_at: string | number
}

interface AppKeys {
  dynamic: SigningKey[]
  staticKey: SigningKey | null
  loadedAt: number
}

function toJwk(kid: string, publicKey: KeyObject): Jwk {
  const { n, e } = publicKey.export({ format: 'jwk' }) as { n: string; e: string }
  return { kty: 'RSA', kid, n, e, alg: 'RS256', use: 'sig' }
}

export class KeyStore {
  private readonly cache = new Map<string, AppKeys>()

  constructor(
    private readonly db: Database,
    private readonly box: SecretBox,
    private readonly now: () => number = Date.now,
  ) {}

  private fromRow(row: KeyRow, known: Map<string, SigningKey>): SigningKey {
    // A key never changes under its kid: one already decrypted and parsed is kept as it is.
    const cached = known.get(row.kid)
    if (cached) return cached
    const pem = this.box.open('signing-key', row.private_key_encrypted)
    if (pem === null) throw new Error(`Signing key ${row.kid} cannot be decrypted: AUTH_CORE_SECRET differs from the one it was stored with`)
    const publicKey = createPublicKey(row.public_key)
    return { kid: row.kid, kind: row.kind, createdAt: Number(row.created_at), privateKey: createPrivateKey(pem), publicKey, jwk: toJwk(row.kid, publicKey) }
  }

  private async load(appId: string, db: Queryable = this.db): Promise<AppKeys> {
    const { rows } = await db.query<KeyRow>(
      'SELECT kid, kind, public_key, private_key_encrypted, created_at FROM authcore.signing_keys WHERE app_id = $1 ORDER BY created_at DESC, kid DESC',
      [appId],
    )
    const previous = this.cache.get(appId)
    const known = new Map([...(previous?.dynamic ?? []), ...(previous?.staticKey ? [previous.staticKey] : [])].map((key) => [key.kid, key]))
    const keys = rows.map((row) => this.fromRow(row, known))
    const entry = { dynamic: keys.filter((k) => k.kind === 'dynamic'), staticKey: keys.find((k) => k.kind === 'static') ?? null, loadedAt: this.now() }
    this.cache.set(appId, entry)
    return entry
  }

  private async keys(appId: string): Promise<AppKeys> {
    const cached = this.cache.get(appId)
    if (cached && this.now() - cached.loadedAt < KEY_CACHE_MS) return cached
    return this.load(appId)
  }

  forget(appId: string): void {
    this.cache.delete(appId)
  }

  private static intervalMs(settings: CoreSettings): number {
    return settings.signingKeyUpdateInterval * 3_600_000
  }

  /** How long a new key is published before it signs (KEY_OVERLAP_MS, or a fifth of a short interval). */
  static leadMs(settings: CoreSettings): number {
    return Math.min(KEY_OVERLAP_MS, KeyStore.intervalMs(settings) / 5)
  }

  /**
   * A new key is due when the newest would reach its interval before the new one may sign. With
   * a fixed minute's lead, an interval shorter than the lead (the SDK's tests use 0.001 h) made
   * every call a new key and every refresh sign with another one.
   */
  private needsNewKey(keys: AppKeys, settings: CoreSettings): boolean {
    const newest = keys.dynamic[0]
    return !newest || this.now() + KeyStore.leadMs(settings) > newest.createdAt + KeyStore.intervalMs(settings)
  }

  private static async newKeyPair(): Promise<{ publicPem: string; privatePem: string }> {
    const { publicKey, privateKey } = await generateRsa('rsa', { modulusLength: 2048 })
    return { publicPem: publicKey.export({ type: 'spki', format: 'pem' }) as string, privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string }
  }

  private async insertKey(tx: Queryable, appId: string, kind: 'dynamic' | 'static', createdAt: number, pair: { publicPem: string; privatePem: string }): Promise<void> {
    const kid = kind === 'dynamic' ? `d-${createdAt}` : `s-${uuid()}`
    await tx.query(
      'INSERT INTO authcore.signing_keys (app_id, kid, kind, public_key, private_key_encrypted, created_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING',
      [appId, kid, kind, pair.publicPem, this.box.seal('signing-key', pair.privatePem), createdAt],
    )
  }

  /** Makes the keys the app needs now, under a lock so that instances starting together make one each. */
  private async ensure(appId: string, settings: CoreSettings, kind: 'dynamic' | 'static', force = false): Promise<AppKeys> {
    // The RSA key is generated before the transaction: it takes a while, and the transaction holds
    // the lock (on PGlite, the only connection) until it ends.
    const pair = await KeyStore.newKeyPair()
    await this.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`softshelf:authcore:keys:${appId}`])
      const current = await this.load(appId, tx)
      const retention = KeyStore.intervalMs(settings) + 2 * settings.accessTokenValidity * 1000
      await tx.query("DELETE FROM authcore.signing_keys WHERE app_id = $1 AND kind = 'dynamic' AND created_at < $2", [appId, this.now() - retention])
      if (kind === 'static' && !current.staticKey) await this.insertKey(tx, appId, 'static', this.now(), pair)
      if (kind === 'dynamic' && (force || this.needsNewKey(current, settings))) {
        // A key made "now" by a forced rotation in the same millisecond as another would clash.
        const newest = current.dynamic[0]?.createdAt ?? 0
        await this.insertKey(tx, appId, 'dynamic', Math.max(this.now(), newest + 1), pair)
      }
    })
    return this.load(appId)
  }

  /** The key that signs a new access token now. */
  async signingKey(appId: string, settings: CoreSettings, useStatic: boolean): Promise<SigningKey> {
    let keys = await this.keys(appId)
    if (useStatic) {
      if (!keys.staticKey) keys = await this.ensure(appId, settings, 'static')
      return keys.staticKey!
    }
    if (this.needsNewKey(keys, settings)) keys = await this.ensure(appId, settings, 'dynamic')
    const [newest, previous] = keys.dynamic
    // A key younger than the overlap signs only when there is no older key still valid.
    if (newest && previous && this.now() - newest.createdAt < KeyStore.leadMs(settings) && this.now() < previous.createdAt + KeyStore.intervalMs(settings)) {
      return previous
    }
    return newest!
  }

  /** Operator command: a new dynamic key now (it signs after the overlap). */
  async rotate(appId: string, settings: CoreSettings): Promise<string> {
    const keys = await this.ensure(appId, settings, 'dynamic', true)
    return keys.dynamic[0]!.kid
  }

  async verificationKey(appId: string, kid: string): Promise<SigningKey | null> {
    const find = (keys: AppKeys) => (keys.staticKey?.kid === kid ? keys.staticKey : keys.dynamic.find((k) => k.kid === kid) ?? null)
    const found = find(await this.keys(appId))
    // Another instance may have made it since this one loaded its cache.
    return found ?? find(await this.load(appId))
  }

  /** The published keys and how long a client may cache them. */
  async jwks(appId: string, settings: CoreSettings): Promise<{ keys: Jwk[]; maxAgeSec: number }> {
    let keys = await this.keys(appId)
    if (this.needsNewKey(keys, settings)) keys = await this.ensure(appId, settings, 'dynamic')
    const interval = KeyStore.intervalMs(settings)
    const retention = interval + 2 * settings.accessTokenValidity * 1000
    const live = keys.dynamic.filter((k) => this.now() < k.createdAt + retention)
    const lead = KeyStore.leadMs(settings)
    const nextKeyAt = (keys.dynamic[0]?.createdAt ?? this.now()) + interval - lead
    const cacheableMs = Math.min(JWKS_MAX_AGE_S * 1000, lead - KEY_CACHE_MS, nextKeyAt - this.now())
    const maxAgeSec = Math.max(1, Math.floor(cacheableMs / 1000))
    return { keys: [...live, ...(keys.staticKey ? [keys.staticKey] : [])].map((k) => k.jwk), maxAgeSec }
  }
}

// --- JWT (RS256) ---------------------------------------------------------------------------------

/** An access token's header names its version (5); a JWT made for the app's own use has none, as with the real core. */
export function signJwt(key: SigningKey, payload: Record<string, unknown>, options: { accessToken?: boolean } = {}): string {
  const fields = options.accessToken === false ? { alg: 'RS256', typ: 'JWT', kid: key.kid } : { alg: 'RS256', typ: 'JWT', version: '5', kid: key.kid }
  const header = Buffer.from(JSON.stringify(fields)).toString('base64url')
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url')
  const signature = sign('sha256', Buffer.from(`${header}.${body}`), key.privateKey).toString('base64url')
  return `${header}.${body}.${signature}`
}

export interface DecodedJwt {
  header: { kid?: unknown; alg?: unknown; version?: unknown }
  payload: Record<string, unknown>
  signed: string
  signature: Buffer
}

/** Splits and parses a JWT without checking it; null when it is not one. */
export function decodeJwt(token: string): DecodedJwt | null {
  const parts = token.split('.')
  if (parts.length !== 3) return null
  try {
    const header = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8')) as DecodedJwt['header']
    const payload = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as Record<string, unknown>
    if (!header || typeof header !== 'object' || !payload || typeof payload !== 'object' || Array.isArray(payload)) return null
    return { header, payload, signed: `${parts[0]}.${parts[1]}`, signature: Buffer.from(parts[2]!, 'base64url') }
  } catch {
    return null
  }
}

export function verifyJwtSignature(decoded: DecodedJwt, key: SigningKey): boolean {
  return decoded.header.alg === 'RS256' && verify('sha256', Buffer.from(decoded.signed), key.publicKey, decoded.signature)
}
