import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import type { Database } from '../../db/database.ts'

// Proof that a visitor gave a share link's password (decision 016). The API signs
// "this link was unlocked until T" with HMAC-SHA256; the BFF keeps the token in an httpOnly cookie
// of that link and hands it back as `x-share-token`, so neither the password nor the proof is ever
// in a URL or within reach of the page's JavaScript. A token names one share and its link: it
// opens nothing else. It lasts at most UNLOCK_TTL_MS and never past the share's own expiry;
// revoking the share ends it at once, as every request checks the share first.

/** How long one unlock lasts at most. */
export const UNLOCK_TTL_MS = 12 * 60 * 60_000

const VERSION = 'v1'

export class ShareTokens {
  private key: Promise<Buffer> | undefined

  constructor(private readonly db: Database) {}

  /**
   * The signing key, made once by whichever instance asks first and kept in the database, so all
   * instances share it without configuration and it survives restarts.
   */
  private secret(): Promise<Buffer> {
    this.key ??= (async () => {
      await this.db.query('INSERT INTO api.file_share_key (id, secret) VALUES (1, $1) ON CONFLICT (id) DO NOTHING', [randomBytes(32).toString('base64url')])
      const { rows } = await this.db.query<{ secret: string }>('SELECT secret FROM api.file_share_key WHERE id = 1')
      return Buffer.from(rows[0]!.secret, 'base64url')
    })().catch((error: unknown) => {
      this.key = undefined
      throw error
    })
    return this.key
  }

  private async mac(shareId: string, link: string, expiresAtMs: number): Promise<string> {
    return createHmac('sha256', await this.secret()).update(`${VERSION}\0${shareId}\0${link}\0${expiresAtMs}`).digest('base64url')
  }

  /** A token for this share, valid until `expiresAtMs`. */
  async issue(shareId: string, link: string, expiresAtMs: number): Promise<string> {
    return `${VERSION}.${expiresAtMs}.${await this.mac(shareId, link, expiresAtMs)}`
  }

  /** Whether `token` unlocks this share at `now`: made by us, for this share, not expired. */
  async verify(token: string | undefined, shareId: string, link: string, now: number): Promise<boolean> {
    if (token === undefined || token.length > 200) return false
    const match = /^v1\.(\d{1,15})\.([A-Za-z0-9_-]{43})$/.exec(token)
    if (!match) return false
    const expiresAtMs = Number(match[1])
    if (expiresAtMs <= now) return false
    // Compared as written, not as decoded: base64url drops the last character's two low bits, so
    // four spellings decode to one MAC, and only the one we wrote is ours.
    const given = Buffer.from(match[2]!)
    const wanted = Buffer.from(await this.mac(shareId, link, expiresAtMs))
    return given.length === wanted.length && timingSafeEqual(given, wanted)
  }
}
