-- The account's recent sign-ins (issue 11, "Your data"): when, how, from which browser and
-- address. The last 20 are kept; they go with the account.
CREATE TABLE sign_ins (
  id bigserial PRIMARY KEY,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  signed_in_at timestamptz NOT NULL DEFAULT now(),
  method text NOT NULL,
  user_agent text,
  ip text
);
CREATE INDEX sign_ins_user ON sign_ins (user_id, id);
