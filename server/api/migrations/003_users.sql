-- Users of the product (issue 5): one row per account, made when the account is (the BFF's
-- sign-up calls PUT /api/user with the new session's token). The id is the auth core's user id.
CREATE TABLE users (
  id text PRIMARY KEY,
  email text NOT NULL,
  is_in_mail_list boolean NOT NULL DEFAULT false,
  -- The UTM record of spec §3 the browser kept from the landing page, as sent with sign-up.
  utm jsonb,
  language text NOT NULL DEFAULT 'en',
  -- The terms version last accepted; a newer TOS_VERSION asks again.
  tos_version text,
  tos_accepted_at timestamptz,
  disabled_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- The personal library.
CREATE TABLE user_programs (
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  program_id text NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
  added_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, program_id)
);
