-- Outgoing mail, durable (issue 18; server/bff/auth/mail-outbox.ts). Every mail is written here
-- before it is handed to the mail server; one that could not go out waits for the worker, which
-- retries with backoff for a day. The message holds the link with its token, so it is as secret
-- as the token: it is cleared the moment the mail is sent or given up, and the row (kept for the
-- /check-email page's status and the metrics) is deleted a day later.
CREATE TABLE mail_outbox (
  -- Also the mail's Message-ID: every try of one mail carries the same one.
  id text PRIMARY KEY,
  -- verify, reset, changeEmail, emailChanged.
  kind text NOT NULL,
  -- The account the mail is about, when there is one (the verification status is asked by it).
  user_id text,
  -- Trimmed as the auth core stores it; NULL once the mail is sent or given up.
  recipient text,
  locale text NOT NULL,
  -- The rendered message; NULL once the mail is sent or given up.
  subject text,
  text_body text,
  html_body text,
  -- queued, sent, failed (given up, or refused to a caller who was told so).
  status text NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  -- Times in ms since the epoch.
  next_attempt_at bigint NOT NULL,
  -- A sender holds the row until then while it tries; one that died leaves it to the next.
  claimed_until bigint,
  -- The mail server's answer to the last try (code and status line; never the message).
  last_error text,
  created_at bigint NOT NULL,
  sent_at bigint,
  failed_at bigint
);

CREATE INDEX mail_outbox_due ON mail_outbox (next_attempt_at) WHERE status = 'queued';
CREATE INDEX mail_outbox_user ON mail_outbox (user_id, kind, created_at) WHERE user_id IS NOT NULL;
CREATE INDEX mail_outbox_finished ON mail_outbox (coalesce(sent_at, failed_at)) WHERE status <> 'queued';
