import fs from 'node:fs'
import path from 'node:path'
import { expect, type Page } from '@playwright/test'
import { E2E_ENV } from '../../../playwright.config.ts'
import { OPERATOR_ROUTES, permissionsOf } from '../../../shared/operator.ts'
import { FRONT_TOKEN_COOKIE, LAST_UPDATE_COOKIE } from '../../../shared/auth/session.ts'
import { E2E_MAIL_PORT } from './ports.ts'

// A signed-in user for browser tests, made the way a person makes one: sign up, open the emailed
// verification link (read from the run's SMTP server), accept the terms. The forms themselves are
// the subject of accounts.spec.ts ("sign up → verify by the emailed link → accept terms → …");
// every other test makes its account through the same endpoints those forms call (the
// four page loads of the forms cost each of ~70 accounts about two seconds).

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
  // The app's own origin, whatever baseURL the test gave (a test may start an app of its own).
  const origin = new URL((await page.request.get('/healthz')).url()).origin
  // page.request shares the page's cookies: the session the answers set is the page's. The
  // browser SDK keeps the session's claims from the `front-token` header of /auth answers in
  // cookies of its own; a request made here has no SDK to read it, so the cookies are written as
  // the SDK (and the BFF for a page answer, server/bff/auth/page-session.ts) would write them.
  let frontToken: string | undefined
  const write = async (url: string, data: unknown): Promise<{ status?: string }> => {
    const answer = await page.request.post(url, { data, headers: { rid: 'anti-csrf', origin } })
    expect(answer.status(), `${url}: ${await answer.text()}`).toBe(200)
    frontToken = answer.headers()['front-token'] ?? frontToken
    return (await answer.json()) as { status?: string }
  }
  expect((await write('/auth/signup', { formFields: [{ id: 'email', value: email }, { id: 'password', value: PASSWORD }] })).status).toBe('OK')
  const token = new URL(await verificationLink(email), origin).searchParams.get('token')
  expect((await write('/auth/user/email/verify', { method: 'token', token })).status).toBe('OK')
  await write('/api/user/accept-tos', { isInMailList: false })
  expect(frontToken, 'the session\'s front token').toBeTruthy()
  await page.context().addCookies([
    { name: FRONT_TOKEN_COOKIE, value: frontToken!, url: origin, sameSite: 'Lax' },
    { name: LAST_UPDATE_COOKIE, value: String(Date.now()), url: origin, sameSite: 'Lax' },
  ])
  await page.goto('/@/library')
  await expect(page).toHaveURL(/\/@\/library$/)
  await hydrated(page)
  return email
}

/**
 * A ready account (above) given an operator role by the operator command's endpoint
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
