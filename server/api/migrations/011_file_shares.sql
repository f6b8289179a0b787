-- Share links of the drive (issue 12, decision 016). A link opens one live item of its owner — a
-- file, or a folder with everything below it — to anyone who has it (and its password, when set).
CREATE TABLE file_shares (
  -- The owner's handle for listing and revoking (128 bits, base64url); never shown to visitors.
  id text PRIMARY KEY,
  -- What the public URL carries: /sharing/<link>. 192 random bits, base64url (32 characters).
  link text NOT NULL UNIQUE,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  -- The item goes for good (trash emptied or purged, account deleted): its links go with it.
  item_id text NOT NULL REFERENCES file_items (id) ON DELETE CASCADE,
  -- argon2id (PHC string); NULL: no password.
  password_hash text,
  allow_download boolean NOT NULL DEFAULT true,
  -- NULL: never expires.
  expires_at timestamptz,
  created_at timestamptz NOT NULL,
  -- Revoked links are kept, so they answer 410 SHARE_REVOKED rather than "unknown".
  revoked_at timestamptz,
  views bigint NOT NULL DEFAULT 0 CHECK (views >= 0)
);

CREATE INDEX file_shares_user ON file_shares (user_id, created_at);
CREATE INDEX file_shares_item ON file_shares (item_id);

-- Wrong passwords given to links, counted per link and per visitor's IP over a sliding window, in
-- the database so every API instance counts the same attempts. Rows older than the window are
-- deleted as new ones come.
CREATE TABLE file_share_attempts (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  share_id text NOT NULL REFERENCES file_shares (id) ON DELETE CASCADE,
  ip text NOT NULL,
  at timestamptz NOT NULL
);

CREATE INDEX file_share_attempts_share ON file_share_attempts (share_id, at);
CREATE INDEX file_share_attempts_ip ON file_share_attempts (ip, at);
CREATE INDEX file_share_attempts_at ON file_share_attempts (at);

-- The key that signs unlock tokens (share-tokens.ts): made by the first API instance that starts,
-- then read by every other, so a token made by one instance opens the link on all of them.
CREATE TABLE file_share_key (
  id integer PRIMARY KEY CHECK (id = 1),
  secret text NOT NULL
);
