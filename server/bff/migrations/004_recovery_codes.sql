-- Recovery codes of the TOTP factor (issue 11; server/bff/auth/recovery-codes.ts). A set of
-- one-time codes, shown once when issued; only their SHA-256 is kept. A code is spent by deleting
-- its row, so two requests cannot both spend it.
CREATE TABLE recovery_codes (
  -- The account (the auth core's primary user id, as its TOTP devices are keyed).
  user_id text NOT NULL,
  -- SHA-256 (hex) of the user id and the code as normalised (upper case, no spaces or dashes).
  code_hash text NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY (user_id, code_hash)
);

-- Wrong recovery codes per account, limited like the TOTP factor's codes: the attempt that
-- reaches the limit locks the account's recovery codes for the cool-down after the newest one.
-- Every attempt is counted before it is checked, in one statement, so parallel guesses cannot
-- exceed the limit; a code that works clears the count.
CREATE TABLE recovery_code_attempts (
  user_id text PRIMARY KEY,
  failures integer NOT NULL,
  -- ms since the epoch of the newest counted attempt.
  last_failure_at bigint NOT NULL,
  -- Set by the call that was granted the latest attempt (as in login_attempts).
  grant_id text NOT NULL
);

CREATE INDEX recovery_code_attempts_last ON recovery_code_attempts (last_failure_at);
