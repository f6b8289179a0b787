import fs from 'node:fs'
import path from 'node:path'
import { expect, type Page } from '@playwright/test'
import { E2E_ENV } from '../../../playwright.config.ts'
import { OPERATOR_ROUTES, permissionsOf } from '../../../shared/operator.ts'
import { E2E_MAIL_PORT } from './ports.ts'

// A signed-in user for browser tests, made the way a person makes one: sign up, open the emailed
// verification link (read from the run's SMTP server), accept the terms.

export const PASSWORD = 'correct horse battery staple'

let counter = 0
/** A fresh address per test and run: the app's data lives for the whole run. */
export const newEmail = (name: string) => `${name}-${Date.now().toString(36)}-${counter++}@example.com`

export async function hydrated(page: Page): Promise<void> {
  await expect(page.locator('html')).toHaveAttribute('data-hydrated', 'true')
}

/** The newest link of a kind (`/verify-email?token=`, `/reset-password?token=`) mailed to `email`, once it has arrived. */
export async function mailedLink(email: string, kind: RegExp): Promise<string> {
  let link = ''
  await expect
    .poll(
      async () => {
        const messages = (await (await fetch(`http://127.0.0.1:${E2E_MAIL_PORT}/messages?to=${encodeURIComponent(email)}`)).json()) as Array<{ links: string[] }>
        link = messages.flatMap((message) => message.links).find((candidate) => kind.test(candidate)) ?? ''
        return link
      },
      { timeout: 15_000 },
    )
    .not.toBe('')
  return link
}

const verificationLink = (email: string) => mailedLink(email, /\/verify-email\?token=/)

/** A verified account that accepted the terms, signed in, on its library; returns its email. */
export async function readyAccount(page: Page, name: string): Promise<string> {
  const email = newEmail(name)
  await page.goto('/welcome')
  await hydrated(page)
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Create account' }).click()
  await expect(page).toHaveURL(/\/check-email$/)
  await page.goto(await verificationLink(email))
  await hydrated(page)
  await page.getByRole('button', { name: 'Verify my email' }).click()
  await page.getByRole('link', { name: 'Continue' }).click()
  await expect(page).toHaveURL(/\/tos$/)
  await page.getByRole('button', { name: 'I accept the terms of service' }).click()
  await expect(page).toHaveURL(/\/@\/library$/)
  return email
}

/**
 * Issue 28: a ready account (above) given an operator role by the operator command's endpoint
 * (`PUT /internal/users/roles` on the API, with the embedded operator token the app keeps in its
 * data folder: what `npm run accounts -- role add` calls), signed in on `page` with the console
 * open once the role has reached its session.
 */
export async function operatorAccount(page: Page, name: string, role: 'admin' | 'editor' | 'support'): Promise<string> {
  const email = await readyAccount(page, name)
  const token = fs.readFileSync(path.join(E2E_ENV.DATA_DIR, 'operator-token'), 'utf8').trim()
  const answer = await fetch(`http://127.0.0.1:${E2E_ENV.API_PORT}/internal/users/roles`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email, role, granted: true }),
  })
  expect(answer.status, await answer.clone().text()).toBe(200)
  // A role granted applies to a session within a second or two (the role-change feed): until
  // then the console is the 404 page and the BFF refuses the role's routes.
  const permissions = permissionsOf([role])
  const probe = OPERATOR_ROUTES.find((route) => route.method === 'GET' && !route.url.includes(':') && permissions.includes(route.permission))!
  await expect(async () => {
    expect((await page.request.get(probe.url)).status()).toBe(200)
    await page.goto('/@/operator')
    await expect(page.getByRole('heading', { level: 1, name: 'Operator console' })).toBeVisible({ timeout: 1_000 })
  }).toPass({ timeout: 15_000 })
  return email
}
