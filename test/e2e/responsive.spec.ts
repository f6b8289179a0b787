import AxeBuilder from '@axe-core/playwright'
import { expect, test } from '@playwright/test'
import { hydrated, readyAccount } from './support/accounts.ts'

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

// At 390 px the header was three rows (~150 px) and the filters pushed the first program
// ~750 px down. Now the navigation folds behind a menu and the filters behind a button.
test('a phone gets a one-row header with a menu and folded filters; at 1280 px both stay open', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 })
  await page.goto('/library')
  await expect(page.locator('html')).toHaveAttribute('data-hydrated', 'true')
  expect((await page.getByRole('banner').boundingBox())!.height).toBeLessThanOrEqual(64)
  expect((await page.locator('.program-card').first().boundingBox())!.y).toBeLessThanOrEqual(400)

  const nav = page.getByRole('navigation', { name: 'Main navigation' })
  // A <summary>: a button to screen readers, not to Playwright's role queries.
  const menu = nav.locator('summary', { hasText: 'Menu' })
  const files = nav.getByRole('link', { name: 'Files', exact: true })
  await expect(files).toBeHidden()
  await expect(menu).toHaveAttribute('aria-expanded', 'false')
  await menu.click()
  await expect(menu).toHaveAttribute('aria-expanded', 'true')
  await expect(nav.getByRole('link', { name: 'Log in' })).toBeVisible()
  await expect(nav.getByLabel('Language')).toBeVisible()
  // Escape closes it and the focus goes back to the button.
  await files.focus()
  await page.keyboard.press('Escape')
  await expect(files).toBeHidden()
  await expect(menu).toHaveAttribute('aria-expanded', 'false')
  await expect(menu).toBeFocused()
  // Following a link closes it.
  await menu.click()
  await files.click()
  await expect(page).toHaveURL(/\/files$/)
  await expect(files).toBeHidden()
  await expect(menu).toHaveAttribute('aria-expanded', 'false')

  // The filters say how many are in use; the search box is one tap away.
  await page.goto('/library?q=photo&category=graphics')
  const filters = page.locator('summary', { hasText: 'Filters' })
  await expect(filters).toHaveText('Filters 2 active')
  await expect(page.getByLabel('Search programs')).toBeHidden()
  await filters.click()
  await expect(page.getByLabel('Search programs')).toHaveValue('photo')
  await expect(page.getByLabel('Category')).toHaveValue('graphics')
  await page.goto('/library?sort=nameAsc')
  await expect(filters).toHaveText('Filters')

  // At 1280 px nothing folds: one row, every link and every filter in sight, no buttons for them.
  await page.setViewportSize({ width: 1280, height: 800 })
  await page.goto('/library')
  await expect(page.locator('html')).toHaveAttribute('data-hydrated', 'true')
  const brand = (await page.getByRole('link', { name: 'Softshelf home' }).boundingBox())!
  const signUp = (await nav.getByRole('link', { name: 'Sign up' }).boundingBox())!
  expect(Math.abs(brand.y + brand.height / 2 - (signUp.y + signUp.height / 2))).toBeLessThan(4)
  expect((await page.getByRole('banner').boundingBox())!.height).toBeLessThanOrEqual(80)
  await expect(files).toBeVisible()
  await expect(menu).toBeHidden()
  await expect(page.getByLabel('Search programs')).toBeVisible()
  await expect(page.getByLabel('Sort by')).toBeVisible()
  await expect(filters).toBeHidden()
})

test('the signed-in header folds the same way on a phone', async ({ page }) => {
  const email = await readyAccount(page, 'phone-header')
  await page.setViewportSize({ width: 390, height: 844 })
  await page.goto('/@/programs')
  await hydrated(page)
  expect((await page.getByRole('banner').boundingBox())!.height).toBeLessThanOrEqual(64)
  expect((await page.locator('.program-card').first().boundingBox())!.y).toBeLessThanOrEqual(400)
  const nav = page.getByRole('navigation', { name: 'Main navigation' })
  const menu = nav.locator('summary', { hasText: 'Menu' })
  await expect(nav.getByRole('link', { name: 'My profile' })).toBeHidden()
  await menu.click()
  await expect(page.getByTestId('signed-in-as')).toHaveText(email)
  await nav.getByRole('link', { name: 'My library' }).click()
  await expect(page).toHaveURL(/\/@\/library$/)
  await expect(menu).toHaveAttribute('aria-expanded', 'false')
  await expect(nav.getByRole('link', { name: 'Log out' })).toBeHidden()

  // On a wide screen the signed-in header is one row too (it wrapped onto three with the email
  // written out): the avatar stands for the account, the email stays for screen readers.
  await page.setViewportSize({ width: 1280, height: 800 })
  await page.goto('/@/library')
  await hydrated(page)
  expect((await page.getByRole('banner').boundingBox())!.height).toBeLessThanOrEqual(80)
  await expect(nav.getByRole('link', { name: 'Log out' })).toBeVisible()
  await expect(page.getByTestId('signed-in-as')).toHaveText(email)
})

// From md to lg the header wrapped onto two or three rows — signed in (113 px at 1024 px in
// German, 154 px at 800 px in Hungarian; German and Romanian still two rows at 1280) and signed out
// at 768–800 px in most languages. Now the menu stays folded until the row fits: below lg signed
// out, below xl signed in. English, and the languages with the longest labels.
test('the header is one row at every breakpoint, signed in and out, in the longest languages too', async ({ page, context }) => {
  const heights = async (url: string) => {
    const measured: string[] = []
    for (const lang of ['en', 'de', 'ro']) {
      await context.addCookies([{ name: 'lang', value: lang, domain: '127.0.0.1', path: '/' }])
      for (const width of [390, 800, 1024, 1280]) {
        await page.setViewportSize({ width, height: 800 })
        await page.goto(url)
        await hydrated(page)
        const height = (await page.getByRole('banner').boundingBox())!.height
        if (height > 72) measured.push(`${url} ${lang} ${width}px: ${Math.round(height)} px`)
      }
    }
    return measured
  }
  const signedOut = await heights('/library')
  await context.clearCookies()
  await readyAccount(page, 'wide-header')
  expect([...signedOut, ...(await heights('/@/library'))]).toEqual([])

  // Where it is folded, the menu works as on a phone: it opens under its button and Escape closes it.
  await context.addCookies([{ name: 'lang', value: 'en', domain: '127.0.0.1', path: '/' }])
  await page.setViewportSize({ width: 1024, height: 800 })
  await page.goto('/@/library')
  await hydrated(page)
  const nav = page.getByRole('navigation', { name: 'Main navigation' })
  const menu = nav.locator('summary', { hasText: 'Menu' })
  const profile = nav.getByRole('link', { name: 'My profile' })
  await expect(profile).toBeHidden()
  await menu.click()
  await expect(menu).toHaveAttribute('aria-expanded', 'true')
  await expect(profile).toBeInViewport()
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze()
  expect(result.violations.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`)).toEqual([])
  await profile.focus()
  await page.keyboard.press('Escape')
  await expect(profile).toBeHidden()
  await expect(menu).toBeFocused()
})

// Blender's 19 interface languages stood in the narrow details column, one or two a line,
// 11 lines tall at 1280 px. Now they are a list of their own that flows across the page.
test("a program's interface languages flow in rows, a few at 1280 px and several a row on a phone", async ({ page, context }) => {
  const rows = async () => {
    const languages = page.getByRole('list', { name: 'Interface languages' })
    await expect(languages.getByRole('listitem')).toHaveCount(19)
    const tops = await languages.getByRole('listitem').evaluateAll((items) => items.map((item) => Math.round(item.getBoundingClientRect().top)))
    return new Set(tops).size
  }
  await page.setViewportSize({ width: 1280, height: 800 })
  await page.goto('/programs/blender')
  expect(await rows()).toBeLessThanOrEqual(3)
  await page.setViewportSize({ width: 390, height: 844 })
  expect(await rows()).toBeLessThanOrEqual(7)

  // The names stay in the page's language.
  await context.addCookies([{ name: 'lang', value: 'de', domain: '127.0.0.1', path: '/' }])
  await page.goto('/programs/blender')
  const german = page.getByRole('list', { name: 'Sprachen der Benutzeroberfläche' })
  await expect(german.getByRole('listitem').first()).toHaveText('Englisch')
  await expect(german.getByRole('listitem').last()).toHaveText('Indonesisch')
})

test('a button looks like a link styled as one: the page\'s font, not the browser\'s smaller one', async ({ page }) => {
  const fontOf = (selector: string) => page.locator(selector).first().evaluate((element) => getComputedStyle(element).fontSize)
  await page.goto('/login')
  const body = await page.locator('body').evaluate((element) => getComputedStyle(element).fontSize)
  expect(await fontOf('main form button.button[type="submit"]'), 'the login form\'s button').toBe(body)
  await page.goto('/programs/blender')
  // A visitor's "Add to library" is a link; the same size as a button would be.
  expect(await fontOf('.program-header .button'), 'a link styled as a button').toBe(body)
})

test.describe('without JavaScript', () => {
  test.use({ javaScriptEnabled: false })

  test('the folded menu and the filters open and work', async ({ page }) => {
    const nav = page.getByRole('navigation', { name: 'Main navigation' })
    const menu = nav.locator('summary', { hasText: 'Menu' })
    // On a phone, and between md and lg, where the menu stays folded too.
    for (const width of [390, 800]) {
      await page.setViewportSize({ width, height: 844 })
      await page.goto('/library')
      await menu.click()
      // No script keeps an `aria-expanded` up to date here, so there is none: the summary says it.
      await expect(menu).not.toHaveAttribute('aria-expanded')
      await nav.getByRole('link', { name: 'Log in' }).click()
      await expect(page).toHaveURL(/\/login$/)
    }
    await page.setViewportSize({ width: 390, height: 844 })
    await page.goto('/library')
    const filters = page.locator('summary', { hasText: 'Filters' })
    await filters.click()
    await page.getByLabel('Search programs').fill('krita')
    await page.getByRole('button', { name: 'Search', exact: true }).click()
    await expect(page).toHaveURL(/q=krita/)
    await expect(filters).toHaveText('Filters 1 active')
    await expect(page.getByRole('link', { name: 'Krita', exact: true })).toBeVisible()
  })
})
