-- The user-management dashboard's own accounts and sessions (issue 28), as the real core keeps
-- them: per app, apart from the app's users. Passwords only as hashes (the app's hashing
-- setting), session ids only as SHA-256 hashes (they are bearer secrets).
CREATE TABLE dashboard_users (
  app_id text NOT NULL REFERENCES apps (app_id) ON DELETE CASCADE,
  user_id text NOT NULL,
  email text NOT NULL,
  password_hash text NOT NULL,
  time_joined bigint NOT NULL,
  PRIMARY KEY (app_id, user_id)
);
CREATE UNIQUE INDEX dashboard_users_email ON dashboard_users (app_id, email);

CREATE TABLE dashboard_sessions (
  app_id text NOT NULL,
  session_id_hash text NOT NULL,
  user_id text NOT NULL,
  time_created bigint NOT NULL,
  expiry bigint NOT NULL,
  PRIMARY KEY (app_id, session_id_hash),
  FOREIGN KEY (app_id, user_id) REFERENCES dashboard_users (app_id, user_id) ON DELETE CASCADE
);
CREATE INDEX dashboard_sessions_user ON dashboard_sessions (app_id, user_id);
CREATE INDEX dashboard_sessions_expiry ON dashboard_sessions (expiry);
