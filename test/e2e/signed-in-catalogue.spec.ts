import { expect, test, type Page } from '@playwright/test'
import { hydrated, readyAccount } from './support/accounts.ts'

// A signed-in user keeps the whole catalogue. Public catalogue addresses lead to
// their twins under /@ with the query; every link on a signed-in page stays inside /@; the personal
// library has the listing's search box and a "recently added" sort.

/** A public catalogue page, or the public home: a signed-in page never links to one. */
const PUBLIC_PAGE = /^\/(|library|programs|category|developer|publisher|license-type|files)(\/.*)?(\?.*)?(#.*)?$/i

async function sameOriginLinks(page: Page): Promise<string[]> {
  return page.locator('a[href]').evaluateAll((links) =>
    links
      .map((link) => new URL((link as HTMLAnchorElement).href))
      .filter((url) => url.origin === window.location.origin)
      .map((url) => `${url.pathname}${url.search}`),
  )
}

async function expectOnlySignedInLinks(page: Page): Promise<void> {
  const links = await sameOriginLinks(page)
  expect(links.length, page.url()).toBeGreaterThan(0)
  expect(
    links.filter((href) => PUBLIC_PAGE.test(href)),
    `public catalogue links on ${page.url()}`,
  ).toEqual([])
}

test('every signed-in page links only inside /@, and public addresses lead to their twins with the query', async ({ page }) => {
  await readyAccount(page, 'twins')

  // A bookmark or a shared link to the public catalogue, query and all.
  await page.goto('/library?q=gimp&sort=nameAsc')
  await expect(page).toHaveURL(/\/@\/programs\?q=gimp&sort=nameAsc$/)
  await expect(page.getByLabel('Search programs')).toHaveValue('gimp')
  await expect(page.getByLabel('Sort by')).toHaveValue('nameAsc')
  await expect(page.locator('.program-card h3').first()).toHaveText('GIMP')
  await page.goto('/Publisher/blender-foundation/?price=free')
  await expect(page).toHaveURL(/\/@\/publisher\/blender-foundation\?price=free$/)
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Blender Foundation')

  // From the program page, by clicking: publisher and licence are links again, into /@.
  await page.goto('/@/programs/blender')
  await hydrated(page)
  await page.locator('.program-details').getByRole('link', { name: 'Blender Foundation' }).nth(1).click()
  await expect(page).toHaveURL(/\/@\/publisher\/blender-foundation$/)
  await expect(page.getByRole('button', { name: 'Add Blender to my library' })).toBeVisible()
  await page.goBack()
  await page.locator('.program-details').getByRole('link', { name: 'Open source' }).click()
  await expect(page).toHaveURL(/\/@\/license-type\/open-source$/)
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Open source')
  await page.locator('.program-card h3 a').first().click()
  await expect(page).toHaveURL(/\/@\/programs\/[a-z0-9-]+$/)
  await page.locator('.brand').click()
  await expect(page).toHaveURL(/\/@\/library$/)

  for (const url of [
    '/@/library',
    '/@/programs',
    '/@/programs?q=adobe&page=2',
    '/@/programs/blender',
    '/@/programs/reaper',
    '/@/category/3d',
    '/@/developer/blender-foundation',
    '/@/publisher/adobe',
    '/@/license-type/subscription',
    '/@/publisher/nobody',
    '/@/files',
    '/@/my-profile',
    '/streaming',
  ]) {
    await page.goto(url)
    await hydrated(page)
    await expectOnlySignedInLinks(page)
  }
  // The empty state's links too.
  await page.goto('/@/programs?q=qqqqqqqqqq')
  await expect(page.getByText('No program matches these filters.')).toBeVisible()
  await expectOnlySignedInLinks(page)
})

test('the personal library: the search box and "recently added", with and without scripts', async ({ page, browser }) => {
  await readyAccount(page, 'shelf')
  for (const name of ['Blender', 'GIMP', 'Inkscape']) {
    await page.goto('/@/programs?q=' + encodeURIComponent(name))
    await hydrated(page)
    await page.getByRole('button', { name: `Add ${name} to my library` }).click()
    await expect(page.getByRole('button', { name: `Remove ${name} from my library` })).toBeVisible()
  }
  await page.goto('/@/library')
  await hydrated(page)
  const names = page.locator('.program-card h3')
  await expect(page.getByLabel('Sort by').locator('option')).toHaveText(['Most popular', 'Name A–Z', 'Name Z–A', 'Recently added'])
  await page.getByLabel('Sort by').selectOption('recentlyAdded')
  await expect(page).toHaveURL(/\/@\/library\?.*sort=recentlyAdded/)
  await expect(names).toHaveText(['Inkscape', 'GIMP', 'Blender'])
  await page.getByLabel('Search programs').fill('gimp')
  await page.getByRole('button', { name: 'Search' }).click()
  await expect(page).toHaveURL(/\/@\/library\?q=gimp&.*sort=recentlyAdded/)
  await expect(names).toHaveText(['GIMP'])
  // Back: the list and the fields are the URL's again.
  await page.goBack()
  await expect(names).toHaveText(['Inkscape', 'GIMP', 'Blender'])
  await expect(page.getByLabel('Search programs')).toHaveValue('')
  await page.goBack()
  await expect(page.getByLabel('Sort by')).toHaveValue('namePopular')

  // The public catalogue has no "added" date, and no such sort.
  await page.goto('/@/programs?sort=recentlyAdded')
  await expect(page.getByLabel('Sort by')).toHaveValue('namePopular')
  await expect(page.getByLabel('Sort by').locator('option')).toHaveCount(3)

  // Without JavaScript the form is a plain GET form on the same page.
  const noScript = await browser.newContext({ javaScriptEnabled: false, storageState: await page.context().storageState() })
  const plain = await noScript.newPage()
  await plain.goto('/@/library')
  await plain.getByLabel('Search programs').fill('inkscape')
  await plain.getByRole('button', { name: 'Search' }).click()
  await expect(plain).toHaveURL(/\/@\/library\?q=inkscape&/)
  await expect(plain.locator('.program-card h3')).toHaveText(['Inkscape'])
  await noScript.close()
})
