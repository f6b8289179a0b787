import fs from 'node:fs'
import path from 'node:path'
import { expect, test, type Page } from '@playwright/test'
import { PROTECTED_PROPS } from '../../server/authcore/sessions.ts'
import { permissionsOf, type OperatorRole } from '../../shared/operator.ts'
import { E2E_DATA_DIR, E2E_ENV } from '../../playwright.config.ts'
import { hydrated, readyAccount } from './support/accounts.ts'

// Issue 28: an admin announces maintenance from the console, everyone's notice follows, and the
// audit log shows who did it. Screenshots of both pages at 390 and 1280 px, in English and German,
// go to SHOTS_DIR when it is set.

const SHOTS = process.env.SHOTS_DIR

/**
 * TEMPORARY until roles in the auth core land (as test/helpers.ts operatorTab): the signed-in
 * session's access token gets the roles' claims through the core's own regenerate.
 */
async function grantRoles(page: Page, roles: OperatorRole[]): Promise<void> {
  const cookies = await page.context().cookies()
  const access = cookies.find((cookie) => cookie.name === 'sAccessToken')
  if (!access) throw new Error('no access token')
  const claims = JSON.parse(Buffer.from(access.value.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>
  const userData = Object.fromEntries(Object.entries(claims).filter(([key]) => !PROTECTED_PROPS.includes(key)))
  const apiKey = fs.readFileSync(path.join(E2E_DATA_DIR, 'authcore-api-key'), 'utf8').trim()
  const t = Date.now()
  const answer = await fetch(`http://127.0.0.1:${E2E_ENV.AUTH_CORE_PORT}/recipe/session/regenerate`, {
    method: 'POST',
    headers: { 'api-key': apiKey, 'cdi-version': '5.4', 'content-type': 'application/json' },
    body: JSON.stringify({ accessToken: access.value, userDataInJWT: { ...userData, 'st-role': { v: roles, t }, 'st-perm': { v: permissionsOf(roles), t } } }),
  })
  const token = ((await answer.json()) as { accessToken?: { token?: string } }).accessToken?.token
  if (!token) throw new Error(`regenerate failed: ${answer.status}`)
  await page.context().addCookies([{ ...access, value: token }])
}

/** At 390 and 1280 px the page is no wider than the window (a wide table scrolls in its box); screenshots when asked. */
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
  await grantRoles(page, ['admin'])
  await page.goto('/@/operator')
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
