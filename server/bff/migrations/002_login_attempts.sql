-- Login-attempt blocking (DESIGN.md §4.8): failed sign-ins per normalised email in a window. Kept
-- in the database so counters survive a restart and are shared by every BFF instance. The email
-- is stored only as its SHA-256: the table does not list who tried to sign in.
CREATE TABLE login_attempts (
  email_key text PRIMARY KEY,
  -- Password checks in the current window, counted before each check starts.
  failures integer NOT NULL,
  window_started_at bigint NOT NULL,
  blocked_until bigint,
  updated_at bigint NOT NULL,
  -- Set by the call that was granted the latest check (see server/bff/auth/login-attempts.ts).
  grant_id text NOT NULL
);

CREATE INDEX login_attempts_updated ON login_attempts (updated_at);
