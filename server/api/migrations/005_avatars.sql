-- Avatars (issue 11): the image we encoded from the user's upload, one per account. Served by its
-- content hash (unique), so a new avatar is a new URL; gone with the account.
CREATE TABLE avatars (
  user_id text PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  hash text NOT NULL UNIQUE,
  image bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
