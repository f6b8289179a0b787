-- Issue 29: notification mail (server/api/notifications/mail.ts, decision 030). The BFF's mail
-- worker claims the accounts a mail is due to, writes one mail each to its outbox and says so;
-- this table is what the API keeps of that per account.
CREATE TABLE notification_mail_accounts (
  user_id text PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  -- The claim not yet acknowledged (the outbox's id of its mail), and the notifications it carries:
  -- a claim taken again after its lease ran out (a worker that died between writing the mail and
  -- saying so) is the same claim, so the outbox keeps one mail.
  claim_id text,
  claim_notifications bigint[],
  -- Until then no other worker takes the account (also after the acknowledgement, so that a
  -- claimer that read the account before it was mailed does not mail it again at once).
  claimed_until timestamptz,
  -- The address the auth core last said is verified: the core is asked again only when the
  -- account's address is another one.
  verified_email text,
  -- An account the core says is unverified is not asked about again before then.
  skipped_until timestamptz
);

-- The key that signs the one-click unsubscribe links (HMAC-SHA256): one row, written by the first
-- API instance that starts, read by every other.
CREATE TABLE notification_mail_keys (
  id smallint PRIMARY KEY CHECK (id = 1),
  secret text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
