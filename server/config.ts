import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { SENTRY_TUNNEL_PATH, type ErrorReportingSettings } from '../shared/error-reporting.ts'
import type { SupportSettings } from '../shared/web/ssr-contract.ts'
import { parseApiKeys, type HashingCost } from './authcore/settings.ts'
import { isLoopbackHttpUrl, readVariables, withoutUrlPassword, type VariableName, type Variables } from './config/variables.ts'
import { parseTrustProxy, type TrustProxySetting } from './http/trust-proxy.ts'

export { CATALOGUE_FEED_DEFAULT_INTERVAL_MS, CATALOGUE_FEED_DEFAULT_MAX_BYTES, CATALOGUE_FEED_DEFAULT_TIMEOUT_MS, isLoopbackHttpUrl, parseDuration } from './config/variables.ts'

// The configuration, built once at boot from the environment's schema (config/variables.ts: every
// variable, its kind, default and bounds) and the rules across variables beside it here (a setting
// that needs another, S3's and Stripe's sets, the streaming clusters and the feeds, what a role
// running alone needs: roleProblems). Everything is checked at once: a bad or missing value stops
// the process with a message naming the variable and what it expects.

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

function readCatalogueFeeds(r: Read): Config['catalogueFeeds'] {
  const feeds: CatalogueFeed[] = []
  const raw = r.values.CATALOGUE_FEEDS
  if (raw !== undefined) {
    for (const entry of raw.split(',').map((e) => e.trim()).filter((e) => e !== '')) {
      const feed = parseCatalogueFeed(entry)
      if ('problem' in feed) r.problems.push(`CATALOGUE_FEEDS: ${feed.problem}`)
      else if (feeds.some((f) => f.name === feed.name)) r.problems.push(`CATALOGUE_FEEDS names the feed "${withoutUrlPassword(feed.name)}" twice`)
      else feeds.push(feed)
    }
  }
  return {
    feeds,
    intervalMs: r.values.CATALOGUE_FEED_INTERVAL,
    maxBytes: r.values.CATALOGUE_FEED_MAX_BYTES,
    timeoutMs: r.values.CATALOGUE_FEED_TIMEOUT,
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

function readSentry(r: Read, nodeEnv: NodeEnv): SentryConfig | undefined {
  const raw = r.values.SENTRY_DSN
  const environment = r.values.SENTRY_ENVIRONMENT ?? nodeEnv
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(environment)) {
    r.problems.push(`SENTRY_ENVIRONMENT must be 1 to 64 letters, digits, ".", "_" or "-" (got "${environment}")`)
  }
  if (raw === undefined) {
    if (r.values.SENTRY_ENVIRONMENT !== undefined) r.problems.push('SENTRY_DSN is required with SENTRY_ENVIRONMENT (the project\'s DSN, e.g. https://abc123@o1.ingest.sentry.io/42); without it nothing is reported')
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

/** What the rules across variables read: the variables' checked values, and the problems so far. */
interface Read {
  values: Variables
  problems: string[]
  isSet(name: VariableName): boolean
}

/** <PREFIX>_CLIENT_ID and <PREFIX>_CLIENT_SECRET: both or neither. */
function clientPair(r: Read, prefix: 'GOOGLE' | 'GITHUB' | 'OIDC'): { clientId: string; clientSecret: string } | undefined {
  const clientId = r.values[`${prefix}_CLIENT_ID`]
  const clientSecret = r.values[`${prefix}_CLIENT_SECRET`]
  if (clientId && clientSecret) return { clientId, clientSecret }
  if (clientId || clientSecret) r.problems.push(`${prefix}_CLIENT_ID and ${prefix}_CLIENT_SECRET must be set together`)
  return undefined
}

/** The host of APP_URL, for the default sender address. */
function mailDomain(appUrl: string | undefined): string {
  try {
    return appUrl ? new URL(appUrl).hostname : 'localhost'
  } catch {
    return 'localhost'
  }
}

/**
 * STRIPE_SECRET_KEY turns card checkout on and needs STRIPE_WEBHOOK_SECRET: without webhooks a
 * refund or an ended subscription would never take the program back. The API address may be
 * http:// only on loopback (a local fake): elsewhere the secret key would travel in clear.
 */
function readStripe(r: Read): StripeSettings | undefined {
  const secretKey = r.values.STRIPE_SECRET_KEY
  const webhookSecret = r.values.STRIPE_WEBHOOK_SECRET
  const apiUrl = r.values.STRIPE_API_URL
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
function readS3(r: Read): S3Config | undefined {
  const url = r.values.S3_URL
  const bucket = r.values.S3_BUCKET
  const accessKeyId = r.values.S3_ACCESS_KEY_ID
  const secretAccessKey = r.values.S3_SECRET_ACCESS_KEY
  const region = r.values.S3_REGION
  const prefix = r.values.S3_PREFIX
  if (!r.isSet('S3_URL')) {
    const stray = (['S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'S3_PREFIX'] as const).filter((name) => r.isSet(name))
    if (stray.length > 0) r.problems.push(`S3_URL is required with ${stray.join(', ')} (the S3 endpoint, e.g. https://s3.eu-central-1.amazonaws.com); without it the drive is kept under DATA_DIR/files`)
    return undefined
  }
  if (url === undefined) return undefined
  let ok = true
  const parsed = new URL(url)
  if (parsed.username !== '' || parsed.password !== '') {
    r.problems.push(`S3_URL must not contain a user name or password (got "${withoutUrlPassword(url)}"); set S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY`)
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
function readStreamingClusters(r: Read): StreamingCluster[] {
  const raw = r.values.STREAMING_CLUSTERS
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
function hashingCost(r: Read): HashingCost {
  const cost = {
    bcryptLogRounds: r.values.AUTH_CORE_BCRYPT_LOG_ROUNDS,
    argon2Iterations: r.values.AUTH_CORE_ARGON2_ITERATIONS,
    argon2MemoryKb: r.values.AUTH_CORE_ARGON2_MEMORY_KB,
    argon2Parallelism: r.values.AUTH_CORE_ARGON2_PARALLELISM,
  }
  if (cost.argon2MemoryKb < 8 * cost.argon2Parallelism) {
    r.problems.push(`AUTH_CORE_ARGON2_MEMORY_KB must be at least 8 × AUTH_CORE_ARGON2_PARALLELISM (${8 * cost.argon2Parallelism}; got ${cost.argon2MemoryKb})`)
  }
  return cost
}

export function loadConfig(env: Env = process.env): Config {
  const r: Read = readVariables(env)
  const v = r.values
  const { NODE_ENV: nodeEnv, PORT: port, API_PORT: apiPort, RATE_LIMIT_MAX: rateLimitMax } = v
  const config: Config = {
    nodeEnv,
    host: v.HOST,
    port,
    apiHost: v.API_HOST,
    apiPort,
    dataDir: path.resolve(v.DATA_DIR),
    databaseUrl: v.DATABASE_URL,
    upstreamApiUrl: v.UPSTREAM_API_URL,
    authCoreUrl: v.AUTH_CORE_URL,
    authCoreHost: v.AUTH_CORE_HOST,
    authCorePort: v.AUTH_CORE_PORT,
    authCoreApiKeys: undefined,
    authCoreOpen: false,
    authCoreSecret: v.AUTH_CORE_SECRET,
    authCorePasswordHashing: v.AUTH_CORE_PASSWORD_HASHING,
    authCoreHashing: hashingCost(r),
    redisUrl: v.REDIS_URL,
    appUrl: v.APP_URL ?? `http://localhost:${port}`,
    logLevel: v.LOG_LEVEL,
    rateLimitMax,
    rateLimitAccountMax: v.RATE_LIMIT_ACCOUNT_MAX ?? Math.ceil(rateLimitMax / 10),
    trustProxy: false,
    buildId: v.BUILD_ID,
    operatorToken: v.OPERATOR_TOKEN,
    operatorName: v.OPERATOR_NAME,
    contactEmail: v.CONTACT_EMAIL,
    upstream: {
      connectTimeoutMs: v.UPSTREAM_CONNECT_TIMEOUT_MS,
      headersTimeoutMs: v.UPSTREAM_HEADERS_TIMEOUT_MS,
      bodyTimeoutMs: v.UPSTREAM_BODY_TIMEOUT_MS,
    },
    shutdownTimeoutMs: v.SHUTDOWN_TIMEOUT_MS,
    shutdownReadinessDelayMs: v.SHUTDOWN_READINESS_DELAY_MS,
    overload: {
      eventLoopDelayMs: v.OVERLOAD_EVENT_LOOP_DELAY_MS,
      maxInFlight: v.OVERLOAD_MAX_IN_FLIGHT,
      pressureInFlight: v.OVERLOAD_PRESSURE_IN_FLIGHT,
    },
    idleTimeoutMs: v.IDLE_TIMEOUT_MS,
    smtpUrl: v.SMTP_URL,
    mailFrom: v.MAIL_FROM ?? `Softshelf <no-reply@${mailDomain(v.APP_URL)}>`,
    login: {
      maxAttempts: v.LOGIN_MAX_ATTEMPTS,
      windowMinutes: v.LOGIN_WINDOW_MINUTES,
      blockMinutes: v.LOGIN_BLOCK_MINUTES,
      waitMs: v.LOGIN_WAIT_MS,
    },
    authRateLimitMax: v.AUTH_RATE_LIMIT_MAX,
    providers: { google: undefined, github: undefined, oidc: undefined },
    support: {
      botUrl: v.SUPPORT_BOT_URL,
      chatUrl: v.SUPPORT_CHAT_URL,
      chatWidgetScriptUrl: v.CHAT_WIDGET_SCRIPT_URL,
      tagManagerScriptUrl: v.TAG_MANAGER_SCRIPT_URL,
    },
    files: {
      quotaBytes: v.FILES_QUOTA_BYTES,
      maxFileBytes: v.FILES_MAX_FILE_BYTES,
      s3: undefined,
    },
    streaming: {
      clusters: [],
      // A grant is short-lived; the page asks again for a new one after this.
      assignmentMinutes: v.STREAMING_ASSIGNMENT_MINUTES,
    },
    sentry: undefined,
    stripe: undefined,
    catalogueFeeds: { feeds: [], intervalMs: v.CATALOGUE_FEED_INTERVAL, maxBytes: v.CATALOGUE_FEED_MAX_BYTES, timeoutMs: v.CATALOGUE_FEED_TIMEOUT },
  }
  config.files.s3 = readS3(r)
  config.streaming.clusters = readStreamingClusters(r)
  config.sentry = readSentry(r, nodeEnv)
  config.stripe = readStripe(r)
  config.catalogueFeeds = readCatalogueFeeds(r)
  config.providers.google = clientPair(r, 'GOOGLE')
  config.providers.github = clientPair(r, 'GITHUB')
  const oidc = clientPair(r, 'OIDC')
  const issuer = v.OIDC_ISSUER
  if (oidc && !issuer) r.problems.push('OIDC_ISSUER is required with OIDC_CLIENT_ID (the provider\'s issuer URL; its /.well-known/openid-configuration is read)')
  if (oidc && issuer) config.providers.oidc = { ...oidc, issuer, name: v.OIDC_NAME }

  const trustProxy = parseTrustProxy(v.TRUST_PROXY)
  if ('problem' in trustProxy) r.problems.push(trustProxy.problem)
  else config.trustProxy = trustProxy.setting
  const apiKeys = v.AUTH_CORE_API_KEYS
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

/** The roles a process runs: everything (the embedded default) or one service alone. */
export const ROLES = ['all', 'bff', 'api', 'authcore'] as const
export type Role = (typeof ROLES)[number]

/**
 * What the configuration lacks for `role` (empty when nothing): the BFF must send mail somewhere a
 * person can read it (mailProblem), and an auth core running outside the embedded default needs
 * the keys its callers will bring (AUTH_CORE_API_KEYS) — the embedded one makes its own.
 */
export function roleProblems(config: Config, role: Role): string[] {
  const problems: string[] = []
  const runsBff = role === 'bff' || role === 'all'
  const runsAuthCore = role === 'authcore' || (role === 'all' && !config.authCoreUrl)
  const embedded = role === 'all' && !config.databaseUrl
  const mail = runsBff ? mailProblem(config) : undefined
  if (mail) problems.push(mail)
  if (runsAuthCore && !config.authCoreApiKeys && !config.authCoreOpen && !embedded) {
    problems.push(
      'AUTH_CORE_API_KEYS is required when the auth core runs outside the embedded default (comma-separated keys of 20+ characters of A–Z a–z 0–9 = -, given to every BFF and API too); AUTH_CORE_API_KEYS=none runs it without keys (not recommended)',
    )
  }
  return problems
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
