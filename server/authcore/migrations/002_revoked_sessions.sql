-- Sessions ended before their access tokens expire (issue 17 §4, decision 009): the API and the
-- BFF verify access tokens without calling the core, so they poll this list to refuse the tokens
-- of a session that was signed out, reset or deleted. A row is kept until the last access token
-- of its session has expired. revoked_at is the database's clock: readers page by it.
CREATE TABLE revoked_sessions (
  app_id text NOT NULL,
  session_handle text NOT NULL,
  revoked_at bigint NOT NULL DEFAULT (extract(epoch FROM clock_timestamp()) * 1000)::bigint,
  expires_at bigint NOT NULL,
  PRIMARY KEY (app_id, session_handle)
);
CREATE INDEX revoked_sessions_revoked_at ON revoked_sessions (app_id, revoked_at);
CREATE INDEX revoked_sessions_expires_at ON revoked_sessions (expires_at);
