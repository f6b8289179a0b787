import { spawnSync } from 'node:child_process'
import AxeBuilder from '@axe-core/playwright'
import { expect, test, type Page } from '@playwright/test'
import { base32Decode, totpCode } from '../../server/authcore/totp.ts'
import { E2E_ENV } from '../../playwright.config.ts'
import { hydrated, newEmail, PASSWORD, readyAccount } from './support/accounts.ts'
import { E2E_MAIL_PORT } from './support/ports.ts'

// Every account flow end to end in Chromium. Mail is read from the real SMTP server
// the run starts; external sign-in goes to a real local OpenID provider (support/services.ts).

interface Mail {
  subject: string
  links: string[]
}

/** The newest message to `email` whose subject matches, with its link into the app. */
async function mailLink(email: string, subject: RegExp, skip = 0): Promise<string> {
  let link = ''
  await expect
    .poll(
      async () => {
        const messages = (await (await fetch(`http://127.0.0.1:${E2E_MAIL_PORT}/messages?to=${encodeURIComponent(email)}`)).json()) as Mail[]
        const matching = messages.filter((message) => subject.test(message.subject))
        link = matching[skip]?.links.find((candidate) => /\/(verify-email|reset-password|confirm-email)\?token=/.test(candidate)) ?? ''
        return link
      },
      { timeout: 15_000 },
    )
    .not.toBe('')
  return link
}

async function signUp(page: Page, email: string): Promise<void> {
  await page.goto('/welcome')
  await hydrated(page)
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Create account' }).click()
  await expect(page).toHaveURL(/\/check-email$/)
  await expect(page.getByRole('heading', { name: 'Check your email' })).toBeVisible()
}

async function verifyFromMail(page: Page, email: string): Promise<void> {
  await page.goto(await mailLink(email, /Verify your email address/))
  await hydrated(page)
  // The link alone spends nothing: a person confirms (mail scanners open links too).
  await page.getByRole('button', { name: 'Verify my email' }).click()
  await expect(page.getByTestId('verify-done')).toBeVisible()
}

async function logIn(page: Page, email: string, password = PASSWORD): Promise<void> {
  await page.goto('/login')
  await hydrated(page)
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Log in', exact: true }).click()
}


test('sign up → verify by the emailed link → accept terms → library → add and remove → sign out', async ({ page }) => {
  const email = newEmail('ada')
  await page.goto('/?utm_source=newsletter&utm_campaign=launch')
  await hydrated(page)
  // Spec §3: the landing page's UTM record goes with the sign-up.
  const signUpRequest = page.waitForRequest((request) => request.url().endsWith('/auth/signup'))
  await signUp(page, email)
  const fields = (JSON.parse((await signUpRequest).postData() ?? '{}') as { formFields: Array<{ id: string; value: unknown }> }).formFields
  expect(fields.find((field) => field.id === 'utm')?.value).toMatchObject({ utmParams: { utm_source: 'newsletter', utm_campaign: 'launch' }, additionalInfo: { landingPageUrl: expect.stringContaining('utm_source=newsletter') } })
  expect(fields.find((field) => field.id === 'isInMailList')?.value).toBe(false)
  await expect(page.getByText(`We sent a link to ${email}`)).toBeVisible()

  // Until the email is verified the library is closed.
  await page.goto('/@/library')
  await expect(page).toHaveURL(/\/email-not-verified$/)

  await verifyFromMail(page, email)
  await page.getByRole('link', { name: 'Continue' }).click()
  await expect(page).toHaveURL(/\/tos$/)
  await page.getByLabel(/Send me news/).check()
  await page.getByRole('button', { name: 'I accept the terms of service' }).click()
  await expect(page).toHaveURL(/\/@\/library$/)
  await expect(page.getByTestId('signed-in-as')).toHaveText(email)
  await expect(page.getByTestId('library-empty')).toBeVisible()

  await page.getByRole('link', { name: 'Browse programs' }).click()
  await expect(page).toHaveURL(/\/@\/programs$/)
  await page.getByRole('button', { name: 'Add Blender to my library' }).click()
  await expect(page.getByRole('button', { name: 'Remove Blender from my library' })).toBeVisible()

  await page.getByRole('link', { name: 'My library' }).click()
  await expect(page.locator('.program-card h3')).toHaveText(['Blender'])
  // The record kept the landing page's campaign and the opt-in (GET /api/user through the BFF).
  const user = await page.evaluate(async () => (await fetch('/api/user')).json())
  expect(user).toMatchObject({ email, isTosAccepted: true, isInMailList: true, librarySize: 1 })

  await page.getByRole('button', { name: 'Remove Blender from my library' }).click()
  await expect(page.getByTestId('library-empty')).toBeVisible()

  // Fully signed in, a public catalogue page sends to its signed-in twin, else to /@ (spec §4).
  await page.goto('/programs/blender')
  await expect(page).toHaveURL(/\/@\/programs\/blender$/)
  await expect(page.getByRole('button', { name: 'Add Blender to my library' })).toBeVisible()
  await page.goto('/')
  await expect(page).toHaveURL(/\/@\/library$/)

  await page.getByRole('link', { name: 'Log out' }).click()
  await expect(page).toHaveURL(/\/login$/)
  await page.goto('/@/library')
  await expect(page).toHaveURL(/\/login$/)
})

test('the duplicate email is told in the product words', async ({ page }) => {
  const email = await readyAccount(page, 'dup')
  await page.getByRole('link', { name: 'Log out' }).click()
  await expect(page).toHaveURL(/\/login$/)
  await page.goto('/welcome')
  await hydrated(page)
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Create account' }).click()
  await expect(page.getByText('This email already exists. Please log in.')).toBeVisible()
  await expect(page.getByText('Please sign in instead')).toHaveCount(0)
})

test('forgotten password → reset → sign in with the new one; the old link is refused', async ({ page }) => {
  const email = await readyAccount(page, 'grace')
  await page.getByRole('link', { name: 'Log out' }).click()
  await expect(page).toHaveURL(/\/login$/)

  await page.getByRole('link', { name: 'Forgot your password?' }).click()
  // The page's code loads on the way: fill its form, not the one it replaces.
  await expect(page.getByRole('heading', { name: 'Forgot your password?' })).toBeVisible()
  await page.getByLabel('Email').fill(email)
  await page.getByRole('button', { name: 'Send the link' }).click()
  await expect(page.getByTestId('forgot-sent')).toBeVisible()

  const link = await mailLink(email, /Reset your Softshelf password/)
  await page.goto(link)
  await hydrated(page)
  const newPassword = 'a brand new passphrase for grace'
  await page.getByLabel('New password', { exact: true }).fill(newPassword)
  await page.getByLabel('Repeat the new password').fill(newPassword)
  await page.getByRole('button', { name: 'Save the new password' }).click()
  await expect(page.getByTestId('reset-done')).toBeVisible()

  // A used link says so at once, before any form.
  await page.goto(link)
  await expect(page.getByTestId('reset-invalid')).toBeVisible()
  await expect(page.getByLabel('New password', { exact: true })).toHaveCount(0)

  await logIn(page, email)
  await expect(page.getByTestId('login-error')).toBeVisible()
  await logIn(page, email, newPassword)
  await expect(page).toHaveURL(/\/@\/library$/)
})

test('wrong passwords warn at 2 and 1 attempts left, then block, even the right password', async ({ page }) => {
  const email = await readyAccount(page, 'mallory')
  await page.getByRole('link', { name: 'Log out' }).click()
  await expect(page).toHaveURL(/\/login$/)
  await hydrated(page)

  const attempt = async (password: string) => {
    await page.getByLabel('Email').fill(email)
    await page.getByLabel('Password').fill(password)
    await page.getByRole('button', { name: 'Log in', exact: true }).click()
  }
  for (let i = 0; i < 2; i++) {
    await attempt('not the password')
    await expect(page.getByTestId('login-error')).toHaveText('The email or password is not correct.')
    await expect(page.getByTestId('login-warning')).toHaveCount(0)
  }
  await attempt('not the password')
  await expect(page.getByTestId('login-warning')).toContainText('2 attempts remaining')
  await attempt('not the password')
  await expect(page.getByTestId('login-warning')).toContainText('1 attempt remaining')
  await attempt('not the password')
  await expect(page.getByTestId('login-blocked')).toContainText('Your account is locked until')
  await attempt(PASSWORD)
  await expect(page.getByTestId('login-blocked')).toBeVisible()
  await expect(page).toHaveURL(/\/login$/)
})

test('an authenticator set up from the shown secret is asked for at the next sign-in', async ({ page }) => {
  const email = await readyAccount(page, 'tot')
  await page.goto('/mfa')
  await hydrated(page)
  const secret = (await page.getByTestId('mfa-secret').textContent())!.trim()
  await expect(page.getByRole('img', { name: /QR code/ })).toBeVisible()
  // A code works once: the sign-in uses the next period's (inside the allowed skew), never the set-up's.
  const code = (ahead = 0) => totpCode(base32Decode(secret), Math.floor(Date.now() / 30_000) + ahead)
  await page.getByLabel('Code').fill(code())
  await page.getByRole('button', { name: 'Verify' }).click()
  // The first authenticator comes with its recovery codes, shown once.
  await expect(page.getByTestId('recovery-codes').locator('li')).toHaveCount(10)
  await page.getByRole('button', { name: 'I have saved my codes' }).click()
  await expect(page).toHaveURL(/\/@\/library$/)

  await page.getByRole('link', { name: 'Log out' }).click()
  await expect(page).toHaveURL(/\/login$/)
  await logIn(page, email)
  await expect(page).toHaveURL(/\/mfa$/)
  await page.goto('/@/library')
  await expect(page).toHaveURL(/\/mfa$/, { timeout: 10_000 })
  await hydrated(page)
  await page.getByLabel('Code').fill([code(0), code(1), code(-1)].includes('000000') ? '111111' : '000000')
  await page.getByRole('button', { name: 'Verify' }).click()
  await expect(page.getByTestId('mfa-error')).toContainText('4 attempts left')
  await page.getByLabel('Code').fill(code(1))
  await page.getByRole('button', { name: 'Verify' }).click()
  await expect(page).toHaveURL(/\/@\/library$/)
})

test('an authenticator added from the profile; its recovery codes shown once sign in instead of a code; removed with a code', async ({ page }) => {
  const email = await readyAccount(page, 'rcv')
  await page.goto('/@/my-profile')
  await hydrated(page)
  const section = page.getByTestId('authenticator')
  await expect(section.getByTestId('totp-status')).toHaveText('Two-step verification is off.')
  await section.getByRole('link', { name: 'Add an authenticator' }).click()
  await expect(page).toHaveURL(/\/mfa\?redirectToPath=%2F%40%2Fmy-profile$/)
  const secret = (await page.getByTestId('mfa-secret').textContent())!.trim()
  const code = (ahead = 0) => totpCode(base32Decode(secret), Math.floor(Date.now() / 30_000) + ahead)
  await page.getByLabel('Code').fill(code())
  await page.getByRole('button', { name: 'Verify' }).click()

  const shown = page.getByTestId('recovery-codes').locator('li')
  await expect(shown).toHaveCount(10)
  const codes = (await shown.allTextContents()).map((text) => text.trim())
  expect(codes.every((one) => /^[a-z2-7]{4}(-[a-z2-7]{4}){3}$/.test(one))).toBe(true)
  const shownAudit = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze()
  expect(shownAudit.violations.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`)).toEqual([])
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download as a text file' }).click()])
  expect(download.suggestedFilename()).toBe('softshelf-recovery-codes.txt')
  const chunks: Buffer[] = []
  for await (const chunk of await download.createReadStream()) chunks.push(chunk as Buffer)
  expect(Buffer.concat(chunks).toString('utf8')).toContain(codes.join('\n'))
  await page.getByRole('button', { name: 'I have saved my codes' }).click()
  await expect(page).toHaveURL(/\/@\/my-profile$/)
  await expect(section.getByTestId('totp-status')).toHaveText('Two-step verification is on.')
  await expect(section.getByTestId('recovery-codes-remaining')).toHaveText('Unused recovery codes: 10')
  await expect(section.getByTestId('recovery-codes')).toHaveCount(0)

  await page.getByRole('link', { name: 'Log out' }).click()
  await expect(page).toHaveURL(/\/login$/)
  await logIn(page, email)
  await expect(page).toHaveURL(/\/mfa$/)
  await hydrated(page)
  await page.getByRole('button', { name: 'Use a recovery code instead' }).click()
  await expect(page.getByLabel('Recovery code')).toBeFocused()
  await page.getByLabel('Recovery code').fill('aaaa-bbbb-cccc-dddd')
  await page.getByRole('button', { name: 'Verify' }).click()
  await expect(page.getByTestId('mfa-error')).toHaveText('That recovery code is not right, or it has been used already.')
  await page.getByLabel('Recovery code').fill(codes[0]!.toUpperCase())
  await page.getByRole('button', { name: 'Verify' }).click()
  await expect(page).toHaveURL(/\/@\/library$/)

  await page.goto('/@/my-profile')
  await hydrated(page)
  await expect(section.getByTestId('recovery-codes-remaining')).toHaveText('Unused recovery codes: 9')
  // New codes only with a current code: the button asks for one first.
  await section.getByRole('button', { name: 'Create new recovery codes' }).click()
  const renewField = section.getByLabel('Code from the app or recovery code')
  await expect(renewField).toBeFocused()
  await renewField.fill([code(0), code(1), code(-1)].includes('000000') ? '111111' : '000000')
  await section.getByRole('button', { name: 'Create the new codes' }).click()
  await expect(section.getByTestId('authenticator-status')).toHaveText('The code is not right.')
  await expect(renewField).toBeFocused()
  await renewField.fill(code(1))
  await section.getByRole('button', { name: 'Create the new codes' }).click()
  await expect(section.getByTestId('recovery-codes').locator('li')).toHaveCount(10)
  const renewed = (await section.getByTestId('recovery-codes').locator('li').allTextContents()).map((text) => text.trim())
  expect(renewed.filter((one) => codes.includes(one))).toEqual([])
  await expect(section.getByTestId('recovery-codes-remaining')).toHaveText('Unused recovery codes: 10')
  await section.getByRole('button', { name: 'Remove', exact: true }).click()
  const field = section.getByLabel('Code from the app or recovery code')
  await expect(field).toBeFocused()
  const audit = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze()
  expect(audit.violations.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`)).toEqual([])
  // From the keyboard: Cancel gives the focus back to Remove, Enter opens the form again and sends it.
  await section.getByRole('button', { name: 'Cancel' }).click()
  await expect(section.getByRole('button', { name: 'Remove', exact: true })).toBeFocused()
  await page.keyboard.press('Enter')
  await expect(field).toBeFocused()
  // The app's code of this period was spent on the new codes: one of them removes it.
  await field.fill(renewed[0]!)
  await page.keyboard.press('Enter')
  await expect(section.getByTestId('authenticator-status')).toHaveText('The authenticator is removed. Log-ins no longer ask for a code.')
  await expect(section.getByTestId('totp-status')).toHaveText('Two-step verification is off.')

  await page.getByRole('link', { name: 'Log out' }).click()
  // Signed out first: a signed-in user opening /login is sent home.
  await expect(page).toHaveURL(/\/login$/)
  await logIn(page, email)
  await expect(page).toHaveURL(/\/@\/library$/)
})

test('external sign-in through a local OpenID provider; a tampered state is refused with the spec message', async ({ page }) => {
  const email = newEmail('oidc')
  await page.goto('/login')
  await hydrated(page)
  await page.getByRole('button', { name: 'Continue with Local ID' }).click()
  // oidc-provider's own development login and consent pages.
  await page.locator('input[name="login"]').fill(email)
  await page.locator('input[name="password"]').fill('any')
  await page.locator('button[type="submit"]').click()
  await page.locator('button[type="submit"]').click()
  await expect(page).toHaveURL(/\/tos$/)
  await page.getByRole('button', { name: 'I accept the terms of service' }).click()
  await expect(page).toHaveURL(/\/@\/library$/)
  await expect(page.getByTestId('signed-in-as')).toHaveText(email)
  // The profile knows the account has no password: no form to change one.
  await page.goto('/@/my-profile')
  await expect(page.getByTestId('no-password')).toContainText('You log in with an external provider')
  await expect(page.getByLabel('Current password')).toHaveCount(0)
  await expect(page.getByTestId('email-external')).toHaveText('Your account signs in with an external provider, so its email address is managed there.')
  await expect(page.getByLabel('New email address')).toHaveCount(0)

  await page.getByRole('link', { name: 'Log out' }).click()
  await expect(page).toHaveURL(/\/login$/)
  await hydrated(page)
  await page.getByRole('button', { name: 'Continue with Local ID' }).click()
  await page.waitForURL(/127\.0\.0\.1:\d+\/(interaction|auth)/)
  // Back at our callback with a state the browser never sent.
  await page.goto('/auth-callback/oidc?code=stolen&state=not-the-one-we-sent')
  await expect(page.getByTestId('callback-error')).toHaveText('Auth state verification failed. The auth provider responded with an invalid state')

  // The provider refuses (the user cancelled): its error, once the state checks pass.
  await page.goto('/login')
  const state = await page.evaluate(() => (JSON.parse(sessionStorage.getItem('supertokens-oauth-state-2') ?? '{}') as { stateForAuthProvider?: string }).stateForAuthProvider)
  expect(state).toBeTruthy()
  await page.goto(`/auth-callback/oidc?error=access_denied&state=${state}`)
  await expect(page.getByTestId('callback-error')).toHaveText('Auth provider responded with error: access_denied')

  await page.evaluate(() => sessionStorage.clear())
  await page.goto('/auth-callback/oidc?code=x&state=y')
  await expect(page.getByTestId('callback-error')).toHaveText('No valid auth state present in session storage')
})

test('the signed-in pages have no accessibility violations', async ({ page }) => {
  const check = async (url: string) => {
    await page.goto(url)
    await hydrated(page)
    const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze()
    expect(result.violations.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`), url).toEqual([])
  }
  const email = newEmail('axe')
  await signUp(page, email)
  // The email pages are a session's (a visitor is sent to log in), so they are checked here.
  await check('/check-email')
  await check('/email-not-verified')
  await verifyFromMail(page, email)
  await check('/tos')
  await page.getByRole('button', { name: 'I accept the terms of service' }).click()
  await expect(page).toHaveURL(/\/@\/library$/)
  for (const url of ['/@/library', '/@/programs', '/@/programs/blender', '/@/category/3d', '/@/developer/blender-foundation', '/@/my-profile', '/mfa']) await check(url)
})

test('an account an operator disables sees the disabled page, and is back when enabled', async ({ page }) => {
  const email = await readyAccount(page, 'eve')
  const operator = (action: 'disable' | 'enable') => {
    const env: Record<string, string | undefined> = { ...process.env, ...E2E_ENV }
    delete env.DATABASE_URL
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/accounts.ts', action, email], { env, encoding: 'utf8', timeout: 60_000 })
    expect(result.status, result.stderr).toBe(0)
  }
  operator('disable')
  // Disabling ends every session of the account; signed in again, it sees the message.
  // Within a second or so every instance has read the ended sessions (the revocation list).
  await expect(async () => {
    await page.goto('/@/library')
    await expect(page).toHaveURL(/\/login/, { timeout: 500 })
  }).toPass({ timeout: 10_000 })
  await logIn(page, email)
  await expect(page.getByTestId('account-disabled')).toContainText('Your account has been disabled. If you believe this is an error, please contact support')
  await page.goto('/@/programs/blender')
  await expect(page.getByTestId('account-disabled')).toBeVisible()
  expect((await page.evaluate(async () => (await fetch('/api/user')).status))).toBe(403)

  operator('enable')
  await page.goto('/@/library')
  await expect(page.getByTestId('signed-in-as')).toHaveText(email)
})

test('a tab waiting on /check-email moves on by itself once the email is verified elsewhere', async ({ page, browser }) => {
  const email = newEmail('wait')
  await signUp(page, email)
  // The link opened on another device: no session there.
  const phone = await browser.newPage()
  await verifyFromMail(phone, email)
  await phone.close()
  // Spec §4: a "not verified" claim is fetched again after 10 s; the page checks on that rhythm.
  await expect(page).toHaveURL(/\/tos$/, { timeout: 30_000 })
})

test('an access token that is gone is refreshed and the call retried (spec §4)', async ({ page, context }) => {
  await readyAccount(page, 'refresh')
  await page.goto('/@/programs')
  await hydrated(page)
  await context.clearCookies({ name: 'sAccessToken' })
  const refreshed = page.waitForResponse((response) => response.url().endsWith('/auth/session/refresh') && response.status() === 200)
  await page.getByRole('button', { name: 'Add Blender to my library' }).click()
  await refreshed
  await expect(page.getByRole('button', { name: 'Remove Blender from my library' })).toBeVisible()

  // A page load without the access cookie refreshes first, then renders the private page.
  await context.clearCookies({ name: 'sAccessToken' })
  await page.goto('/@/library')
  await expect(page.locator('.program-card h3')).toHaveText(['Blender'])
  await expect(page).toHaveURL(/\/@\/library$/)
})

test('a name and a language set on the profile; the language follows the account to another browser', async ({ page, browser }) => {
  const email = await readyAccount(page, 'profile')
  await page.getByRole('link', { name: 'My profile' }).click()
  await expect(page).toHaveURL(/\/@\/my-profile$/)
  await hydrated(page)
  await expect(page.getByTestId('profile-email')).toHaveText(email)
  await page.getByLabel('Display name').fill('  Ada Lovelace ')
  await page.getByTestId('profile-language').selectOption('de')
  await page.getByRole('button', { name: 'Save' }).click()
  // The page switches to German at once, and says it saved.
  await expect(page.getByTestId('profile-status')).toHaveText('Ihr Profil ist gespeichert.')
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Mein Profil')
  await page.reload()
  await expect(page.getByLabel('Anzeigename')).toHaveValue('Ada Lovelace')

  // Another browser, English until it signs in.
  const other = await browser.newContext({ locale: 'en-US' })
  const second = await other.newPage()
  await logIn(second, email)
  await expect(second).toHaveURL(/\/@\/library$/)
  await expect(second.getByRole('heading', { level: 1 })).toHaveText('Meine Bibliothek')
  await second.goto('/@/my-profile')
  await expect(second.getByTestId('profile-language')).toHaveValue('de')
  await other.close()
})

test('a password changed on the profile signs the other browser out and the new one in', async ({ page, browser }) => {
  const email = await readyAccount(page, 'newpass')
  const other = await browser.newContext()
  const second = await other.newPage()
  await logIn(second, email)
  await expect(second).toHaveURL(/\/@\/library$/)

  await page.goto('/@/my-profile')
  await hydrated(page)
  await page.getByLabel('Current password').fill(PASSWORD)
  await page.getByLabel('New password', { exact: true }).fill('a brand new passphrase')
  await page.getByLabel('Repeat the new password').fill('a brand new passphrase')
  await page.getByRole('button', { name: 'Change password' }).click()
  await expect(page.getByTestId('password-status')).toHaveText('Your password is changed. Your other devices are signed out.')

  // The other browser's session has ended: its next private page sends it to log in.
  await expect.poll(async () => {
    await second.goto('/@/library')
    return new URL(second.url()).pathname
  }, { timeout: 10_000 }).toBe('/login')
  await logIn(second, email, 'a brand new passphrase')
  await expect(second).toHaveURL(/\/@\/library$/)
  await other.close()
})

test('the profile lists the signed-in devices and signs another one out', async ({ page, browser }) => {
  const email = await readyAccount(page, 'devices')
  const other = await browser.newContext({ userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.2 Mobile/15E148 Safari/604.1' })
  const phone = await other.newPage()
  await logIn(phone, email)
  await expect(phone).toHaveURL(/\/@\/library$/)

  await page.goto('/@/my-profile')
  await hydrated(page)
  await expect(page.getByTestId('device-current')).toContainText('This device')
  await expect(page.getByTestId('device')).toContainText('Safari on iOS')
  await page.getByTestId('device').getByRole('button', { name: 'Sign out' }).click()
  await expect(page.getByTestId('devices-status')).toHaveText('That device is signed out.')
  await expect(page.getByTestId('device')).toHaveCount(0)
  await expect.poll(async () => {
    await phone.goto('/@/library')
    return new URL(phone.url()).pathname
  }, { timeout: 10_000 }).toBe('/login')
  await other.close()
})

test('"Download my data" saves the account as a JSON file', async ({ page }) => {
  const email = await readyAccount(page, 'export')
  await page.goto('/@/my-profile')
  await hydrated(page)
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-link').click()])
  expect(download.suggestedFilename()).toMatch(/^softshelf-data-\d{4}-\d{2}-\d{2}\.json$/)
  const stream = await download.createReadStream()
  const chunks: Buffer[] = []
  for await (const chunk of stream) chunks.push(chunk as Buffer)
  const data = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { account: { email: string } }
  expect(data.account.email).toBe(email)
})

test('an avatar picked on the profile shows in the header at once; a GIF is refused with the old one kept', async ({ page }) => {
  await readyAccount(page, 'avatar')
  await page.goto('/@/my-profile')
  await hydrated(page)
  const header = page.locator('.site-header .signed-in-as')
  await expect(header.locator('img')).toHaveCount(0)
  const png = spawnSync(process.execPath, ['-e', "require('sharp')({ create: { width: 400, height: 300, channels: 3, background: '#2255aa' } }).png().toBuffer().then((b) => process.stdout.write(b))"], { encoding: 'buffer' }).stdout
  await page.getByTestId('avatar-input').setInputFiles({ name: 'holiday.png', mimeType: 'image/png', buffer: png })
  await expect(page.getByTestId('avatar-status')).toHaveText('Your picture is saved.')
  const src = await header.locator('img').getAttribute('src')
  expect(src).toMatch(/^\/api\/avatars\/[0-9a-f]{32}\.webp$/)
  // Asked until the picture has loaded: read once, a busy machine could still be fetching it.
  await expect.poll(() => header.locator('img').evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth)).toBe(256)
  await page.getByTestId('avatar-input').setInputFiles({ name: 'cat.png', mimeType: 'image/png', buffer: Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;') })
  await expect(page.getByTestId('avatar-status')).toHaveText('The picture must be a PNG, JPEG or WebP image.')
  await expect(header.locator('img')).toHaveAttribute('src', src!)
  await page.goto('/@/library')
  await expect(page.locator('.site-header .signed-in-as img')).toHaveAttribute('src', src!)
})

test('an account deleted with "Other" and a comment is gone: sign-in answers like a wrong password', async ({ page }) => {
  const email = await readyAccount(page, 'leaving')
  await page.goto('/@/my-profile')
  await hydrated(page)
  const section = page.getByTestId('delete-account')
  await section.getByLabel('Other').check()
  await section.getByLabel('Type your email address to confirm').fill('someone-else@example.com')
  await section.getByRole('button', { name: 'Delete my account' }).click()
  // "Other" needs a comment: the browser's own check stops the form first.
  await expect(section.getByLabel('Comment (required for “Other”)')).toHaveJSProperty('validity.valueMissing', true)
  await section.getByLabel('Comment (required for “Other”)').fill('Moving on to other things.')
  await section.getByRole('button', { name: 'Delete my account' }).click()
  await expect(page.getByTestId('delete-status')).toHaveText('The email address you typed is not the one of this account.')
  await section.getByLabel('Type your email address to confirm').fill(email.toUpperCase())
  await section.getByRole('button', { name: 'Delete my account' }).click()
  await expect(page).toHaveURL(/\/login$/)
  await expect(page.getByText('Your account is deleted. Thank you for having used Softshelf.')).toBeVisible()
  await logIn(page, email)
  await expect(page.getByTestId('login-error')).toHaveText('The email or password is not correct.')

  const env: Record<string, string | undefined> = { ...process.env, ...E2E_ENV }
  delete env.DATABASE_URL
  const listed = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/accounts.ts', 'deletion-reasons'], { env, encoding: 'utf8', timeout: 60_000 })
  expect(listed.status, listed.stderr).toBe(0)
  expect(listed.stdout).toMatch(/\ten\tother\t"Moving on to other things\."/)
  expect(listed.stdout).not.toContain(email)
})

test('an email changed on the profile: the link mailed to the new address makes it the one to sign in with', async ({ page, browser }) => {
  const email = await readyAccount(page, 'moving')
  const newAddress = newEmail('moved')
  await page.goto('/@/my-profile')
  await hydrated(page)
  await expect(page.getByTestId('email-current')).toHaveText(email)
  await page.getByLabel('New email address').fill(newAddress)
  await page.getByLabel('Your password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Send confirmation link' }).click()
  await expect(page.getByTestId('email-status')).toHaveText(`We sent a link to ${newAddress}. Open it to make this your email address.`)
  await expect(page.getByTestId('email-pending')).toContainText(newAddress)
  const axe = await new AxeBuilder({ page }).include('[data-testid="email-section"]').withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze()
  expect(axe.violations.map((violation) => violation.id), 'the section with a change waiting').toEqual([])

  // The link opens in another browser, signed in nowhere: the token alone confirms.
  const other = await browser.newContext()
  const second = await other.newPage()
  await second.goto(await mailLink(newAddress, /Confirm your new email address/))
  await hydrated(second)
  await second.getByRole('button', { name: 'Confirm my new email' }).click()
  await expect(second.getByTestId('confirm-email-done')).toContainText(newAddress)
  await second.getByRole('link', { name: 'Log in' }).click()
  await expect(second).toHaveURL(/\/login$/)
  await logIn(second, newAddress)
  await expect(second).toHaveURL(/\/@\/library$/)
  await expect(second.getByTestId('signed-in-as')).toHaveText(newAddress)

  // The old address is told; the first browser stays signed in and shows the new address.
  await expect
    .poll(async () => {
      const messages = (await (await fetch(`http://127.0.0.1:${E2E_MAIL_PORT}/messages?to=${encodeURIComponent(email)}`)).json()) as Mail[]
      return messages.some((message) => message.subject === 'The email address of your Softshelf account was changed')
    }, { timeout: 15_000 })
    .toBe(true)
  await page.reload()
  await hydrated(page)
  await expect(page.getByTestId('email-current')).toHaveText(newAddress)
  await expect(page.getByTestId('email-pending')).toHaveCount(0)
  await other.close()
})
