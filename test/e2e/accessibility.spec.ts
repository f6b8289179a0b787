import AxeBuilder from '@axe-core/playwright'
import { expect, test } from '@playwright/test'

// Every public page, checked by axe-core after hydration, in English and in a second language.
// The bar is no serious or critical violation (WCAG 2.x A and AA); the pages meet
// axe's best practices too, so any violation fails, whatever its impact.

const PAGES = [
  '/',
  '/library',
  '/library?price=paid&sort=nameAsc&category=graphics',
  '/library?q=zzzzzz',
  '/category/3d',
  '/developer/blender-foundation',
  '/publisher/adobe',
  '/license-type/open-source',
  '/programs/blender',
  '/programs/adobe-photoshop',
  '/terms',
  '/privacy',
  '/cookie',
  '/no-such-page',
  '/login',
  '/welcome',
  '/forgot-password',
  '/reset-password?token=abc',
  '/verify-email?token=abc',
  '/confirm-email?token=abc',
  // /check-email and /email-not-verified need a session: accounts.spec.ts checks them.
]

for (const lang of ['en', 'hu']) {
  test(`public pages have no accessibility violations (${lang})`, async ({ page, context }) => {
    await context.addCookies([{ name: 'lang', value: lang, domain: '127.0.0.1', path: '/' }])
    for (const url of PAGES) {
      await page.goto(url)
      await expect(page.locator('html')).toHaveAttribute('data-hydrated', 'true')
      const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze()
      const blocking = result.violations.map((violation) => `${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`)
      expect(blocking, `${url} in ${lang}`).toEqual([])
    }
  })
}

// On a phone the navigation and the filters fold behind buttons; open, they pass too.
test('a phone with the menu and the filters open has no accessibility violations', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 })
  await page.goto('/library?q=photo&page=1')
  await expect(page.locator('html')).toHaveAttribute('data-hydrated', 'true')
  for (const [name, inside] of [
    ['Menu', page.getByRole('link', { name: 'Log in' })],
    ['Filters', page.getByLabel('Search programs')],
  ] as const) {
    await page.locator('summary', { hasText: name }).click()
    await expect(inside).toBeVisible()
    const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze()
    expect(result.violations.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`), name).toEqual([])
    // The open menu lies over the page; Escape folds it away again.
    await page.keyboard.press('Escape')
  }
})
