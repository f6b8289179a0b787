-- Checkout sessions made for a user and a program (issue 13, decision 018): a second "Buy" while
-- one is still open (another tab, a back button) goes back to it instead of opening a second
-- payment of the same program; one already paid grants the program instead.
CREATE TABLE checkout_sessions (
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  program_id text NOT NULL REFERENCES programs (id),
  url text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX checkout_sessions_user_program ON checkout_sessions (user_id, program_id, created_at DESC);
