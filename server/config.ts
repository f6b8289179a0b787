import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { FILES_DEFAULT_MAX_FILE_BYTES, FILES_DEFAULT_QUOTA_BYTES } from '../shared/constants.ts'
import { SENTRY_TUNNEL_PATH, type ErrorReportingSettings } from '../shared/error-reporting.ts'
import type { SupportSettings } from '../shared/web/ssr-contract.ts'
import { DEFAULT_SETTINGS, parseApiKeys, type HashingCost } from './authcore/settings.ts'
import { splitCoreUrls } from './http/core-urls.ts'
import { parseTrustProxy, type TrustProxySetting } from './http/trust-proxy.ts'

// Configuration is read from the environment once, at boot, and validated as a whole: a bad or
// missing value stops the process with a message naming the variable and what it expects.
// One file over 500 lines on purpose: every variable, its default and the rules across them (a
// setting that needs another, a production that refuses a development default) are read together
// here, so the whole configuration is checked at once and nowhere else reads the environment.

export type NodeEnv = 'development' | 'production' | 'test'
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'

export interface Config {
  nodeEnv: NodeEnv
  host: string
  port: number
  apiHost: string
  apiPort: number
  dataDir: string
  databaseUrl: string | undefined
  upstreamApiUrl: string | undefined
  /**
   * An auth core elsewhere, or several on one database separated by ";" (supertokens-node's
   * connectionURI form; splitCoreUrls reads it); when set, none is started here.
   */
  authCoreUrl: string | undefined
  authCoreHost: string
  authCorePort: number
  /** API keys the auth core requires from its callers (default app); undefined: generated (embedded) or refused. */
  authCoreApiKeys: string[] | undefined
  /** AUTH_CORE_API_KEYS=none: the operator chose a core without keys (not recommended). */
  authCoreOpen: boolean
  /** Encrypts the core's signing keys, TOTP secrets and refresh tokens; generated in embedded mode. */
  authCoreSecret: string | undefined
  /** The default app's password hashing (AUTH_CORE_PASSWORD_HASHING), unless the app's own settings say otherwise. */
  authCorePasswordHashing: 'ARGON2' | 'BCRYPT'
  /**
   * What a password hash costs, for every app of the embedded core (the real core's
   * bcrypt_log_rounds and argon2_*): the defaults are the core's; tests lower them.
   */
  authCoreHashing: HashingCost
  redisUrl: string | undefined
  appUrl: string
  logLevel: LogLevel
  /**
   * RATE_LIMIT_MAX: counted requests (pages, API calls, writes; decision 027) per address per
   * minute, from everyone behind it, signed in or not.
   */
  rateLimitMax: number
  /** RATE_LIMIT_ACCOUNT_MAX: counted requests per signed-in account per minute (decision 027); a tenth of RATE_LIMIT_MAX by default. */
  rateLimitAccountMax: number
  /** TRUST_PROXY: no proxy (false), any (true), the nearest N hops, or their addresses (server/http/trust-proxy.ts). */
  trustProxy: TrustProxySetting
  buildId: string | undefined
  operatorToken: string | undefined
  operatorName: string
  contactEmail: string
  upstream: { connectTimeoutMs: number; headersTimeoutMs: number; bodyTimeoutMs: number }
  shutdownTimeoutMs: number
  /**
   * SHUTDOWN_READINESS_DELAY_MS: on SIGTERM, how long /readyz fails while requests are still served,
   * before the drain; undefined: by role (readinessDelayMs).
   */
  shutdownReadinessDelayMs: number | undefined
  /**
   * Load shedding: event-loop delay (ms) past which new requests get 503 (0: never) once
   * `pressureInFlight` are in flight, and the cap on requests waiting for their answers (0: none).
   */
  overload: { eventLoopDelayMs: number; maxInFlight: number; pressureInFlight: number }
  /** A connection with no bytes either way for this long is closed (BFF and API). */
  idleTimeoutMs: number
  /** Outgoing mail over SMTP; unset in embedded mode: the local mailbox shown at /dev/mail. */
  smtpUrl: string | undefined
  mailFrom: string
  /** `waitMs`: how long a sign-in held back by others in flight for the same email waits for them. */
  login: { maxAttempts: number; windowMinutes: number; blockMinutes: number; waitMs: number }
  /** Per IP per minute on /auth writes (sign-in, sign-up, resets…), stricter than RATE_LIMIT_MAX. */
  authRateLimitMax: number
  /** External identity providers, each enabled by its client id and secret. */
  providers: {
    google: { clientId: string; clientSecret: string } | undefined
    github: { clientId: string; clientSecret: string } | undefined
    oidc: { issuer: string; clientId: string; clientSecret: string; name: string } | undefined
  }
  /** Support: chat links and the outside scripts, each off while unset. */
  support: SupportConfig
  /** The drive: bytes each user may keep (the trash included), and the largest file. */
  files: { quotaBytes: number; maxFileBytes: number; s3: S3Config | undefined }
  /** Streaming: the clusters programs stream from (none: streaming is off), and how long an assignment lasts. */
  streaming: { clusters: StreamingCluster[]; assignmentMinutes: number }
  /** Error reporting (decision 019): on only when SENTRY_DSN is set. */
  sentry: SentryConfig | undefined
  /** Card checkout: Stripe, when STRIPE_SECRET_KEY is set; without it nothing is for sale. */
  stripe: StripeSettings | undefined
  /** Catalogue feeds (decision 029): none configured, none is read. */
  catalogueFeeds: { feeds: CatalogueFeed[]; intervalMs: number; maxBytes: number; timeoutMs: number }
}

/** The formats of CATALOGUE_FEEDS: an AppStream catalog (XML, gzip'd or not), Homebrew's cask JSON. */
export const CATALOGUE_FEED_FORMATS = ['appstream', 'homebrew'] as const
export type CatalogueFeedFormat = (typeof CATALOGUE_FEED_FORMATS)[number]

/** One entry of CATALOGUE_FEEDS. */
export interface CatalogueFeed {
  /** `<format>:<url>` as configured (a path made a file: URL): the feed's key in the database and the console. */
  name: string
  format: CatalogueFeedFormat
  /** https://, http:// on loopback, or file:. */
  url: string
  /** What its releases are recorded as coming from: `<format>:<host>`, `<format>:file`. */
  source: string
}

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

const DURATION_UNITS: Record<string, number> = { '': 1_000, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }

/** "21600" (seconds), "90s", "30m", "6h", "1d" → milliseconds; undefined when it is none of these. */
export function parseDuration(value: string): number | undefined {
  const match = /^(\d{1,9})\s*([smhd]?)$/i.exec(value.trim())
  if (!match) return undefined
  return Number(match[1]) * DURATION_UNITS[match[2]!.toLowerCase()]!
}

/** One CATALOGUE_FEEDS entry read, or why it cannot be. */
export function parseCatalogueFeed(entry: string): CatalogueFeed | { problem: string } {
  const colon = entry.indexOf(':')
  const format = colon < 0 ? '' : entry.slice(0, colon).trim().toLowerCase()
  if (!(CATALOGUE_FEED_FORMATS as readonly string[]).includes(format)) {
    return { problem: `"${withoutUrlPassword(entry)}" must start with ${CATALOGUE_FEED_FORMATS.map((f) => `${f}:`).join(' or ')} followed by its address` }
  }
  const location = entry.slice(colon + 1).trim()
  const expected = 'an https:// URL, http:// only on this machine (localhost, 127.0.0.1, [::1]), or a file (file:///… or an absolute path)'
  let url: URL
  try {
    url = location.startsWith('/') ? pathToFileURL(location) : new URL(location)
  } catch {
    return { problem: `"${withoutUrlPassword(entry)}": the address must be ${expected}` }
  }
  const allowed = url.protocol === 'https:' || url.protocol === 'file:' || isLoopbackHttpUrl(url.href)
  if (!allowed || (url.protocol !== 'file:' && url.hostname === '')) return { problem: `"${withoutUrlPassword(entry)}": the address must be ${expected}` }
  if (url.username !== '' || url.password !== '') return { problem: `"${withoutUrlPassword(entry)}": the address must not contain a user name or password` }
  const f = format as CatalogueFeedFormat
  return { name: `${f}:${url.href}`, format: f, url: url.href, source: `${f}:${url.protocol === 'file:' ? 'file' : url.hostname}` }
}

function readCatalogueFeeds(r: Reader): Config['catalogueFeeds'] {
  const feeds: CatalogueFeed[] = []
  const raw = r.optional('CATALOGUE_FEEDS')
  if (raw !== undefined) {
    for (const entry of raw.split(',').map((e) => e.trim()).filter((e) => e !== '')) {
      const feed = parseCatalogueFeed(entry)
      if ('problem' in feed) r.problems.push(`CATALOGUE_FEEDS: ${feed.problem}`)
      else if (feeds.some((f) => f.name === feed.name)) r.problems.push(`CATALOGUE_FEEDS names the feed "${withoutUrlPassword(feed.name)}" twice`)
      else feeds.push(feed)
    }
  }
  const duration = (name: string, fallback: number, min: number, max: number): number => {
    const value = r.optional(name)
    if (value === undefined) return fallback
    const ms = parseDuration(value)
    if (ms === undefined || ms < min || ms > max) {
      r.problems.push(`${name} must be a duration from ${min / 1_000} s to ${max / 3_600_000} h: seconds ("21600") or with a unit ("90s", "30m", "6h", "1d") (got "${value}")`)
      return fallback
    }
    return ms
  }
  return {
    feeds,
    intervalMs: duration('CATALOGUE_FEED_INTERVAL', CATALOGUE_FEED_DEFAULT_INTERVAL_MS, 60_000, 7 * 86_400_000),
    maxBytes: r.integer('CATALOGUE_FEED_MAX_BYTES', CATALOGUE_FEED_DEFAULT_MAX_BYTES, 1_024, 2 * 1024 * 1024 * 1024),
    timeoutMs: duration('CATALOGUE_FEED_TIMEOUT', CATALOGUE_FEED_DEFAULT_TIMEOUT_MS, 1_000, 3_600_000),
  }
}

/** One entry of STREAMING_CLUSTERS: a group of machines in a region that streams programs. */
export interface StreamingCluster {
  /** Names the cluster in assignments and is the grant's audience: 1–64 of a-z, 0-9, "-", "_", ".". */
  id: string
  /** A short region id such as eu-central or us-east; the page offers each region once. */
  region: string
  /** The cluster's public address, opened by the browser: https, or http on loopback. */
  url: string
  /** How many users it streams to at once. */
  capacity: number
}

/** SENTRY_DSN and SENTRY_ENVIRONMENT, checked at boot. */
export interface SentryConfig {
  /** The DSN in one canonical spelling: the tunnel compares the browser's envelopes against it. */
  dsn: string
  /** Where the DSN's project takes envelopes: <origin><path>/api/<project>/envelope/. */
  envelopeUrl: string
  /** SENTRY_ENVIRONMENT, else NODE_ENV. */
  environment: string
}

/**
 * A Sentry DSN: <protocol>://<public key>@<host>[:port][/path]/<project id>. The old secret-key
 * form (public:secret@) is refused: the DSN is sent to every browser.
 */
export function parseSentryDsn(value: string): { dsn: string; envelopeUrl: string } | undefined {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return undefined
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username === '' || url.password !== '' || url.search !== '' || url.hash !== '') return undefined
  if (!/^[A-Za-z0-9]+$/.test(url.username)) return undefined
  const parts = url.pathname.split('/').filter(Boolean)
  const project = parts.pop()
  if (project === undefined || !/^\d+$/.test(project)) return undefined
  const path = parts.length > 0 ? `/${parts.join('/')}` : ''
  // The spelling the browser SDK writes into an envelope's header (its dsnToString).
  const dsn = `${url.protocol}//${url.username}@${url.host}${path}/${project}`
  return { dsn, envelopeUrl: `${url.protocol}//${url.host}${path}/api/${project}/envelope/` }
}

function readSentry(r: Reader, nodeEnv: NodeEnv): SentryConfig | undefined {
  const raw = r.optional('SENTRY_DSN')
  const environment = r.string('SENTRY_ENVIRONMENT', nodeEnv)
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(environment)) {
    r.problems.push(`SENTRY_ENVIRONMENT must be 1 to 64 letters, digits, ".", "_" or "-" (got "${environment}")`)
  }
  if (raw === undefined) {
    if (r.optional('SENTRY_ENVIRONMENT') !== undefined) r.problems.push('SENTRY_DSN is required with SENTRY_ENVIRONMENT (the project\'s DSN, e.g. https://abc123@o1.ingest.sentry.io/42); without it nothing is reported')
    return undefined
  }
  const parsed = parseSentryDsn(raw)
  if (!parsed) {
    r.problems.push(`SENTRY_DSN must be a DSN such as https://<public key>@<host>/<project id>, without a secret key (got "${withoutUrlPassword(raw)}")`)
    return undefined
  }
  return { ...parsed, environment }
}

/** Stripe Checkout (STRIPE_*); both secrets come together, the API address defaults to Stripe's own. */
export interface StripeSettings {
  /** STRIPE_SECRET_KEY: sk_… or a restricted rk_… key. Never logged, never sent to a browser. */
  secretKey: string
  /** STRIPE_WEBHOOK_SECRET: whsec_…, verifies the signature of every webhook delivery. */
  webhookSecret: string
  /** STRIPE_API_URL: where the SDK sends its calls; https://api.stripe.com unless a test points it at its fake. */
  apiUrl: string
}

export const STRIPE_DEFAULT_API_URL = 'https://api.stripe.com'

/** The drive's bytes in an S3-compatible bucket (S3_*); unset: a directory under DATA_DIR/files. */
export interface S3Config {
  /** S3_URL: the endpoint, e.g. https://s3.eu-central-1.amazonaws.com or http://127.0.0.1:9000. */
  url: string
  bucket: string
  /** S3_REGION: what requests are signed for; us-east-1 unless set (most other servers ignore it). */
  region: string
  accessKeyId: string
  /** Never logged, never sent to a browser. */
  secretAccessKey: string
  /** S3_PREFIX: a folder of the bucket the drive keeps to, so one bucket can serve several things. */
  prefix: string | undefined
}

export interface SupportConfig {
  /** SUPPORT_BOT_URL: a messaging bot (e.g. https://t.me/…), linked in the footer and on the profile. */
  botUrl: string | undefined
  /** SUPPORT_CHAT_URL: a chat app (e.g. https://wa.me/…), linked beside the bot. */
  chatUrl: string | undefined
  /** CHAT_WIDGET_SCRIPT_URL: the live-chat widget's loader; its origin joins the page CSP. */
  chatWidgetScriptUrl: string | undefined
  /** TAG_MANAGER_SCRIPT_URL: loaded only after the visitor accepts analytics cookies. */
  tagManagerScriptUrl: string | undefined
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
    this.name = 'ConfigError'
  }
}

type Env = Record<string, string | undefined>

/** One reader per kind of value; each records a problem instead of throwing so all are reported. */
class Reader {
  readonly problems: string[] = []
  constructor(private readonly env: Env) {}

  private raw(name: string): string | undefined {
    const value = this.env[name]
    return value === undefined || value.trim() === '' ? undefined : value.trim()
  }

  string(name: string, fallback: string): string {
    return this.raw(name) ?? fallback
  }

  optional(name: string): string | undefined {
    return this.raw(name)
  }

  /** <PREFIX>_CLIENT_ID and <PREFIX>_CLIENT_SECRET: both or neither. */
  clientPair(prefix: string): { clientId: string; clientSecret: string } | undefined {
    const clientId = this.raw(`${prefix}_CLIENT_ID`)
    const clientSecret = this.raw(`${prefix}_CLIENT_SECRET`)
    if (clientId && clientSecret) return { clientId, clientSecret }
    if (clientId || clientSecret) this.problems.push(`${prefix}_CLIENT_ID and ${prefix}_CLIENT_SECRET must be set together`)
    return undefined
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const value = this.raw(name)
    if (value === undefined) return fallback
    if ((allowed as readonly string[]).includes(value)) return value as T
    this.problems.push(`${name} must be one of ${allowed.join(', ')} (got "${value}")`)
    return fallback
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const value = this.raw(name)
    if (value === undefined) return fallback
    const parsed = Number(value)
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
      this.problems.push(`${name} must be a whole number from ${min} to ${max} (got "${value}")`)
      return fallback
    }
    return parsed
  }

  url(name: string, protocols: readonly string[], fallback?: string): string | undefined {
    const value = this.raw(name) ?? fallback
    if (value === undefined) return undefined
    let parsed: URL
    try {
      parsed = new URL(value)
    } catch {
      this.problems.push(`${name} must be a URL starting with ${protocols.join(' or ')} (got "${withoutUrlPassword(value)}")`)
      return undefined
    }
    if (!protocols.includes(parsed.protocol)) {
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
  browserUrl(name: string, { loopbackHttp }: { loopbackHttp: boolean }): string | undefined {
    const value = this.raw(name)
    if (value === undefined) return undefined
    const expected = loopbackHttp ? 'an https:// URL (http:// only on this machine: localhost, 127.0.0.1, [::1])' : 'an https:// URL'
    let parsed: URL
    try {
      parsed = new URL(value)
    } catch {
      this.problems.push(`${name} must be ${expected} (got "${withoutUrlPassword(value)}")`)
      return undefined
    }
    const allowed = parsed.protocol === 'https:' || (loopbackHttp && isLoopbackHttpUrl(parsed.href))
    if (!allowed || parsed.hostname === '') {
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

/** The host of APP_URL, for the default sender address. */
function mailDomain(appUrl: string | undefined): string {
  try {
    return appUrl ? new URL(appUrl).hostname : 'localhost'
  } catch {
    return 'localhost'
  }
}

/** A URL as a configuration message may echo it: the password it may carry replaced by *** (the query is kept: shared/redaction.ts's redactUrl hides secret query parameters instead). */
function withoutUrlPassword(value: string): string {
  return value.replace(/\/\/([^:/@]+):[^@/]*@/, '//$1:***@')
}

/**
 * STRIPE_SECRET_KEY turns card checkout on and needs STRIPE_WEBHOOK_SECRET: without webhooks a
 * refund or an ended subscription would never take the program back. The API address may be
 * http:// only on loopback (a local fake): elsewhere the secret key would travel in clear.
 */
function readStripe(r: Reader): StripeSettings | undefined {
  const secretKey = r.optional('STRIPE_SECRET_KEY')
  const webhookSecret = r.optional('STRIPE_WEBHOOK_SECRET')
  const apiUrl = r.url('STRIPE_API_URL', ['http:', 'https:'], STRIPE_DEFAULT_API_URL)
  if (secretKey === undefined) {
    if (webhookSecret !== undefined) r.problems.push('STRIPE_SECRET_KEY is required with STRIPE_WEBHOOK_SECRET (the API key, sk_… or rk_…); without it card checkout is off')
    return undefined
  }
  let ok = true
  if (!/^(sk|rk)_(test|live)_[A-Za-z0-9]{8,}$/.test(secretKey)) {
    r.problems.push('STRIPE_SECRET_KEY must be a Stripe secret or restricted key (sk_live_…, sk_test_…, rk_…)')
    ok = false
  }
  if (webhookSecret === undefined) {
    r.problems.push('STRIPE_WEBHOOK_SECRET is required with STRIPE_SECRET_KEY (whsec_…, the signing secret of the webhook endpoint /api/stripe/webhook)')
    ok = false
  } else if (!/^whsec_[A-Za-z0-9+/=_-]{8,}$/.test(webhookSecret)) {
    r.problems.push('STRIPE_WEBHOOK_SECRET must be a webhook signing secret (whsec_…)')
    ok = false
  }
  if (apiUrl !== undefined) {
    const parsed = new URL(apiUrl)
    if (parsed.protocol === 'http:' && !isLoopbackHttpUrl(apiUrl)) {
      r.problems.push(`STRIPE_API_URL may use http:// only on this machine's loopback (got "${withoutUrlPassword(apiUrl)}"); the secret key must not travel in clear`)
      ok = false
    }
    if (parsed.pathname !== '/' || parsed.search !== '' || parsed.username !== '' || parsed.password !== '') {
      r.problems.push(`STRIPE_API_URL must be an origin only, such as https://api.stripe.com (got "${withoutUrlPassword(apiUrl)}")`)
      ok = false
    }
  }
  if (!ok || apiUrl === undefined || webhookSecret === undefined) return undefined
  return { secretKey, webhookSecret, apiUrl }
}

/** S3_URL turns the bucket on; the bucket and the key pair must come with it, and nothing without it. */
function readS3(r: Reader): S3Config | undefined {
  const url = r.url('S3_URL', ['http:', 'https:'])
  const bucket = r.optional('S3_BUCKET')
  const accessKeyId = r.optional('S3_ACCESS_KEY_ID')
  const secretAccessKey = r.optional('S3_SECRET_ACCESS_KEY')
  const region = r.string('S3_REGION', 'us-east-1')
  const prefix = r.optional('S3_PREFIX')
  const raw = r.optional('S3_URL')
  if (raw === undefined) {
    const stray = ['S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'S3_PREFIX'].filter((name) => r.optional(name) !== undefined)
    if (stray.length > 0) r.problems.push(`S3_URL is required with ${stray.join(', ')} (the S3 endpoint, e.g. https://s3.eu-central-1.amazonaws.com); without it the drive is kept under DATA_DIR/files`)
    return undefined
  }
  if (url === undefined) return undefined
  let ok = true
  const parsed = new URL(url)
  if (parsed.username !== '' || parsed.password !== '') {
    r.problems.push(`S3_URL must not contain a user name or password (got "${withoutUrlPassword(raw)}"); set S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY`)
    ok = false
  }
  const missing = [
    ['S3_BUCKET', bucket],
    ['S3_ACCESS_KEY_ID', accessKeyId],
    ['S3_SECRET_ACCESS_KEY', secretAccessKey],
  ].flatMap(([name, value]) => (value === undefined ? [name] : []))
  if (missing.length > 0) {
    r.problems.push(`${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} required when S3_URL is set (the bucket the drive keeps its files in, and the key pair that may read and write it)`)
    ok = false
  }
  if (bucket !== undefined && !/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    r.problems.push(`S3_BUCKET must be a bucket name: 3 to 63 lower-case letters, digits, dots and hyphens (got "${bucket}")`)
    ok = false
  }
  if (!/^[a-z0-9-]{1,64}$/.test(region)) {
    r.problems.push(`S3_REGION must be a region name such as us-east-1 (got "${region}")`)
    ok = false
  }
  // Becomes part of every object name: plain characters only, no way out of the folder.
  if (prefix !== undefined && (!/^[A-Za-z0-9._/-]{1,200}$/.test(prefix) || prefix.split('/').some((part) => part === '.' || part === '..'))) {
    r.problems.push(`S3_PREFIX must be a folder name of letters, digits, ".", "_", "-" and "/" (got "${prefix}")`)
    ok = false
  }
  if (!ok || bucket === undefined || accessKeyId === undefined || secretAccessKey === undefined) return undefined
  return { url, bucket, region, accessKeyId, secretAccessKey, prefix: prefix?.replace(/^\/+|\/+$/g, '') || undefined }
}

const CLUSTER_ID = /^[a-z0-9][a-z0-9._-]{0,63}$/
const REGION_ID = /^[a-z][a-z0-9-]{0,31}$/

/**
 * STREAMING_CLUSTERS: a JSON array of { id, region, url, capacity }. Unset or "[]":
 * streaming is off, and the page says so. Every entry is checked, and every problem reported.
 */
function readStreamingClusters(r: Reader): StreamingCluster[] {
  const raw = r.optional('STREAMING_CLUSTERS')
  if (raw === undefined) return []
  const expected = 'a JSON array of { "id", "region", "url", "capacity" }, e.g. [{"id":"fra-1","region":"eu-central","url":"https://fra-1.stream.example.com","capacity":20}]'
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch {
    r.problems.push(`STREAMING_CLUSTERS must be ${expected} (it is not valid JSON)`)
    return []
  }
  if (!Array.isArray(parsed)) {
    r.problems.push(`STREAMING_CLUSTERS must be ${expected}`)
    return []
  }
  const clusters: StreamingCluster[] = []
  const seen = new Set<string>()
  parsed.forEach((entry: unknown, index) => {
    const at = `STREAMING_CLUSTERS[${index}]`
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      r.problems.push(`${at} must be an object { "id", "region", "url", "capacity" }`)
      return
    }
    const { id, region, url, capacity, ...rest } = entry as Record<string, unknown>
    const before = r.problems.length
    const extra = Object.keys(rest)
    if (extra.length > 0) r.problems.push(`${at} has unknown fields: ${extra.join(', ')} (allowed: id, region, url, capacity)`)
    if (typeof id !== 'string' || !CLUSTER_ID.test(id)) r.problems.push(`${at}.id must be 1 to 64 lower-case letters, digits, ".", "_" or "-" (got ${JSON.stringify(id)})`)
    else if (seen.has(id)) r.problems.push(`${at}.id "${id}" is used by another cluster: ids must be unique`)
    if (typeof region !== 'string' || !REGION_ID.test(region)) r.problems.push(`${at}.region must be a short region id such as eu-central or us-east (got ${JSON.stringify(region)})`)
    if (typeof capacity !== 'number' || !Number.isSafeInteger(capacity) || capacity < 1) r.problems.push(`${at}.capacity must be a whole number of at least 1 (got ${JSON.stringify(capacity)})`)
    let href: string | undefined
    if (typeof url === 'string') {
      try {
        const parsedUrl = new URL(url)
        const allowed = parsedUrl.protocol === 'https:' || isLoopbackHttpUrl(parsedUrl.href)
        if (allowed && parsedUrl.username === '' && parsedUrl.password === '' && parsedUrl.hash === '') href = parsedUrl.href
      } catch {
        // Reported below with the others.
      }
    }
    if (href === undefined) r.problems.push(`${at}.url must be an https:// URL (http:// only on this machine: localhost, 127.0.0.1, [::1]) without user name, password or fragment (got ${JSON.stringify(typeof url === 'string' ? withoutUrlPassword(url) : url)})`)
    if (typeof id === 'string') seen.add(id)
    if (r.problems.length === before) clusters.push({ id: id as string, region: region as string, url: href!, capacity: capacity as number })
  })
  return clusters
}

/** The auth core's hashing cost; argon2 needs 8 KiB of memory per lane. */
function hashingCost(r: Reader): HashingCost {
  const cost = {
    bcryptLogRounds: r.integer('AUTH_CORE_BCRYPT_LOG_ROUNDS', DEFAULT_SETTINGS.bcryptLogRounds, 4, 31),
    argon2Iterations: r.integer('AUTH_CORE_ARGON2_ITERATIONS', DEFAULT_SETTINGS.argon2Iterations, 1, 100),
    argon2MemoryKb: r.integer('AUTH_CORE_ARGON2_MEMORY_KB', DEFAULT_SETTINGS.argon2MemoryKb, 8, 4_194_304),
    argon2Parallelism: r.integer('AUTH_CORE_ARGON2_PARALLELISM', DEFAULT_SETTINGS.argon2Parallelism, 1, 64),
  }
  if (cost.argon2MemoryKb < 8 * cost.argon2Parallelism) {
    r.problems.push(`AUTH_CORE_ARGON2_MEMORY_KB must be at least 8 × AUTH_CORE_ARGON2_PARALLELISM (${8 * cost.argon2Parallelism}; got ${cost.argon2MemoryKb})`)
  }
  return cost
}

export function loadConfig(env: Env = process.env): Config {
  const r = new Reader(env)
  const nodeEnv = r.oneOf('NODE_ENV', ['development', 'production', 'test'] as const, 'development')
  const port = r.integer('PORT', 3000, 0, 65535)
  const apiPort = r.integer('API_PORT', 3001, 0, 65535)
  // Decision 027: an address may be a school or an office; one account is one person.
  const rateLimitMax = r.integer('RATE_LIMIT_MAX', 3000, 1, 1_000_000)
  const config: Config = {
    nodeEnv,
    host: r.string('HOST', '0.0.0.0'),
    port,
    apiHost: r.string('API_HOST', '127.0.0.1'),
    apiPort,
    dataDir: path.resolve(r.string('DATA_DIR', './data')),
    databaseUrl: r.url('DATABASE_URL', ['postgres:', 'postgresql:']),
    upstreamApiUrl: r.url('UPSTREAM_API_URL', ['http:', 'https:']),
    authCoreUrl: r.urlList('AUTH_CORE_URL', ['http:', 'https:']),
    authCoreHost: r.string('AUTH_CORE_HOST', '127.0.0.1'),
    authCorePort: r.integer('AUTH_CORE_PORT', 3567, 0, 65535),
    authCoreApiKeys: undefined,
    authCoreOpen: false,
    authCoreSecret: r.optional('AUTH_CORE_SECRET'),
    // argon2id: every byte of a password counts (bcrypt ignores those after the 72nd).
    authCorePasswordHashing: r.oneOf('AUTH_CORE_PASSWORD_HASHING', ['ARGON2', 'BCRYPT'] as const, 'ARGON2'),
    authCoreHashing: hashingCost(r),
    redisUrl: r.url('REDIS_URL', ['redis:', 'rediss:']),
    appUrl: r.url('APP_URL', ['http:', 'https:'], `http://localhost:${port}`) ?? `http://localhost:${port}`,
    logLevel: r.oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
    rateLimitMax,
    rateLimitAccountMax: r.integer('RATE_LIMIT_ACCOUNT_MAX', Math.ceil(rateLimitMax / 10), 1, 1_000_000),
    trustProxy: false,
    buildId: r.optional('BUILD_ID'),
    operatorToken: r.optional('OPERATOR_TOKEN'),
    operatorName: r.string('OPERATOR_NAME', 'Softshelf'),
    contactEmail: r.string('CONTACT_EMAIL', 'support@softshelf.app'),
    upstream: {
      connectTimeoutMs: r.integer('UPSTREAM_CONNECT_TIMEOUT_MS', 2_000, 1, 60_000),
      headersTimeoutMs: r.integer('UPSTREAM_HEADERS_TIMEOUT_MS', 10_000, 1, 300_000),
      bodyTimeoutMs: r.integer('UPSTREAM_BODY_TIMEOUT_MS', 10_000, 1, 300_000),
    },
    shutdownTimeoutMs: r.integer('SHUTDOWN_TIMEOUT_MS', 10_000, 1, 120_000),
    shutdownReadinessDelayMs: r.optional('SHUTDOWN_READINESS_DELAY_MS') === undefined ? undefined : r.integer('SHUTDOWN_READINESS_DELAY_MS', 0, 0, 60_000),
    overload: {
      eventLoopDelayMs: r.integer('OVERLOAD_EVENT_LOOP_DELAY_MS', 50, 0, 10_000),
      maxInFlight: r.integer('OVERLOAD_MAX_IN_FLIGHT', 128, 0, 100_000),
      pressureInFlight: r.integer('OVERLOAD_PRESSURE_IN_FLIGHT', 16, 0, 100_000),
    },
    idleTimeoutMs: r.integer('IDLE_TIMEOUT_MS', 60_000, 1_000, 3_600_000),
    smtpUrl: r.url('SMTP_URL', ['smtp:', 'smtps:']),
    mailFrom: r.string('MAIL_FROM', `Softshelf <no-reply@${mailDomain(r.optional('APP_URL'))}>`),
    login: {
      maxAttempts: r.integer('LOGIN_MAX_ATTEMPTS', 5, 1, 1_000),
      windowMinutes: r.integer('LOGIN_WINDOW_MINUTES', 15, 1, 10_080),
      blockMinutes: r.integer('LOGIN_BLOCK_MINUTES', 15, 1, 10_080),
      waitMs: r.integer('LOGIN_WAIT_MS', 5_000, 0, 30_000),
    },
    authRateLimitMax: r.integer('AUTH_RATE_LIMIT_MAX', 20, 1, 1_000_000),
    providers: { google: undefined, github: undefined, oidc: undefined },
    support: {
      botUrl: r.browserUrl('SUPPORT_BOT_URL', { loopbackHttp: false }),
      chatUrl: r.browserUrl('SUPPORT_CHAT_URL', { loopbackHttp: false }),
      chatWidgetScriptUrl: r.browserUrl('CHAT_WIDGET_SCRIPT_URL', { loopbackHttp: true }),
      tagManagerScriptUrl: r.browserUrl('TAG_MANAGER_SCRIPT_URL', { loopbackHttp: true }),
    },
    files: {
      quotaBytes: r.integer('FILES_QUOTA_BYTES', FILES_DEFAULT_QUOTA_BYTES, 1, Number.MAX_SAFE_INTEGER),
      maxFileBytes: r.integer('FILES_MAX_FILE_BYTES', FILES_DEFAULT_MAX_FILE_BYTES, 1, Number.MAX_SAFE_INTEGER),
      s3: undefined,
    },
    streaming: {
      clusters: [],
      // A grant is short-lived; the page asks again for a new one after this.
      assignmentMinutes: r.integer('STREAMING_ASSIGNMENT_MINUTES', 15, 1, 1_440),
    },
    sentry: undefined,
    stripe: undefined,
    catalogueFeeds: { feeds: [], intervalMs: CATALOGUE_FEED_DEFAULT_INTERVAL_MS, maxBytes: CATALOGUE_FEED_DEFAULT_MAX_BYTES, timeoutMs: CATALOGUE_FEED_DEFAULT_TIMEOUT_MS },
  }
  config.files.s3 = readS3(r)
  config.streaming.clusters = readStreamingClusters(r)
  config.sentry = readSentry(r, nodeEnv)
  config.stripe = readStripe(r)
  config.catalogueFeeds = readCatalogueFeeds(r)
  config.providers.google = r.clientPair('GOOGLE')
  config.providers.github = r.clientPair('GITHUB')
  const oidc = r.clientPair('OIDC')
  const issuer = r.url('OIDC_ISSUER', ['http:', 'https:'])
  if (oidc && !issuer) r.problems.push('OIDC_ISSUER is required with OIDC_CLIENT_ID (the provider\'s issuer URL; its /.well-known/openid-configuration is read)')
  if (oidc && issuer) config.providers.oidc = { ...oidc, issuer, name: r.string('OIDC_NAME', 'OpenID Connect') }

  const trustProxy = parseTrustProxy(r.optional('TRUST_PROXY'))
  if ('problem' in trustProxy) r.problems.push(trustProxy.problem)
  else config.trustProxy = trustProxy.setting
  const apiKeys = r.optional('AUTH_CORE_API_KEYS')
  if (apiKeys === 'none') config.authCoreOpen = true
  else if (apiKeys !== undefined) {
    try {
      config.authCoreApiKeys = parseApiKeys(apiKeys)
    } catch (error) {
      r.problems.push(`AUTH_CORE_API_KEYS: ${(error as Error).message}`)
    }
  }
  if (config.authCoreSecret !== undefined && config.authCoreSecret.length < 32) {
    r.problems.push('AUTH_CORE_SECRET must be at least 32 characters')
  }
  // Embedded mode generates the secret under DATA_DIR; a deployment on a real database must bring its own.
  if (config.databaseUrl && !config.authCoreUrl && config.authCoreSecret === undefined) {
    r.problems.push('AUTH_CORE_SECRET is required when DATABASE_URL is set and the auth core runs here (at least 32 characters; keep it stable, it encrypts signing keys and TOTP secrets)')
  }
  if (config.shutdownReadinessDelayMs !== undefined && config.shutdownReadinessDelayMs > config.shutdownTimeoutMs - SHUTDOWN_DRAIN_ALLOWANCE_MS) {
    r.problems.push(`SHUTDOWN_READINESS_DELAY_MS must leave ${SHUTDOWN_DRAIN_ALLOWANCE_MS} ms of SHUTDOWN_TIMEOUT_MS (${config.shutdownTimeoutMs}) for the drain (got "${config.shutdownReadinessDelayMs}")`)
  }
  if (config.contactEmail !== undefined && !/^[^\s@]+@[^\s@]+$/.test(config.contactEmail)) {
    r.problems.push(`CONTACT_EMAIL must be an email address (got "${config.contactEmail}")`)
  }
  if (r.problems.length > 0) throw new ConfigError(r.problems)
  return config
}

/** What a stop needs after the readiness delay: the drain (at most 2 s) and a second for answers in flight. */
const SHUTDOWN_DRAIN_ALLOWANCE_MS = 3_000

/**
 * The readiness delay when SHUTDOWN_READINESS_DELAY_MS is unset: long enough for deploy/haproxy.cfg's
 * checks of the BFFs and APIs (every second, 250 ms apart once one failed, two failures) to take
 * the instance out.
 */
export const DEFAULT_READINESS_DELAY_MS = 3_000

/**
 * The readiness delay of a process running `role`: SHUTDOWN_READINESS_DELAY_MS, else
 * 0 for the embedded default (`all`: no load balancer in front of it) and, for a role running alone
 * (behind a balancer), DEFAULT_READINESS_DELAY_MS, at most half of SHUTDOWN_TIMEOUT_MS.
 */
export function readinessDelayMs(config: Config, role: string): number {
  if (config.shutdownReadinessDelayMs !== undefined) return config.shutdownReadinessDelayMs
  return role === 'all' ? 0 : Math.min(DEFAULT_READINESS_DELAY_MS, Math.floor(config.shutdownTimeoutMs / 2))
}

/** The settings a browser may see. Nothing else from Config is ever sent to the client. */
export interface PublicConfig {
  appUrl: string
  operatorName: string
  contactEmail: string
  /** External sign-in buttons: the configured providers' ids and names, never their secrets. */
  providers: Array<{ id: string; name: string }>
  /** Chat links and outside scripts; null where not configured. */
  support: SupportSettings
  /** Error reporting in the browser; null without SENTRY_DSN. */
  errorReporting: ErrorReportingSettings | null
  /** Streaming clusters are configured (STREAMING_CLUSTERS): only then is "Streaming" offered. Never the clusters themselves. */
  streaming: boolean
}

/**
 * Where the auth core answers: AUTH_CORE_URL (one URL, or several separated by ";"), else the
 * embedded one at AUTH_CORE_HOST:AUTH_CORE_PORT.
 */
export function authCoreUrlOf(config: Config): string {
  return config.authCoreUrl ?? `http://${config.authCoreHost}:${config.authCorePort}`
}

const LOOPBACK_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]'])

/** APP_URL is `http://` on this machine's loopback: the app is only for the person at this machine. */
export function isLoopbackHttpUrl(url: string): boolean {
  try {
    const parsed = new URL(url)
    return parsed.protocol === 'http:' && LOOPBACK_HOSTNAMES.has(parsed.hostname)
  } catch {
    return false
  }
}

/**
 * Development conveniences — the local mailbox page at /dev/mail, Vite's middleware (`--dev`) —
 * exist only outside production: with NODE_ENV=production none is served, whatever the request's
 * headers say (a same-host proxy that adds no forwarding header keeps the client's
 * loopback Host, so a header check alone let anyone read the reset links).
 */
export function servesDevConveniences(config: Pick<Config, 'nodeEnv'>): boolean {
  return config.nodeEnv !== 'production'
}

/**
 * The BFF's mail settings, checked when the BFF starts: a deployment must really send mail. The
 * local mailbox answers only a browser on this machine (dev-mail.ts), so an https or public
 * APP_URL without SMTP would leave every verification and reset link unreachable.
 */
export function mailProblem(config: Config): string | undefined {
  if (config.smtpUrl) return undefined
  if (config.databaseUrl) {
    return 'SMTP_URL is required when DATABASE_URL is set (e.g. smtp://user:password@mail.example.com:587); the local mailbox is for embedded mode only'
  }
  if (!isLoopbackHttpUrl(config.appUrl)) {
    return `SMTP_URL is required when APP_URL is not a loopback http:// address (got "${config.appUrl}"; e.g. smtp://user:password@mail.example.com:587); the local mailbox at /dev/mail answers only http://localhost on this machine`
  }
  return undefined
}

/** The DSN (public by design: it only lets one send events), where they go, and what they are labelled. */
export function publicConfig(config: Config, release = 'dev'): PublicConfig {
  const { google, github, oidc } = config.providers
  const providers = [
    ...(google ? [{ id: 'google', name: 'Google' }] : []),
    ...(github ? [{ id: 'github', name: 'GitHub' }] : []),
    ...(oidc ? [{ id: 'oidc', name: oidc.name }] : []),
  ]
  const { botUrl, chatUrl, chatWidgetScriptUrl, tagManagerScriptUrl } = config.support
  const support = { botUrl: botUrl ?? null, chatUrl: chatUrl ?? null, chatWidgetScriptUrl: chatWidgetScriptUrl ?? null, tagManagerScriptUrl: tagManagerScriptUrl ?? null }
  const errorReporting = config.sentry ? { dsn: config.sentry.dsn, environment: config.sentry.environment, release, tunnel: SENTRY_TUNNEL_PATH } : null
  const streaming = config.streaming.clusters.length > 0
  return { appUrl: config.appUrl, operatorName: config.operatorName, contactEmail: config.contactEmail, providers, support, errorReporting, streaming }
}

/**
 * The origins the page CSP lets in for the outside scripts, exactly the configured
 * ones: the chat widget's (its script, and the connections, images and frames a widget makes)
 * and the tag manager's (its script only).
 */
export function outsideOrigins(config: Config): { chatWidget: string | undefined; tagManager: string | undefined } {
  const origin = (url: string | undefined) => (url === undefined ? undefined : new URL(url).origin)
  return { chatWidget: origin(config.support.chatWidgetScriptUrl), tagManager: origin(config.support.tagManagerScriptUrl) }
}
