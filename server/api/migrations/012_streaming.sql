-- Streaming (issue 13, decision 017). Clusters come from STREAMING_CLUSTERS; what is kept here is
-- who streams where, so every API instance counts the same places.

-- A user's live assignment: at most one per user. A row past expires_at is no longer live: it
-- counts for nothing and is cleared by the next assignment. Ending it (DELETE) removes the row.
CREATE TABLE streaming_assignments (
  user_id text PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  -- The grant's jti.
  id text NOT NULL UNIQUE,
  program_id text NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
  cluster_id text NOT NULL,
  region text NOT NULL,
  keyboard_layout text NOT NULL,
  -- Another region's cluster was chosen because the asked one was full.
  fallback boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);

CREATE INDEX streaming_assignments_live ON streaming_assignments (cluster_id, expires_at);
CREATE INDEX streaming_assignments_expiry ON streaming_assignments (expires_at);

-- The keys that sign grants (ES256): made once by whichever instance asks first, shared by all
-- instances, published at GET /api/streaming/jwks. The newest signs; all are published.
CREATE TABLE streaming_keys (
  kid text PRIMARY KEY,
  public_jwk text NOT NULL,
  -- A JWK (JSON). Not encrypted: the API has no secret of its own yet (decision 017).
  private_jwk text NOT NULL,
  created_at timestamptz NOT NULL
);

-- The layout last chosen on /streaming; NULL: the one of the account's language.
ALTER TABLE users ADD COLUMN keyboard_layout text;
