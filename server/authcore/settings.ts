// Per-app core settings (AUTH-CORE.md §5): the real core's config names, their defaults, and
// validation of the values an app may be created with (PUT /recipe/multitenancy/app/v2).

import { TOTP_COOLDOWN_S, TOTP_MAX_ATTEMPTS } from '../../shared/constants.ts'

export interface CoreSettings {
  /** Seconds. */
  accessTokenValidity: number
  /** Minutes. */
  refreshTokenValidity: number
  /** Hours (fractions allowed). */
  signingKeyUpdateInterval: number
  /** Milliseconds. */
  passwordResetTokenLifetime: number
  /** Milliseconds. */
  emailVerificationTokenLifetime: number
  /** null: no key needed. */
  apiKeys: string[] | null
  passwordHashingAlg: 'BCRYPT' | 'ARGON2'
  bcryptLogRounds: number
  /** argon2id cost; the deployment's (AUTH_CORE_ARGON2_*), not settable per app. */
  argon2Iterations: number
  /** KiB. */
  argon2MemoryKb: number
  argon2Parallelism: number
  totpMaxAttempts: number
  /** Seconds. */
  totpRateLimitCooldown: number
}

/** What a password hash costs: the deployment's for every app (AUTH_CORE_BCRYPT_LOG_ROUNDS, AUTH_CORE_ARGON2_*). */
export type HashingCost = Pick<CoreSettings, 'bcryptLogRounds' | 'argon2Iterations' | 'argon2MemoryKb' | 'argon2Parallelism'>

export const DEFAULT_SETTINGS: CoreSettings = {
  accessTokenValidity: 3600,
  refreshTokenValidity: 144_000,
  signingKeyUpdateInterval: 168,
  passwordResetTokenLifetime: 3_600_000,
  emailVerificationTokenLifetime: 86_400_000,
  apiKeys: null,
  passwordHashingAlg: 'BCRYPT',
  bcryptLogRounds: 11,
  argon2Iterations: 1,
  argon2MemoryKb: 87_795,
  argon2Parallelism: 2,
  // One place for the numbers: the BFF's recovery codes keep the same limits.
  totpMaxAttempts: TOTP_MAX_ATTEMPTS,
  totpRateLimitCooldown: TOTP_COOLDOWN_S,
}

/** The real core's snake_case names, as apps are configured over the CDI. */
const NAMES: Record<string, keyof CoreSettings> = {
  access_token_validity: 'accessTokenValidity',
  refresh_token_validity: 'refreshTokenValidity',
  access_token_dynamic_signing_key_update_interval: 'signingKeyUpdateInterval',
  password_reset_token_lifetime: 'passwordResetTokenLifetime',
  email_verification_token_lifetime: 'emailVerificationTokenLifetime',
  api_keys: 'apiKeys',
  password_hashing_alg: 'passwordHashingAlg',
  bcrypt_log_rounds: 'bcryptLogRounds',
  totp_max_attempts: 'totpMaxAttempts',
  totp_rate_limit_cooldown_sec: 'totpRateLimitCooldown',
}

export class SettingsError extends Error {}

function positive(name: string, value: unknown, integer: boolean): number {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value
  if (typeof number !== 'number' || !Number.isFinite(number) || number <= 0 || (integer && !Number.isInteger(number))) {
    throw new SettingsError(`'${name}' must be a positive ${integer ? 'integer' : 'number'}`)
  }
  return number
}

/** API keys: comma-separated, each 20+ characters of letters, digits, "=" and "-", as the real core requires. */
export function parseApiKeys(value: string): string[] {
  const keys = value
    .split(',')
    .map((key) => key.trim())
    .filter((key) => key !== '')
  for (const key of keys) {
    if (!/^[A-Za-z0-9=-]{20,128}$/.test(key)) throw new SettingsError("'api_keys' contains an invalid API key: use at least 20 characters of a-z, A-Z, 0-9, '=' or '-'")
  }
  return keys
}

/** Validates an app's coreConfig (snake_case) into stored settings; unknown names are refused. */
export function parseCoreConfig(input: Record<string, unknown>): Partial<CoreSettings> {
  const out: Partial<CoreSettings> = {}
  for (const [name, value] of Object.entries(input)) {
    const key = NAMES[name]
    if (!key) throw new SettingsError(`Invalid core config: '${name}' is not a supported setting`)
    if (value === null) continue
    switch (key) {
      case 'apiKeys':
        if (typeof value !== 'string') throw new SettingsError("'api_keys' must be a string")
        out.apiKeys = parseApiKeys(value)
        break
      case 'passwordHashingAlg': {
        const alg = String(value).toUpperCase()
        if (alg !== 'BCRYPT' && alg !== 'ARGON2') throw new SettingsError("'password_hashing_alg' must be one of BCRYPT, ARGON2")
        out.passwordHashingAlg = alg
        break
      }
      case 'signingKeyUpdateInterval':
        out.signingKeyUpdateInterval = positive(name, value, false)
        break
      default:
        out[key] = positive(name, value, true)
    }
  }
  const merged = { ...DEFAULT_SETTINGS, ...out }
  if (merged.refreshTokenValidity * 60 <= merged.accessTokenValidity) {
    throw new SettingsError("'refresh_token_validity' must be strictly greater than 'access_token_validity'")
  }
  if (merged.bcryptLogRounds < 4 || merged.bcryptLogRounds > 31) throw new SettingsError("'bcrypt_log_rounds' must be from 4 to 31")
  return out
}

/** The stored settings as the real core reports them back (snake_case). */
export function toCoreConfig(settings: Partial<CoreSettings>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [name, key] of Object.entries(NAMES)) {
    const value = settings[key]
    if (value === undefined) continue
    out[name] = key === 'apiKeys' ? (value as string[]).join(',') : value
  }
  return out
}
