import { expect, test } from '@playwright/test'
import { hydrated, operatorAccount } from './support/accounts.ts'

// An editor adds a release in the console — a date in the future is named at its field
// before anything is sent, a version the program has is named by the API — and the public program
// page shows it in its "Version history" and as the current version.

const day = (offset: number): string => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10)

test('an editor adds a release in the console; the program page shows it in Version history and as the current version', async ({ page, browser }) => {
  await operatorAccount(page, 'release-editor', 'editor')
  const name = `Notenblatt ${Date.now().toString(36)}`
  const created = await page.request.post('/api/operator/programs', {
    headers: { rid: 'anti-csrf', 'content-type': 'application/json' },
    data: {
      name,
      developer: { name: 'Notenwerk' },
      publisher: { name: 'Notenwerk' },
      licenseType: 'freeware',
      price: null,
      categories: ['audio-music'],
      platforms: ['linux'],
      languages: ['en'],
      version: '1.0',
      updated: '2026-01-15',
      released: '2025',
      homepage: 'https://notenblatt.example/',
      texts: { en: { summary: 'Sheet music on screen.', description: 'Notenblatt shows sheet music.' } },
    },
  })
  expect(created.status(), await created.text()).toBe(201)
  const { id } = (await created.json()) as { id: string }

  await page.goto(`/@/operator/programs/${id}`)
  await hydrated(page)
  const panel = page.getByTestId('program-releases')
  await expect(panel.getByRole('heading', { level: 2, name: 'Releases' })).toBeVisible()
  await expect(panel.getByRole('row', { name: /1\.0/ })).toBeVisible()

  // A date in the future: named at its field, the cursor there, nothing sent.
  await panel.getByLabel('New version').fill('1.1')
  await panel.getByLabel('Released on').fill(day(3))
  await panel.getByRole('button', { name: 'Add release' }).click()
  const date = panel.getByLabel('Released on')
  await expect(date).toBeFocused()
  await expect(date).toHaveAttribute('aria-invalid', 'true')
  await expect(panel.getByText('Enter the day it came out (YYYY-MM-DD), not in the future.')).toBeVisible()

  // A version the history has: the API says so, at the version.
  await panel.getByLabel('New version').fill('1.0')
  await date.fill(day(-1))
  await panel.getByRole('button', { name: 'Add release' }).click()
  await expect(panel.getByText('This program already has a release of version 1.0.')).toBeVisible()
  await expect(panel.getByLabel('New version')).toBeFocused()

  await panel.getByLabel('New version').fill('1.1')
  await panel.getByLabel('Release notes address').fill('https://notenblatt.example/news/1.1')
  await panel.getByRole('button', { name: 'Add release' }).click()
  await expect(page.getByTestId('release-status')).toHaveText('Version 1.1 was added to the releases.')
  const rows = page.getByTestId('program-releases').getByRole('row')
  await expect(rows.nth(1)).toContainText('1.1')
  await expect(rows.nth(2)).toContainText('1.0')
  // The release is a revision of the program: the editor is on it, and its history names it.
  await expect(page.getByText('new release').first()).toBeVisible()
  await expect(page.getByLabel('Version', { exact: true })).toHaveValue('1.1')

  // A visitor's page, within the catalogue's 2 seconds.
  const visitor = await (await browser.newContext()).newPage()
  await expect(async () => {
    await visitor.goto(`/programs/${id}`)
    await expect(visitor.getByTestId('program-version')).toHaveText('1.1', { timeout: 1_000 })
  }).toPass({ timeout: 10_000 })
  const history = visitor.getByRole('region', { name: 'Version history' })
  await expect(history).toBeVisible()
  const items = history.getByRole('listitem')
  await expect(items).toHaveCount(2)
  await expect(items.first()).toContainText('Version 1.1')
  await expect(items.first()).toContainText('current')
  await expect(items.first()).toContainText("Added by the catalogue's editors")
  await expect(items.first().getByRole('link', { name: 'Release notes of version 1.1' })).toHaveAttribute('href', 'https://notenblatt.example/news/1.1')
  await expect(items.nth(1)).toContainText('Version 1.0')
  await expect(items.nth(1)).toContainText('Jan 15, 2026')
})
