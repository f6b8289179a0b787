import fs from 'node:fs'
import { expect, test } from '@playwright/test'

const de = JSON.parse(fs.readFileSync('locales/de/catalogue.json', 'utf8')) as { library: { title: string }; tabs: { paid: string } }

test('library: tabs, sort, category filter and search live in the URL and survive back/forward', async ({ page }) => {
  await page.goto('/library')
  await expect(page.locator('html')).toHaveAttribute('data-hydrated', 'true')
  await page.evaluate(() => Object.assign(window, { sameDocument: 'yes' }))

  await page.getByRole('link', { name: 'Paid', exact: true }).click()
  await expect(page).toHaveURL(/\/library\?price=paid$/)
  await expect(page.locator('.program-card .price').first()).not.toHaveText('Free')

  await page.getByLabel('Sort by').selectOption('nameAsc')
  await expect(page).toHaveURL(/sort=nameAsc/)
  const names = await page.locator('.program-card h3').allTextContents()
  expect(names.map((n) => n.toLowerCase())).toEqual([...names.map((n) => n.toLowerCase())].sort())

  await page.getByLabel('Category').selectOption('audio-music')
  await expect(page).toHaveURL(/category=audio-music/)
  await expect(page).toHaveURL(/price=paid/)

  await page.getByLabel('Search programs').fill('ablton')
  await page.getByRole('button', { name: 'Search' }).click()
  await expect(page).toHaveURL(/q=ablton/)
  await expect(page.getByRole('link', { name: 'Ableton Live' })).toBeVisible()

  await page.goBack()
  await expect(page).not.toHaveURL(/q=ablton/)
  await expect(page.getByLabel('Category')).toHaveValue('audio-music')
  await page.goForward()
  await expect(page.getByRole('link', { name: 'Ableton Live' })).toBeVisible()
  expect(await page.evaluate(() => (window as unknown as { sameDocument?: string }).sameDocument)).toBe('yes')
})

test('program → developer → publisher → licence type, in English and German', async ({ page, context }) => {
  await page.goto('/programs/blender')
  await expect(page.locator('html')).toHaveAttribute('data-hydrated', 'true')
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Blender')
  await page.locator('.program-details').getByRole('link', { name: 'Blender Foundation' }).first().click()
  await expect(page).toHaveURL(/\/developer\/blender-foundation$/)
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Blender Foundation')
  await page.getByRole('link', { name: 'Blender', exact: true }).click()
  await page.locator('.program-details').getByRole('link', { name: 'Blender Foundation' }).nth(1).click()
  await expect(page).toHaveURL(/\/publisher\/blender-foundation$/)
  await page.goBack()
  await page.locator('.program-details').getByRole('link', { name: 'Open source' }).click()
  await expect(page).toHaveURL(/\/license-type\/open-source$/)
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Open source')

  await context.addCookies([{ name: 'lang', value: 'de', domain: '127.0.0.1', path: '/' }])
  await page.goto('/library')
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(de.library.title)
  await page.getByRole('link', { name: de.tabs.paid, exact: true }).click()
  await expect(page).toHaveURL(/price=paid/)
})

test('an API 404 during client navigation sends the browser to /404 (spec §2)', async ({ page }) => {
  await page.goto('/library')
  await expect(page.locator('html')).toHaveAttribute('data-hydrated', 'true')
  await page.evaluate(() => Object.assign(window, { sameDocument: 'yes' }))
  // A history entry the router handles itself: its loader asks the API, which answers 404.
  await page.evaluate(() => {
    window.history.pushState({}, '', '/programs/does-not-exist')
    window.dispatchEvent(new PopStateEvent('popstate'))
  })
  await expect(page).toHaveURL(/\/404$/)
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Page not found')
  expect(await page.evaluate(() => (window as unknown as { sameDocument?: string }).sameDocument)).toBe('yes')
})
