import AxeBuilder from '@axe-core/playwright'
import { expect, test, type Page } from '@playwright/test'
import { hydrated, readyAccount } from './support/accounts.ts'

// Saved searches in the browser: a signed-in user saves a listing's search (its name prefilled from the
// filters), finds it on /@/saved-searches, opens it and deletes it; a paid program's page shows
// free alternatives; the home page names its Atom feed, which a reader can fetch.

/** No axe violation on the page as it is now (the bar of accessibility.spec.ts). */
async function expectAccessible(page: Page): Promise<void> {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze()
  expect(result.violations.map((violation) => `${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`), page.url()).toEqual([])
}

test('save a search from a listing, open it from the saved searches, delete it', async ({ page }) => {
  await readyAccount(page, 'searcher')
  await page.goto('/@/programs?q=blender&price=free&sort=nameAsc')
  await hydrated(page)
  await page.getByRole('button', { name: 'Save this search' }).click()
  const name = page.getByLabel('Name of the search')
  await expect(name).toHaveValue('Free · “blender”')
  await expectAccessible(page)
  await name.fill('Free Blender things')
  await page.getByRole('button', { name: 'Save', exact: true }).click()
  await expect(page.getByRole('status').filter({ hasText: 'Search saved.' })).toBeVisible()

  await page.getByRole('link', { name: 'Your saved searches' }).click()
  await expect(page).toHaveURL(/\/@\/saved-searches$/)
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Saved searches')
  await expectAccessible(page)
  await page.getByRole('link', { name: 'Free Blender things' }).click()
  await expect(page).toHaveURL(/\/@\/programs\?price=free&q=blender$/)
  await expect(page.getByLabel('Search programs')).toHaveValue('blender')

  await page.goto('/@/saved-searches')
  await hydrated(page)
  await page.getByRole('button', { name: 'Delete the saved search “Free Blender things”' }).click()
  await expect(page.getByRole('status').filter({ hasText: 'was deleted' })).toHaveText('The saved search “Free Blender things” was deleted.')
  await expect(page.getByText('You have no saved searches yet.')).toBeVisible()
})

test("a paid program's page shows free alternatives of its category; a free one's none", async ({ page }) => {
  const paid = (await (await page.request.get('/api/programs?price=paid&category=graphics&pageSize=1')).json()).items[0] as { id: string; name: string }
  await page.goto(`/programs/${paid.id}`)
  const section = page.getByTestId('free-alternatives')
  await expect(section.getByRole('heading', { level: 2 })).toHaveText('Free alternatives')
  const first = section.locator('.program-card h3').first()
  const firstName = (await first.textContent())!.trim()
  await section.getByRole('link', { name: firstName }).first().click()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(firstName)
  await expect(page.getByTestId('free-alternatives')).toHaveCount(0)
})

test('the home page names its Atom feed, and the feed is there', async ({ page }) => {
  await page.goto('/')
  const link = page.locator('head link[rel="alternate"][type="application/atom+xml"]')
  await expect(link).toHaveAttribute('title', 'Softshelf: new releases')
  const href = (await link.getAttribute('href'))!
  const feed = await page.request.get(new URL(href).pathname)
  expect(feed.status()).toBe(200)
  expect(feed.headers()['content-type']).toBe('application/atom+xml; charset=utf-8')
  expect(await feed.text()).toContain('<feed xmlns="http://www.w3.org/2005/Atom"')

  // Navigating in the page keeps the head in step: a category's own feed, then none on a program's page.
  await hydrated(page)
  await page.locator('a[href="/category/3d"]').first().click()
  await expect(page).toHaveURL(/\/category\/3d$/)
  await expect(link).toHaveAttribute('title', 'Softshelf: new releases in 3D')
  await expect(link).toHaveAttribute('href', /\/feeds\/category\/3d\.atom$/)
  await page.locator('.program-card h3 a').first().click()
  await expect(page).toHaveURL(/\/programs\//)
  await expect(link).toHaveCount(0)
})
