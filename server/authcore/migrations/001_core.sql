-- The auth core's storage (issue 4, AUTH-CORE.md). Every row belongs to an app ("public" by
-- default); apps are isolated from one another. Times are milliseconds since the epoch, as the
-- CDI speaks them. Secrets at rest: refresh, verification and reset tokens only as hashes;
-- signing private keys and TOTP secrets encrypted with the core's secret.

CREATE TABLE apps (
  app_id text PRIMARY KEY,
  -- Per-app core settings (token lifetimes, api keys, hashing algorithm); unset means the default.
  config jsonb NOT NULL DEFAULT '{}',
  created_at bigint NOT NULL
);

CREATE TABLE tenants (
  app_id text NOT NULL REFERENCES apps (app_id) ON DELETE CASCADE,
  tenant_id text NOT NULL,
  config jsonb NOT NULL DEFAULT '{}',
  PRIMARY KEY (app_id, tenant_id)
);

-- One row per recipe user (a login method). Unlinked users are their own primary user.
CREATE TABLE users (
  app_id text NOT NULL REFERENCES apps (app_id) ON DELETE CASCADE,
  user_id text NOT NULL,
  primary_user_id text NOT NULL,
  is_linked_or_primary boolean NOT NULL DEFAULT false,
  recipe_id text NOT NULL CHECK (recipe_id IN ('emailpassword', 'thirdparty')),
  time_joined bigint NOT NULL,
  email text,
  password_hash text,
  third_party_id text,
  third_party_user_id text,
  PRIMARY KEY (app_id, user_id),
  CHECK (recipe_id <> 'emailpassword' OR (email IS NOT NULL AND password_hash IS NOT NULL)),
  CHECK (recipe_id <> 'thirdparty' OR (third_party_id IS NOT NULL AND third_party_user_id IS NOT NULL AND email IS NOT NULL))
);
CREATE INDEX users_primary ON users (app_id, primary_user_id);
CREATE INDEX users_email ON users (app_id, email);

-- Tenant membership, carrying what must be unique within a tenant.
CREATE TABLE user_tenants (
  app_id text NOT NULL,
  tenant_id text NOT NULL,
  user_id text NOT NULL,
  recipe_id text NOT NULL,
  email text,
  third_party_id text,
  third_party_user_id text,
  PRIMARY KEY (app_id, tenant_id, user_id),
  FOREIGN KEY (app_id, user_id) REFERENCES users (app_id, user_id) ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX user_tenants_ep_email ON user_tenants (app_id, tenant_id, email) WHERE recipe_id = 'emailpassword';
CREATE UNIQUE INDEX user_tenants_tp_user ON user_tenants (app_id, tenant_id, third_party_id, third_party_user_id) WHERE recipe_id = 'thirdparty';

-- Verified (user, email) pairs: app-wide, and not tied to the user row (the core does not check it exists).
CREATE TABLE email_verified (
  app_id text NOT NULL REFERENCES apps (app_id) ON DELETE CASCADE,
  user_id text NOT NULL,
  email text NOT NULL,
  PRIMARY KEY (app_id, user_id, email)
);

CREATE TABLE email_verification_tokens (
  app_id text NOT NULL REFERENCES apps (app_id) ON DELETE CASCADE,
  tenant_id text NOT NULL,
  token_hash text NOT NULL,
  user_id text NOT NULL,
  email text NOT NULL,
  expiry bigint NOT NULL,
  PRIMARY KEY (app_id, tenant_id, token_hash)
);
CREATE INDEX email_verification_tokens_user ON email_verification_tokens (app_id, tenant_id, user_id, email);

CREATE TABLE password_reset_tokens (
  app_id text NOT NULL,
  token_hash text NOT NULL,
  user_id text NOT NULL,
  email text,
  expiry bigint NOT NULL,
  PRIMARY KEY (app_id, token_hash),
  FOREIGN KEY (app_id, user_id) REFERENCES users (app_id, user_id) ON DELETE CASCADE
);
CREATE INDEX password_reset_tokens_user ON password_reset_tokens (app_id, user_id);

CREATE TABLE sessions (
  app_id text NOT NULL REFERENCES apps (app_id) ON DELETE CASCADE,
  session_handle text NOT NULL,
  tenant_id text NOT NULL,
  user_id text NOT NULL,
  refresh_token_hash2 text NOT NULL,
  expiry bigint NOT NULL,
  time_created bigint NOT NULL,
  jwt_payload jsonb NOT NULL,
  session_data jsonb NOT NULL,
  use_static_key boolean NOT NULL,
  PRIMARY KEY (app_id, session_handle)
);
CREATE INDEX sessions_user ON sessions (app_id, user_id);
CREATE INDEX sessions_expiry ON sessions (expiry);

CREATE TABLE signing_keys (
  app_id text NOT NULL REFERENCES apps (app_id) ON DELETE CASCADE,
  kid text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('dynamic', 'static')),
  public_key text NOT NULL,
  private_key_encrypted text NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY (app_id, kid)
);
CREATE INDEX signing_keys_created ON signing_keys (app_id, kind, created_at DESC);

CREATE TABLE user_metadata (
  app_id text NOT NULL REFERENCES apps (app_id) ON DELETE CASCADE,
  user_id text NOT NULL,
  metadata jsonb NOT NULL,
  PRIMARY KEY (app_id, user_id)
);

CREATE TABLE totp_devices (
  app_id text NOT NULL REFERENCES apps (app_id) ON DELETE CASCADE,
  user_id text NOT NULL,
  device_name text NOT NULL,
  secret_encrypted text NOT NULL,
  period integer NOT NULL,
  skew integer NOT NULL,
  verified boolean NOT NULL DEFAULT false,
  created_at bigint NOT NULL,
  PRIMARY KEY (app_id, user_id, device_name)
);

CREATE TABLE totp_used_codes (
  app_id text NOT NULL REFERENCES apps (app_id) ON DELETE CASCADE,
  tenant_id text NOT NULL,
  user_id text NOT NULL,
  code text NOT NULL,
  is_valid boolean NOT NULL,
  expiry bigint NOT NULL,
  created_time bigint NOT NULL
);
CREATE INDEX totp_used_codes_user ON totp_used_codes (app_id, tenant_id, user_id, created_time DESC);

INSERT INTO apps (app_id, created_at) VALUES ('public', (extract(epoch FROM now()) * 1000)::bigint);
INSERT INTO tenants (app_id, tenant_id) VALUES ('public', 'public');
