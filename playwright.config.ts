import path from 'node:path'
import { defineConfig } from '@playwright/test'

// Browser tests drive Debian's Chromium (Playwright cannot download its own browsers here)
// against the built app started with embedded defaults on loopback.

export const E2E_PORT = Number(process.env.E2E_PORT ?? 3210)
export const E2E_API_PORT = Number(process.env.E2E_API_PORT ?? 3211)
export const E2E_DATA_DIR = path.resolve('test-results', 'e2e-data')
export const E2E_ENV = {
  DATA_DIR: E2E_DATA_DIR,
  PORT: String(E2E_PORT),
  API_PORT: String(E2E_API_PORT),
  AUTH_CORE_PORT: String(Number(process.env.E2E_AUTH_CORE_PORT ?? 3212)),
  HOST: '127.0.0.1',
  APP_URL: `http://127.0.0.1:${E2E_PORT}`,
  NODE_ENV: 'production',
  LOG_LEVEL: 'warn',
  RATE_LIMIT_MAX: '100000',
}

export default defineConfig({
  testDir: 'test/e2e',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list']],
  outputDir: 'test-results/e2e-artifacts',
  use: {
    baseURL: `http://127.0.0.1:${E2E_PORT}`,
    browserName: 'chromium',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-dev-shm-usage'],
    },
    trace: 'off',
  },
  webServer: {
    command: `rm -rf "${E2E_DATA_DIR}" && node dist/server/main.js`,
    url: `http://127.0.0.1:${E2E_PORT}/healthz`,
    env: { ...E2E_ENV },
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: 'ignore',
    stderr: 'pipe',
  },
})
