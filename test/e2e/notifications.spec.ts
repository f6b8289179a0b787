import { expect, test, type Page } from '@playwright/test'
import { hydrated, operatorAccount, readyAccount } from './support/accounts.ts'

// A user watches a program from its page; an editor records its releases through the
// console's API; the fan-out turns each into the watcher's notification. The bell in the header
// counts them, /@/notifications lists them, and reading them — one opened, then "Mark all as read"
// — brings the bell's count down at once, without a reload. The profile keeps the mail setting.

const PROGRAM = { id: 'meshlab', name: 'MeshLab' }

/** A release newer than any other run's (the browser tests' data lives for the whole run, and may be kept). */
const version = (step: number) => `9000.${Date.now()}.${step}`

async function recordRelease(editor: Page, release: string): Promise<void> {
  const answer = await editor.request.post(`/api/operator/programs/${PROGRAM.id}/releases`, {
    headers: { rid: 'anti-csrf', 'content-type': 'application/json' },
    data: { version: release, date: new Date().toISOString().slice(0, 10) },
  })
  expect(answer.status(), await answer.text()).toBe(201)
}

/** The bell's accessible name, once the fan-out (every second) has done its part: reloaded until it says `name`. */
async function bellSays(page: Page, name: string): Promise<void> {
  await expect(async () => {
    await page.reload()
    await expect(page.getByTestId('notification-bell')).toHaveAccessibleName(name, { timeout: 500 })
  }).toPass({ timeout: 20_000 })
}

test('a watcher hears of the releases an editor records: the bell, the list, opening one and marking all read', async ({ page, browser }) => {
  await readyAccount(page, 'watcher')
  const bell = page.getByTestId('notification-bell')
  await expect(bell).toHaveAccessibleName('Notifications')
  await expect(page.getByTestId('notification-count')).toHaveCount(0)

  // Watch from the program page: every event, then the menu leaves out licence changes.
  await page.goto(`/@/programs/${PROGRAM.id}`)
  await hydrated(page)
  const toggle = page.locator('.program-actions').getByTestId('watch-toggle')
  await expect(toggle).toHaveAttribute('aria-pressed', 'false')
  await toggle.click()
  await expect(toggle).toHaveAttribute('aria-pressed', 'true')
  await expect(toggle).toHaveAccessibleName(`Stop watching ${PROGRAM.name}`)
  await page.getByTestId('watch-menu').getByText('Notify me of…').click()
  const menu = page.getByRole('group', { name: `Tell me when ${PROGRAM.name}` })
  await expect(menu.getByRole('checkbox', { name: 'has a new version' })).toBeChecked()
  await expect(menu.getByRole('checkbox', { name: 'changes its price' })).toBeChecked()
  await menu.getByRole('checkbox', { name: 'changes its licence' }).uncheck()
  await expect(menu.getByRole('checkbox', { name: 'changes its licence' })).toBeEnabled()
  // What the page shows after a reload is what the API keeps.
  await page.reload()
  await hydrated(page)
  await page.getByTestId('watch-menu').locator('summary').click()
  await expect(menu.getByRole('checkbox', { name: 'has a new version' })).toBeChecked()
  await expect(menu.getByRole('checkbox', { name: 'changes its licence' })).not.toBeChecked()
  await expect(toggle).toHaveAttribute('aria-pressed', 'true')

  // An editor, in a browser of their own, records two releases.
  const editorContext = await browser.newContext()
  const editor = await editorContext.newPage()
  await operatorAccount(editor, 'release-editor', 'editor')
  const first = version(1)
  const second = version(2)
  await recordRelease(editor, first)
  await recordRelease(editor, second)
  await editorContext.close()

  await bellSays(page, '2 unread notifications')
  await expect(page.getByTestId('notification-count')).toHaveText('2')

  await bell.click()
  await expect(page).toHaveURL(/\/@\/notifications$/)
  await expect(page.getByRole('heading', { level: 1, name: 'Notifications' })).toBeVisible()
  const items = page.getByTestId('notification')
  await expect(items).toHaveCount(2)
  // Newest first, each saying what happened, each unread.
  await expect(items.nth(0).getByRole('link')).toHaveText(`${PROGRAM.name} ${second} was released`)
  await expect(items.nth(1).getByRole('link')).toHaveText(`${PROGRAM.name} ${first} was released`)
  await expect(items.nth(0)).toHaveAttribute('data-read', 'false')
  await expect(items.nth(0).getByText('Unread')).toBeVisible()
  await expect(items.nth(0).locator('time')).toHaveText(/now|second|minute/)
  await expect(page.getByTestId('notifications-unread')).toHaveText('2 unread notifications')

  // Opening one marks it read: its program's page, and the bell says 1 at once.
  await items.nth(0).getByRole('link').click()
  await expect(page).toHaveURL(new RegExp(`/@/programs/${PROGRAM.id}$`))
  await expect(bell).toHaveAccessibleName('1 unread notification')
  await expect(page.locator('.program-details')).toContainText(second)
  await page.goBack()
  await expect(items.nth(0)).toHaveAttribute('data-read', 'true')
  await expect(items.nth(1)).toHaveAttribute('data-read', 'false')

  // "Mark all as read": the list and the bell follow without a reload.
  await page.getByRole('button', { name: 'Mark all as read' }).click()
  await expect(page.getByTestId('notifications-status')).toHaveText('All notifications are marked as read.')
  await expect(bell).toHaveAccessibleName('Notifications')
  await expect(page.getByTestId('notification-count')).toHaveCount(0)
  await expect(items.nth(1)).toHaveAttribute('data-read', 'true')
  await expect(page.getByTestId('notifications-unread')).toHaveText('Nothing unread.')
  await expect(page.getByRole('button', { name: 'Mark all as read' })).toHaveCount(0)
  // And so it stays.
  await page.reload()
  await expect(bell).toHaveAccessibleName('Notifications')
  await expect(items).toHaveCount(2)
})

test('a new account has no notifications; watching from a card; the profile keeps the mail setting', async ({ page }) => {
  await readyAccount(page, 'settings')
  await page.goto('/@/notifications')
  await hydrated(page)
  await expect(page.getByTestId('notifications-empty')).toContainText('No notifications yet.')
  await page.getByTestId('notifications-empty').getByRole('link', { name: 'Browse programs' }).click()
  await expect(page).toHaveURL(/\/@\/programs$/)

  // A card's toggle watches every event; the program's page shows it so.
  const card = page.locator('.program-card').filter({ has: page.getByRole('link', { name: 'GIMP', exact: true }) })
  await page.getByLabel('Search programs').fill('gimp')
  await page.getByLabel('Search programs').press('Enter')
  await expect(card.getByTestId('watch-toggle')).toHaveAttribute('aria-pressed', 'false')
  await card.getByRole('button', { name: 'Watch GIMP' }).click()
  await expect(card.getByTestId('watch-toggle')).toHaveAttribute('aria-pressed', 'true')
  await page.goto('/@/programs/gimp')
  await hydrated(page)
  await page.getByTestId('watch-menu').locator('summary').click()
  for (const name of ['has a new version', 'changes its price', 'changes its licence']) await expect(page.getByRole('checkbox', { name })).toBeChecked()

  // The profile: mail daily by default, adding watches; saved and shown again after a reload.
  await page.goto('/@/my-profile')
  await hydrated(page)
  const section = page.getByTestId('notifications-section')
  await expect(section.getByRole('radio', { name: 'Daily digest' })).toBeChecked()
  await expect(section.getByRole('checkbox', { name: 'Watch programs I add to my library' })).toBeChecked()
  await section.getByRole('radio', { name: 'At once' }).check()
  await section.getByRole('checkbox', { name: 'Watch programs I add to my library' }).uncheck()
  await section.getByRole('button', { name: 'Update notification settings' }).click()
  await expect(section.getByTestId('notifications-settings-status')).toHaveText('Your notification settings are saved.')
  await page.reload()
  await hydrated(page)
  await expect(section.getByRole('radio', { name: 'At once' })).toBeChecked()
  await expect(section.getByRole('checkbox', { name: 'Watch programs I add to my library' })).not.toBeChecked()
})

test('adding a program from its card watches it, as the profile says, and the card shows it at once', async ({ page }) => {
  await readyAccount(page, 'adds')
  const cardOf = (name: string) => page.locator('.program-card').filter({ has: page.getByRole('link', { name, exact: true }) })
  await page.goto('/@/programs?q=inkscape')
  await hydrated(page)
  const inkscape = cardOf('Inkscape')
  await expect(inkscape.getByTestId('watch-toggle')).toHaveAttribute('aria-pressed', 'false')
  await inkscape.getByRole('button', { name: 'Add Inkscape to my library' }).click()
  await expect(inkscape.getByTestId('watch-toggle')).toHaveAttribute('aria-pressed', 'true')

  // With "Watch programs I add" off, an add leaves the watch alone.
  await page.goto('/@/my-profile')
  await hydrated(page)
  const section = page.getByTestId('notifications-section')
  await section.getByRole('checkbox', { name: 'Watch programs I add to my library' }).uncheck()
  await section.getByRole('button', { name: 'Update notification settings' }).click()
  await expect(section.getByTestId('notifications-settings-status')).toHaveText('Your notification settings are saved.')
  await page.goto('/@/programs?q=krita')
  await hydrated(page)
  const krita = cardOf('Krita')
  await krita.getByRole('button', { name: 'Add Krita to my library' }).click()
  await expect(krita.getByRole('button', { name: 'Remove Krita from my library' })).toBeVisible()
  await expect(krita.getByTestId('watch-toggle')).toHaveAttribute('aria-pressed', 'false')
  await page.reload()
  await hydrated(page)
  await expect(cardOf('Krita').getByTestId('watch-toggle')).toHaveAttribute('aria-pressed', 'false')
})

test('a visitor is asked to sign in to watch, and comes back to the program', async ({ page }) => {
  await page.goto(`/programs/${PROGRAM.id}`)
  await hydrated(page)
  const watch = page.locator('.program-actions').getByRole('link', { name: 'Watch' })
  await expect(watch).toHaveAttribute('href', `/login?redirectToPath=${encodeURIComponent(`/@/programs/${PROGRAM.id}`)}`)
})

test('at 390 px the signed-in header keeps the bell in its one row, beside the menu, in the longest languages too; the events menu fits a phone', async ({ page, context }) => {
  await readyAccount(page, 'phone-bell')
  for (const lang of ['en', 'de', 'ro', 'hu']) {
    await context.addCookies([{ name: 'lang', value: lang, domain: '127.0.0.1', path: '/' }])
    for (const width of [320, 390, 1280]) {
      await page.setViewportSize({ width, height: 844 })
      await page.goto('/@/notifications')
      await hydrated(page)
      const banner = page.getByRole('banner')
      const bell = banner.getByTestId('notification-bell')
      await expect(bell, `${lang} ${width}px`).toBeInViewport()
      expect((await banner.boundingBox())!.height, `${lang} ${width}px: one row`).toBeLessThanOrEqual(width < 1280 ? 64 : 72)
      expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), `${lang} ${width}px: no sideways scroll`).toBeLessThanOrEqual(0)
      const box = (await bell.boundingBox())!
      expect(box.x + box.width, `${lang} ${width}px`).toBeLessThanOrEqual(width)
    }
  }
  // The program page's menu of events opens inside a phone's screen.
  for (const width of [320, 390]) {
    await page.setViewportSize({ width, height: 844 })
    await page.goto('/@/programs/gimp')
    await hydrated(page)
    await page.getByTestId('watch-menu').locator('summary').click()
    const menu = (await page.locator('.watch-events').boundingBox())!
    expect(menu.x, `${width}px`).toBeGreaterThanOrEqual(0)
    expect(menu.x + menu.width, `${width}px`).toBeLessThanOrEqual(width)
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), `${width}px: no sideways scroll`).toBeLessThanOrEqual(0)
  }
})
