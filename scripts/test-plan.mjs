// Which tap files run on PostgreSQL too (scripts/test.mjs). The tap suite runs once on PGlite; CI
// runs it a second time on PostgreSQL for what can behave differently there: the SQL. A file that
// never opens a database, or that only stands a stack up to check HTTP behaviour (headers, cookies,
// limits, proxying, pages' language, logs, error shapes), gives the same answer on both and runs
// on PGlite only. The rule, conservative:
//   - every file under test/integration/{api,authcore,db,backup,scripts} runs on both (stores,
//     migrations, the API's and the core's queries, backup and restore, the command-line tools);
//   - a BFF file runs on PGlite only when it is listed below, and a listed file has no SQL of its own
//     (no query, exec or transaction), no second connection or probed database, no lock, and fires
//     no concurrent requests (which meet a pool on PostgreSQL and one connection on PGlite);
//     test/unit/test-plan.test.ts checks that for every listed file;
//   - whatever lists data through the API's queries (catalogue, library, notifications, audit,
//     console lists), counts failures or keeps state in the database (sign-in blocking, mail quota
//     and outbox, sessions and devices, roles, profile, export, uploads), reports the pool, or
//     probes and loses the database stays on both, even without SQL of its own.
// Moving a file here is a decision to write in its commit message.

/** Run on PGlite only: they never open a database, or open it as the embedded default whatever TEST_DATABASE_URL says. */
export const databaseFree = ['test/unit/**', 'test/integration/process.test.ts', 'test/integration/api/file-storage.test.ts', 'test/integration/bff/upstream-streamed.test.ts', 'test/integration/bff/slow-clients.test.ts']

/** Run on PGlite only: a stack on a database as a fixture, and only HTTP behaviour asserted (see the rule above). */
export const databaseNeutral = [
  'test/integration/bff/auth-security.test.ts', // cross-site writes refused on every /auth and /api route
  'test/integration/bff/balancer.test.ts', // deploy/haproxy.cfg: HAProxy's own answers, a planned stop
  'test/integration/bff/checkout-not-configured.test.ts', // the page without Stripe, nothing logged
  'test/integration/bff/compression.test.ts', // Content-Encoding
  'test/integration/bff/dev-mail.test.ts', // the dev mailbox answers loopback only
  'test/integration/bff/dev-mode.test.ts', // pages through Vite
  'test/integration/bff/error-reporting.test.ts', // Sentry events and the tunnel
  'test/integration/bff/errors-and-logs.test.ts', // error shapes and log hygiene
  'test/integration/bff/logout-page.test.ts', // the cross-site logout question and the page cache
  'test/integration/bff/openapi.test.ts', // the OpenAPI document against the routes
  'test/integration/bff/operator-console.test.ts', // the console's links and its 404 for others
  'test/integration/bff/page-forms.test.ts', // forms without script: redirects, targets, errors in the page
  'test/integration/bff/parser-errors.test.ts', // what the parsers refuse, in the error shape
  'test/integration/bff/proxy.test.ts', // the proxy: headers, micro-cache, path tricks, limits
  'test/integration/bff/proxy-body-limits.test.ts', // 413 before the API
  'test/integration/bff/quiet-background-logs.test.ts', // what an idle app logs
  'test/integration/bff/rate-limit.test.ts', // per-IP and per-account budgets (in memory)
  'test/integration/bff/redis-rate-limit.test.ts', // budgets shared through Redis
  'test/integration/bff/security-headers.test.ts', // CSP, HSTS, nosniff, content types
  'test/integration/bff/shutdown.test.ts', // in-flight requests finish, /readyz fails first
  'test/integration/bff/site-header.test.ts', // the signed-in header
  'test/integration/bff/support-pages.test.ts', // consent banner, chat links, the cookie page
  'test/integration/bff/trust-proxy.test.ts', // TRUST_PROXY through HAProxy
  'test/integration/bff/unknown-tenant.test.ts', // /auth paths with an unknown tenant
  'test/integration/bff/upstream-retry.test.ts', // a cut GET is sent once more, a write is not
]

/** Whether a test file (relative to the project, "/"-separated) is one of the globs: a file, or "folder/**". */
export function inPlan(file, globs) {
  return globs.some((glob) => (glob.endsWith('/**') ? file.startsWith(glob.slice(0, -2)) : file === glob))
}

/** What a database-neutral file must not contain (test/unit/test-plan.test.ts). */
export const notDatabaseNeutral = [
  { pattern: /\.query\(|\.transaction\(|\b(?:db|tx|database|stack\.db)\.exec\(/, why: 'SQL of its own' },
  { pattern: /\bsecondConnection\b|\bprobedDatabase\b/, why: 'a second connection or a probed database' },
  { pattern: /\bLOCK\b|FOR UPDATE|pg_advisory|pg_sleep/, why: 'a lock' },
  { pattern: /Promise\.all(?:Settled)?\((?:(?!flush\(\)).)*$/, why: 'concurrent requests' },
]

/**
 * Files that keep a process of their own when scripts/tap-run.mjs runs the others eight to a
 * process (scripts/tap-group.mjs): the one that takes a minute by itself (it starts the app's
 * processes; grouping saves it nothing), run first so the groups fill the time beside it.
 */
export const ownProcess = ['test/integration/process.test.ts']
