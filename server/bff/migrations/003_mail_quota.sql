-- Mail to one recipient is capped per hour (issue 17; server/bff/auth/mail-quota.ts). In the
-- database so the cap is shared by every BFF instance and survives a restart. The recipient is
-- stored only as the SHA-256 of the trimmed, lowercased address.
CREATE TABLE mail_quota (
  recipient_key text PRIMARY KEY,
  -- When each mail counted in the last hour was handed to the mail server (ms since the epoch).
  sent_at bigint[] NOT NULL,
  updated_at bigint NOT NULL,
  -- Set by the call that was granted the latest mail, as in login_attempts.
  grant_id text NOT NULL
);

CREATE INDEX mail_quota_updated ON mail_quota (updated_at);
