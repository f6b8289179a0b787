import { expect, test, type Page } from '@playwright/test'
import { hydrated, readyAccount } from './support/accounts.ts'

// Item 8: numbered pages, a page number past the last page, and the whole program card
// as one link.

/** The number of the listing's last page, from its count ("257 programs", 24 a page). */
async function lastPage(page: Page): Promise<number> {
  const count = Number((await page.locator('.listing-count').textContent())!.replace(/\D/g, ''))
  return Math.ceil(count / 24)
}

test('numbered pages: first, last, the current page and its neighbours, links that navigate', async ({ page }) => {
  await page.goto('/library?page=5')
  await hydrated(page)
  const last = await lastPage(page)
  await page.evaluate(() => Object.assign(window, { sameDocument: 'yes' }))
  const pages = page.getByRole('navigation', { name: 'Pages' })
  await expect(pages.getByRole('link')).toHaveText(['Previous page', '1', '4', '5', '6', String(last), 'Next page'])
  await expect(pages.getByRole('link', { name: '5', exact: true })).toHaveAttribute('aria-current', 'page')
  await pages.getByRole('link', { name: '6', exact: true }).click()
  await expect(page).toHaveURL(/\/library\?page=6$/)
  await expect(pages.getByRole('link', { name: '6', exact: true })).toHaveAttribute('aria-current', 'page')
  await pages.getByRole('link', { name: String(last), exact: true }).click()
  await expect(page).toHaveURL(new RegExp(`/library\\?page=${last}$`))
  await expect(pages.getByRole('link', { name: 'Next page' })).toHaveCount(0)
  await pages.getByRole('link', { name: '1', exact: true }).click()
  await expect(page).toHaveURL(/\/library$/)
  await expect(pages.getByRole('link', { name: 'Previous page' })).toHaveCount(0)
  expect(await page.evaluate(() => (window as unknown as { sameDocument?: string }).sameDocument)).toBe('yes')

  // The compact form at 390 px: the pages fit on one row above previous and next.
  await page.setViewportSize({ width: 390, height: 844 })
  await page.goto('/library?page=5')
  const row = await pages.getByRole('list').boundingBox()
  const first = (await pages.getByRole('link', { name: '1', exact: true }).boundingBox())!
  const lastLink = (await pages.getByRole('link', { name: String(last), exact: true }).boundingBox())!
  expect(first.y).toBe(lastLink.y)
  expect(row!.x + row!.width).toBeLessThanOrEqual(390)
  expect((await pages.getByRole('link', { name: 'Next page' }).boundingBox())!.y).toBeGreaterThan(first.y + first.height)
})

test('a page past the last one redirects to the last page (302, then 200), keeping the rest of the query', async ({ page }) => {
  await page.goto('/category/3d')
  const lastOf3d = await lastPage(page)
  await page.goto('/library')
  const last = await lastPage(page)
  const response = (await page.goto('/library?sort=nameAsc&page=99'))!
  expect(response.status()).toBe(200)
  const first = response.request().redirectedFrom()
  expect(first?.url()).toMatch(/\/library\?sort=nameAsc&page=99$/)
  expect((await first!.response())!.status()).toBe(302)
  await expect(page).toHaveURL(new RegExp(`/library\\?sort=nameAsc&page=${last}$`))
  await expect(page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: String(last), exact: true })).toHaveAttribute('aria-current', 'page')
  await expect(page.locator('.program-card').first()).toBeVisible()

  // In the browser as well: a client navigation to a page past the end lands on the last page.
  await hydrated(page)
  await page.evaluate(() => Object.assign(window, { sameDocument: 'yes' }))
  await page.evaluate(() => {
    window.history.pushState({}, '', '/category/3d?page=50')
    window.dispatchEvent(new PopStateEvent('popstate'))
  })
  await expect(page).toHaveURL(new RegExp(`/category/3d\\?page=${lastOf3d}$`))
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('3D')
  expect(await page.evaluate(() => (window as unknown as { sameDocument?: string }).sameDocument)).toBe('yes')

  // Nothing matches: page 1, which says so.
  await page.goto('/library?q=zzzzzzzz&page=4')
  await expect(page).toHaveURL(/\/library\?q=zzzzzzzz&page=1$/)
  await expect(page.getByText('No program matches these filters.')).toBeVisible()
})

test('the whole card opens its program; its name stays the link\'s name', async ({ page }) => {
  await page.goto('/library')
  await hydrated(page)
  const card = page.locator('.program-card').first()
  const name = (await card.getByRole('heading').textContent())!
  await expect(card.getByRole('link')).toHaveCount(1)
  await expect(card.getByRole('link')).toHaveAccessibleName(name)
  // The card's empty upper right corner, away from the name.
  const box = (await card.boundingBox())!
  await page.mouse.click(box.x + box.width - 8, box.y + 8)
  await expect(page).toHaveURL(/\/programs\/[a-z0-9-]+$/)
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(name)
})

test('signed in: past the last page of the library and the catalogue, and the card\'s add button adds', async ({ page }) => {
  await readyAccount(page, 'listing-pages')
  // An empty library has one page.
  const library = (await page.goto('/@/library?page=3'))!
  expect((await library.request().redirectedFrom()!.response())!.status()).toBe(302)
  await expect(page).toHaveURL(/\/@\/library\?page=1$/)
  await expect(page.getByTestId('library-empty')).toBeVisible()

  const response = (await page.goto('/@/programs?page=99'))!
  expect((await response.request().redirectedFrom()!.response())!.status()).toBe(302)
  await hydrated(page)
  const last = await lastPage(page)
  await expect(page).toHaveURL(new RegExp(`/@/programs\\?page=${last}$`))

  // The add button sits on the card's link and adds, without opening the program.
  const card = page.locator('.program-card').first()
  const name = (await card.getByRole('heading').textContent())!
  await card.getByRole('button', { name: `Add ${name} to my library` }).click()
  await expect(card.getByRole('button', { name: `Remove ${name} from my library` })).toHaveAttribute('aria-pressed', 'true')
  await expect(page).toHaveURL(new RegExp(`/@/programs\\?page=${last}$`))
  const box = (await card.boundingBox())!
  await page.mouse.click(box.x + box.width - 8, box.y + 8)
  await expect(page).toHaveURL(/\/@\/programs\/[a-z0-9-]+$/)
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(name)
  await page.goto('/@/library')
  await expect(page.locator('.program-card h3')).toHaveText([name])
})
