import { expect, test, type Page } from '@playwright/test'
import { E2E_TAG_MANAGER_PORT } from './support/ports.ts'
import { hydrated, readyAccount } from './support/accounts.ts'

// Spec §4 and §6: the live-chat widget, loaded from its own loopback origin
// (support/outside-scripts.ts records in the page what each load got).

interface WidgetLoad {
  user: unknown
  at: number
  scripts: number
  ownOrigin?: string
  otherOrigin?: string
}
interface WidgetState {
  loads: WidgetLoad[]
  teardowns: number[]
}

const widget = (page: Page) => page.evaluate(() => (window as unknown as { __chatWidget?: WidgetState }).__chatWidget ?? { loads: [], teardowns: [] })

/** When the app mounted: the root layout marks the document hydrated in its mount effect. */
async function recordMount(page: Page): Promise<void> {
  await page.addInitScript(() => {
    // The script runs before the document has its <html> element: watch the whole document.
    new MutationObserver((_records, observer) => {
      if (document.documentElement?.dataset.hydrated !== 'true') return
      Object.assign(window, { __mountedAt: performance.now() })
      observer.disconnect()
    }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-hydrated'] })
  })
}

test("the widget loads once, 500 ms after mount, with the user's data, and again with {} after sign-out", async ({ page }) => {
  const email = await readyAccount(page, 'chat')
  const requests: string[] = []
  page.on('request', (request) => {
    if (request.url().includes('/chat-widget.js')) requests.push(request.url())
  })
  await recordMount(page)
  await page.goto('/@/library')
  await hydrated(page)
  await page.evaluate(() => Object.assign(window, { sameDocument: 'yes' }))

  await expect.poll(async () => (await widget(page)).loads.length).toBe(1)
  const { id } = (await page.evaluate(async () => (await fetch('/api/user')).json())) as { id: string }
  const first = (await widget(page)).loads[0]!
  // Exactly id, email and phone (the product keeps no phone: null) — nothing else of the record.
  expect(first.user).toStrictEqual({ id, email, phone: null })
  const mountedAt = await page.evaluate(() => (window as unknown as { __mountedAt: number }).__mountedAt)
  // Timers never fire early; the bound is loose on purpose (no wall-clock assertion).
  expect(first.at - mountedAt).toBeGreaterThanOrEqual(450)
  expect(first.scripts).toBe(1)
  expect(requests).toHaveLength(1)

  // Moving around with the same user data keeps the widget as it is.
  await page.getByRole('link', { name: 'My profile' }).click()
  await expect(page.getByTestId('profile-support')).toBeVisible()
  await expect(page.getByTestId('profile-support').getByRole('link', { name: 'Chat with our bot' })).toHaveAttribute('href', 'https://t.me/softshelf_test_bot')
  await expect(page.getByTestId('profile-support').getByRole('link', { name: 'Chat with support' })).toHaveAttribute('href', 'https://wa.me/15550100000')
  await page.getByRole('link', { name: 'Terms of service' }).click()
  await expect(page).toHaveURL(/\/terms$/)
  await page.goBack()
  await expect(page.getByTestId('profile-support')).toBeVisible()

  await page.getByRole('link', { name: 'Log out' }).click()
  await expect(page).toHaveURL(/\/login$/)
  await expect.poll(async () => (await widget(page)).loads.length).toBe(2)
  const after = await widget(page)
  expect(after.teardowns, 'removed once, through its teardown hook').toHaveLength(1)
  expect(after.loads[1]!.user).toStrictEqual({})
  expect(after.loads[1]!.at - after.teardowns[0]!).toBeGreaterThanOrEqual(450)
  expect(after.loads[1]!.scripts, 'the old script element is gone').toBe(1)
  await expect(page.locator('script[data-softshelf-chat]')).toHaveCount(1)
  expect(await page.evaluate(() => (window as unknown as { sameDocument?: string }).sameDocument), 'the same document: removed and loaded again, not a page load').toBe('yes')
  expect(requests).toHaveLength(2)
})

test('a visitor gets {}; the CSP lets the widget reach its own origin and no other', async ({ page }) => {
  const consoleErrors: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text())
  })
  await page.addInitScript((other) => Object.assign(window, { __probeChatCsp: other }), `http://127.0.0.1:${E2E_TAG_MANAGER_PORT}`)
  await page.goto('/library')
  await hydrated(page)
  await expect.poll(async () => (await widget(page)).loads[0]?.otherOrigin).toBeDefined()
  const [load] = (await widget(page)).loads
  expect(load!.user).toStrictEqual({})
  expect(load!.ownOrigin).toBe('allowed')
  expect(load!.otherOrigin).toBe('blocked')
  expect(consoleErrors.some((text) => /Content Security Policy/.test(text) && text.includes(`127.0.0.1:${E2E_TAG_MANAGER_PORT}`))).toBe(true)
  // The footer offers both chat links on every page.
  const footer = page.locator('footer')
  await expect(footer.getByRole('link', { name: 'Chat with our bot' })).toHaveAttribute('href', 'https://t.me/softshelf_test_bot')
  await expect(footer.getByRole('link', { name: 'Chat with support' })).toHaveAttribute('href', 'https://wa.me/15550100000')
})
