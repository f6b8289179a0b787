-- A change of the account's email waiting for its link to be opened (issue 11; server/bff/auth/
-- email-change-store.ts). One per account: a new request replaces the old one and its link. The
-- link's token is stored only as its SHA-256, so this table cannot be used to confirm a change.
CREATE TABLE email_changes (
  user_id text PRIMARY KEY,
  -- The login method whose email changes (the account's email-and-password one) and its tenant.
  recipe_user_id text NOT NULL,
  tenant_id text NOT NULL,
  -- Trimmed and lowercased, as the auth core stores emails.
  new_email text NOT NULL,
  token_hash text NOT NULL UNIQUE,
  -- The language of the request, for the mail telling the old address (sent at confirmation).
  locale text NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  -- A confirmation under way holds the row until then (ms), so a link works once.
  claimed_until bigint
);

CREATE INDEX email_changes_expires ON email_changes (expires_at);
