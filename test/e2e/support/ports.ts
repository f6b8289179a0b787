// Where the browser tests' app and its outside services listen (loopback only).

export const E2E_PORT = Number(process.env.E2E_PORT ?? 3210)
export const E2E_SMTP_PORT = Number(process.env.E2E_SMTP_PORT ?? 3213)
export const E2E_MAIL_PORT = Number(process.env.E2E_MAIL_PORT ?? 3214)
export const E2E_OIDC_PORT = Number(process.env.E2E_OIDC_PORT ?? 3215)
/** Two outside script hosts (support/outside-scripts.ts): the chat widget's and the tag manager's, two origins. */
export const E2E_CHAT_WIDGET_PORT = Number(process.env.E2E_CHAT_WIDGET_PORT ?? 3216)
export const E2E_TAG_MANAGER_PORT = Number(process.env.E2E_TAG_MANAGER_PORT ?? 3217)
/** The local fake of Stripe (test/stripe-fake.ts): its API and its hosted payment page. */
export const E2E_STRIPE_PORT = Number(process.env.E2E_STRIPE_PORT ?? 3225)
/** The keys the app and the fake share in the browser tests (test values, no real account). */
export const E2E_STRIPE = { secretKey: 'sk_test_softshelfe2e0123456789', webhookSecret: 'whsec_softshelfe2e0123456789abcdef' }
/** The client the local OpenID provider knows (test/oidc-provider.ts). */
export const OIDC_CLIENT = { id: 'softshelf-test', secret: 'softshelf-test-secret-0123456789' }
/** A streaming cluster's page: the browser tests' stand-in for a cluster, started by test/e2e/streaming.spec.ts. */
export const E2E_STREAM_CLUSTER_PORT = Number(process.env.E2E_STREAM_CLUSTER_PORT ?? 3218)
/** The local error-tracker sink (test/sentry-sink.ts) that SENTRY_DSN points at. */
export const E2E_SENTRY_PORT = Number(process.env.E2E_SENTRY_PORT ?? 3228)
