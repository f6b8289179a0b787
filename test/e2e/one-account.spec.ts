import { expect, test, type Page } from '@playwright/test'
import { PASSWORD, hydrated, mailedLink, readyAccount } from './support/accounts.ts'

// One account, one state, as a person meets it: a password reset lifts the sign-in
// block, the header's language is the account's, and the deletion section says everything it
// removes before it is confirmed.

async function logIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/login')
  await hydrated(page)
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Log in', exact: true }).click()
}

const resetLink = (email: string) => mailedLink(email, /\/reset-password\?token=/)

test('five wrong passwords, then a reset: the reset page says the account can sign in, and the new password does (issue 27)', async ({ page }) => {
  const email = await readyAccount(page, 'locked')
  await page.getByRole('link', { name: 'Log out' }).click()
  await expect(page).toHaveURL(/\/login$/)
  for (let i = 0; i < 5; i++) {
    await logIn(page, email, `wrong password ${i}`)
    await expect(page.getByTestId(i < 4 ? 'login-error' : 'login-blocked')).toBeVisible()
  }

  await page.getByRole('link', { name: 'Forgot your password?' }).click()
  await expect(page.getByRole('heading', { name: 'Forgot your password?' })).toBeVisible()
  await page.getByLabel('Email').fill(email)
  await page.getByRole('button', { name: 'Send the link' }).click()
  await expect(page.getByTestId('forgot-sent')).toBeVisible()
  await page.goto(await resetLink(email))
  await hydrated(page)
  const newPassword = 'a brand new passphrase after a block'
  await page.getByLabel('New password', { exact: true }).fill(newPassword)
  await page.getByLabel('Repeat the new password').fill(newPassword)
  await page.getByRole('button', { name: 'Save the new password' }).click()
  await expect(page.getByTestId('reset-done')).toHaveText(/any sign-in block on your account has ended\. You can log in now/)

  await logIn(page, email, newPassword)
  await expect(page).toHaveURL(/\/@\/library$/)
})

test('the language chosen in the header of a signed-in user is the account\'s: the profile shows it, the next sign-in uses it (issue 27)', async ({ page, context }) => {
  const email = await readyAccount(page, 'polyglot')
  await page.getByTestId('language-switcher').selectOption('de')
  await expect(page.getByRole('link', { name: 'Mein Profil' })).toBeVisible()
  await page.getByRole('link', { name: 'Mein Profil' }).click()
  await expect(page).toHaveURL(/\/@\/my-profile$/)
  await expect(page.getByTestId('profile-language')).toHaveValue('de')

  // Another browser: nothing but the account says German.
  await context.clearCookies()
  await context.setExtraHTTPHeaders({ 'accept-language': 'en' })
  await page.goto('/login')
  await hydrated(page)
  await expect(page.locator('html')).toHaveAttribute('lang', 'en')
  await logIn(page, email, PASSWORD)
  await expect(page).toHaveURL(/\/@\/library$/)
  await expect(page.locator('html')).toHaveAttribute('lang', 'de')
  await expect(page.getByRole('link', { name: 'Meine Bibliothek' })).toBeVisible()
})

test('the deletion section says, before the person confirms, how many files (and how large) and shared links go (issue 27)', async ({ page }) => {
  await readyAccount(page, 'leaver')
  await page.goto('/@/my-profile')
  await hydrated(page)
  await expect(page.getByTestId('deletion-summary')).toHaveText('You have no files, shared links or subscriptions: nothing else is removed.')

  await page.goto('/@/files')
  await hydrated(page)
  await page.getByTestId('upload-files-input').setInputFiles([
    { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.alloc(1536, 'a') },
    { name: 'photo.jpg', mimeType: 'image/jpeg', buffer: Buffer.alloc(2048, 1) },
  ])
  await expect(page.getByTestId('upload-row').and(page.locator('[data-status="done"]'))).toHaveCount(2)
  const listing = (await (await page.request.get('/api/files')).json()) as { items: Array<{ id: string; name: string }> }
  const notes = listing.items.find((item) => item.name === 'notes.txt')!
  const shared = await page.request.post(`/api/files/${notes.id}/shares`, { headers: { rid: 'anti-csrf', 'content-type': 'application/json' }, data: {} })
  expect(shared.status()).toBe(201)

  await page.goto('/@/my-profile')
  await hydrated(page)
  const summary = page.getByTestId('deletion-summary')
  await expect(summary).toContainText('Deleting it also removes:')
  await expect(summary.getByRole('listitem')).toHaveText(['2 files in My files (3.5 kB in all), the trash included', '1 shared link: it stops working'])
})
