import t from 'tap'
import { CATALOGUE_FEED_DEFAULT_MAX_BYTES, ConfigError, loadConfig, parseDuration } from '../../../server/config.ts'

// CATALOGUE_FEEDS and its interval, limit and timeout, read and checked at start like
// every variable, each bad value named with what is expected.

const problems = (env: Record<string, string>): string => {
  try {
    loadConfig(env)
  } catch (error) {
    if (error instanceof ConfigError) return error.message
    throw error
  }
  return ''
}

t.test('none configured by default: no feed, six hours, 128 MiB, two minutes', async (t) => {
  t.same(loadConfig({}).catalogueFeeds, { feeds: [], intervalMs: 6 * 3_600_000, maxBytes: CATALOGUE_FEED_DEFAULT_MAX_BYTES, timeoutMs: 120_000 })
  t.equal(CATALOGUE_FEED_DEFAULT_MAX_BYTES, 134_217_728)
})

t.test('AppStream and Homebrew feeds: https, http on loopback, files by URL or absolute path', async (t) => {
  const config = loadConfig({
    CATALOGUE_FEEDS:
      ' appstream:https://dl.flathub.org/repo/appstream/x86_64/appstream.xml.gz , homebrew:https://formulae.brew.sh/api/cask.json,appstream:http://127.0.0.1:8080/a.xml,APPSTREAM:/srv/feeds/debian.xml.gz,homebrew:file:///srv/feeds/cask.json,',
  })
  t.same(config.catalogueFeeds.feeds, [
    { name: 'appstream:https://dl.flathub.org/repo/appstream/x86_64/appstream.xml.gz', format: 'appstream', url: 'https://dl.flathub.org/repo/appstream/x86_64/appstream.xml.gz', source: 'appstream:dl.flathub.org' },
    { name: 'homebrew:https://formulae.brew.sh/api/cask.json', format: 'homebrew', url: 'https://formulae.brew.sh/api/cask.json', source: 'homebrew:formulae.brew.sh' },
    { name: 'appstream:http://127.0.0.1:8080/a.xml', format: 'appstream', url: 'http://127.0.0.1:8080/a.xml', source: 'appstream:127.0.0.1' },
    { name: 'appstream:file:///srv/feeds/debian.xml.gz', format: 'appstream', url: 'file:///srv/feeds/debian.xml.gz', source: 'appstream:file' },
    { name: 'homebrew:file:///srv/feeds/cask.json', format: 'homebrew', url: 'file:///srv/feeds/cask.json', source: 'homebrew:file' },
  ])
})

t.test('a bad feed is named with what is expected; a password is never echoed', async (t) => {
  const message = problems({
    CATALOGUE_FEEDS: 'winget:https://example.com/x,appstream:http://feeds.example.com/a.xml,homebrew:https://user:hunter2@example.com/c.json,appstream:relative/path.xml,https://example.com/no-format.xml,appstream:ftp://example.com/a.xml',
  })
  t.match(message, /CATALOGUE_FEEDS: "winget:https:\/\/example.com\/x" must start with appstream: or homebrew: followed by its address/)
  t.match(message, /CATALOGUE_FEEDS: "appstream:http:\/\/feeds.example.com\/a.xml": the address must be an https:\/\/ URL, http:\/\/ only on this machine/)
  t.match(message, /"homebrew:https:\/\/user:\*\*\*@example.com\/c.json": the address must not contain a user name or password/)
  t.match(message, /"appstream:relative\/path.xml": the address must be/)
  t.match(message, /"https:\/\/example.com\/no-format.xml" must start with appstream: or homebrew:/)
  t.match(message, /"appstream:ftp:\/\/example.com\/a.xml": the address must be/)
  t.notMatch(message, /hunter2/)
  t.match(problems({ CATALOGUE_FEEDS: 'appstream:https://a.example/x.xml,appstream:https://a.example/x.xml' }), /CATALOGUE_FEEDS names the feed "appstream:https:\/\/a.example\/x.xml" twice/)
})

t.test('the interval and the timeout: seconds, or with a unit; the limit in bytes', async (t) => {
  t.equal(parseDuration('21600'), 21_600_000)
  t.equal(parseDuration('90s'), 90_000)
  t.equal(parseDuration('30m'), 1_800_000)
  t.equal(parseDuration('6h'), 21_600_000)
  t.equal(parseDuration('1D'), 86_400_000)
  t.equal(parseDuration('6 h'), 21_600_000)
  for (const bad of ['', 'h', '6x', '-5', '1.5h', '6hours']) t.equal(parseDuration(bad), undefined, bad)
  t.match(loadConfig({ CATALOGUE_FEED_INTERVAL: '30m', CATALOGUE_FEED_TIMEOUT: '45', CATALOGUE_FEED_MAX_BYTES: '1048576' }).catalogueFeeds, { intervalMs: 1_800_000, timeoutMs: 45_000, maxBytes: 1_048_576 })
  t.match(problems({ CATALOGUE_FEED_INTERVAL: '10s' }), /CATALOGUE_FEED_INTERVAL must be a duration from 60 s to 168 h: seconds \("21600"\) or with a unit \("90s", "30m", "6h", "1d"\) \(got "10s"\)/)
  t.match(problems({ CATALOGUE_FEED_INTERVAL: 'daily' }), /CATALOGUE_FEED_INTERVAL must be a duration/)
  t.match(problems({ CATALOGUE_FEED_TIMEOUT: '2h' }), /CATALOGUE_FEED_TIMEOUT must be a duration from 1 s to 1 h/)
  t.match(problems({ CATALOGUE_FEED_MAX_BYTES: '100' }), /CATALOGUE_FEED_MAX_BYTES must be a whole number from 1024 to 2147483648 \(got "100"\)/)
})
