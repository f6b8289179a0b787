-- What this app asked Stripe to charge for each Checkout session it made (issue 26, decision 018):
-- a grant needs Stripe's record of the session to show this amount and currency, so a session
-- made elsewhere (another integration on the same Stripe account, a Payment Link, the dashboard),
-- or one for another price, grants nothing.
ALTER TABLE checkout_sessions ADD COLUMN amount_minor bigint CHECK (amount_minor >= 0);
ALTER TABLE checkout_sessions ADD COLUMN currency text;
-- Sessions made before this migration (Stripe keeps one open for at most 24 hours): what the
-- catalogue asked then is its price now. Every currency of the catalogue has two decimals (USD);
-- a session whose program has no price keeps NULL and never grants.
UPDATE checkout_sessions cs SET amount_minor = round(p.price_amount * 100), currency = upper(p.price_currency)
  FROM programs p WHERE p.id = cs.program_id AND p.price_amount IS NOT NULL;
