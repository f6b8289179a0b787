import { expect, test, type Page } from '@playwright/test'
import { hydrated, readyAccount } from './support/accounts.ts'

// The header is for who is there. A signed-in user sees their name (or their email) and
// their menu on every page with a header, not a visitor's; the public catalogue and "My library"
// have names a person cannot confuse; a wrong address says so in the visitor's language.

async function expectSignedInHeader(page: Page, label: string, where: string): Promise<void> {
  const header = page.locator('.site-header')
  await expect(header.getByTestId('signed-in-as'), where).toHaveText(label)
  await expect(header.getByRole('link', { name: 'My profile' }), where).toBeVisible()
  await expect(header.getByRole('link', { name: 'Log out' }), where).toBeVisible()
  await expect(header.getByRole('link', { name: 'Log in' }), where).toHaveCount(0)
}

test('the header names the signed-in user and is theirs on every page with a header', async ({ page }) => {
  const email = await readyAccount(page, 'header')
  await hydrated(page)
  const header = page.locator('.site-header')
  await expectSignedInHeader(page, email, '/@/library: no name yet, the email')
  // One name per place: the user's own library beside the whole catalogue; streaming is configured here.
  await expect(header.getByRole('link', { name: 'My library' })).toBeVisible()
  await expect(header.getByRole('link', { name: 'Catalogue', exact: true })).toHaveAttribute('href', '/@/programs')
  await expect(header.getByRole('link', { name: 'Streaming' })).toHaveAttribute('href', '/streaming')

  // The name saved on the profile is in the header at once, without a reload.
  await header.getByRole('link', { name: 'My profile' }).click()
  await hydrated(page)
  await page.getByLabel('Display name').fill('Grace Hopper')
  await page.getByRole('button', { name: 'Save' }).click()
  await expect(page.getByTestId('profile-status')).toHaveText('Your profile is saved.')
  await expectSignedInHeader(page, 'Grace Hopper', 'the profile, after saving')
  // Written out on a wide screen too (an email is not: the avatar stands for it there).
  expect((await header.getByTestId('signed-in-as').boundingBox())!.width).toBeGreaterThan(40)

  for (const url of ['/streaming', '/mfa', '/sentry-test', '/stripe/cancel', '/nope']) {
    await page.goto(url)
    await hydrated(page)
    await expectSignedInHeader(page, 'Grace Hopper', url)
  }
  // The 404 page of a signed-in user leads on to their catalogue and home.
  await expect(page.getByRole('link', { name: 'Browse the catalogue' })).toHaveAttribute('href', '/@/programs')
  await expect(page.getByRole('link', { name: 'Back to home' })).toHaveAttribute('href', '/@')

  // On a phone the name is in the menu.
  await page.setViewportSize({ width: 390, height: 844 })
  await expect(header.getByTestId('signed-in-as')).toBeHidden()
  await header.getByText('Menu').click()
  await expect(header.getByTestId('signed-in-as')).toBeVisible()
  await expect(header.getByTestId('signed-in-as')).toHaveText('Grace Hopper')
})

test('a wrong address says so in the visitor\'s language, keeps the spec\'s message, and leads on', async ({ page, context }) => {
  await context.addCookies([{ name: 'lang', value: 'de', domain: '127.0.0.1', path: '/' }])
  const response = await page.goto('/nope')
  expect(response?.status()).toBe(404)
  await hydrated(page)
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Seite nicht gefunden')
  await expect(page.locator('.error-detail')).toHaveText('Fehlermeldung: Page Not Found: /nope')
  await expect(page.getByTestId('error-message')).toHaveAttribute('lang', 'en')
  await expect(page.getByRole('link', { name: 'Katalog durchstöbern' })).toHaveAttribute('href', '/library')
  await expect(page.getByRole('link', { name: 'Zurück zur Startseite' })).toHaveAttribute('href', '/')
  // The visitor's header names the public catalogue as the catalogue.
  await expect(page.locator('.site-header').getByRole('link', { name: 'Katalog', exact: true })).toHaveAttribute('href', '/library')
})
