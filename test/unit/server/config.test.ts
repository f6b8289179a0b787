import t from 'tap'
import { ConfigError, DEFAULT_READINESS_DELAY_MS, authCoreUrlOf, loadConfig, outsideOrigins, publicConfig, mailProblem, readinessDelayMs } from '../../../server/config.ts'
import { Failover, splitCoreUrls } from '../../../server/http/core-urls.ts'

t.test('RATE_LIMIT_ACCOUNT_MAX follows RATE_LIMIT_MAX unless set', async (t) => {
  t.equal(loadConfig({ RATE_LIMIT_MAX: '95' }).rateLimitAccountMax, 10)
  t.equal(loadConfig({ RATE_LIMIT_MAX: '95', RATE_LIMIT_ACCOUNT_MAX: '7' }).rateLimitAccountMax, 7)
  t.throws(() => loadConfig({ RATE_LIMIT_ACCOUNT_MAX: '0' }), /RATE_LIMIT_ACCOUNT_MAX must be a whole number from 1/)
})

t.test('defaults need no environment at all', async (t) => {
  const config = loadConfig({})
  t.equal(config.port, 3000)
  t.equal(config.host, '0.0.0.0')
  t.equal(config.apiPort, 3001)
  t.equal(config.apiHost, '127.0.0.1')
  t.equal(config.rateLimitMax, 3000, 'per address: a school or an office (decision 027)')
  t.equal(config.rateLimitAccountMax, 300, 'per signed-in account: a tenth of the address')
  t.equal(config.appUrl, 'http://localhost:3000')
  t.equal(config.databaseUrl, undefined)
  t.equal(config.trustProxy, false)
  t.match(config.dataDir, /data$/)
})

t.test('every bad value is reported by name, with what is expected', async (t) => {
  try {
    loadConfig({ PORT: 'abc', RATE_LIMIT_MAX: '0', DATABASE_URL: 'mysql://u:secret@h/db', LOG_LEVEL: 'loud', NODE_ENV: 'prod' })
    t.fail('should throw')
  } catch (error) {
    t.ok(error instanceof ConfigError)
    const message = (error as Error).message
    t.match(message, /PORT must be a whole number from 0 to 65535 \(got "abc"\)/)
    t.match(message, /RATE_LIMIT_MAX must be a whole number from 1/)
    t.match(message, /DATABASE_URL must be a URL starting with postgres: or postgresql:/)
    t.match(message, /LOG_LEVEL must be one of fatal, error/)
    t.match(message, /NODE_ENV must be one of development, production, test/)
    t.notMatch(message, /secret/, 'a password in a URL is never echoed')
  }
})

t.test('load shedding and the idle timeout: defaults, off switches and bounds', async (t) => {
  const defaults = loadConfig({})
  t.same(defaults.overload, { eventLoopDelayMs: 50, maxInFlight: 128, pressureInFlight: 16 })
  t.equal(defaults.idleTimeoutMs, 60_000)
  t.same(loadConfig({ OVERLOAD_EVENT_LOOP_DELAY_MS: '0', OVERLOAD_MAX_IN_FLIGHT: '0', OVERLOAD_PRESSURE_IN_FLIGHT: '0' }).overload, { eventLoopDelayMs: 0, maxInFlight: 0, pressureInFlight: 0 }, '0 turns each off')
  t.throws(() => loadConfig({ OVERLOAD_EVENT_LOOP_DELAY_MS: '-1' }), /OVERLOAD_EVENT_LOOP_DELAY_MS must be a whole number from 0/)
  t.throws(() => loadConfig({ OVERLOAD_MAX_IN_FLIGHT: 'many' }), /OVERLOAD_MAX_IN_FLIGHT must be a whole number/)
  t.throws(() => loadConfig({ IDLE_TIMEOUT_MS: '10' }), /IDLE_TIMEOUT_MS must be a whole number from 1000/)
})

t.test('SHUTDOWN_READINESS_DELAY_MS: 0 for the embedded default, the balancer\'s default for a role alone, within the shutdown timeout', async (t) => {
  t.equal(readinessDelayMs(loadConfig({}), 'all'), 0, 'one process, no balancer in front')
  t.equal(readinessDelayMs(loadConfig({}), 'bff'), DEFAULT_READINESS_DELAY_MS, 'a BFF alone is behind a balancer')
  t.equal(readinessDelayMs(loadConfig({}), 'api'), DEFAULT_READINESS_DELAY_MS)
  t.equal(readinessDelayMs(loadConfig({ SHUTDOWN_TIMEOUT_MS: '3000' }), 'bff'), 1_500, 'never more than half the shutdown timeout by default')
  t.equal(readinessDelayMs(loadConfig({ SHUTDOWN_READINESS_DELAY_MS: '0' }), 'bff'), 0, 'as set')
  t.equal(readinessDelayMs(loadConfig({ SHUTDOWN_READINESS_DELAY_MS: '2500' }), 'all'), 2_500)
  t.equal(readinessDelayMs(loadConfig({ SHUTDOWN_READINESS_DELAY_MS: '7000' }), 'bff'), 7_000, 'up to the timeout less the drain')
  t.throws(() => loadConfig({ SHUTDOWN_READINESS_DELAY_MS: '7001' }), /SHUTDOWN_READINESS_DELAY_MS must leave 3000 ms of SHUTDOWN_TIMEOUT_MS \(10000\) for the drain/)
  t.doesNotThrow(() => loadConfig({ SHUTDOWN_READINESS_DELAY_MS: '20000', SHUTDOWN_TIMEOUT_MS: '30000' }))
  t.throws(() => loadConfig({ SHUTDOWN_READINESS_DELAY_MS: 'soon' }), /SHUTDOWN_READINESS_DELAY_MS must be a whole number/)
})

t.test('TRUST_PROXY accepts hop counts and address lists, nothing else', async (t) => {
  t.equal(loadConfig({}).trustProxy, false)
  t.equal(loadConfig({ TRUST_PROXY: 'false' }).trustProxy, false)
  t.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true)
  t.equal(loadConfig({ TRUST_PROXY: '0' }).trustProxy, false, 'no hop is no proxy')
  t.equal(loadConfig({ TRUST_PROXY: '1' }).trustProxy, 1)
  t.equal(loadConfig({ TRUST_PROXY: '10' }).trustProxy, 10)
  t.equal(loadConfig({ TRUST_PROXY: '10.0.0.0/8,127.0.0.1' }).trustProxy, '10.0.0.0/8,127.0.0.1')
  t.equal(loadConfig({ TRUST_PROXY: ' 10.0.0.0/8 , ::1, fd00::/8, 192.168.0.0/255.255.0.0 ' }).trustProxy, '10.0.0.0/8,::1,fd00::/8,192.168.0.0/255.255.0.0')
  t.equal(loadConfig({ TRUST_PROXY: 'loopback,uniquelocal' }).trustProxy, 'loopback,uniquelocal', 'proxy-addr\'s names for ranges')
  // Refused at start rather than started with a setting that trusts something else.
  for (const value of ['everyone', '11', '1.5', '10.1', '10.0.0.0/33', '10.0.0.0/8/8', '::g', '10.0.0.1,', '10.0.0.1,,::1', 'True', '-1', '1e2']) {
    t.throws(() => loadConfig({ TRUST_PROXY: value }), /TRUST_PROXY must be false, true, a hop count from 0 to 10, or a comma-separated list/, value)
  }
})

t.test('the browser sees only the public allow-list', async (t) => {
  const config = loadConfig({
    DATABASE_URL: 'postgres://u:pw@localhost/db',
    OPERATOR_TOKEN: 'op-secret',
    AUTH_CORE_SECRET: 'core-secret-core-secret-core-secret-0123',
    GITHUB_CLIENT_ID: 'gh-client-id',
    GITHUB_CLIENT_SECRET: 'gh-client-secret',
  })
  const exposed = JSON.stringify(publicConfig(config))
  t.notMatch(exposed, /pw|op-secret|postgres|core-secret|gh-client/)
  t.same(publicConfig(config).providers, [{ id: 'github', name: 'GitHub' }], 'a configured provider is offered by id and name only')
  t.same(Object.keys(publicConfig(config)).sort(), ['appUrl', 'contactEmail', 'errorReporting', 'operatorName', 'providers', 'streaming', 'support'])
})

t.test('streaming (issue 27): the browser learns whether clusters are configured, never which', async (t) => {
  t.equal(publicConfig(loadConfig({})).streaming, false, 'unset: not offered')
  t.equal(publicConfig(loadConfig({ STREAMING_CLUSTERS: '[]' })).streaming, false, 'an empty list: not offered')
  const cluster = { id: 'fra-1', region: 'eu-central', url: 'https://fra-1.stream.example.com', capacity: 20 }
  const exposed = publicConfig(loadConfig({ STREAMING_CLUSTERS: JSON.stringify([cluster]) }))
  t.equal(exposed.streaming, true, 'configured: offered')
  t.notMatch(JSON.stringify(exposed), /fra-1/, 'the clusters stay on the server')
})

t.test('the auth core: a secret is required with a real database, API keys are checked', async (t) => {
  t.throws(() => loadConfig({ DATABASE_URL: 'postgres://u:pw@localhost/db' }), /AUTH_CORE_SECRET is required when DATABASE_URL is set/)
  t.doesNotThrow(() => loadConfig({ DATABASE_URL: 'postgres://u:pw@localhost/db', AUTH_CORE_URL: 'http://core.internal:3567' }), 'not when the core runs elsewhere')
  t.throws(() => loadConfig({ AUTH_CORE_SECRET: 'short' }), /AUTH_CORE_SECRET must be at least 32 characters/)
  t.throws(() => loadConfig({ AUTH_CORE_API_KEYS: 'tiny' }), /AUTH_CORE_API_KEYS: .*at least 20 characters/)
  const config = loadConfig({ AUTH_CORE_API_KEYS: 'first-key-0123456789abc, second-key-0123456789abc', AUTH_CORE_PORT: '4567' })
  t.same(config.authCoreApiKeys, ['first-key-0123456789abc', 'second-key-0123456789abc'])
  t.equal(config.authCorePort, 4567)
  t.equal(loadConfig({}).authCoreUrl, undefined)
  // No keys is only ever an explicit choice; unset means generated (embedded) or refused at start.
  t.match(loadConfig({ AUTH_CORE_API_KEYS: 'none' }), { authCoreOpen: true, authCoreApiKeys: undefined })
  t.match(loadConfig({}), { authCoreOpen: false, authCoreApiKeys: undefined })
})

t.test('AUTH_CORE_URL takes one core or several separated by ";", each checked', async (t) => {
  t.equal(loadConfig({ AUTH_CORE_URL: 'http://core.internal:3567/' }).authCoreUrl, 'http://core.internal:3567')
  const two = loadConfig({ AUTH_CORE_URL: ' http://core-1:3567/ ; https://core-2.example.com;' })
  t.equal(two.authCoreUrl, 'http://core-1:3567;https://core-2.example.com', 'one canonical spelling, as supertokens-node reads it')
  t.equal(authCoreUrlOf(two), 'http://core-1:3567;https://core-2.example.com')
  t.same(splitCoreUrls(authCoreUrlOf(two)), ['http://core-1:3567', 'https://core-2.example.com'])
  t.equal(authCoreUrlOf(loadConfig({ AUTH_CORE_PORT: '4567' })), 'http://127.0.0.1:4567', 'unset: the embedded core')
  t.throws(() => loadConfig({ AUTH_CORE_URL: 'http://core-1:3567;ftp://core-2' }), /AUTH_CORE_URL must be a URL starting with http: or https:, or several separated by ";" \(got "ftp:\/\/core-2"\)/)
  t.throws(() => loadConfig({ AUTH_CORE_URL: 'http://core-1:3567;not a url' }), /\(got "not a url"\)/)
  t.throws(() => loadConfig({ AUTH_CORE_URL: ';;' }), /AUTH_CORE_URL must be a URL/)
  t.throws(() => loadConfig({ AUTH_CORE_URL: 'http://core-1:3567;http://core-1:3567/' }), /AUTH_CORE_URL names the same URL twice/)
  try {
    loadConfig({ AUTH_CORE_URL: 'http://core-1:3567;smtp://user:secret@core-2' })
    t.fail('should throw')
  } catch (error) {
    t.notMatch((error as Error).message, /secret/, 'a password in a URL is never echoed')
  }
})

t.test('the local mailbox is for a loopback http:// APP_URL only: anything else needs SMTP_URL (issue 17)', async (t) => {
  for (const appUrl of [undefined, 'http://localhost:3000', 'http://127.0.0.1:8080', 'http://[::1]:3000', 'http://LOCALHOST']) {
    t.equal(mailProblem(loadConfig(appUrl ? { APP_URL: appUrl } : {})), undefined, `${appUrl ?? 'the default APP_URL'}: the local mailbox`)
  }
  for (const appUrl of ['https://localhost:3000', 'https://shelf.example.com', 'http://shelf.example.com', 'http://192.168.1.20:3000', 'http://localhost.example.com', 'http://127.0.0.1.nip.io']) {
    const problem = mailProblem(loadConfig({ APP_URL: appUrl }))
    t.match(problem, /SMTP_URL is required/, appUrl)
    t.match(problem, /APP_URL/, `${appUrl}: says why`)
    t.equal(mailProblem(loadConfig({ APP_URL: appUrl, SMTP_URL: 'smtp://mail:25' })), undefined, `${appUrl} with SMTP_URL`)
  }
})

t.test('accounts: mail, login limits and identity providers', async (t) => {
  const defaults = loadConfig({ APP_URL: 'https://shelf.example.com' })
  t.same(defaults.login, { maxAttempts: 5, windowMinutes: 15, blockMinutes: 15, waitMs: 5000 })
  t.equal(defaults.authRateLimitMax, 20)
  t.equal(defaults.mailFrom, 'Softshelf <no-reply@shelf.example.com>')
  t.same(defaults.providers, { google: undefined, github: undefined, oidc: undefined })
  t.match(mailProblem(defaults), /SMTP_URL/, 'an https APP_URL is a deployment: it needs real mail')
  const deployed = loadConfig({ DATABASE_URL: 'postgres://u:pw@localhost/db', AUTH_CORE_URL: 'http://core.internal:3567' })
  t.match(mailProblem(deployed), /SMTP_URL is required when DATABASE_URL is set/)
  t.equal(mailProblem(loadConfig({ DATABASE_URL: 'postgres://u:pw@localhost/db', AUTH_CORE_URL: 'http://core:3567', SMTP_URL: 'smtp://mail:25' })), undefined)
  t.throws(() => loadConfig({ SMTP_URL: 'http://mail' }), /SMTP_URL must be a URL starting with smtp: or smtps:/)
  t.throws(() => loadConfig({ LOGIN_MAX_ATTEMPTS: '0' }), /LOGIN_MAX_ATTEMPTS must be a whole number from 1/)
  t.throws(() => loadConfig({ GITHUB_CLIENT_ID: 'id-only' }), /GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET must be set together/)
  t.throws(() => loadConfig({ OIDC_CLIENT_ID: 'c', OIDC_CLIENT_SECRET: 's' }), /OIDC_ISSUER is required/)
  const providers = loadConfig({ GOOGLE_CLIENT_ID: 'g', GOOGLE_CLIENT_SECRET: 'gs', OIDC_CLIENT_ID: 'c', OIDC_CLIENT_SECRET: 's', OIDC_ISSUER: 'http://127.0.0.1:4000/' }).providers
  t.same(providers, { google: { clientId: 'g', clientSecret: 'gs' }, github: undefined, oidc: { clientId: 'c', clientSecret: 's', issuer: 'http://127.0.0.1:4000', name: 'OpenID Connect' } })
})

t.test('support (issue 11): chat links and outside scripts are off until configured', async (t) => {
  const none = loadConfig({})
  t.same(none.support, { botUrl: undefined, chatUrl: undefined, chatWidgetScriptUrl: undefined, tagManagerScriptUrl: undefined })
  t.same(publicConfig(none).support, { botUrl: null, chatUrl: null, chatWidgetScriptUrl: null, tagManagerScriptUrl: null })
  t.same(outsideOrigins(none), { chatWidget: undefined, tagManager: undefined })

  const all = loadConfig({
    SUPPORT_BOT_URL: 'https://t.me/softshelf_bot',
    SUPPORT_CHAT_URL: 'https://wa.me/15550100000?text=Hello',
    CHAT_WIDGET_SCRIPT_URL: 'https://chat.example.com/loader.js?key=abc',
    TAG_MANAGER_SCRIPT_URL: 'https://tags.example.net:8443/gtm.js?id=GTM-1',
  })
  t.same(publicConfig(all).support, {
    botUrl: 'https://t.me/softshelf_bot',
    chatUrl: 'https://wa.me/15550100000?text=Hello',
    chatWidgetScriptUrl: 'https://chat.example.com/loader.js?key=abc',
    tagManagerScriptUrl: 'https://tags.example.net:8443/gtm.js?id=GTM-1',
  }, 'the browser gets them as configured')
  t.same(outsideOrigins(all), { chatWidget: 'https://chat.example.com', tagManager: 'https://tags.example.net:8443' })
  // Scripts may come from this machine over http (development, the browser tests); links may not.
  t.equal(loadConfig({ CHAT_WIDGET_SCRIPT_URL: 'http://127.0.0.1:3216/chat-widget.js' }).support.chatWidgetScriptUrl, 'http://127.0.0.1:3216/chat-widget.js')
  t.equal(loadConfig({ TAG_MANAGER_SCRIPT_URL: 'http://localhost:3217/tm.js' }).support.tagManagerScriptUrl, 'http://localhost:3217/tm.js')
})

t.test('support (issue 11): a bad address stops the start and says which variable and why', async (t) => {
  const problems = (env: Record<string, string>) => {
    try {
      loadConfig(env)
    } catch (error) {
      return (error as ConfigError).problems
    }
    return []
  }
  t.same(problems({ SUPPORT_BOT_URL: 't.me/softshelf_bot' }), ['SUPPORT_BOT_URL must be an https:// URL (got "t.me/softshelf_bot")'])
  t.same(problems({ SUPPORT_CHAT_URL: 'http://wa.me/1555' }), ['SUPPORT_CHAT_URL must be an https:// URL (got "http://wa.me/1555")'])
  t.same(problems({ SUPPORT_CHAT_URL: 'javascript:alert(1)' }), ['SUPPORT_CHAT_URL must be an https:// URL (got "javascript:alert(1)")'])
  t.same(problems({ SUPPORT_BOT_URL: 'http://127.0.0.1:3000/bot' }), ['SUPPORT_BOT_URL must be an https:// URL (got "http://127.0.0.1:3000/bot")'], 'links: no http, not even on loopback')
  const scriptProblem = 'must be an https:// URL (http:// only on this machine: localhost, 127.0.0.1, [::1])'
  t.same(problems({ CHAT_WIDGET_SCRIPT_URL: 'http://chat.example.com/loader.js' }), [`CHAT_WIDGET_SCRIPT_URL ${scriptProblem} (got "http://chat.example.com/loader.js")`])
  t.same(problems({ TAG_MANAGER_SCRIPT_URL: 'data:text/javascript,alert(1)' }), [`TAG_MANAGER_SCRIPT_URL ${scriptProblem} (got "data:text/javascript,alert(1)")`])
  t.same(problems({ TAG_MANAGER_SCRIPT_URL: 'not a url' }), [`TAG_MANAGER_SCRIPT_URL ${scriptProblem} (got "not a url")`])
  const withPassword = problems({ CHAT_WIDGET_SCRIPT_URL: 'https://user:s3cret@chat.example.com/loader.js' })
  t.same(withPassword, ['CHAT_WIDGET_SCRIPT_URL must not contain a user name or password (got "https://user:***@chat.example.com/loader.js")'], 'and the password is not echoed')
  t.equal(problems({ SUPPORT_BOT_URL: 'nope', CHAT_WIDGET_SCRIPT_URL: 'nope' }).length, 2, 'all reported at once')
})

t.test('the drive\'s quota and largest file (issue 12): 5 GiB and 2 GiB unless set, whole positive byte counts', async (t) => {
  t.same(loadConfig({}).files, { quotaBytes: 5 * 1024 ** 3, maxFileBytes: 2 * 1024 ** 3, s3: undefined })
  t.same(loadConfig({ FILES_QUOTA_BYTES: '1073741824', FILES_MAX_FILE_BYTES: '1048576' }).files, { quotaBytes: 1024 ** 3, maxFileBytes: 1024 ** 2, s3: undefined })
  t.throws(() => loadConfig({ FILES_QUOTA_BYTES: '5GB' }), /FILES_QUOTA_BYTES must be a whole number from 1 to/)
  t.throws(() => loadConfig({ FILES_MAX_FILE_BYTES: '0' }), /FILES_MAX_FILE_BYTES must be a whole number from 1 to/)
  t.throws(() => loadConfig({ FILES_MAX_FILE_BYTES: '-1' }), /FILES_MAX_FILE_BYTES/)
})

t.test('the drive in an S3 bucket (issue 12): S3_URL turns it on, with its bucket and key pair; the secret is never echoed', async (t) => {
  t.equal(loadConfig({}).files.s3, undefined, 'a directory under DATA_DIR/files unless S3_URL is set')
  const env = { S3_URL: 'https://s3.example.com/', S3_BUCKET: 'drive-files', S3_ACCESS_KEY_ID: 'AKIDEXAMPLE', S3_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI-secret' }
  t.same(loadConfig(env).files.s3, { url: 'https://s3.example.com', bucket: 'drive-files', region: 'us-east-1', accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI-secret', prefix: undefined })
  t.match(loadConfig({ ...env, S3_REGION: 'eu-central-1', S3_PREFIX: '/softshelf/drive/' }).files.s3, { region: 'eu-central-1', prefix: 'softshelf/drive' })

  const problems = (extra: Record<string, string>) => {
    try {
      loadConfig(extra)
      return ''
    } catch (error) {
      t.ok(error instanceof ConfigError)
      return (error as Error).message
    }
  }
  t.match(problems({ S3_URL: 'https://s3.example.com' }), /S3_BUCKET, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY are required when S3_URL is set/)
  t.match(problems({ ...env, S3_SECRET_ACCESS_KEY: '' }), /S3_SECRET_ACCESS_KEY is required when S3_URL is set/)
  t.match(problems({ ...env, S3_URL: 'ftp://s3.example.com' }), /S3_URL must be a URL starting with http: or https:/)
  const inUrl = problems({ ...env, S3_URL: 'https://AKIDEXAMPLE:wJalrXUtnFEMI-secret@s3.example.com' })
  t.match(inUrl, /S3_URL must not contain a user name or password/)
  t.notMatch(inUrl, /wJalrXUtnFEMI/, 'the secret is not echoed')
  t.match(problems({ ...env, S3_BUCKET: 'Bad_Bucket' }), /S3_BUCKET must be a bucket name/)
  t.match(problems({ ...env, S3_REGION: 'Europe!' }), /S3_REGION must be a region name/)
  t.match(problems({ ...env, S3_PREFIX: 'drive/../other' }), /S3_PREFIX must be a folder name/)
  t.match(problems({ ...env, S3_PREFIX: 'a drive' }), /S3_PREFIX must be a folder name/)
  t.match(problems({ S3_BUCKET: 'drive-files', S3_SECRET_ACCESS_KEY: 'x' }), /S3_URL is required with S3_BUCKET, S3_SECRET_ACCESS_KEY/, 'half a set-up is not silently the disk')
  t.notMatch(JSON.stringify(publicConfig(loadConfig(env))), /wJalrXUtnFEMI|AKIDEXAMPLE|s3\.example/, 'nothing of it reaches the browser')
})

t.test('Failover: the next item while one fails; the one that answered last is asked first; a verdict is not a failure', async (t) => {
  const failover = new Failover(['a', 'b', 'c'])
  const asked: string[] = []
  const down = new Set(['a'])
  const ask = (item: string) => {
    asked.push(item)
    return down.has(item) ? Promise.reject(new Error(`${item} is down`)) : Promise.resolve(item)
  }
  t.equal(await failover.attempt(ask), 'b')
  t.same(asked, ['a', 'b'])
  asked.length = 0
  t.equal(await failover.attempt(ask), 'b', 'starts with the one that answered last')
  t.same(asked, ['b'])
  down.add('b')
  asked.length = 0
  t.equal(await failover.attempt(ask), 'c')
  t.same(asked, ['b', 'c'])
  down.add('c')
  await t.rejects(failover.attempt(ask), /b is down/, 'all down: the last failure')
  await t.rejects(failover.attempt(ask, () => false), /c is down/, 'a failure fallOver refuses is thrown at once')
  t.throws(() => new Failover([]), /at least one/)
})
