import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { expect, test } from '@playwright/test'
import { E2E_ENV } from '../../playwright.config.ts'

// A deploy while a tab is open: the server restarts with a new build id, the tab notices within a
// poll (6 s) and shows the persistent new-version notice (spec §4 "Version notice"), whose
// "Reload" loads the new version.

const PORT = 3230
const API_PORT = 3231
const DATA_DIR = path.resolve('test-results', 'e2e-deploy-data')

function startServer(buildId: string): ChildProcess {
  return spawn(process.execPath, ['dist/server/main.js'], {
    env: { ...process.env, ...E2E_ENV, DATA_DIR, PORT: String(PORT), API_PORT: String(API_PORT), AUTH_CORE_PORT: String(API_PORT + 1), APP_URL: `http://127.0.0.1:${PORT}`, BUILD_ID: buildId },
    stdio: 'ignore',
  })
}

async function healthy(): Promise<void> {
  await expect
    .poll(async () => (await fetch(`http://127.0.0.1:${PORT}/healthz`).catch(() => null))?.status ?? 0, { timeout: 60_000, intervals: [100] })
    .toBe(200)
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  await exited
}

test('after a deploy an open tab announces the new version once, and "Reload" loads it', async ({ page }) => {
  test.setTimeout(120_000)
  fs.rmSync(DATA_DIR, { recursive: true, force: true })
  let server = startServer('build-a')
  try {
    await healthy()
    await page.goto(`http://127.0.0.1:${PORT}/`)
    await expect(page.locator('html')).toHaveAttribute('data-hydrated', 'true')
    await expect(page.getByText('Version 1.0.716+build-a')).toBeVisible()
    // What loads after hydration (the toaster, the compare tray) is in: a chunk cut off by the
    // stop would make the page load itself again (chunk-reload.ts), not announce the new version.
    await page.waitForLoadState('networkidle')
    await stop(server)
    server = startServer('build-b')
    await healthy()
    const notice = page.getByTestId('toast-success')
    await expect(notice).toBeVisible({ timeout: 10_000 })
    await expect(notice).toContainText('A new version of Softshelf is available')
    await page.evaluate(() => Object.assign(window, { sameDocument: 'yes' }))
    await notice.getByRole('button', { name: 'Reload' }).click()
    await expect(page.getByText('Version 1.0.716+build-b')).toBeVisible()
    await expect(page.locator('html')).toHaveAttribute('data-hydrated', 'true')
    expect(await page.evaluate(() => (window as unknown as { sameDocument?: string }).sameDocument), 'a new document').toBeUndefined()
    await expect(notice).toHaveCount(0)
  } finally {
    await stop(server)
  }
})
