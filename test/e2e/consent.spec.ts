import { expect, test, type Page } from '@playwright/test'
import { hydrated } from './support/accounts.ts'

// The tag manager (TAG_MANAGER_SCRIPT_URL, served by support/outside-scripts.ts) loads
// only after the visitor accepts analytics cookies in the banner; the choice is remembered and can
// be changed on /cookie.

function countTagManagerRequests(page: Page): () => number {
  let count = 0
  page.on('request', (request) => {
    if (request.url().includes('/tag-manager.js')) count++
  })
  return () => count
}

const tagManagerRuns = (page: Page) => page.evaluate(() => (window as unknown as { __tagManager?: { runs: number } }).__tagManager?.runs ?? 0)

test('declining loads nothing, and the choice survives a reload', async ({ page, context }) => {
  const requested = countTagManagerRequests(page)
  await page.goto('/')
  await hydrated(page)
  const banner = page.getByTestId('consent-banner')
  await expect(banner).toBeVisible()
  await expect(banner.getByRole('heading', { name: 'Analytics cookies' })).toBeVisible()
  // Keyboard only.
  await banner.getByRole('button', { name: 'Decline analytics' }).focus()
  await page.keyboard.press('Enter')
  await expect(banner).toHaveCount(0)

  const cookie = (await context.cookies()).find((c) => c.name === 'consent')
  expect(cookie?.value).toBe('analytics:denied')
  expect(cookie?.sameSite).toBe('Lax')
  expect(cookie!.expires - Date.now() / 1000).toBeGreaterThan(364 * 24 * 3600)

  const response = await page.reload()
  expect(await response?.text(), 'the server knows the choice: no banner in the HTML').not.toContain('consent-banner')
  await hydrated(page)
  await page.getByRole('link', { name: 'Catalogue', exact: true }).click()
  await expect(page).toHaveURL(/\/library$/)
  await expect(page.getByTestId('consent-banner')).toHaveCount(0)
  expect(requested()).toBe(0)
  expect(await tagManagerRuns(page)).toBe(0)
})

test('accepting loads the tag manager once per page load; /cookie changes the choice', async ({ page, context }) => {
  const requested = countTagManagerRequests(page)
  await page.goto('/library')
  await hydrated(page)
  expect(requested()).toBe(0)
  await page.getByTestId('consent-banner').getByRole('button', { name: 'Accept analytics' }).click()
  await expect(page.getByTestId('consent-banner')).toHaveCount(0)
  await expect.poll(() => tagManagerRuns(page)).toBe(1)
  expect(requested()).toBe(1)
  expect((await context.cookies()).find((c) => c.name === 'consent')?.value).toBe('analytics:granted')
  expect(await page.evaluate(() => (window as unknown as { __tagManager: { dataLayer: Array<Record<string, unknown>> } }).__tagManager.dataLayer[0]?.event)).toBe('gtm.js')

  // Navigating inside the app does not load it again; a new page load does, once.
  await page.getByRole('link', { name: 'Cookie policy' }).click()
  await expect(page).toHaveURL(/\/cookie$/)
  await expect(page.getByTestId('consent-state')).toHaveText('You have accepted analytics cookies.')
  expect(requested()).toBe(1)
  await page.reload()
  await hydrated(page)
  await expect.poll(() => tagManagerRuns(page)).toBe(1)
  expect(requested()).toBe(2)
  await expect(page.getByTestId('consent-banner')).toHaveCount(0)
  await expect(page.locator('.cookie-table').getByRole('rowheader', { name: 'consent' })).toBeVisible()

  // Withdrawing: the page starts again without the tag manager.
  const reloaded = page.waitForEvent('load')
  await page.getByTestId('consent-settings').getByRole('button', { name: 'Decline analytics' }).click()
  await reloaded
  await hydrated(page)
  await expect(page.getByTestId('consent-state')).toHaveText('You have declined analytics cookies.')
  expect(await tagManagerRuns(page)).toBe(0)
  expect(requested()).toBe(2)
  expect((await context.cookies()).find((c) => c.name === 'consent')?.value).toBe('analytics:denied')

  // And accepting again there loads it at once.
  await page.getByTestId('consent-settings').getByRole('button', { name: 'Accept analytics' }).click()
  await expect(page.getByTestId('consent-state')).toHaveText('You have accepted analytics cookies.')
  await expect.poll(() => tagManagerRuns(page)).toBe(1)
  expect(requested()).toBe(3)
})
