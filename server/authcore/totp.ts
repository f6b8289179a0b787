import { createHmac, randomBytes } from 'node:crypto'
import type { Database, Queryable } from '../db/database.ts'
import type { SecretBox } from './crypto.ts'
import type { CoreSettings } from './settings.ts'

// TOTP devices and codes (AUTH-CORE.md §5.7): RFC 6238 with HMAC-SHA1, 6 digits, 160-bit
// secrets kept encrypted; a used code cannot be replayed; failed attempts lock the user out
// for the cooldown. Each user's checks run under a transaction-scoped lock, so parallel wrong
// codes cannot slip past the limit.

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'

export function base32Encode(bytes: Buffer): string {
  let bits = 0
  let value = 0
  let out = ''
  for (const byte of bytes) {
    value = (value << 8) | byte
    bits += 8
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31]
      bits -= 5
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31]
  return out
}

export function base32Decode(text: string): Buffer {
  const clean = text.replace(/=+$/, '').toUpperCase()
  let bits = 0
  let value = 0
  const out: number[] = []
  for (const char of clean) {
    const index = BASE32.indexOf(char)
    if (index < 0) throw new Error('invalid base32')
    value = (value << 5) | index
    bits += 5
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255)
      bits -= 8
    }
  }
  return Buffer.from(out)
}

/** The code of one time step (RFC 4226 dynamic truncation). */
export function totpCode(secret: Buffer, counter: number, digits = 6): string {
  const message = Buffer.alloc(8)
  message.writeBigUInt64BE(BigInt(counter))
  const mac = createHmac('sha1', secret).update(message).digest()
  const offset = mac[mac.length - 1]! & 0x0f
  const binary = (mac.readUInt32BE(offset) & 0x7fffffff) % 10 ** digits
  return String(binary).padStart(digits, '0')
}

function codeMatches(secret: Buffer, code: string, period: number, skew: number, now: number): boolean {
  if (!/^\d{1,8}$/.test(code)) return false
  const step = Math.floor(now / 1000 / period)
  for (let offset = -skew; offset <= skew; offset++) if (totpCode(secret, step + offset, code.length) === code) return true
  return false
}

interface DeviceRow {
  device_name: string
  secret_encrypted: string
  period: number
  skew: number
  verified: boolean
}

type Attempts = { currentNumberOfFailedAttempts: number; maxNumberOfFailedAttempts: number }
export type CodeCheck =
  | { status: 'OK' }
  | ({ status: 'INVALID_TOTP_ERROR' } & Attempts)
  | ({ status: 'LIMIT_REACHED_ERROR'; retryAfterMs: number } & Attempts)

export class TotpService {
  constructor(
    private readonly db: Database,
    private readonly box: SecretBox,
    /** The core's clock (buildAuthCore's `now`): the step a code belongs to, the cooldown, replays. */
    private readonly now: () => number = Date.now,
  ) {}

  private secretOf(appId: string, device: DeviceRow): Buffer {
    const text = this.box.open(`totp:${appId}`, device.secret_encrypted)
    if (text === null) throw new Error('A TOTP secret cannot be decrypted: AUTH_CORE_SECRET differs from the one it was stored with')
    return base32Decode(text)
  }

  private async devices(db: Queryable, appId: string, userId: string): Promise<DeviceRow[]> {
    const { rows } = await db.query<DeviceRow>('SELECT device_name, secret_encrypted, period, skew, verified FROM authcore.totp_devices WHERE app_id = $1 AND user_id = $2 ORDER BY created_at', [
      appId,
      userId,
    ])
    return rows
  }

  async createDevice(appId: string, input: { userId: string; deviceName?: string | undefined; skew: number; period: number }) {
    return this.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`softshelf:authcore:totp:${appId}:${input.userId}`])
      const devices = await this.devices(tx, appId, input.userId)
      let name = input.deviceName
      if (name === undefined) {
        let n = devices.filter((d) => d.verified).length
        while (devices.some((d) => d.device_name === `TOTP Device ${n}`)) n++
        name = `TOTP Device ${n}`
      }
      const existing = devices.find((d) => d.device_name === name)
      if (existing?.verified) return { status: 'DEVICE_ALREADY_EXISTS_ERROR' as const }
      const secret = base32Encode(randomBytes(20))
      await tx.query(
        `INSERT INTO authcore.totp_devices (app_id, user_id, device_name, secret_encrypted, period, skew, verified, created_at) VALUES ($1, $2, $3, $4, $5, $6, false, $7)
         ON CONFLICT (app_id, user_id, device_name) DO UPDATE SET secret_encrypted = EXCLUDED.secret_encrypted, period = EXCLUDED.period, skew = EXCLUDED.skew, created_at = EXCLUDED.created_at`,
        [appId, input.userId, name, this.box.seal(`totp:${appId}`, secret), input.period, input.skew, this.now()],
      )
      return { status: 'OK' as const, secret, deviceName: name }
    })
  }

  /** Import of an existing secret (base32), e.g. from another core. */
  async importDevice(appId: string, input: { userId: string; deviceName?: string | undefined; skew: number; period: number; secretKey: string }) {
    const created = await this.createDevice(appId, input)
    if (created.status !== 'OK') return created
    await this.db.query('UPDATE authcore.totp_devices SET secret_encrypted = $4, verified = true WHERE app_id = $1 AND user_id = $2 AND device_name = $3', [
      appId,
      input.userId,
      created.deviceName,
      this.box.seal(`totp:${appId}`, input.secretKey.toUpperCase()),
    ])
    return { status: 'OK' as const, deviceName: created.deviceName }
  }

  async renameDevice(appId: string, userId: string, from: string, to: string) {
    const devices = await this.devices(this.db, appId, userId)
    if (!devices.some((d) => d.device_name === from)) return { status: 'UNKNOWN_DEVICE_ERROR' as const }
    if (devices.some((d) => d.device_name === to)) return { status: 'DEVICE_ALREADY_EXISTS_ERROR' as const }
    await this.db.query('UPDATE authcore.totp_devices SET device_name = $4 WHERE app_id = $1 AND user_id = $2 AND device_name = $3', [appId, userId, from, to])
    return { status: 'OK' as const }
  }

  async listDevices(appId: string, userId: string) {
    const devices = await this.devices(this.db, appId, userId)
    return devices.map((d) => ({ name: d.device_name, period: d.period, skew: d.skew, verified: d.verified }))
  }

  async removeDevice(appId: string, userId: string, deviceName: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const { rowCount } = await tx.query('DELETE FROM authcore.totp_devices WHERE app_id = $1 AND user_id = $2 AND device_name = $3', [appId, userId, deviceName])
      const left = await tx.query('SELECT 1 FROM authcore.totp_devices WHERE app_id = $1 AND user_id = $2 LIMIT 1', [appId, userId])
      // Without a device the TOTP user is gone, and with it the failed-attempt history.
      if (left.rowCount === 0) await tx.query('DELETE FROM authcore.totp_used_codes WHERE app_id = $1 AND user_id = $2', [appId, userId])
      return rowCount > 0
    })
  }

  /**
   * Checks a code against `candidates` under the rate limit, logging the attempt. `verifyDevice`
   * marks the matched device verified.
   */
  private async check(
    tx: Queryable,
    scope: { appId: string; tenantId: string; settings: CoreSettings },
    userId: string,
    code: string,
    candidates: DeviceRow[],
  ): Promise<CodeCheck & { device?: DeviceRow }> {
    const max = scope.settings.totpMaxAttempts
    const cooldownMs = scope.settings.totpRateLimitCooldown * 1000
    const now = this.now()
    const { rows: log } = await tx.query<{ code: string; is_valid: boolean; expiry: string; created_time: string }>(
      'SELECT code, is_valid, expiry, created_time FROM authcore.totp_used_codes WHERE app_id = $1 AND tenant_id = $2 AND user_id = $3 ORDER BY created_time DESC LIMIT $4',
      [scope.appId, scope.tenantId, userId, max],
    )
    const recentFailures: number[] = []
    for (const entry of log) {
      if (entry.is_valid) break
      recentFailures.push(Number(entry.created_time))
    }
    const newestFailure = recentFailures[0]
    let failures = newestFailure === undefined ? 0 : recentFailures.filter((time) => newestFailure - time < cooldownMs).length
    if (newestFailure !== undefined && now - newestFailure >= cooldownMs) failures = 0
    if (failures >= max && newestFailure !== undefined) {
      return { status: 'LIMIT_REACHED_ERROR', retryAfterMs: cooldownMs - (now - newestFailure), currentNumberOfFailedAttempts: max, maxNumberOfFailedAttempts: max }
    }
    let matched: DeviceRow | undefined
    for (const device of candidates) {
      if (codeMatches(this.secretOf(scope.appId, device), code, device.period, device.skew, now)) {
        matched = device
        break
      }
    }
    if (matched) {
      const replay = await tx.query(
        'SELECT 1 FROM authcore.totp_used_codes WHERE app_id = $1 AND tenant_id = $2 AND user_id = $3 AND code = $4 AND is_valid AND expiry > $5 LIMIT 1',
        [scope.appId, scope.tenantId, userId, code, now],
      )
      if (replay.rowCount > 0) matched = undefined
    }
    const period = matched?.period ?? candidates[0]?.period ?? 30
    const skew = matched?.skew ?? candidates[0]?.skew ?? 1
    await tx.query('INSERT INTO authcore.totp_used_codes (app_id, tenant_id, user_id, code, is_valid, expiry, created_time) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
      scope.appId,
      scope.tenantId,
      userId,
      code,
      matched !== undefined,
      now + period * (2 * skew + 1) * 1000,
      now,
    ])
    if (!matched) return { status: 'INVALID_TOTP_ERROR', currentNumberOfFailedAttempts: failures + 1, maxNumberOfFailedAttempts: max }
    return { status: 'OK', device: matched }
  }

  async verifyDevice(scope: { appId: string; tenantId: string; settings: CoreSettings }, userId: string, deviceName: string, code: string) {
    return this.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`softshelf:authcore:totp:${scope.appId}:${userId}`])
      const device = (await this.devices(tx, scope.appId, userId)).find((d) => d.device_name === deviceName)
      if (!device) return { status: 'UNKNOWN_DEVICE_ERROR' as const }
      if (device.verified) return { status: 'OK' as const, wasAlreadyVerified: true }
      const result = await this.check(tx, scope, userId, code, [device])
      if (result.status !== 'OK') return result
      await tx.query('UPDATE authcore.totp_devices SET verified = true WHERE app_id = $1 AND user_id = $2 AND device_name = $3', [scope.appId, userId, deviceName])
      return { status: 'OK' as const, wasAlreadyVerified: false }
    })
  }

  async verifyCode(scope: { appId: string; tenantId: string; settings: CoreSettings }, userId: string, code: string) {
    return this.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`softshelf:authcore:totp:${scope.appId}:${userId}`])
      const devices = await this.devices(tx, scope.appId, userId)
      if (devices.length === 0) return { status: 'UNKNOWN_USER_ID_ERROR' as const }
      const result = await this.check(tx, scope, userId, code, devices.filter((d) => d.verified))
      if (result.status !== 'OK') return result
      return { status: 'OK' as const }
    })
  }
}
