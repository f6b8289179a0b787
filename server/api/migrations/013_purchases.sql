-- Card checkout (issue 13, decision 018). A purchase is one paid Stripe Checkout session: a
-- one-time payment, or a subscription that lasts while Stripe keeps it active. Rows are made only
-- from server-side facts (the session retrieved by id, or a signed webhook) and never deleted by
-- the checkout itself: a refund or an ended subscription changes the status, so support can see it.
CREATE TABLE purchases (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  program_id text NOT NULL REFERENCES programs (id),
  -- One grant per session, whoever comes first (the success page or the webhook).
  checkout_session_id text NOT NULL UNIQUE,
  kind text NOT NULL CHECK (kind IN ('payment', 'subscription')),
  -- What was charged, as our catalogue priced it when the session was made (smallest unit).
  amount_minor bigint NOT NULL CHECK (amount_minor >= 0),
  currency text NOT NULL,
  period text NOT NULL CHECK (period IN ('one-time', 'month', 'year')),
  -- A payment's PaymentIntent (refunds name it); a subscription's id (its events name it).
  payment_intent_id text,
  subscription_id text,
  status text NOT NULL CHECK (status IN ('active', 'refunded', 'ended')),
  -- A subscription the user cancelled keeps its entitlement until the period ends.
  cancel_at_period_end boolean NOT NULL DEFAULT false,
  current_period_end timestamptz,
  purchased_at timestamptz NOT NULL,
  ended_at timestamptz,
  CHECK ((kind = 'subscription') = (subscription_id IS NOT NULL))
);
CREATE INDEX purchases_user ON purchases (user_id, program_id);
CREATE INDEX purchases_payment_intent ON purchases (payment_intent_id) WHERE payment_intent_id IS NOT NULL;
CREATE INDEX purchases_subscription ON purchases (subscription_id) WHERE subscription_id IS NOT NULL;

-- Stripe events already handled, by their id: a replayed or redelivered event changes nothing.
-- Written in the same transaction as the event's effect, so a failure leaves both undone and
-- Stripe's next delivery tries again.
CREATE TABLE stripe_events (
  id text PRIMARY KEY,
  type text NOT NULL,
  processed_at timestamptz NOT NULL
);
