import { expect, test, type Locator, type Page } from '@playwright/test'

// Item 1: every program shows a logo — on the cards and, large, on its page — served by
// our own origin; no two cards of a listing page share one.

/** The image has loaded and decoded: a broken or blocked image has no natural width. */
async function expectLoaded(image: Locator): Promise<void> {
  await image.scrollIntoViewIfNeeded()
  await expect.poll(() => image.evaluate((element: HTMLImageElement) => (element.complete ? element.naturalWidth : 0))).toBeGreaterThan(0)
}

async function expectSize(image: Locator, pixels: number): Promise<void> {
  const box = await image.boundingBox()
  expect(box && [Math.round(box.width), Math.round(box.height)]).toEqual([pixels, pixels])
}

/** Same-origin SVG answers for every logo the page asked for; nothing from elsewhere. */
function recordLogoResponses(page: Page): Array<{ url: string; status: number; type: string }> {
  const seen: Array<{ url: string; status: number; type: string }> = []
  page.on('response', (response) => {
    if (response.request().resourceType() === 'image') seen.push({ url: response.url(), status: response.status(), type: response.headers()['content-type'] ?? '' })
  })
  return seen
}

for (const width of [390, 1280]) {
  test(`logos on the first listing page and on program pages load, each its own, at ${width} px`, async ({ page }) => {
    await page.setViewportSize({ width, height: 900 })
    const images = recordLogoResponses(page)
    await page.goto('/library')
    await expect(page.locator('html')).toHaveAttribute('data-hydrated', 'true')

    const logos = page.locator('.program-card img.program-icon')
    await expect(logos).toHaveCount(24)
    const sources = await logos.evaluateAll((elements) => elements.map((element) => element.getAttribute('src')))
    expect(new Set(sources).size, 'no two cards show the same image').toBe(24)
    for (const source of sources) expect(source).toMatch(/^\/logos\/[a-z0-9-]+\.svg\?v=[0-9a-f]+$/)
    await logos.first().evaluate((element) => element.closest('li')?.scrollIntoView({ block: 'start' }))
    await page.screenshot({ path: `test-results/screens/logos-library-${width}.png` })
    for (let i = 0; i < 24; i++) {
      const logo = logos.nth(i)
      await expectLoaded(logo)
      await expectSize(logo, 48)
      await expect(logo).toHaveAttribute('alt', '')
    }
    expect(images.length).toBeGreaterThanOrEqual(24)
    for (const image of images) {
      expect(new URL(image.url).origin, image.url).toBe(new URL(page.url()).origin)
      expect(image.status, image.url).toBeLessThan(400)
      if (image.status === 200) expect(image.type, image.url).toBe('image/svg+xml; charset=utf-8')
    }

    // A brand's mark (Blender) and a generated one (Adobe Photoshop), large.
    for (const id of ['blender', 'adobe-photoshop']) {
      await page.goto(`/programs/${id}`)
      const large = page.locator('.program-header img.program-icon-lg')
      await expect(large).toHaveAttribute('src', new RegExp(`^/logos/${id}\\.svg\\?v=`))
      await expectLoaded(large)
      await expectSize(large, 80)
      await expect(large).toHaveAttribute('alt', '')
      // Its cards further down (more from the developer, related) have logos that load too.
      const cards = page.locator('.program-card img.program-icon')
      for (let i = 0; i < (await cards.count()); i++) await expectLoaded(cards.nth(i))
      await page.screenshot({ path: `test-results/screens/logos-program-${id}-cards-${width}.png` })
      await page.evaluate(() => window.scrollTo(0, 0))
      await page.screenshot({ path: `test-results/screens/logos-program-${id}-${width}.png` })

      // The link preview: an absolute URL to a PNG card that exists.
      const ogImage = await page.locator('meta[property="og:image"]').getAttribute('content')
      expect(ogImage).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/og/programs/${id}\\.png\\?v=[0-9a-f]+$`))
      const card = await page.request.get(ogImage!)
      expect(card.status()).toBe(200)
      expect(card.headers()['content-type']).toBe('image/png')
      await expect(page.locator('meta[name="twitter:card"]')).toHaveAttribute('content', 'summary_large_image')
    }
  })
}

test('a client-side navigation from a program page to a listing drops the program\'s preview image', async ({ page }) => {
  await page.goto('/programs/blender')
  await expect(page.locator('html')).toHaveAttribute('data-hydrated', 'true')
  await expect(page.locator('meta[property="og:image"]')).toHaveCount(1)
  await page.locator('.program-details').getByRole('link', { name: '3D' }).click()
  await expect(page).toHaveURL(/\/category\/3d$/)
  await expect(page.locator('meta[property="og:image"]')).toHaveCount(0)
  await expect(page.locator('meta[name="twitter:card"]')).toHaveAttribute('content', 'summary')
  await page.goBack()
  await expect(page.locator('meta[property="og:image"]')).toHaveAttribute('content', /\/og\/programs\/blender\.png\?v=/)
})

test('German listing at 390 px (screenshot)', async ({ page, context }) => {
  await context.addCookies([{ name: 'lang', value: 'de', domain: '127.0.0.1', path: '/' }])
  await page.setViewportSize({ width: 390, height: 900 })
  await page.goto('/category/graphics')
  const first = page.locator('.program-card img.program-icon').first()
  await expectLoaded(first)
  await page.screenshot({ path: 'test-results/screens/logos-category-de-390.png' })
})

test('every logo is legible on its tile: what it draws is at least a fifth of the tile high', async ({ page }) => {
  // Wide wordmarks (Comsol's was 2.2 of its 24 units high, a sliver at 48 px) are not marks.
  const ids: string[] = []
  for (let pageNumber = 1; ; pageNumber++) {
    const answer = (await (await page.request.get(`/api/programs?pageSize=100&page=${pageNumber}`)).json()) as { items: Array<{ id: string }>; total: number }
    ids.push(...answer.items.map((item) => item.id))
    if (ids.length >= answer.total || answer.items.length === 0) break
  }
  expect(ids.length).toBeGreaterThan(200)
  // Sixteen at a time: all 200+ at once would pass the server's in-flight bound (OVERLOAD_MAX_IN_FLIGHT, 128) and be shed.
  const documents: Array<readonly [string, string]> = []
  for (let index = 0; index < ids.length; index += 16) {
    const batch = ids.slice(index, index + 16).map(async (id) => {
      const answer = await page.request.get(`/logos/${id}.svg`)
      expect(answer.status(), `/logos/${id}.svg`).toBe(200)
      return [id, await answer.text()] as const
    })
    documents.push(...(await Promise.all(batch)))
  }
  await page.setContent('<div id="tiles"></div>')
  const heights = await page.evaluate((documents) => {
    const tiles = document.getElementById('tiles')!
    return documents.map(([id, text]) => {
      tiles.innerHTML = text.replace(/^<\?xml[^>]*>/, '')
      const root = tiles.querySelector('svg')!
      root.setAttribute('width', '64')
      root.setAttribute('height', '64')
      const tile = root.getBoundingClientRect()
      // Everything drawn but the tile itself (its first shape).
      const shapes = [...root.querySelectorAll('path, rect, circle, ellipse, polygon, line, polyline')].slice(1)
      const rects = shapes.map((shape) => shape.getBoundingClientRect()).filter((rect) => rect.height > 0)
      const top = Math.min(...rects.map((rect) => rect.top))
      const bottom = Math.max(...rects.map((rect) => rect.bottom))
      return [id, (bottom - top) / tile.height] as const
    })
  }, documents)
  const thin = heights.filter(([, share]) => share < 0.2).map(([id, share]) => `${id} ${share.toFixed(2)}`)
  expect(thin, 'logos drawing less than a fifth of the tile high').toEqual([])
})
