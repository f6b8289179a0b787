import { expect, test, type Page } from '@playwright/test'
import { hydrated, operatorAccount, PASSWORD, readyAccount } from './support/accounts.ts'

// The operator console end to end: an admin (made from the command line) grants the support role in the
// browser; support disables an account with a reason and enables it again; the audit log shows it.

async function openAccount(page: Page, email: string) {
  await page.goto('/@/operator/accounts')
  await hydrated(page)
  await page.getByLabel('Email address').fill(email)
  await page.getByRole('button', { name: 'Search' }).click()
  await page.getByRole('link', { name: email }).click()
  await expect(page.getByTestId('account-email')).toHaveText(email)
}

async function logIn(page: Page, email: string) {
  await page.goto('/login')
  await hydrated(page)
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Log in', exact: true }).click()
}

test('an admin grants support in the browser; support disables and enables an account; the audit log has it all', async ({ browser }) => {
  test.setTimeout(120_000)
  const adminPage = await (await browser.newContext()).newPage()
  const supportPage = await (await browser.newContext()).newPage()
  const customerPage = await (await browser.newContext()).newPage()
  const admin = await operatorAccount(adminPage, 'admin', 'admin')
  const support = await readyAccount(supportPage, 'helper')
  const customer = await readyAccount(customerPage, 'customer')

  // Without a role the console is not there.
  await supportPage.goto('/@/operator')
  await expect(supportPage.getByRole('heading', { level: 1 })).toHaveText('Page not found')

  await openAccount(adminPage, support)
  await adminPage.getByTestId('role-support').check()
  await adminPage.getByTestId('save-roles').click()
  await expect(adminPage.getByText('Roles saved.')).toBeVisible()
  await expect(adminPage.getByTestId('account-roles')).toHaveText('Support')

  // The role applies to the helper's open session within a second or two, without signing in again.
  await expect(async () => {
    await supportPage.goto('/@/operator')
    await expect(supportPage.getByRole('heading', { level: 1, name: 'Operator console' })).toBeVisible({ timeout: 1_000 })
  }).toPass({ timeout: 15_000 })
  await expect(supportPage.getByRole('link', { name: 'Console', exact: true })).toBeVisible()

  await openAccount(supportPage, customer)
  await supportPage.getByTestId('disable-reason').fill('Chargeback, ticket 4411')
  await supportPage.getByRole('button', { name: 'Disable account' }).click()
  await expect(supportPage.getByText(/Disabled on .* Reason: Chargeback, ticket 4411/)).toBeVisible()

  // The customer is signed out everywhere; signed in again, the disabled message.
  await expect(async () => {
    await customerPage.goto('/@/library')
    await expect(customerPage).toHaveURL(/\/login/, { timeout: 500 })
  }).toPass({ timeout: 10_000 })
  await logIn(customerPage, customer)
  await expect(customerPage.getByTestId('account-disabled')).toContainText('Your account has been disabled')

  await supportPage.getByRole('button', { name: 'Enable account' }).click()
  await expect(supportPage.getByRole('button', { name: 'Disable account' })).toBeVisible()
  // Its session of a moment ago goes on: the library again.
  await customerPage.goto('/@/library')
  await expect(customerPage.getByTestId('signed-in-as')).toHaveText(customer)

  // Support reads the audit log: the grant, the disable and the enable, newest first.
  await supportPage.goto('/@/operator/audit')
  await hydrated(supportPage)
  const rows = supportPage.getByTestId('audit-entry')
  await expect(rows.filter({ hasText: 'user.enable' }).filter({ hasText: support })).toHaveCount(1)
  await expect(rows.filter({ hasText: 'user.disable' }).filter({ hasText: support })).toHaveCount(1)
  await expect(rows.filter({ hasText: 'user.roles' }).filter({ hasText: admin })).toHaveCount(1)
})
