import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import { expect, test } from '@playwright/test'
import { E2E_ENV } from '../../playwright.config.ts'

const german = JSON.parse(fs.readFileSync('locales/de/home.json', 'utf8')) as { hero: { title: string } }
const germanCommon = JSON.parse(fs.readFileSync('locales/de/common.json', 'utf8')) as { support: { consent: { title: string } } }

function maintenance(...args: string[]): string {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/maintenance.ts', ...args], {
    env: { ...process.env, ...E2E_ENV },
    encoding: 'utf8',
    timeout: 60_000,
  })
  if (result.status !== 0) throw new Error(`maintenance ${args.join(' ')} failed: ${result.stderr}`)
  return result.stdout
}

test('the home page text is in the HTML before any script runs', async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false })
  const page = await context.newPage()
  const response = await page.goto('/')
  expect(response?.status()).toBe(200)
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('All must-have programs in one place')
  await expect(page).toHaveTitle('Softshelf — all must-have programs in one place')
  await context.close()
})

test('the page hydrates and navigates client-side in the same document', async ({ page }) => {
  const errors: string[] = []
  page.on('pageerror', (error) => errors.push(error.message))
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text())
  })
  await page.goto('/')
  await expect(page.locator('html')).toHaveAttribute('data-hydrated', 'true')
  await page.evaluate(() => Object.assign(window, { sameDocument: 'yes' }))
  await page.getByRole('link', { name: 'Privacy policy' }).click()
  await expect(page).toHaveURL(/\/privacy$/)
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Privacy Policy')
  expect(await page.evaluate(() => (window as unknown as { sameDocument?: string }).sameDocument)).toBe('yes')
  await page.goBack()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('All must-have programs in one place')
  expect(errors, 'no hydration mismatch or script error').toEqual([])
})

test('switching the language survives a reload', async ({ page, context }) => {
  await page.goto('/')
  await expect(page.locator('html')).toHaveAttribute('data-hydrated', 'true')
  await page.getByTestId('language-switcher').selectOption('de')
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(german.hero.title)
  await expect(page.locator('html')).toHaveAttribute('lang', 'de')
  const cookie = (await context.cookies()).find((c) => c.name === 'lang')
  expect(cookie?.value).toBe('de')
  expect(cookie!.expires - Date.now() / 1000).toBeGreaterThan(364 * 24 * 3600)
  await page.reload()
  await expect(page.locator('html')).toHaveAttribute('lang', 'de')
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(german.hero.title)
  await expect(page).toHaveTitle('Softshelf — all must-have programs in one place')
})

// A part of the shell in its own Suspense boundary (the consent banner, the toasts) hydrates after
// the page is interactive; a language chosen in between makes its server text differ from the
// client's, and React renders that part afresh (a "recovered" error). That once opened the error
// page over a working page: React's default sent the recovered error to window.reportError. On the
// test machine a switch lands in that window in about one of three fresh pages, and before the fix
// fifteen of them met the error page in about one run of three (it failed CI once): a guard that
// catches a regression often, not always.
test('the language switched as soon as the page is interactive never opens the error page; the consent banner follows it', async ({ page, context }) => {
  for (let attempt = 0; attempt < 15; attempt++) {
    await context.clearCookies()
    await page.goto('/')
    await expect(page.locator('html')).toHaveAttribute('data-hydrated', 'true')
    await page.getByTestId('language-switcher').selectOption('de')
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(german.hero.title)
    await expect(page.getByTestId('consent-banner').getByRole('heading', { level: 2 })).toHaveText(germanCommon.support.consent.title)
  }
})

test('an unknown path shows the 404 page with status 404', async ({ page }) => {
  const response = await page.goto('/this/does/not/exist')
  expect(response?.status()).toBe(404)
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Page not found')
  await expect(page.getByText('The page you are trying to access does not exist')).toBeVisible()
  await expect(page.getByText('Page Not Found: /this/does/not/exist')).toBeVisible()
  await expect(page.getByRole('link', { name: 'Back to home' })).toHaveAttribute('href', '/')
})

test('a maintenance time set by the operator shows a notice within ~6 s; clearing it clears the stored value', async ({ page }) => {
  maintenance('clear')
  await page.goto('/')
  await expect(page.locator('html')).toHaveAttribute('data-hydrated', 'true')
  maintenance('set', '2030-01-15T21:30:00Z')
  const notice = page.getByTestId('toast-error')
  await expect(notice).toBeVisible({ timeout: 9_000 })
  await expect(notice).toContainText('Scheduled maintenance')
  await expect(notice).toContainText('2030')
  expect(await page.evaluate(() => sessionStorage.getItem('maintenanceTime'))).toBe('2030-01-15T21:30:00.000Z')
  await notice.click()
  await expect(notice).toHaveCount(0)
  maintenance('clear')
  await expect.poll(() => page.evaluate(() => sessionStorage.getItem('maintenanceTime')), { timeout: 9_000 }).toBeNull()
})

test('an unhandled error opens the error page for a person, and is only reported for a crawler', async ({ browser }) => {
  const person = await browser.newContext()
  const page = await person.newPage()
  await page.goto('/')
  await expect(page.locator('html')).toHaveAttribute('data-hydrated', 'true')
  await page.evaluate(() => setTimeout(() => Promise.reject(new Error('unhandled in a handler')), 0))
  await expect(page.getByTestId('error-page')).toBeVisible()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Something went wrong')
  await person.close()

  const crawler = await browser.newContext({ userAgent: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' })
  const botPage = await crawler.newPage()
  const reported = botPage.waitForEvent('console', (message) => message.text().includes('[softshelf] unhandled error'))
  await botPage.goto('/')
  await expect(botPage.locator('html')).toHaveAttribute('data-hydrated', 'true')
  await botPage.evaluate(() => setTimeout(() => Promise.reject(new Error('unhandled in a handler')), 0))
  await reported
  await expect(botPage.getByTestId('error-page')).toHaveCount(0)
  await expect(botPage.getByRole('heading', { level: 1 })).toHaveText('All must-have programs in one place')
  await crawler.close()
})
