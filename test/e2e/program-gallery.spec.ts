import fs from 'node:fs'
import path from 'node:path'
import { expect, test, type Page } from '@playwright/test'
import sharp from 'sharp'
import { LOCALE_COOKIE_NAME } from '../../shared/constants.ts'
import type { OperatorRole } from '../../shared/operator.ts'
import { E2E_API_PORT, E2E_DATA_DIR } from '../../playwright.config.ts'
import { hydrated, readyAccount } from './support/accounts.ts'

// An editor uploads screenshots of a program through the API (as the console will), and
// anyone sees them on the program page as a gallery that works with the keyboard: thumbnails
// that open a larger view, ← and → to go through them, Escape to close, focus back where it was.

const SHOTS = process.env.MEDIA_SHOTS_DIR ?? '/work/shots/media'

/**
 * Grants a role the way an operator does (`npm run accounts -- role add <email> <role>`: the
 * running API's /internal endpoint with the operator token of the data folder), then waits until
 * the signed-in page's session carries it (the BFF reads a role change within a second).
 */
async function grantRole(page: Page, email: string, role: OperatorRole): Promise<void> {
  const token = fs.readFileSync(path.join(E2E_DATA_DIR, 'operator-token'), 'utf8').trim()
  const answer = await fetch(`http://127.0.0.1:${E2E_API_PORT}/internal/users/roles`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email, role, granted: true }),
  })
  expect(answer.status, await answer.text()).toBe(200)
  await expect.poll(async () => (await page.request.get('/api/operator/programs/krita/media')).status(), { timeout: 10_000 }).toBe(200)
}

/** A screenshot-like picture: a window with a title bar and a coloured canvas. */
async function picture(width: number, height: number, colour: string, label: string): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <rect width="100%" height="100%" fill="#e8ecf3"/><rect width="100%" height="48" fill="#1f3a5f"/>
    <rect x="40" y="88" width="${width - 80}" height="${height - 128}" rx="16" fill="${colour}"/>
    <circle cx="${width / 2}" cy="${height / 2 + 20}" r="${Math.min(width, height) / 6}" fill="#ffffff" opacity="0.8"/>
    <rect x="24" y="16" width="${40 + label.length * 4}" height="16" rx="8" fill="#f4b942"/></svg>`
  return sharp(Buffer.from(svg)).png().toBuffer()
}

test('an editor uploads screenshots; the program page shows them as a gallery that works with the keyboard', async ({ page, browser }) => {
  const email = await readyAccount(page, 'gallery-editor')
  await grantRole(page, email, 'editor')
  const origin = new URL(page.url()).origin
  const program = 'krita'
  const headers = { rid: 'anti-csrf', origin }
  const uploaded: string[] = []
  for (const [index, [colour, alt]] of ([
    ['#2f6fde', 'The canvas with a brush stroke'],
    ['#1d6b3a', 'The layers panel'],
    ['#a4262c', ''],
  ] as const).entries()) {
    const answer = await page.request.post(`/api/operator/programs/${program}/screenshots${alt ? `?alt=${encodeURIComponent(alt)}` : ''}`, {
      headers: { ...headers, 'content-type': 'image/png' },
      data: await picture(1600, 1000, colour, `shot ${index + 1}`),
    })
    expect(answer.status(), await answer.text()).toBe(201)
    uploaded.push(((await answer.json()) as { id: string }).id)
  }
  // A German text for the second.
  const patched = await page.request.patch(`/api/operator/programs/${program}/screenshots/${uploaded[1]}`, { headers, data: { alt: { de: 'Die Ebenen' } } })
  expect(patched.status()).toBe(200)

  // A visitor, in a tab of their own.
  const visitor = await (await browser.newContext({ baseURL: origin })).newPage()
  await visitor.setViewportSize({ width: 1280, height: 900 })
  await visitor.goto(`/programs/${program}`)
  await hydrated(visitor)
  // The visitor answers the cookie banner first, as a person would (it would cover the pictures).
  await visitor.getByRole('button', { name: 'Decline analytics' }).click()
  const gallery = visitor.getByRole('region', { name: 'Screenshots' })
  await expect(gallery).toBeVisible()
  const thumbs = gallery.getByRole('button')
  await expect(thumbs).toHaveCount(3)
  await expect(thumbs.first()).toHaveAccessibleName('Enlarge: The canvas with a brush stroke')
  await expect(thumbs.nth(2)).toHaveAccessibleName('Enlarge: Screenshot 3 of 3 of Krita')
  const firstImage = gallery.locator('img').first()
  await expect(firstImage).toHaveAttribute('loading', 'lazy')
  await expect(firstImage).toHaveAttribute('width', '1400')
  await expect(firstImage).toHaveAttribute('height', '875')
  await expect(firstImage).toHaveAttribute('srcset', /\/api\/screenshots\/[0-9a-f]{32}\.webp 280w, .* 1400w$/)
  await gallery.scrollIntoViewIfNeeded()
  await expect.poll(() => firstImage.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBeGreaterThan(0)
  fs.mkdirSync(SHOTS, { recursive: true })
  await visitor.screenshot({ path: path.join(SHOTS, 'gallery-1280-en.png'), fullPage: true })

  // Keyboard: focus the first thumbnail, open it, go right twice, wrap to the first, back left, close.
  await thumbs.first().focus()
  await visitor.keyboard.press('Enter')
  const dialog = visitor.getByRole('dialog', { name: 'Screenshot 1 of 3' })
  await expect(dialog).toBeVisible()
  await expect(dialog.getByRole('button', { name: 'Close' })).toBeFocused()
  await expect(dialog.locator('figcaption')).toHaveText('The canvas with a brush stroke')
  await visitor.screenshot({ path: path.join(SHOTS, 'dialog-1280-en.png') })
  await visitor.keyboard.press('ArrowRight')
  await expect(visitor.getByRole('dialog', { name: 'Screenshot 2 of 3' })).toBeVisible()
  await expect(visitor.getByRole('dialog').getByRole('img')).toHaveAccessibleName('The layers panel')
  await visitor.keyboard.press('ArrowRight')
  await expect(visitor.getByRole('dialog', { name: 'Screenshot 3 of 3' })).toBeVisible()
  await visitor.keyboard.press('ArrowRight')
  await expect(visitor.getByRole('dialog', { name: 'Screenshot 1 of 3' })).toBeVisible()
  await visitor.keyboard.press('ArrowLeft')
  await expect(visitor.getByRole('dialog', { name: 'Screenshot 3 of 3' })).toBeVisible()
  // The labelled buttons do the same.
  await visitor.getByRole('button', { name: 'Previous screenshot' }).click()
  await expect(visitor.getByRole('dialog', { name: 'Screenshot 2 of 3' })).toBeVisible()
  await visitor.keyboard.press('Escape')
  await expect(visitor.getByRole('dialog')).toHaveCount(0)
  await expect(thumbs.nth(1)).toBeFocused()

  // German, at 390 px: the German alternative text, the English one where there is none.
  await visitor.context().addCookies([{ name: LOCALE_COOKIE_NAME, value: 'de', url: origin }])
  await visitor.setViewportSize({ width: 390, height: 844 })
  await visitor.goto(`/programs/${program}`)
  await hydrated(visitor)
  const german = visitor.getByRole('region', { name: 'Bildschirmfotos' })
  await expect(german.getByRole('button').nth(1)).toHaveAccessibleName('Vergrößern: Die Ebenen')
  await expect(german.getByRole('button').first()).toHaveAccessibleName('Vergrößern: The canvas with a brush stroke')
  const box = await german.getByRole('button').first().boundingBox()
  expect(box!.width).toBeLessThanOrEqual(390)
  expect(await visitor.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
  await german.scrollIntoViewIfNeeded()
  await visitor.screenshot({ path: path.join(SHOTS, 'gallery-390-de.png'), fullPage: true })
  await german.getByRole('button').nth(1).click()
  await expect(visitor.getByRole('dialog', { name: 'Bildschirmfoto 2 von 3' })).toBeVisible()
  await visitor.screenshot({ path: path.join(SHOTS, 'dialog-390-de.png') })
  await visitor.getByRole('button', { name: 'Schließen' }).click()
  await expect(german.getByRole('button').nth(1)).toBeFocused()

  // The other two: English at 390, German at 1280.
  await visitor.context().addCookies([{ name: LOCALE_COOKIE_NAME, value: 'en', url: origin }])
  await visitor.goto(`/programs/${program}`)
  await hydrated(visitor)
  await visitor.getByRole('region', { name: 'Screenshots' }).scrollIntoViewIfNeeded()
  await visitor.screenshot({ path: path.join(SHOTS, 'gallery-390-en.png'), fullPage: true })
  await visitor.context().addCookies([{ name: LOCALE_COOKIE_NAME, value: 'de', url: origin }])
  await visitor.setViewportSize({ width: 1280, height: 900 })
  await visitor.goto(`/programs/${program}`)
  await hydrated(visitor)
  await visitor.getByRole('region', { name: 'Bildschirmfotos' }).scrollIntoViewIfNeeded()
  await visitor.screenshot({ path: path.join(SHOTS, 'gallery-1280-de.png'), fullPage: true })

  // Removed by the editor: gone from the page.
  for (const id of uploaded) expect((await page.request.delete(`/api/operator/programs/${program}/screenshots/${id}`, { headers })).status()).toBe(204)
})
