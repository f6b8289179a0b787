import { createError } from '../../http/errors.ts'

// Card checkout's error codes. CHECKOUT_* is a family the BFF passes through to the
// browser (server/http/errors.ts), like the drive's FILES_*.
export const CheckoutNotPaid = createError<[string]>('CHECKOUT_NOT_PAID', '"%s" is free: there is nothing to pay for. Add it to your library instead.', 400)
export const CheckoutAlreadyOwned = createError<[string]>('CHECKOUT_ALREADY_OWNED', 'You already own "%s": it is in your library.', 409)
export const CheckoutUnavailable = createError(
  'CHECKOUT_UNAVAILABLE',
  'Card payments are not available right now. Nothing was charged; please try again later.',
  503,
)
/**
 * This server sells nothing by card (no STRIPE_SECRET_KEY). A fact about the server, not
 * an outage: no Retry-After, no error line (server/http/errors.ts), and the success page says so.
 */
export const CheckoutNotConfigured = createError('CHECKOUT_NOT_CONFIGURED', 'Card payments are not set up on this server: nothing can be bought or paid for here by card, and nothing was charged.', 503)
export const CheckoutSessionNotFound = createError(
  'CHECKOUT_SESSION_NOT_FOUND',
  'There is no payment of yours with this reference. If you paid, the program appears in your library within a few minutes.',
  404,
)
export const CheckoutNoSubscription = createError<[string]>('CHECKOUT_NO_SUBSCRIPTION', 'You have no running subscription to "%s".', 404)
export const CheckoutBadSignature = createError(
  'CHECKOUT_BAD_SIGNATURE',
  'The webhook signature does not match this body, or it is too old: the event was not accepted.',
  400,
)
