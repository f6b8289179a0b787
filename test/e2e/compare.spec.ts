import AxeBuilder from '@axe-core/playwright'
import { expect, test, type Page } from '@playwright/test'
import { hydrated, readyAccount } from './support/accounts.ts'

// A "Compare" choice on the cards and the program page collects up to four programs in
// the browser; the tray links to /compare?programs=…, a server-rendered page readable on a phone
// (the table scrolls sideways inside its own region, the row names staying in view). And the
// platform filter on the public listing and its signed-in twin.

/** The names on the first `count` cards of the page, in order. */
async function cardNames(page: Page, count: number): Promise<string[]> {
  return (await page.locator('.program-card h3').allTextContents()).slice(0, count)
}

/** What of the page reaches past the window's sides (nothing should), leaving out what scrolls inside the comparison's own region. */
async function overflowingElements(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth
    const scroller = document.querySelector('.compare-scroller')
    const out: string[] = []
    for (const element of document.querySelectorAll('body *')) {
      if (scroller && scroller.contains(element) && element !== scroller) continue
      // What is not shown (a closed menu's items), and the skip link, off-screen until focused.
      if (!element.checkVisibility({ visibilityProperty: true }) || element.classList.contains('skip-link')) continue
      const box = element.getBoundingClientRect()
      if (box.width > 0 && (box.right > width + 0.5 || box.left < -0.5)) out.push(`${element.tagName.toLowerCase()}.${element.className} ${Math.round(box.left)}–${Math.round(box.right)}`)
    }
    if (document.documentElement.scrollWidth > width) out.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} > ${width}`)
    return out
  })
}

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
]) {
  test(`three programs picked from the cards are compared through the tray (${viewport.width} px)`, async ({ page }) => {
    await page.setViewportSize(viewport)
    await page.goto('/category/graphics?sort=nameAsc')
    await hydrated(page)
    const [first, second, third, fourth, fifth] = await cardNames(page, 5)
    const ids: string[] = []
    for (const name of [first!, second!, third!]) {
      const toggle = page.getByRole('button', { name: `Compare ${name}`, exact: true })
      await expect(toggle).toHaveAttribute('aria-pressed', 'false')
      await toggle.click()
      await expect(toggle).toHaveAttribute('aria-pressed', 'true')
      ids.push((await page.locator('.program-card', { has: toggle }).locator('h3 a').getAttribute('href'))!.replace('/programs/', ''))
    }
    const tray = page.getByRole('complementary', { name: 'Programs to compare' })
    await expect(tray.getByRole('listitem')).toHaveText([first!, second!, third!].map((name) => new RegExp(`^${name}`)))
    expect(await overflowingElements(page), 'the tray fits the window').toEqual([])

    // The list is kept across pages: the program page shows the tray, and its own toggle is pressed.
    await page.goto(`/programs/${ids[0]}`)
    await hydrated(page)
    await expect(page.locator('.program-actions').getByRole('button', { name: `Compare ${first}`, exact: true })).toHaveAttribute('aria-pressed', 'true')
    await expect(tray.getByRole('link', { name: 'Compare (3)' })).toHaveAttribute('href', `/compare?programs=${ids.join(',')}`)
    await page.goBack()
    await hydrated(page)

    await tray.getByRole('link', { name: 'Compare (3)' }).click()
    await expect(page).toHaveURL(new RegExp(`/compare\\?programs=${ids.join(',')}$`))
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Compare programs')
    const table = page.getByRole('region', { name: /^Comparison of / }).getByRole('table')
    await expect(table.getByRole('columnheader')).toHaveText([first!, second!, third!].map((name) => new RegExp(`^${name}`)))
    await expect(table.getByRole('rowheader')).toHaveText(['Price', 'Licence', 'Platforms', 'Interface languages', 'Categories', 'Version', 'Updated', 'Developer'])
    await expect(page).toHaveTitle(new RegExp(`^Compare ${first}, ${second} and ${third} — Softshelf$`))

    const scroller = page.getByTestId('compare-scroller')
    expect(await overflowingElements(page), 'nothing but the comparison\'s own region is wider than the window').toEqual([])
    if (viewport.width === 390) {
      // The table is wider than a phone: it scrolls inside its region, and the row names stay in view.
      const { scrollWidth, clientWidth } = await scroller.evaluate((element) => ({ scrollWidth: element.scrollWidth, clientWidth: element.clientWidth }))
      expect(scrollWidth).toBeGreaterThan(clientWidth)
      const rowName = table.getByRole('rowheader', { name: 'Developer' })
      const cell = table.getByRole('row').last().getByRole('cell').first()
      const [nameBefore, cellBefore] = [(await rowName.boundingBox())!, (await cell.boundingBox())!]
      await scroller.evaluate((element) => element.scrollBy({ left: 400 }))
      await expect.poll(async () => scroller.evaluate((element) => element.scrollLeft)).toBeGreaterThan(100)
      const [nameAfter, cellAfter] = [(await rowName.boundingBox())!, (await cell.boundingBox())!]
      expect(cellAfter.x, 'the programs moved').toBeLessThan(cellBefore.x - 100)
      expect(Math.round(nameAfter.x), 'the row name did not').toBe(Math.round(nameBefore.x))
      expect(nameAfter.x).toBeGreaterThanOrEqual(0)
      expect(nameAfter.x + nameAfter.width).toBeLessThanOrEqual(viewport.width)
    }

    // A fourth is taken, a fifth is refused with a message and changes nothing.
    await page.goto('/category/graphics?sort=nameAsc')
    await hydrated(page)
    await page.getByRole('button', { name: `Compare ${fourth}`, exact: true }).click()
    await expect(tray.getByRole('link', { name: 'Compare (4)' })).toBeVisible()
    const fifthToggle = page.getByRole('button', { name: `Compare ${fifth}`, exact: true })
    await fifthToggle.click()
    await expect(page.getByText('You can compare up to 4 programs.')).toBeVisible()
    await expect(fifthToggle).toHaveAttribute('aria-pressed', 'false')
    await expect(tray.getByRole('listitem')).toHaveCount(4)

    // One removed from the tray; then all cleared, and the tray is gone.
    await tray.getByRole('button', { name: `Remove ${first} from the comparison` }).click()
    await expect(tray.getByRole('link', { name: 'Compare (3)' })).toBeVisible()
    await expect(page.getByRole('button', { name: `Compare ${first}`, exact: true })).toHaveAttribute('aria-pressed', 'false')
    await tray.getByRole('button', { name: 'Clear' }).click()
    await expect(tray).toHaveCount(0)
    await expect(page.getByRole('button', { name: `Compare ${second}`, exact: true })).toHaveAttribute('aria-pressed', 'false')
  })
}

test('a comparison link that cannot be shown says why and keeps the programs that exist', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 })
  const answer = await page.goto('/compare?programs=blender,no-such-program')
  expect(answer?.status()).toBe(404)
  await expect(page.getByRole('alert')).toContainText('There is no program "no-such-program" in the catalogue.')
  await page.getByRole('link', { name: 'Blender' }).click()
  await expect(page).toHaveURL(/\/programs\/blender$/)
  expect(await overflowingElements(page)).toEqual([])
})

test('the platform filter on the public listing and its signed-in twin, in the URL', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 })
  await page.goto('/library')
  await hydrated(page)
  const platform = page.getByLabel('Platform')
  await expect(platform).toHaveValue('all')
  const before = await page.locator('.listing-count').textContent()
  await platform.selectOption('web')
  await expect(page).toHaveURL(/\/library\?(.*&)?platform=web(&|$)/)
  await expect(page.locator('.listing-count')).not.toHaveText(before!)
  await expect(page.locator('.program-card h3', { hasText: 'Blender' })).toHaveCount(0)
  await expect(page.locator('.program-card h3', { hasText: 'Figma' })).toHaveCount(1)
  // The pages keep it.
  await page.getByRole('link', { name: 'Free', exact: true }).click()
  await expect(page).toHaveURL(/platform=web/)
  await expect(page).toHaveURL(/price=free/)
  await expect(platform).toHaveValue('web')

  await readyAccount(page, 'compare-platforms')
  // A public link with the filter leads to the twin with it.
  await page.goto('/library?platform=linux&sort=nameAsc')
  await expect(page).toHaveURL(/\/@\/programs\?platform=linux&sort=nameAsc$/)
  await hydrated(page)
  await expect(page.getByLabel('Platform')).toHaveValue('linux')
  await expect(page.locator('.program-card h3', { hasText: 'Adobe Photoshop' })).toHaveCount(0)
  await page.getByLabel('Platform').selectOption('macos')
  await expect(page).toHaveURL(/\/@\/programs\?(.*&)?platform=macos(&|$)/)

  // Signed in, the tray leads to the comparison's twin.
  const names = await cardNames(page, 2)
  for (const name of names) await page.getByRole('button', { name: `Compare ${name}`, exact: true }).click()
  await page.getByRole('link', { name: 'Compare (2)' }).click()
  await expect(page).toHaveURL(/\/@\/compare\?programs=[\w-]+,[\w-]+$/)
  await expect(page.getByRole('table').getByRole('columnheader')).toHaveText(names.map((name) => new RegExp(`^${name}`)))

  // The personal library has the control too.
  await page.goto('/@/library?platform=web')
  await expect(page.getByLabel('Platform')).toHaveValue('web')
})

test('the comparison, its tray and its error page pass axe, in English and Romanian', async ({ page, context }) => {
  // One program picked, so that the tray shows too.
  await page.goto('/programs/blender')
  await hydrated(page)
  await page.locator('.program-actions').getByRole('button', { name: 'Compare Blender', exact: true }).click()
  for (const lang of ['en', 'ro']) {
    await context.addCookies([{ name: 'lang', value: lang, domain: '127.0.0.1', path: '/' }])
    for (const url of ['/compare?programs=blender,gimp,krita', '/compare?programs=blender,blender']) {
      await page.goto(url)
      await hydrated(page)
      await expect(page.getByTestId('compare-tray')).toBeVisible()
      const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze()
      expect(result.violations.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`), `${url} in ${lang}`).toEqual([])
    }
  }
})
