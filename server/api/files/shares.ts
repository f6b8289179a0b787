import { randomBytes } from 'node:crypto'
import { hash, verify } from '@node-rs/argon2'
import type { CreatedShare, ShareSummary } from '../../../shared/files/files.ts'
import type { Database } from '../../db/database.ts'
import { FilesNotFound } from './errors.ts'
import { ShareExpired, ShareExpiryInvalid, ShareNotFound, SharePasswordInvalid, ShareRevoked, ShareTooManyAttempts } from './share-errors.ts'

// Share links (decision 016) over `api.file_shares` (migration 011). A link opens one
// live item of its owner — a file, or a folder with everything below it — and nothing else. The
// owner's side (create, list, revoke) checks ownership like the drive: another user's item or
// share is not found. The visitor's side finds the share by its link and enforces, on every
// request, that it is neither revoked nor expired and that its item is still live.

/** A share's password: any characters, compared exactly; as long as an account's. */
export const SHARE_PASSWORD_MIN = 8
export const SHARE_PASSWORD_MAX = 256

export interface AttemptLimits {
  /** Wrong passwords per link within the window. */
  perLink: number
  /** Wrong passwords from one IP, over all links, within the window. */
  perIp: number
  windowMs: number
}

export const DEFAULT_ATTEMPT_LIMITS: AttemptLimits = { perLink: 10, perIp: 30, windowMs: 15 * 60_000 }

export type { CreatedShare, ShareSummary }

/** A share a visitor may use right now (not revoked, not expired, its item live). */
export interface OpenShare {
  id: string
  link: string
  userId: string
  itemId: string
  itemName: string
  itemType: 'file' | 'folder'
  passwordHash: string | null
  allowDownload: boolean
  expiresAt: string | null
}

interface ShareRow {
  id: string
  link: string
  user_id: string
  item_id: string
  password_hash: string | null
  allow_download: boolean
  expires_at: Date | string | null
  created_at: Date | string
  revoked_at: Date | string | null
  views: number | string
  item_name: string
  item_type: 'file' | 'folder'
  item_live: boolean
}

const SELECT_SHARE = `SELECT s.id, s.link, s.user_id, s.item_id, s.password_hash, s.allow_download, s.expires_at, s.created_at, s.revoked_at, s.views,
  i.name AS item_name, i.type AS item_type, (i.trashed_at IS NULL AND i.state = 'ready') AS item_live
  FROM api.file_shares s JOIN api.file_items i ON i.id = s.item_id`

function iso(value: Date | string): string {
  return new Date(value).toISOString()
}

export class SharesRepository {
  constructor(
    private readonly db: Database,
    private readonly appUrl: string,
    private readonly now: () => number,
    readonly limits: AttemptLimits = DEFAULT_ATTEMPT_LIMITS,
  ) {}

  private url(link: string): string {
    return `${this.appUrl}/sharing/${link}`
  }

  /**
   * A new link to a live item of the user. `expiresAt` must lie in the future; the password, when
   * given (null or "": none), is kept only as an argon2id hash.
   */
  async create(userId: string, itemId: string, options: { password?: string | null; expiresAt?: string | null; allowDownload?: boolean }): Promise<CreatedShare> {
    // An empty password is none: the form's field left blank.
    const password = options.password === undefined || options.password === '' ? null : options.password
    if (password !== null) {
      const length = [...password].length
      if (length < SHARE_PASSWORD_MIN || length > SHARE_PASSWORD_MAX) {
        throw new SharePasswordInvalid(`A share password must be ${SHARE_PASSWORD_MIN} to ${SHARE_PASSWORD_MAX} characters long. Leave it out for a link without a password.`)
      }
    }
    let expiresAt: string | null = null
    if (options.expiresAt !== undefined && options.expiresAt !== null) {
      const when = Date.parse(options.expiresAt)
      if (!/^\d{4}-\d{2}-\d{2}T/.test(options.expiresAt) || Number.isNaN(when)) throw new ShareExpiryInvalid('expiresAt must be a date and time in ISO 8601, such as 2030-01-31T18:00:00Z.')
      if (when <= this.now()) throw new ShareExpiryInvalid('The expiry date must be in the future.')
      expiresAt = new Date(when).toISOString()
    }
    // Checked before the (slow) hash, and again by the insert: the item may go meanwhile.
    await this.liveItemOf(userId, itemId)
    const passwordHash = password === null ? null : await hash(password)
    const id = randomBytes(16).toString('base64url')
    const link = randomBytes(24).toString('base64url')
    const { rowCount } = await this.db.query(
      `INSERT INTO api.file_shares (id, link, user_id, item_id, password_hash, allow_download, expires_at, created_at)
       SELECT $1, $2, i.user_id, i.id, $4, $5, $6, $7 FROM api.file_items i
       WHERE i.id = $3 AND i.user_id = $8 AND i.trashed_at IS NULL AND i.state = 'ready'`,
      [id, link, itemId, passwordHash, options.allowDownload ?? true, expiresAt, new Date(this.now()).toISOString(), userId],
    )
    if (rowCount === 0) throw new FilesNotFound()
    return { id, link, url: this.url(link) }
  }

  private async liveItemOf(userId: string, itemId: string): Promise<void> {
    const { rows } = await this.db.query(`SELECT 1 FROM api.file_items WHERE id = $1 AND user_id = $2 AND trashed_at IS NULL AND state = 'ready'`, [itemId, userId])
    if (rows.length === 0) throw new FilesNotFound()
  }

  /** The user's links that are not revoked, newest first; those whose item is in the trash are left out until it is restored. */
  async list(userId: string): Promise<ShareSummary[]> {
    const { rows } = await this.db.query<ShareRow>(`${SELECT_SHARE} WHERE s.user_id = $1 AND s.revoked_at IS NULL ORDER BY s.created_at DESC, s.id`, [userId])
    const now = this.now()
    return rows
      .filter((row) => row.item_live)
      .map((row) => ({
        id: row.id,
        link: row.link,
        url: this.url(row.link),
        itemId: row.item_id,
        itemName: row.item_name,
        itemType: row.item_type,
        hasPassword: row.password_hash !== null,
        allowDownload: row.allow_download,
        expiresAt: row.expires_at === null ? null : iso(row.expires_at),
        createdAt: iso(row.created_at),
        views: Number(row.views),
        state: row.expires_at !== null && Date.parse(iso(row.expires_at)) <= now ? ('expired' as const) : ('active' as const),
      }))
  }

  /** Turns a link off for good; the row stays so the link answers SHARE_REVOKED. */
  async revoke(userId: string, id: string): Promise<void> {
    const { rowCount } = await this.db.query('UPDATE api.file_shares SET revoked_at = $3 WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL', [id, userId, new Date(this.now()).toISOString()])
    if (rowCount === 0) throw new ShareNotFound()
  }

  /**
   * The share behind a public link, if a visitor may use it now: unknown or its item gone or in
   * the trash → SHARE_NOT_FOUND; revoked → SHARE_REVOKED; at or past its expiry → SHARE_EXPIRED.
   */
  async open(link: string): Promise<OpenShare> {
    const { rows } = await this.db.query<ShareRow>(`${SELECT_SHARE} WHERE s.link = $1`, [link])
    const row = rows[0]
    if (!row) throw new ShareNotFound()
    if (row.revoked_at !== null) throw new ShareRevoked()
    if (row.expires_at !== null && Date.parse(iso(row.expires_at)) <= this.now()) throw new ShareExpired()
    if (!row.item_live) throw new ShareNotFound()
    return {
      id: row.id,
      link: row.link,
      userId: row.user_id,
      itemId: row.item_id,
      itemName: row.item_name,
      itemType: row.item_type,
      passwordHash: row.password_hash,
      allowDownload: row.allow_download,
      expiresAt: row.expires_at === null ? null : iso(row.expires_at),
    }
  }

  async countView(shareId: string): Promise<void> {
    await this.db.query('UPDATE api.file_shares SET views = views + 1 WHERE id = $1', [shareId])
  }

  /**
   * The live items from the share's root down to `itemId` (both included), or null when `itemId`
   * is not the root or a live item below it: nothing outside the shared subtree is reachable.
   */
  async pathWithin(share: OpenShare, itemId: string): Promise<Array<{ id: string; name: string; type: 'file' | 'folder' }> | null> {
    const { rows } = await this.db.query<{ id: string; name: string; type: 'file' | 'folder'; depth: number }>(
      `WITH RECURSIVE up AS (
         SELECT id, parent_id, name, type, 0 AS depth FROM api.file_items
         WHERE id = $1 AND user_id = $2 AND trashed_at IS NULL AND state = 'ready'
         UNION ALL
         SELECT p.id, p.parent_id, p.name, p.type, up.depth + 1 FROM api.file_items p JOIN up ON p.id = up.parent_id
         WHERE up.id <> $3 AND p.user_id = $2 AND p.trashed_at IS NULL
       )
       SELECT id, name, type, depth FROM up ORDER BY depth DESC`,
      [itemId, share.userId, share.itemId],
    )
    if (rows[0]?.id !== share.itemId) return null
    return rows.map(({ id, name, type }) => ({ id, name, type }))
  }

  /**
   * Counts a password attempt before the password is checked, so parallel guesses cannot pass
   * the limits together: each attempt is written first, then the attempts in the window are
   * counted with it. Over either limit → SHARE_TOO_MANY_ATTEMPTS with the seconds until the
   * oldest counted attempt leaves the window — the right password is refused too until then.
   * The caller settles the attempt: a right password takes it back, a wrong one leaves it counted.
   */
  async beginAttempt(shareId: string, ip: string): Promise<string> {
    const now = this.now()
    const { perLink, perIp, windowMs } = this.limits
    const since = new Date(now - windowMs).toISOString()
    await this.db.query('DELETE FROM api.file_share_attempts WHERE at < $1', [since])
    const { rows } = await this.db.query<{ id: string | number }>('INSERT INTO api.file_share_attempts (share_id, ip, at) VALUES ($1, $2, $3) RETURNING id', [shareId, ip, new Date(now).toISOString()])
    const attemptId = String(rows[0]!.id)
    // The n-th newest other attempt in the window: while it is there, the limit n is reached.
    const blockedUntil = async (column: 'share_id' | 'ip', value: string, limit: number): Promise<number> => {
      const { rows: found } = await this.db.query<{ at: Date | string }>(
        `SELECT at FROM api.file_share_attempts WHERE ${column} = $1 AND at >= $2 AND id <> $3 ORDER BY at DESC, id DESC OFFSET $4 LIMIT 1`,
        [value, since, attemptId, limit - 1],
      )
      return found[0] ? Date.parse(iso(found[0].at)) + windowMs : 0
    }
    const until = Math.max(await blockedUntil('share_id', shareId, perLink), await blockedUntil('ip', ip, perIp))
    if (until > now) {
      await this.db.query('DELETE FROM api.file_share_attempts WHERE id = $1', [attemptId])
      const seconds = Math.max(1, Math.ceil((until - now) / 1000))
      const minutes = Math.ceil(seconds / 60)
      throw Object.assign(new ShareTooManyAttempts(`Too many wrong passwords were tried. Please wait ${minutes === 1 ? 'a minute' : `${minutes} minutes`} and try again.`), { retryAfter: seconds })
    }
    return attemptId
  }

  /** A right password does not count against the limits. */
  async settleAttempt(attemptId: string, right: boolean): Promise<void> {
    if (right) await this.db.query('DELETE FROM api.file_share_attempts WHERE id = $1', [attemptId])
  }

  /** Whether `password` is the share's (argon2id, constant time in the hash). */
  async passwordMatches(share: OpenShare, password: string): Promise<boolean> {
    if (share.passwordHash === null) return true
    try {
      return await verify(share.passwordHash, password)
    } catch {
      return false
    }
  }
}
