import fs from 'node:fs'
import path from 'node:path'
import { expect, test, type Page } from '@playwright/test'
import { eventsOf, type ReceivedEnvelope, type SinkEvent } from '../sentry-sink.ts'
import { hydrated } from './support/accounts.ts'
import { E2E_SENTRY_PORT } from './support/ports.ts'

// /sentry-test raises an error in the browser, the BFF and the API; each reaches the
// local envelope sink (support/services.ts) with the release and environment, the browser's only
// through the BFF's tunnel, and none carries the canary values the page was given.

const SINK = `http://127.0.0.1:${E2E_SENTRY_PORT}`

async function envelopes(): Promise<ReceivedEnvelope[]> {
  return (await (await fetch(`${SINK}/envelopes`)).json()) as ReceivedEnvelope[]
}

/** The event with this id, once the sink has it (the SDKs send in the background). */
async function received(eventId: string): Promise<{ event: SinkEvent; raw: string }> {
  let found: { event: SinkEvent; raw: string } | undefined
  await expect
    .poll(async () => {
      for (const envelope of await envelopes()) {
        const event = eventsOf([envelope]).find((e) => e.event_id === eventId)
        if (event) found = { event, raw: envelope.raw }
      }
      return found !== undefined
    })
    .toBe(true)
  return found!
}

async function buildId(page: Page): Promise<string> {
  return ((await (await page.request.get('/api/version/package-be')).json()) as { buildId: string }).buildId
}

async function raise(page: Page, side: 'browser' | 'bff' | 'api', button: string): Promise<string> {
  await page.getByRole('button', { name: button }).click()
  const outcome = page.getByTestId(`outcome-${side}`)
  await expect(outcome).toHaveAttribute('data-state', 'reported')
  return (await outcome.getByTestId('event-id').textContent()) ?? ''
}

test('each of the three errors reaches the tracker with the release and environment, without canary values', async ({ page, context }) => {
  const release = await buildId(page)
  const toSink: string[] = []
  const tunnel: string[] = []
  page.on('request', (request) => {
    if (request.url().startsWith(SINK)) toSink.push(request.url())
    if (new URL(request.url()).pathname === '/sentry-tunnel') tunnel.push(request.method())
  })
  // Canary values where a careless report would pick them up: a cookie, the query, storage.
  await context.addCookies([{ name: 'canary', value: 'CANARY-COOKIE-1', domain: '127.0.0.1', path: '/' }])
  const response = await page.goto('/sentry-test?token=CANARY-TOKEN-2&email=canary-person%40example.com&password=CANARY-PASSWORD-3')
  expect(response?.headers()['x-robots-tag']).toBe('noindex')
  await expect(page.locator('meta[name="robots"]')).toHaveAttribute('content', 'noindex')
  await hydrated(page)
  await expect(page.getByTestId('release')).toHaveText(release)
  await expect(page.getByTestId('environment')).toHaveText('e2e')

  const browserId = await raise(page, 'browser', 'Raise a browser error')
  const bffId = await raise(page, 'bff', 'Raise a web server error')
  const apiId = await raise(page, 'api', 'Raise an API error')
  expect(new Set([browserId, bffId, apiId]).size).toBe(3)

  const fromBrowser = await received(browserId)
  expect(fromBrowser.event.release).toBe(release)
  expect(fromBrowser.event.environment).toBe('e2e')
  expect(fromBrowser.event.exception?.values?.[0]?.value).toMatch(/raised on purpose in the browser/)
  expect(fromBrowser.raw).not.toMatch(/CANARY|canary-/)
  expect(tunnel).toContain('POST')
  expect(toSink, 'the browser never talks to the tracker itself').toEqual([])

  for (const [id, service] of [
    [bffId, 'bff'],
    [apiId, 'api'],
  ] as const) {
    const { event, raw } = await received(id)
    expect(event.release).toBe(release)
    expect(event.environment).toBe('e2e')
    expect(event.tags?.service).toBe(service)
    expect(event.tags?.request_id).toMatch(/^[0-9a-f-]{36}$/)
    expect(raw).not.toMatch(/CANARY|canary-/)
  }
})

test("a bot's unhandled error is only reported, never shown (spec §8)", async ({ browser }) => {
  const context = await browser.newContext({ userAgent: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' })
  const page = await context.newPage()
  await page.goto('/')
  await hydrated(page)
  const marker = `bot-error-${Date.now()}`
  await page.evaluate((message) => void Promise.reject(new Error(message)), marker)
  await expect
    .poll(async () => eventsOf(await envelopes()).some((event) => event.exception?.values?.[0]?.value === marker))
    .toBe(true)
  await expect(page.getByTestId('error-page')).toHaveCount(0)
  await context.close()
})

for (const lang of ['en', 'pl']) {
  test(`/sentry-test fits a phone and a laptop (${lang}), screenshotted at 390 and 1280 px`, async ({ page, context }) => {
    await context.addCookies([{ name: 'lang', value: lang, domain: '127.0.0.1', path: '/' }])
    await page.goto('/sentry-test')
    await hydrated(page)
    await page.getByTestId('side-api').getByRole('button').click()
    await expect(page.getByTestId('outcome-api')).toHaveAttribute('data-state', 'reported')
    const shots = path.resolve('test-results', 'screens')
    fs.mkdirSync(shots, { recursive: true })
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 })
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
      expect(overflow, `no sideways scrolling at ${width} px`).toBeLessThanOrEqual(0)
      await page.screenshot({ path: path.join(shots, `sentry-test-${lang}-${width}.png`), fullPage: true })
    }
  })
}
