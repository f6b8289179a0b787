import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import AxeBuilder from '@axe-core/playwright'
import { expect, test, type Page } from '@playwright/test'
import { createLocalJWKSet, jwtVerify } from 'jose'
import { E2E_ENV } from '../../playwright.config.ts'
import { hydrated, readyAccount } from './support/accounts.ts'
import { E2E_STREAM_CLUSTER_PORT } from './support/ports.ts'

// /streaming in Chromium: a user with a library program assigns a cluster with a chosen
// layout, opens it — the grant reaches the cluster's page in the fragment, never in a request —
// and stops it; a visitor is sent to log in; with no clusters the page says streaming is off.

const shots = path.resolve('test-results', 'screens')
// The nearest region is suggested from the browser's time zone: a fixed one, so the suggestion is known.
test.use({ timezoneId: 'Europe/Prague' })

/** The stand-in cluster: a page at the configured address, and the request lines it received. */
const clusterRequests: string[] = []
const cluster = http.createServer((request, response) => {
  clusterRequests.push(`${request.method} ${request.url} referer=${request.headers.referer ?? ''}`)
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
  response.end('<!doctype html><html lang="en"><title>Cluster</title><h1>Streaming cluster</h1></html>')
})

test.beforeAll(async () => {
  await new Promise<void>((resolve) => cluster.listen(E2E_STREAM_CLUSTER_PORT, '127.0.0.1', resolve))
})
test.afterAll(async () => {
  await new Promise<void>((resolve) => cluster.close(() => resolve()))
})

async function addToLibrary(page: Page, programId: string): Promise<void> {
  const status = await page.evaluate(async (id) => (await fetch(`/api/user/program/${id}`, { method: 'POST', headers: { rid: 'anti-csrf', 'content-type': 'application/json' }, body: '{}' })).status, programId)
  expect(status).toBe(200)
}

async function openStreaming(page: Page): Promise<void> {
  await page.goto('/streaming')
  await hydrated(page)
}

test('a visitor is sent to log in', async ({ page }) => {
  await page.goto('/streaming')
  await expect(page).toHaveURL(/\/login/)
})

test('a user assigns a cluster with a chosen layout, opens it with the grant, and stops it', async ({ page, baseURL }) => {
  await readyAccount(page, 'streamer')
  await addToLibrary(page, 'blender')
  await addToLibrary(page, 'penpot')
  // Paid, added to the library for free, not bought.
  await addToLibrary(page, 'autocad')
  // Found from the signed-in menu, as a person finds it.
  await page.goto('/@/library')
  await hydrated(page)
  await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Streaming' }).click()
  await expect(page).toHaveURL(/\/streaming$/)
  await expect(page.getByRole('heading', { level: 1, name: 'Stream a program' })).toBeVisible()

  const program = page.getByLabel('Program')
  await expect(program.locator('option')).toHaveText(['Blender'], { useInnerText: true })
  // Not offered, and the page says why and where to buy it.
  const unowned = page.getByTestId('streaming-unowned')
  await expect(unowned.getByRole('heading', { name: 'Buy these to stream them' })).toBeVisible()
  await expect(unowned).toContainText('you have not bought them')
  await expect(unowned.getByRole('listitem')).toHaveText(['AutoCAD Buy'], { useInnerText: true })
  await expect(unowned.getByRole('link', { name: 'Buy AutoCAD' })).toHaveAttribute('href', '/@/programs/autocad')
  await expect(page.getByLabel('Keyboard layout')).toHaveValue('en-US')
  await page.getByLabel('Region').selectOption('us-east')
  await page.getByLabel('Keyboard layout').selectOption({ label: 'German (QWERTZ)' })
  // Keyboard only: focus the button and press Enter.
  await page.getByRole('button', { name: 'Start streaming' }).focus()
  await page.keyboard.press('Enter')

  const card = page.getByTestId('streaming-assignment')
  await expect(card.getByRole('heading', { name: 'Your stream is ready' })).toBeVisible()
  await expect(page.getByTestId('streaming-cluster')).toHaveText('local-us')
  await expect(page.getByTestId('streaming-region')).toHaveText('us-east')
  await expect(page.getByTestId('streaming-layout')).toHaveText('German (QWERTZ)')
  expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([])

  const [popup] = await Promise.all([page.waitForEvent('popup'), page.getByTestId('streaming-open').click()])
  await popup.waitForLoadState()
  await expect(popup.getByRole('heading', { name: 'Streaming cluster' })).toBeVisible()
  const opened = new URL(popup.url())
  expect(opened.pathname).toBe('/us/play')
  const grant = new URLSearchParams(opened.hash.slice(1)).get('grant')!
  // The cluster verifies the grant with nothing but the published keys.
  const jwks = createLocalJWKSet(await (await fetch(`${baseURL}/api/streaming/jwks`)).json())
  const { payload } = await jwtVerify(grant, jwks, { audience: 'local-us', algorithms: ['ES256'] })
  expect(payload).toMatchObject({ program: 'blender', cluster: 'local-us', layout: 'de-DE' })
  // What reached the cluster's server: the path, no grant and no referrer.
  expect(clusterRequests.filter((line) => line.startsWith('GET /us/play'))).toEqual(['GET /us/play referer='])
  await popup.close()

  // The assignment and the layout are still there after a reload.
  await openStreaming(page)
  await expect(page.getByTestId('streaming-cluster')).toHaveText('local-us')
  await page.getByRole('button', { name: 'Stop streaming' }).click()
  await expect(page.getByTestId('streaming-ended')).toContainText('Your stream has ended')
  await expect(page.getByLabel('Keyboard layout')).toHaveValue('de-DE')
  expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([])
})

for (const lang of ['en', 'de']) {
  test(`the page at 390 and 1280 px (${lang}), form and assignment, passes axe`, async ({ page }) => {
    await readyAccount(page, `stream-shot-${lang}`)
    await addToLibrary(page, 'blender')
    // A paid one not bought: listed apart, with the way to buy it.
    await addToLibrary(page, 'autocad')
    // Analytics declined, so the consent banner does not cover the page in the screenshots.
    await page.context().addCookies([
      { name: 'lang', value: lang, domain: '127.0.0.1', path: '/' },
      { name: 'consent', value: 'analytics:denied', domain: '127.0.0.1', path: '/' },
    ])
    fs.mkdirSync(shots, { recursive: true })
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 })
      await openStreaming(page)
      await page.screenshot({ path: path.join(shots, `streaming-form-${lang}-${width}.png`), fullPage: true })
    }
    await expect(page.getByLabel('Region')).toHaveValue('eu-central')
    await expect(page.getByTestId('streaming-unowned').getByRole('link', { name: lang === 'en' ? 'Buy AutoCAD' : 'AutoCAD kaufen' })).toBeVisible()
    expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([])
    await page.getByRole('button', { name: lang === 'en' ? 'Start streaming' : 'Streaming starten' }).click()
    await expect(page.getByTestId('streaming-assignment')).toBeVisible()
    expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([])
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 })
      await page.screenshot({ path: path.join(shots, `streaming-assignment-${lang}-${width}.png`), fullPage: true })
    }
    await page.getByRole('button', { name: lang === 'en' ? 'Stop streaming' : 'Streaming beenden' }).click()
    await expect(page.getByTestId('streaming-ended')).toBeVisible()
  })
}

test.describe('without clusters', () => {
  const PORT = 3250
  const DATA_DIR = path.resolve('test-results', 'e2e-streaming-off-data')
  let server: ChildProcess | undefined
  test.use({ baseURL: `http://127.0.0.1:${PORT}` })

  test.beforeAll(async () => {
    fs.rmSync(DATA_DIR, { recursive: true, force: true })
    server = spawn(process.execPath, ['dist/server/main.js'], {
      env: { ...process.env, ...E2E_ENV, DATA_DIR, PORT: String(PORT), API_PORT: String(PORT + 1), AUTH_CORE_PORT: String(PORT + 2), APP_URL: `http://127.0.0.1:${PORT}`, STREAMING_CLUSTERS: '' },
      stdio: 'ignore',
    })
    await expect
      .poll(async () => (await fetch(`http://127.0.0.1:${PORT}/healthz`).catch(() => null))?.status ?? 0, { timeout: 60_000, intervals: [200] })
      .toBe(200)
  })
  test.afterAll(async () => {
    if (!server || server.exitCode !== null) return
    const exited = new Promise((resolve) => server!.once('exit', resolve))
    server.kill('SIGTERM')
    await exited
  })

  test('the page says streaming is not available and offers nothing to start', async ({ page }) => {
    test.setTimeout(120_000)
    await readyAccount(page, 'no-clusters')
    await addToLibrary(page, 'blender')
    await page.context().addCookies([{ name: 'consent', value: 'analytics:denied', domain: '127.0.0.1', path: '/' }])
    await openStreaming(page)
    await expect(page.getByTestId('streaming-unavailable')).toContainText('Streaming is not available')
    await expect(page.getByRole('button', { name: 'Start streaming' })).toHaveCount(0)
    await expect(page.getByLabel('Program')).toHaveCount(0)
    expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([])
    await page.setViewportSize({ width: 390, height: 900 })
    await page.screenshot({ path: path.join(shots, 'streaming-unavailable-en-390.png'), fullPage: true })
  })
})
