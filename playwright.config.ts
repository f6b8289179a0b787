import path from 'node:path'
import { defineConfig } from '@playwright/test'
import { TEST_HASHING_ENV } from './test/hashing-env.ts'
import { CHAT_WIDGET_PATH, TAG_MANAGER_PATH } from './test/e2e/support/outside-scripts.ts'
import { E2E_CHAT_WIDGET_PORT, E2E_MAIL_PORT, E2E_OIDC_PORT, E2E_PORT, E2E_SENTRY_PORT, E2E_SMTP_PORT, E2E_STREAM_CLUSTER_PORT, E2E_STRIPE, E2E_STRIPE_PORT, E2E_TAG_MANAGER_PORT, OIDC_CLIENT } from './test/e2e/support/ports.ts'

// Browser tests drive Debian's Chromium (Playwright cannot download its own browsers here)
// against the built app started with embedded defaults on loopback.

export { E2E_MAIL_PORT, E2E_PORT }
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
  // No shedding by event-loop delay: a busy test machine must not turn page loads into 503s.
  OVERLOAD_EVENT_LOOP_DELAY_MS: '0',
  RATE_LIMIT_MAX: '100000',
  AUTH_RATE_LIMIT_MAX: '100000',
  ...TEST_HASHING_ENV,
  // Mail leaves through a real SMTP server and external sign-in goes to a real OpenID provider,
  // both started by the browser tests (test/e2e/support/services.ts).
  SMTP_URL: `smtp://127.0.0.1:${E2E_SMTP_PORT}`,
  MAIL_FROM: 'Softshelf <hello@softshelf.test>',
  OIDC_CLIENT_ID: OIDC_CLIENT.id,
  OIDC_CLIENT_SECRET: OIDC_CLIENT.secret,
  OIDC_ISSUER: `http://127.0.0.1:${E2E_OIDC_PORT}`,
  OIDC_NAME: 'Local ID',
  // Issue 11: every page runs with the support links, the chat widget and the consent banner, each
  // outside script from its own loopback origin (test/e2e/support/outside-scripts.ts).
  SUPPORT_BOT_URL: 'https://t.me/softshelf_test_bot',
  SUPPORT_CHAT_URL: 'https://wa.me/15550100000',
  CHAT_WIDGET_SCRIPT_URL: `http://127.0.0.1:${E2E_CHAT_WIDGET_PORT}${CHAT_WIDGET_PATH}`,
  TAG_MANAGER_SCRIPT_URL: `http://127.0.0.1:${E2E_TAG_MANAGER_PORT}${TAG_MANAGER_PATH}?id=GTM-TEST`,
  // Issue 13: two streaming clusters on loopback; test/e2e/streaming.spec.ts answers at their address.
  STREAMING_CLUSTERS: JSON.stringify([
    { id: 'local-eu', region: 'eu-central', url: `http://127.0.0.1:${E2E_STREAM_CLUSTER_PORT}/eu/play`, capacity: 20 },
    { id: 'local-us', region: 'us-east', url: `http://127.0.0.1:${E2E_STREAM_CLUSTER_PORT}/us/play`, capacity: 20 },
  ]),
  // Issue 13: errors of all three sides go to a local envelope sink (test/sentry-sink.ts); the
  // browser reaches it only through the BFF's tunnel.
  SENTRY_DSN: `http://e2epublickey@127.0.0.1:${E2E_SENTRY_PORT}/1`,
  SENTRY_ENVIRONMENT: 'e2e',
  // Issue 13: card checkout against the local fake of Stripe, which also delivers its webhook.
  STRIPE_SECRET_KEY: E2E_STRIPE.secretKey,
  STRIPE_WEBHOOK_SECRET: E2E_STRIPE.webhookSecret,
  STRIPE_API_URL: `http://127.0.0.1:${E2E_STRIPE_PORT}`,
}

/**
 * Files whose tests change what every other test sees (the catalogue an editor changes, a
 * maintenance notice, the error sink's count, the streaming clusters' capacity): they run after
 * the others, one at a time. The rest make their own accounts and change only those, and run two
 * at a time (issue 30), each file on one worker in its own order.
 */
const ALONE = [
  'notifications.spec.ts', // an editor records releases
  'operator-audit.spec.ts', // maintenance announced to everyone
  'operator-programs.spec.ts', // programs added, changed and retired
  'program-gallery.spec.ts', // screenshots added to a program
  'releases.spec.ts', // releases recorded: "Recently updated" changes
  'saved-searches.spec.ts', // a new program for a saved search
  'sentry.spec.ts', // counts what reaches the error sink
  'shell.spec.ts', // maintenance set by the operator command
  'streaming.spec.ts', // the clusters' shared capacity
].map((file) => `**/${file}`)

export default defineConfig({
  testDir: 'test/e2e',
  fullyParallel: false,
  workers: 2,
  projects: [
    { name: 'side by side', testIgnore: ALONE },
    { name: 'alone', testMatch: ALONE, dependencies: ['side by side'], workers: 1 },
  ],
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
  webServer: [
    {
      command: 'node --import tsx test/e2e/support/services.ts',
      url: `http://127.0.0.1:${E2E_MAIL_PORT}/healthz`,
      reuseExistingServer: false,
      timeout: 60_000,
      stdout: 'ignore',
      stderr: 'pipe',
    },
    {
      command: `rm -rf "${E2E_DATA_DIR}" && node dist/server/main.js`,
      url: `http://127.0.0.1:${E2E_PORT}/healthz`,
      env: { ...E2E_ENV },
      reuseExistingServer: false,
      timeout: 120_000,
      stdout: 'ignore',
      stderr: 'pipe',
    },
  ],
})
