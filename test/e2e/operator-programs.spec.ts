import { expect, test, type Page } from '@playwright/test'
import sharp from 'sharp'
import { hydrated, operatorAccount } from './support/accounts.ts'

// An editor runs the catalogue from the console — adds a program with a German text
// that the public catalogue shows in German, and two editors at once get a conflict, not a lost
// change; revert and retire from the same pages.

let counter = 0
const unique = (name: string) => `${name} ${Date.now().toString(36)}${counter++}`

async function fillNewProgram(page: Page, name: string) {
  await page.getByLabel('Name', { exact: true }).fill(name)
  await page.getByLabel('Developer', { exact: true }).fill('Malwerk')
  await page.getByLabel('Publisher', { exact: true }).fill('Malwerk')
  await page.getByRole('checkbox', { name: 'Graphics' }).check()
  await page.getByRole('checkbox', { name: 'Web' }).check()
  await page.getByLabel('Interface languages').fill('de, en')
  await page.getByLabel('Version', { exact: true }).fill('1.0')
  await page.getByLabel('Current version released').fill('2026-12')
  await page.getByLabel('First released').fill('2026')
  await page.getByLabel('Official website').fill('https://malwerk.example/')
}

test('an editor adds a program with a German text and a screenshot: errors at their field, a tab per language, public in German', async ({ page, browser }) => {
  await operatorAccount(page, 'editor', 'editor')
  await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name: 'Programs' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Programs' })).toBeVisible()
  await hydrated(page)
  await page.getByRole('link', { name: 'New program' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'New program' })).toBeVisible()

  const name = unique('Malbrett')
  await fillNewProgram(page, name)
  // English is required: saving without it names the English summary and puts the cursor there.
  const tabs = page.getByRole('tablist', { name: 'Languages of the texts' })
  await expect(tabs.getByRole('tab', { name: /English.*required/ })).toBeVisible()
  await expect(tabs.getByRole('tab', { name: /Deutsch.*missing/ })).toBeVisible()
  await page.getByRole('button', { name: 'Add program' }).click()
  const englishSummary = page.getByLabel('Summary (English)')
  await expect(englishSummary).toBeFocused()
  await expect(page.getByText('Write a summary of at most 300 characters.').first()).toBeVisible()
  await expect(englishSummary).toHaveAttribute('aria-invalid', 'true')

  await englishSummary.fill('A drawing board for the whole family.')
  await page.getByLabel('Description (English)').fill('Malbrett draws with pencils, chalk and paint.')
  // The keyboard moves between the tabs: from English, left twice is German (the last but one).
  await tabs.getByRole('tab', { name: /English/ }).focus()
  await page.keyboard.press('ArrowLeft')
  await page.keyboard.press('ArrowLeft')
  const german = tabs.getByRole('tab', { name: /Deutsch/ })
  await expect(german).toBeFocused()
  await expect(german).toHaveAttribute('aria-selected', 'true')
  await page.getByLabel('Summary (Deutsch)').fill('Ein Zeichenbrett für die ganze Familie.')
  await page.getByLabel('Description (Deutsch)').fill('Malbrett zeichnet mit Bleistift, Kreide und Farbe.')
  await expect(tabs.getByRole('tab', { name: /Deutsch/ })).not.toContainText('missing')
  await page.getByRole('button', { name: 'Add program' }).click()

  await expect(page.getByTestId('program-status')).toHaveText('The program was added.')
  await expect(page.getByRole('heading', { level: 1, name: `Edit ${name}` })).toBeVisible()
  const id = new URL(page.url()).pathname.split('/').pop()!
  await expect(page.getByTestId('revision-1')).toContainText('Revision 1')

  // A screenshot, with what it shows.
  const png = await sharp({ create: { width: 640, height: 400, channels: 3, background: { r: 40, g: 90, b: 160 } } }).png().toBuffer()
  await page.getByLabel('Add a screenshot').setInputFiles({ name: 'board.png', mimeType: 'image/png', buffer: png })
  await page.getByLabel(/What it shows/).fill('The drawing board with a blue sky')
  await page.getByRole('button', { name: 'Upload screenshot' }).click()
  await expect(page.getByTestId('media-status')).toHaveText('The screenshot is added.')
  await expect(page.getByRole('img', { name: 'The drawing board with a blue sky' })).toBeVisible()
  await expect(page.getByRole('heading', { name: 'Screenshots (1 of 8)' })).toBeVisible()

  // A visitor reading German sees it in the public catalogue, in German.
  const visitor = await browser.newContext({ locale: 'de-DE' })
  const publicPage = await visitor.newPage()
  await expect(async () => {
    const answer = await publicPage.goto(`/programs/${id}`)
    expect(answer?.status()).toBe(200)
  }).toPass({ timeout: 10_000 })
  await expect(publicPage.getByRole('heading', { level: 1, name })).toBeVisible()
  await expect(publicPage.getByText('Ein Zeichenbrett für die ganze Familie.').first()).toBeVisible()
  await expect(publicPage.getByRole('img', { name: 'The drawing board with a blue sky' }).first()).toBeVisible()
  await visitor.close()
})

test('two editors change the same program: the second sees both versions and loses nothing; revert and retire', async ({ page, browser }) => {
  await operatorAccount(page, 'first-editor', 'editor')
  const name = unique('Kreidetafel')
  const created = await page.request.post('/api/operator/programs', {
    headers: { rid: 'anti-csrf', 'content-type': 'application/json' },
    data: {
      name,
      developer: { name: 'Malwerk' },
      publisher: { name: 'Malwerk' },
      licenseType: 'freeware',
      price: null,
      categories: ['graphics'],
      platforms: ['web'],
      languages: ['en'],
      version: '1.0',
      updated: '2026-12',
      released: '2026',
      homepage: 'https://kreide.example/',
      texts: { en: { summary: 'A chalkboard.', description: 'Write on a chalkboard.' } },
    },
  })
  expect(created.status()).toBe(201)
  const { id } = (await created.json()) as { id: string }

  const secondContext = await browser.newContext()
  const second = await secondContext.newPage()
  await operatorAccount(second, 'second-editor', 'editor')

  // Both open the program at revision 1.
  for (const tab of [page, second]) {
    await tab.goto(`/@/operator/programs/${id}`)
    await hydrated(tab)
    await expect(tab.getByText('Revision 1', { exact: true }).first()).toBeVisible()
  }

  // The first saves a new version and a new website.
  await page.getByLabel('Version', { exact: true }).fill('2.0')
  await page.getByLabel('Official website').fill('https://kreide.example/v2')
  await page.getByRole('button', { name: 'Save changes' }).click()
  await expect(page.getByTestId('program-status')).toHaveText('Saved as revision 2.')

  // The second, still on revision 1, changes the version too, and the German text.
  await second.getByLabel('Version', { exact: true }).fill('3.0')
  await second.getByRole('tab', { name: /Deutsch/ }).click()
  await second.getByLabel('Summary (Deutsch)').fill('Eine Kreidetafel.')
  await second.getByLabel('Description (Deutsch)').fill('Schreiben auf einer Kreidetafel.')
  await second.getByRole('button', { name: 'Save changes' }).click()

  const conflict = second.getByTestId('program-conflict')
  await expect(conflict.getByRole('heading', { name: 'Someone else saved this program first' })).toBeVisible()
  await expect(conflict.getByRole('row', { name: /Version/ })).toContainText('2.0')
  await expect(conflict.getByRole('row', { name: /Version/ })).toContainText('3.0')
  await expect(conflict.getByRole('row', { name: /Texts \(Deutsch\)/ })).toContainText('Eine Kreidetafel.')
  await expect(conflict).toContainText('They also changed: Official website.')
  // Nothing typed is gone while the editor decides.
  await expect(second.getByLabel('Version', { exact: true })).toHaveValue('3.0')
  await expect(second.getByLabel('Summary (Deutsch)')).toHaveValue('Eine Kreidetafel.')

  await conflict.getByRole('button', { name: 'Keep mine and save again' }).click()
  await expect(second.getByTestId('program-status')).toHaveText('Saved as revision 3.')
  await expect(second.getByLabel('Version', { exact: true })).toHaveValue('3.0')
  await expect(second.getByLabel('Official website')).toHaveValue('https://kreide.example/v2')
  await second.getByRole('tab', { name: /Deutsch/ }).click()
  await expect(second.getByLabel('Summary (Deutsch)')).toHaveValue('Eine Kreidetafel.')
  const third = second.getByTestId('revision-3')
  await expect(third).toContainText('second-editor')
  await expect(third).toContainText('Version: 2.0 → 3.0')
  await expect(third).not.toContainText('Official website')
  await secondContext.close()

  // The first reverts to revision 1, then retires the program.
  await page.reload()
  await hydrated(page)
  await page.getByRole('button', { name: 'Revert to revision 1' }).click()
  await expect(page.getByTestId('program-status')).toHaveText('The program is back to revision 1.')
  await expect(page.getByLabel('Version', { exact: true })).toHaveValue('1.0')
  await expect(page.getByTestId('revision-4')).toContainText('reverted')

  await page.getByRole('button', { name: 'Retire program' }).click()
  await expect(page.getByRole('button', { name: 'Yes, retire it' })).toBeFocused()
  await page.getByRole('button', { name: 'Yes, retire it' }).click()
  await expect(page).toHaveURL(new RegExp(`/@/operator/programs\\?q=${id}$`))
  await expect(page.getByText(`${name} was retired: it has left the public catalogue.`)).toBeVisible()
  await expect(page.getByRole('row', { name: new RegExp(name) })).toContainText('Retired')
})
