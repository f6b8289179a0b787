import { expect, test } from '@playwright/test'

// Spec §9 breakpoints (sm 640, md 768, lg 1024, xl 1280, 2xl 1536) and a small phone: no page
// scrolls sideways, and the program grid gains columns as the screen widens.

const WIDTHS = [360, 640, 768, 1024, 1280, 1536]
const PAGES = ['/', '/library', '/programs/blender', '/developer/microsoft', '/terms']

test('public pages fit every breakpoint without sideways scrolling', async ({ page }) => {
  const columns: number[] = []
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 })
    for (const url of PAGES) {
      await page.goto(url)
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
      expect(overflow, `${url} at ${width}px`).toBeLessThanOrEqual(0)
    }
    await page.goto('/library')
    columns.push(
      await page.locator('.program-grid').evaluate((grid) => getComputedStyle(grid).gridTemplateColumns.split(' ').length),
    )
  }
  expect(columns).toEqual([1, 1, 2, 2, 3, 3])
})

test('longer German and Hungarian labels fit too', async ({ page, context }) => {
  for (const lang of ['de', 'hu']) {
    await context.addCookies([{ name: 'lang', value: lang, domain: '127.0.0.1', path: '/' }])
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 })
      for (const url of ['/', '/library', '/programs/blender']) {
        await page.goto(url)
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
        expect(overflow, `${url} at ${width}px in ${lang}`).toBeLessThanOrEqual(0)
      }
    }
  }
})

test('the keyboard reaches everything, with a visible focus ring', async ({ page }) => {
  await page.goto('/library')
  await expect(page.locator('html')).toHaveAttribute('data-hydrated', 'true')
  await page.keyboard.press('Tab')
  const skip = page.getByRole('link', { name: 'Skip to content' })
  await expect(skip).toBeFocused()
  await expect(skip).toBeInViewport()
  await page.keyboard.press('Enter')
  await expect(page).toHaveURL(/#content$/)

  // Tab into the search field, type, submit with Enter.
  const search = page.getByLabel('Search programs')
  for (let i = 0; i < 10 && !(await search.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press('Tab')
  await expect(search).toBeFocused()
  const outline = await search.evaluate((el) => getComputedStyle(el).outlineStyle)
  expect(outline).not.toBe('none')
  await page.keyboard.type('krita')
  await page.keyboard.press('Enter')
  await expect(page).toHaveURL(/q=krita/)
  const result = page.getByRole('link', { name: 'Krita', exact: true })
  await result.focus()
  await page.keyboard.press('Enter')
  await expect(page).toHaveURL(/\/programs\/krita$/)
})
