import { FILES_DEFAULT_MAX_FILE_BYTES, FILES_DEFAULT_QUOTA_BYTES } from '../../shared/constants.ts'
import { DEFAULT_SETTINGS } from '../authcore/settings.ts'
import { splitCoreUrls } from '../http/core-urls.ts'

// The environment the services read, as one schema: every variable, what kind of value it takes,
// its default and what it is for. `readVariables` reads and checks them all at once, each problem
// named by its variable; the typed result (`Variables`) is what server/config.ts builds the
// configuration from, with the rules across variables beside it. Nothing else reads the environment.

/** A variable's spec: what it is for, and how its value is read (recording a problem rather than throwing). */
export interface Variable<T> {
  about: string
  read(r: Reader, name: string): T
}

type Env = Record<string, string | undefined>

/** One reader per kind of value; each records a problem instead of throwing so all are reported. */
export class Reader {
  readonly problems: string[] = []
  constructor(private readonly env: Env) {}

  /** The value as set: trimmed; blank is unset. */
  raw(name: string): string | undefined {
    const value = this.env[name]
    return value === undefined || value.trim() === '' ? undefined : value.trim()
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const value = this.raw(name)
    if (value === undefined) return fallback
    if ((allowed as readonly string[]).includes(value)) return value as T
    this.problems.push(`${name} must be one of ${allowed.join(', ')} (got "${value}")`)
    return fallback
  }

  integer(name: string, min: number, max: number): number | undefined {
    const value = this.raw(name)
    if (value === undefined) return undefined
    const parsed = Number(value)
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
      this.problems.push(`${name} must be a whole number from ${min} to ${max} (got "${value}")`)
      return undefined
    }
    return parsed
  }

  duration(name: string, min: number, max: number): number | undefined {
    const value = this.raw(name)
    if (value === undefined) return undefined
    const ms = parseDuration(value)
    if (ms === undefined || ms < min || ms > max) {
      this.problems.push(`${name} must be a duration from ${min / 1_000} s to ${max / 3_600_000} h: seconds ("21600") or with a unit ("90s", "30m", "6h", "1d") (got "${value}")`)
      return undefined
    }
    return ms
  }

  url(name: string, protocols: readonly string[]): string | undefined {
    const value = this.raw(name)
    if (value === undefined) return undefined
    let parsed: URL | undefined
    try {
      parsed = new URL(value)
    } catch {
      // reported below
    }
    if (!parsed || !protocols.includes(parsed.protocol)) {
      this.problems.push(`${name} must be a URL starting with ${protocols.join(' or ')} (got "${withoutUrlPassword(value)}")`)
      return undefined
    }
    return value.replace(/\/+$/, '')
  }

  /**
   * One URL or several separated by ";" (AUTH_CORE_URL), each checked as `url` checks one; the
   * answer is the list in one canonical spelling: no blanks, no trailing slashes.
   */
  urlList(name: string, protocols: readonly string[]): string | undefined {
    const value = this.raw(name)
    if (value === undefined) return undefined
    const urls = splitCoreUrls(value)
    const before = this.problems.length
    for (const url of urls) {
      let parsed: URL | undefined
      try {
        parsed = new URL(url)
      } catch {
        // reported below
      }
      if (!parsed || !protocols.includes(parsed.protocol)) {
        this.problems.push(`${name} must be a URL starting with ${protocols.join(' or ')}, or several separated by ";" (got "${withoutUrlPassword(url)}")`)
      }
    }
    if (urls.length === 0) this.problems.push(`${name} must be a URL starting with ${protocols.join(' or ')}, or several separated by ";" (got "${withoutUrlPassword(value)}")`)
    else if (new Set(urls).size !== urls.length) this.problems.push(`${name} names the same URL twice`)
    return this.problems.length === before ? urls.join(';') : undefined
  }

  /**
   * An address the browser is sent to or loads a script from: https only, since a page served
   * over https may not load http scripts and a link should not downgrade. `loopbackHttp` also
   * lets an http:// address on this machine's loopback through (local development and tests).
   * No user name or password: it would be shown to every visitor.
   */
  browserUrl(name: string, loopbackHttp: boolean): string | undefined {
    const value = this.raw(name)
    if (value === undefined) return undefined
    const expected = loopbackHttp ? 'an https:// URL (http:// only on this machine: localhost, 127.0.0.1, [::1])' : 'an https:// URL'
    let parsed: URL | undefined
    try {
      parsed = new URL(value)
    } catch {
      // reported below
    }
    if (!parsed || !(parsed.protocol === 'https:' || (loopbackHttp && isLoopbackHttpUrl(parsed.href))) || parsed.hostname === '') {
      this.problems.push(`${name} must be ${expected} (got "${withoutUrlPassword(value)}")`)
      return undefined
    }
    if (parsed.username !== '' || parsed.password !== '') {
      this.problems.push(`${name} must not contain a user name or password (got "${withoutUrlPassword(value)}")`)
      return undefined
    }
    return parsed.href
  }
}

// The kinds of value. A default makes the value always there; without one it is undefined when unset.

function text(about: string): Variable<string | undefined>
function text(about: string, fallback: string): Variable<string>
function text(about: string, fallback?: string): Variable<string | undefined> {
  return { about, read: (r, name) => r.raw(name) ?? fallback }
}

function integer(about: string, min: number, max: number): Variable<number | undefined>
function integer(about: string, min: number, max: number, fallback: number): Variable<number>
function integer(about: string, min: number, max: number, fallback?: number): Variable<number | undefined> {
  return { about, read: (r, name) => r.integer(name, min, max) ?? fallback }
}

function duration(about: string, min: number, max: number, fallback: number): Variable<number> {
  return { about, read: (r, name) => r.duration(name, min, max) ?? fallback }
}

function oneOf<T extends string>(about: string, allowed: readonly T[], fallback: T): Variable<T> {
  return { about, read: (r, name) => r.oneOf(name, allowed, fallback) }
}

function url(about: string, protocols: readonly string[]): Variable<string | undefined>
function url(about: string, protocols: readonly string[], fallback: string): Variable<string>
function url(about: string, protocols: readonly string[], fallback?: string): Variable<string | undefined> {
  return { about, read: (r, name) => r.url(name, protocols) ?? fallback }
}

const urlList = (about: string, protocols: readonly string[]): Variable<string | undefined> => ({ about, read: (r, name) => r.urlList(name, protocols) })

const browserUrl = (about: string, { loopbackHttp }: { loopbackHttp: boolean }): Variable<string | undefined> => ({ about, read: (r, name) => r.browserUrl(name, loopbackHttp) })

const HTTP = ['http:', 'https:'] as const
const PORTS = [0, 65535] as const

/** CATALOGUE_FEED_INTERVAL's default: four times a day. */
export const CATALOGUE_FEED_DEFAULT_INTERVAL_MS = 6 * 3_600_000
/**
 * CATALOGUE_FEED_MAX_BYTES' default, counted after gunzip: Flathub's whole AppStream catalog is
 * about 40–60 MB uncompressed and Homebrew's cask list about 30 MB, so 128 MiB leaves them room to
 * double while a feed gone wrong (or hostile) cannot fill the API's memory or disk.
 */
export const CATALOGUE_FEED_DEFAULT_MAX_BYTES = 128 * 1024 * 1024
/** CATALOGUE_FEED_TIMEOUT's default: the whole read of one feed, headers and body. */
export const CATALOGUE_FEED_DEFAULT_TIMEOUT_MS = 120_000

/** Every variable the services read (README's configuration table says the same for people). */
export const VARIABLES = {
  NODE_ENV: oneOf('production serves no development convenience and demands real secrets and mail', ['development', 'production', 'test'] as const, 'development'),
  HOST: text("the BFF's listening address", '0.0.0.0'),
  PORT: integer("the BFF's port", ...PORTS, 3000),
  API_HOST: text("the product API's listening address", '127.0.0.1'),
  API_PORT: integer("the product API's port", ...PORTS, 3001),
  DATA_DIR: text('where the embedded database, files, mail and generated secrets live', './data'),
  DATABASE_URL: url('a PostgreSQL server instead of the embedded PGlite', ['postgres:', 'postgresql:']),
  UPSTREAM_API_URL: url('a product API elsewhere: the BFF proxies /api there and none is started here', HTTP),
  AUTH_CORE_URL: urlList('an auth core elsewhere (several separated by ";"); none is started here', HTTP),
  AUTH_CORE_HOST: text("the embedded auth core's listening address", '127.0.0.1'),
  AUTH_CORE_PORT: integer("the embedded auth core's port", ...PORTS, 3567),
  AUTH_CORE_API_KEYS: text('the API keys the auth core requires from its callers, comma-separated; "none" for none'),
  AUTH_CORE_SECRET: text("encrypts the core's signing keys, TOTP secrets and refresh tokens (32+ characters)"),
  // argon2id: every byte of a password counts (bcrypt ignores those after the 72nd).
  AUTH_CORE_PASSWORD_HASHING: oneOf("the default app's password hashing", ['ARGON2', 'BCRYPT'] as const, 'ARGON2'),
  AUTH_CORE_BCRYPT_LOG_ROUNDS: integer("bcrypt's cost", 4, 31, DEFAULT_SETTINGS.bcryptLogRounds),
  AUTH_CORE_ARGON2_ITERATIONS: integer("argon2's iterations", 1, 100, DEFAULT_SETTINGS.argon2Iterations),
  AUTH_CORE_ARGON2_MEMORY_KB: integer("argon2's memory per hash, KiB", 8, 4_194_304, DEFAULT_SETTINGS.argon2MemoryKb),
  AUTH_CORE_ARGON2_PARALLELISM: integer("argon2's lanes", 1, 64, DEFAULT_SETTINGS.argon2Parallelism),
  REDIS_URL: url('shares the rate limits between instances', ['redis:', 'rediss:']),
  APP_URL: url('the address people open; http://localhost:<PORT> by default', HTTP),
  LOG_LEVEL: oneOf('how much the services log', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
  // Decision 027: an address may be a school or an office; one account is one person.
  RATE_LIMIT_MAX: integer('counted requests per address per minute', 1, 1_000_000, 3000),
  RATE_LIMIT_ACCOUNT_MAX: integer('counted requests per signed-in account per minute; a tenth of RATE_LIMIT_MAX by default', 1, 1_000_000),
  AUTH_RATE_LIMIT_MAX: integer('per address per minute on /auth writes and page forms', 1, 1_000_000, 20),
  TRUST_PROXY: text('the proxies in front whose forwarding headers are believed: true, a hop count or addresses'),
  BUILD_ID: text('names the build in /api/version and error reports'),
  OPERATOR_TOKEN: text("the operator's bearer token for /internal and /metrics"),
  OPERATOR_NAME: text('who runs this catalogue, in the legal pages and mail', 'Softshelf'),
  CONTACT_EMAIL: text('where people write to the operator', 'support@softshelf.app'),
  UPSTREAM_CONNECT_TIMEOUT_MS: integer("the BFF's wait for a connection to the API", 1, 60_000, 2_000),
  UPSTREAM_HEADERS_TIMEOUT_MS: integer("the BFF's wait for the API's answer to begin", 1, 300_000, 10_000),
  UPSTREAM_BODY_TIMEOUT_MS: integer("the BFF's wait between pieces of the API's answer", 1, 300_000, 10_000),
  SHUTDOWN_TIMEOUT_MS: integer('how long a stop may take before the process exits', 1, 120_000, 10_000),
  SHUTDOWN_READINESS_DELAY_MS: integer('on SIGTERM, how long /readyz fails while requests are still served; by role when unset', 0, 60_000),
  OVERLOAD_EVENT_LOOP_DELAY_MS: integer('event-loop delay past which new requests are shed (0: never)', 0, 10_000, 50),
  OVERLOAD_MAX_IN_FLIGHT: integer('requests waiting for their answers past which new ones are shed (0: no cap)', 0, 100_000, 128),
  OVERLOAD_PRESSURE_IN_FLIGHT: integer('requests in flight before a lagging loop sheds', 0, 100_000, 16),
  IDLE_TIMEOUT_MS: integer('a connection silent this long is closed', 1_000, 3_600_000, 60_000),
  SMTP_URL: url('sends mail; unset in embedded mode: the local mailbox at /dev/mail', ['smtp:', 'smtps:']),
  MAIL_FROM: text('the sender of every mail; no-reply@<APP_URL host> by default'),
  LOGIN_MAX_ATTEMPTS: integer('wrong passwords before an email is blocked', 1, 1_000, 5),
  LOGIN_WINDOW_MINUTES: integer('the window the wrong passwords are counted in', 1, 10_080, 15),
  LOGIN_BLOCK_MINUTES: integer('how long a blocked email stays blocked', 1, 10_080, 15),
  LOGIN_WAIT_MS: integer('how long a sign-in held back by others in flight for the same email waits', 0, 30_000, 5_000),
  GOOGLE_CLIENT_ID: text('Google sign-in, with GOOGLE_CLIENT_SECRET'),
  GOOGLE_CLIENT_SECRET: text('Google sign-in, with GOOGLE_CLIENT_ID'),
  GITHUB_CLIENT_ID: text('GitHub sign-in, with GITHUB_CLIENT_SECRET'),
  GITHUB_CLIENT_SECRET: text('GitHub sign-in, with GITHUB_CLIENT_ID'),
  OIDC_CLIENT_ID: text('an OpenID Connect provider, with OIDC_CLIENT_SECRET and OIDC_ISSUER'),
  OIDC_CLIENT_SECRET: text('an OpenID Connect provider, with OIDC_CLIENT_ID'),
  OIDC_ISSUER: url("the OpenID Connect provider's issuer; its /.well-known/openid-configuration is read", HTTP),
  OIDC_NAME: text('the OpenID Connect button\'s name', 'OpenID Connect'),
  SUPPORT_BOT_URL: browserUrl('a messaging bot, linked in the footer and on the profile', { loopbackHttp: false }),
  SUPPORT_CHAT_URL: browserUrl('a chat app conversation with support', { loopbackHttp: false }),
  CHAT_WIDGET_SCRIPT_URL: browserUrl("the live-chat widget's loader; its origin joins the page CSP", { loopbackHttp: true }),
  TAG_MANAGER_SCRIPT_URL: browserUrl('loaded only after the visitor accepts analytics cookies', { loopbackHttp: true }),
  FILES_QUOTA_BYTES: integer('bytes each user may keep in the drive, the trash included', 1, Number.MAX_SAFE_INTEGER, FILES_DEFAULT_QUOTA_BYTES),
  FILES_MAX_FILE_BYTES: integer('the largest file', 1, Number.MAX_SAFE_INTEGER, FILES_DEFAULT_MAX_FILE_BYTES),
  S3_URL: url('keeps the drive in an S3-compatible bucket instead of DATA_DIR/files', HTTP),
  S3_BUCKET: text('the bucket, with S3_URL'),
  S3_REGION: text('what requests are signed for', 'us-east-1'),
  S3_ACCESS_KEY_ID: text('the key pair that may read and write the bucket'),
  S3_SECRET_ACCESS_KEY: text('the key pair that may read and write the bucket'),
  S3_PREFIX: text('a folder of the bucket the drive keeps to'),
  STREAMING_CLUSTERS: text('the clusters programs stream from, as JSON; none: streaming is off'),
  // A grant is short-lived; the page asks again for a new one after this.
  STREAMING_ASSIGNMENT_MINUTES: integer('how long a streaming assignment lasts', 1, 1_440, 15),
  SENTRY_DSN: text('turns error reporting on'),
  SENTRY_ENVIRONMENT: text("labels the reports; NODE_ENV by default"),
  STRIPE_SECRET_KEY: text('turns card checkout on, with STRIPE_WEBHOOK_SECRET'),
  STRIPE_WEBHOOK_SECRET: text("verifies Stripe's webhook deliveries"),
  STRIPE_API_URL: url("where Stripe's calls go", HTTP, 'https://api.stripe.com'),
  CATALOGUE_FEEDS: text('the public feeds releases are read from: <format>:<address>, comma-separated'),
  CATALOGUE_FEED_INTERVAL: duration('how often each feed is read', 60_000, 7 * 86_400_000, CATALOGUE_FEED_DEFAULT_INTERVAL_MS),
  CATALOGUE_FEED_MAX_BYTES: integer('the largest feed, after gunzip', 1_024, 2 * 1024 * 1024 * 1024, CATALOGUE_FEED_DEFAULT_MAX_BYTES),
  CATALOGUE_FEED_TIMEOUT: duration("a feed's whole read", 1_000, 3_600_000, CATALOGUE_FEED_DEFAULT_TIMEOUT_MS),
} satisfies Record<string, Variable<unknown>>

export type VariableName = keyof typeof VARIABLES
/** The environment read and checked: each variable's value, typed by its spec. */
export type Variables = { [K in VariableName]: ReturnType<(typeof VARIABLES)[K]['read']> }

/** Every variable read from `env`, with the problems found (each names its variable). */
export function readVariables(env: Env): { values: Variables; problems: string[]; isSet: (name: VariableName) => boolean } {
  const r = new Reader(env)
  const values = Object.fromEntries(Object.entries(VARIABLES).map(([name, spec]) => [name, (spec as Variable<unknown>).read(r, name)])) as Variables
  return { values, problems: r.problems, isSet: (name) => r.raw(name) !== undefined }
}

const DURATION_UNITS: Record<string, number> = { '': 1_000, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }

/** "21600" (seconds), "90s", "30m", "6h", "1d" → milliseconds; undefined when it is none of these. */
export function parseDuration(value: string): number | undefined {
  const match = /^(\d{1,9})\s*([smhd]?)$/i.exec(value.trim())
  if (!match) return undefined
  return Number(match[1]) * DURATION_UNITS[match[2]!.toLowerCase()]!
}

/** A URL as a configuration message may echo it: the password it may carry replaced by *** (the query is kept: shared/redaction.ts's redactUrl hides secret query parameters instead). */
export function withoutUrlPassword(value: string): string {
  return value.replace(/\/\/([^:/@]+):[^@/]*@/, '//$1:***@')
}

const LOOPBACK_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]'])

/** The URL is `http://` on this machine's loopback: only for the person at this machine. */
export function isLoopbackHttpUrl(url: string): boolean {
  try {
    const parsed = new URL(url)
    return parsed.protocol === 'http:' && LOOPBACK_HOSTNAMES.has(parsed.hostname)
  } catch {
    return false
  }
}
