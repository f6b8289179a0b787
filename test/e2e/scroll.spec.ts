import { expect, test, type Page } from '@playwright/test'
import { hydrated, readyAccount } from './support/accounts.ts'

// Spec §2: a navigation to a new page starts at its top (the next page of a
// listing, a program opened from the middle of the list); back and forward return to where the
// visitor was; using the filters keeps the place. At a phone's width and a desktop's.

const scrollY = (page: Page) => page.evaluate(() => Math.round(window.scrollY))

for (const width of [390, 1280]) {
  test(`${width} px: next page starts at the top, a program opens at its top, back returns to the place in the list`, async ({ page }) => {
    await page.setViewportSize({ width, height: 800 })
    await page.goto('/library')
    await hydrated(page)

    // The bottom of page 1, then "Next page".
    await page.getByRole('link', { name: 'Next page' }).scrollIntoViewIfNeeded()
    expect(await scrollY(page)).toBeGreaterThan(1000)
    await page.getByRole('link', { name: 'Next page' }).click()
    await expect(page).toHaveURL(/\/library\?page=2$/)
    await expect(page.locator('.pagination [aria-current="page"]')).toHaveText('2')
    await expect.poll(() => scrollY(page)).toBe(0)

    // A program from the middle of page 2.
    const card = page.locator('.program-card').nth(11)
    await card.scrollIntoViewIfNeeded()
    await page.evaluate(() => window.scrollBy(0, 100))
    const listPosition = await scrollY(page)
    expect(listPosition).toBeGreaterThan(600)
    const name = (await card.locator('h3').textContent())!
    await card.locator('h3 a').click()
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(name)
    await expect.poll(() => scrollY(page)).toBe(0)

    // Back: page 2, where it was left.
    await page.goBack()
    await expect(page).toHaveURL(/\/library\?page=2$/)
    await expect(page.locator('.pagination [aria-current="page"]')).toHaveText('2')
    await expect.poll(() => scrollY(page)).toBe(listPosition)
    // Forward: the program, at its top again; back once more: the list's place again.
    await page.goForward()
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(name)
    await expect.poll(() => scrollY(page)).toBe(0)
    await page.goBack()
    await expect.poll(() => scrollY(page)).toBe(listPosition)
  })

  test(`${width} px: a filter or a price tab keeps the place; the signed-in pages start at the top too`, async ({ page }) => {
    await page.setViewportSize({ width, height: 800 })
    await page.goto('/library')
    await hydrated(page)
    // A phone folds the filters behind their button.
    if (width < 768) await page.locator('summary', { hasText: 'Filters' }).click()
    // Each control is brought near the middle of the screen first, so that the click itself
    // scrolls nothing, and a little further, so that a jump to the top would show.
    const sort = page.getByLabel('Sort by')
    await sort.evaluate((element) => element.scrollIntoView({ block: 'center' }))
    await page.evaluate(() => window.scrollBy(0, 60))
    const before = await scrollY(page)
    expect(before).toBeGreaterThan(0)
    await sort.selectOption('nameDesc')
    await expect(page).toHaveURL(/sort=nameDesc/)
    await expect(page.locator('.program-card h3').first()).not.toHaveText('Blender')
    expect(await scrollY(page)).toBe(before)
    const paid = page.getByRole('link', { name: 'Paid', exact: true })
    await paid.evaluate((element) => element.scrollIntoView({ block: 'center' }))
    await page.evaluate(() => window.scrollBy(0, 60))
    const beforeTab = await scrollY(page)
    expect(beforeTab).toBeGreaterThan(0)
    await paid.click()
    await expect(page).toHaveURL(/price=paid/)
    await expect(page.locator('.program-card .price').first()).not.toHaveText('Free')
    expect(await scrollY(page)).toBe(beforeTab)

    await readyAccount(page, `scroll${width}`)
    await page.goto('/@/programs')
    await hydrated(page)
    await page.getByRole('link', { name: 'Next page' }).scrollIntoViewIfNeeded()
    await page.getByRole('link', { name: 'Next page' }).click()
    await expect(page).toHaveURL(/\/@\/programs\?page=2$/)
    await expect.poll(() => scrollY(page)).toBe(0)
    await page.locator('.program-card').nth(11).scrollIntoViewIfNeeded()
    const listPosition = await scrollY(page)
    await page.locator('.program-card').nth(11).locator('h3 a').click()
    await expect(page).toHaveURL(/\/@\/programs\/[a-z0-9-]+$/)
    await expect.poll(() => scrollY(page)).toBe(0)
    await page.goBack()
    await expect.poll(() => scrollY(page)).toBe(listPosition)
  })
}
