// Request body limits, one place for the services and the BFF's proxy in front of
// the API: the BFF refuses a body over the API route's limit itself, with 413, instead of
// streaming it on until the API cuts the connection (a 502 and an error line before).

/** The JSON body of any route (Fastify's default, said once): every service's `bodyLimit`. */
export const JSON_BODY_LIMIT = 1024 * 1024

/** Stripe's webhook: its events are far smaller; the signature is checked on these bytes. */
export const STRIPE_WEBHOOK_BODY_LIMIT = 512 * 1024
