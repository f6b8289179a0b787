import fs from 'node:fs'
import { expect, test } from '@playwright/test'

const de = JSON.parse(fs.readFileSync('locales/de/catalogue.json', 'utf8')) as { library: { title: string }; tabs: { paid: string } }

test('a sort picked while the Paid list is still loading keeps the price', async ({ page }) => {
  await page.goto('/library')
  await expect(page.locator('html')).toHaveAttribute('data-hydrated', 'true')
  // The Paid list's programs are held back until the sort has been picked: the tab's navigation
  // is still under way when the visitor changes the sort.
  let release!: () => void
  const held = new Promise<void>((resolve) => (release = resolve))
  await page.route(/\/api\/programs\?(?=.*price=paid)(?=.*sort=namePopular)/, async (route) => {
    await held
    await route.continue().catch(() => undefined)
  })
  const paidAsked = page.waitForRequest(/\/api\/programs\?(?=.*price=paid)(?=.*sort=namePopular)/)
  await page.getByRole('link', { name: 'Paid', exact: true }).click()
  await paidAsked
  await page.getByLabel('Sort by').selectOption('nameAsc')
  release()
  await expect(page).toHaveURL(/[?&]sort=nameAsc/)
  await expect(page).toHaveURL(/[?&]price=paid/)
  await expect(page.getByRole('link', { name: 'Paid', exact: true })).toHaveAttribute('aria-current', 'page')
  await expect(page.locator('.program-card .price').first()).not.toHaveText('Free')
})

test('a sort picked right after the Paid tab, before the page has caught up, keeps the price', async ({ page }) => {
  await page.goto('/library')
  await expect(page.locator('html')).toHaveAttribute('data-hydrated', 'true')
  // No wait between the two: the router has the tab's navigation, the page has not rendered it yet.
  await page.getByRole('link', { name: 'Paid', exact: true }).click()
  await page.getByLabel('Sort by').selectOption('nameAsc')
  await expect(page).toHaveURL(/[?&]sort=nameAsc/)
  await expect(page).toHaveURL(/[?&]price=paid/)
  await expect(page.getByRole('link', { name: 'Paid', exact: true })).toHaveAttribute('aria-current', 'page')
})

test('library: tabs, sort, category filter and search live in the URL and survive back/forward', async ({ page }) => {
  await page.goto('/library')
  await expect(page.locator('html')).toHaveAttribute('data-hydrated', 'true')
  await page.evaluate(() => Object.assign(window, { sameDocument: 'yes' }))

  await page.getByRole('link', { name: 'Paid', exact: true }).click()
  await expect(page).toHaveURL(/\/library\?price=paid$/)
  // The tab shows as the current one once its list has loaded (a sort picked before then keeps the
  // price too: the test above).
  await expect(page.getByRole('link', { name: 'Paid', exact: true })).toHaveAttribute('aria-current', 'page')
  await expect(page.locator('.program-card .price').first()).not.toHaveText('Free')

  await page.getByLabel('Sort by').selectOption('nameAsc')
  await expect(page).toHaveURL(/sort=nameAsc/)
  // The URL changes before the new list is shown: wait for the list, not the first read of it.
  await expect
    .poll(async () => {
      const names = (await page.locator('.program-card h3').allTextContents()).map((n) => n.toLowerCase())
      return names.length > 0 && names.join('\n') === [...names].sort().join('\n')
    })
    .toBe(true)

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

test('home: the search box and the category tiles lead into the catalogue', async ({ page }) => {
  await page.goto('/')
  await expect(page.locator('html')).toHaveAttribute('data-hydrated', 'true')
  await expect(page.getByRole('heading', { name: 'Popular programs' })).toBeVisible()
  await expect(page.getByRole('heading', { name: 'Recently updated' })).toBeVisible()
  await expect(page.getByRole('heading', { name: 'Free picks' })).toBeVisible()
  await page.getByRole('searchbox').fill('inkscap')
  await page.getByRole('searchbox').press('Enter')
  await expect(page).toHaveURL(/\/library\?q=inkscap$/)
  await expect(page.getByRole('link', { name: 'Inkscape' })).toBeVisible()
  await page.goBack()
  await page.getByRole('link', { name: /^Audio & Music \d+ programs$/ }).click()
  await expect(page).toHaveURL(/\/category\/audio-music$/)
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Audio & Music')
})

test('client navigation keeps the title, description, canonical URL and structured data in step', async ({ page }) => {
  await page.goto('/library')
  await expect(page.locator('html')).toHaveAttribute('data-hydrated', 'true')
  await expect(page).toHaveTitle('Software catalogue — Softshelf')
  await expect(page.locator('script[type="application/ld+json"]')).toHaveCount(0)
  await page.getByRole('link', { name: 'Blender', exact: true }).first().click()
  await expect(page).toHaveURL(/\/programs\/blender$/)
  await expect(page).toHaveTitle('Blender by Blender Foundation — Softshelf')
  await expect(page.locator('link[rel="canonical"]')).toHaveAttribute('href', 'http://127.0.0.1:3210/programs/blender')
  await expect(page.locator('meta[property="og:title"]')).toHaveAttribute('content', 'Blender by Blender Foundation — Softshelf')
  const data = JSON.parse((await page.locator('script[type="application/ld+json"]').textContent()) ?? '{}') as { '@type'?: string; name?: string }
  expect(data).toMatchObject({ '@type': 'SoftwareApplication', name: 'Blender' })
  await page.locator('.program-details').getByRole('link', { name: 'Open source' }).click()
  await expect(page).toHaveTitle('Open source programs — Softshelf')
  await expect(page.locator('script[type="application/ld+json"]')).toHaveCount(0)
  await page.goto('/programs/blender')
  await page.evaluate(() => window.history.pushState(null, '', '/programs/blender'))
  await page.getByRole('link', { name: 'Softshelf home' }).click()
  await expect(page).toHaveTitle('Softshelf — all must-have programs in one place')
})

test('"Add to library" sends a visitor to sign in, keyboard only', async ({ page }) => {
  await page.goto('/programs/gimp')
  await expect(page.locator('html')).toHaveAttribute('data-hydrated', 'true')
  const add = page.getByRole('link', { name: 'Add to library' })
  await expect(add).toHaveAttribute('href', '/login?redirectToPath=%2F%40%2Fprograms%2Fgimp&action=add')
  await add.focus()
  await expect(add).toBeFocused()
})

// Dates say only what is known; program texts come in the visitor's language. The data
// is read from the seed as it is when the test runs (so an edited translation does not break it).
const seedPrograms = [1, 2, 3, 4].flatMap((n) => JSON.parse(fs.readFileSync(`server/api/seed/programs-${n}.json`, 'utf8')) as Array<{ id: string; name: string; summary: string; released: string }>)
const deCatalogue = JSON.parse(fs.readFileSync('locales/de/catalogue.json', 'utf8')) as { program: { released: string } }
const germanTexts: Record<string, { summary: string; description: string }> = Object.assign(
  {},
  ...fs
    .readdirSync('server/api/seed/translations/de')
    .filter((file) => file.endsWith('.json'))
    .map((file) => JSON.parse(fs.readFileSync(`server/api/seed/translations/de/${file}`, 'utf8')) as object),
)

for (const width of [390, 1280]) {
  test(`a release known only to the year shows just the year, in English and German (${width} px)`, async ({ page }) => {
    await page.setViewportSize({ width, height: 900 })
    const program = seedPrograms.find((p) => /^\d{4}$/.test(p.released))!
    const releasedOf = (label: string) => page.locator('.program-details dt', { hasText: label }).locator('xpath=following-sibling::dd[1]')
    await page.goto(`/programs/${program.id}`)
    await expect(page.locator('html')).toHaveAttribute('data-hydrated', 'true')
    await expect(releasedOf('First released')).toHaveText(program.released)
    // Below md the language switcher is in the header's menu.
    if (width < 768) await page.locator('.site-menu > summary').click()
    await page.getByTestId('language-switcher').selectOption('de')
    await expect(releasedOf(deCatalogue.program.released)).toHaveText(program.released)
    await page.reload()
    await expect(releasedOf(deCatalogue.program.released)).toHaveText(program.released, { timeout: 10_000 })
  })

  test(`a German visitor reads the German summary of a program that has one (${width} px)`, async ({ page, context }) => {
    await page.setViewportSize({ width, height: 900 })
    const program = seedPrograms.find((p) => germanTexts[p.id])!
    const german = germanTexts[program.id]!
    await context.addCookies([{ name: 'lang', value: 'de', domain: '127.0.0.1', path: '/' }])
    await page.goto(`/programs/${program.id}`)
    await expect(page.locator('html')).toHaveAttribute('data-hydrated', 'true')
    await expect(page.locator('.program-summary')).toHaveText(german.summary)
    await expect(page.locator('.program-summary')).not.toHaveAttribute('lang', /./)
    await expect(page.locator('.program-about p').first()).toHaveText(german.description)
    await expect(page.locator('meta[name="description"]')).toHaveAttribute('content', german.summary)
    // Client navigation asks the API in the page's language too: the developer's listing, its card.
    await page.locator('.program-details dd').first().getByRole('link').click()
    await expect(page).toHaveURL(/\/developer\//)
    await expect(page.locator('.program-card', { hasText: program.name }).first().locator('.program-card-summary')).toHaveText(german.summary)
    // Switching to English brings the English text, without a reload.
    if (width < 768) await page.locator('.site-menu > summary').click()
    await page.getByTestId('language-switcher').selectOption('en')
    await expect(page.locator('.program-card', { hasText: program.name }).first().locator('.program-card-summary')).toHaveText(program.summary)
  })
}
