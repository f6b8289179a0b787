import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { expect, test, type Page } from '@playwright/test'
import type { OperatorRole } from '../../shared/operator.ts'
import { E2E_ENV } from '../../playwright.config.ts'
import { hydrated, readyAccount } from './support/accounts.ts'

// An admin announces maintenance from the console, everyone's notice follows, and the
// audit log shows who did it. Screenshots of both pages at 390 and 1280 px, in English and German,
// go to SHOTS_DIR when it is set.

const SHOTS = process.env.SHOTS_DIR

/** `npm run accounts -- role add <email> <role>`, as the first admin is made; applies within a second. */
function grantRole(email: string, role: OperatorRole): void {
  const env: Record<string, string | undefined> = { ...process.env, ...E2E_ENV }
  delete env.DATABASE_URL
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/accounts.ts', 'role', 'add', email, role], { env, encoding: 'utf8', timeout: 60_000 })
  expect(result.status, result.stderr).toBe(0)
}

async function shoot(page: Page, name: string): Promise<void> {
  if (SHOTS) fs.mkdirSync(SHOTS, { recursive: true })
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 })
    expect(await page.evaluate(() => document.documentElement.scrollWidth), `${name} at ${width} px`).toBeLessThanOrEqual(width)
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `${name}-${width}.png`), fullPage: true })
  }
  await page.setViewportSize({ width: 1280, height: 900 })
}

test('an admin announces maintenance from the console, everyone sees the notice, and the audit log has it', async ({ page }) => {
  const email = await readyAccount(page, 'console-admin')
  // The consent banner is not the subject, and would cover the pages in the screenshots.
  const decline = page.getByRole('button', { name: 'Decline analytics' })
  if (await decline.isVisible()) await decline.click()
  grantRole(email, 'admin')
  // The role reaches the session's claims within a second (the BFF's UserRoles recipe).
  await expect.poll(async () => (await page.goto('/@/operator'))?.status(), { timeout: 5_000 }).toBe(200)
  await hydrated(page)
  await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name: 'Maintenance' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Maintenance' })).toBeVisible()
  await expect(page.getByTestId('maintenance-current')).toHaveText('No maintenance is announced.')

  // Empty: said at the field, which keeps the focus.
  await page.getByRole('button', { name: 'Announce', exact: true }).click()
  await expect(page.getByText('Enter the date and time the maintenance begins.')).toBeVisible()
  await expect(page.getByLabel('Date and time')).toBeFocused()

  await page.getByLabel('Date and time').fill('2030-01-15T21:30')
  await page.getByRole('button', { name: 'Announce', exact: true }).click()
  await expect(page.getByTestId('maintenance-status')).toContainText('Maintenance is announced')
  await expect(page.getByTestId('maintenance-current')).toContainText('2030')
  const sent = await page.evaluate(() => new Date('2030-01-15T21:30').toISOString())
  const version = await (await page.request.get('/api/version')).json()
  expect(version.maintenanceTime).toBe(sent)
  // Everyone's notice (spec §4), within the polling interval.
  const notice = page.getByTestId('toast-error')
  await expect(notice).toBeVisible({ timeout: 9_000 })
  await expect(notice).toContainText('Scheduled maintenance')
  await notice.click()
  await shoot(page, 'maintenance-en')

  await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name: 'Audit log' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Audit log' })).toBeVisible()
  await page.getByLabel('Action').fill('maintenance.')
  await page.getByLabel('Who').fill(email.toUpperCase())
  await page.getByRole('button', { name: 'Filter', exact: true }).click()
  await expect(page).toHaveURL(/action=maintenance\./)
  await expect(page.getByRole('heading', { name: 'Entries' })).toBeFocused()
  const entry = page.getByTestId('audit-entry')
  await expect(entry).toHaveCount(1)
  await expect(entry).toContainText(email)
  await expect(entry).toContainText('maintenance.set')
  await expect(entry).toContainText(sent)
  await expect(page.getByTestId('audit-csv')).toHaveAttribute('href', `/api/operator/audit.csv?actor=${encodeURIComponent(email.toUpperCase())}&action=maintenance.`)
  await shoot(page, 'audit-en')

  // A malformed action is said at its field.
  await page.getByLabel('Action').fill('Maintenance')
  await page.getByRole('button', { name: 'Filter', exact: true }).click()
  await expect(page.getByText('Use lower-case words joined by dots')).toBeVisible()

  // German.
  await page.context().addCookies([{ name: 'lang', value: 'de', url: page.url() }])
  await page.goto('/@/operator/audit?action=maintenance.')
  await hydrated(page)
  await expect(page.getByRole('heading', { level: 1, name: 'Prüfprotokoll' })).toBeVisible()
  await shoot(page, 'audit-de')
  await page.goto('/@/operator/maintenance')
  await hydrated(page)
  await expect(page.getByRole('heading', { level: 1, name: 'Wartung' })).toBeVisible()
  await shoot(page, 'maintenance-de')

  // Cleared, for the tests after this one.
  await page.getByRole('button', { name: 'Ankündigung entfernen' }).click()
  await expect(page.getByTestId('maintenance-status')).toContainText('entfernt')
  expect((await (await page.request.get('/api/version')).json()).maintenanceTime).toBeUndefined()
})
