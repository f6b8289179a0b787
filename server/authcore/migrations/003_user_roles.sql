-- SuperTokens' user-roles recipe (issue 28), as the real core keeps it: roles and their
-- permissions belong to an app; a user holds roles per tenant. The core does not check that a
-- user id exists (the SDK's own tests give roles to made-up ids), so user_roles has no key to
-- users; deleting a user deletes its roles explicitly.
CREATE TABLE roles (
  app_id text NOT NULL REFERENCES apps (app_id) ON DELETE CASCADE,
  role text NOT NULL,
  PRIMARY KEY (app_id, role)
);

CREATE TABLE role_permissions (
  app_id text NOT NULL,
  role text NOT NULL,
  permission text NOT NULL,
  PRIMARY KEY (app_id, role, permission),
  FOREIGN KEY (app_id, role) REFERENCES roles (app_id, role) ON DELETE CASCADE
);
CREATE INDEX role_permissions_permission ON role_permissions (app_id, permission);

CREATE TABLE user_roles (
  app_id text NOT NULL,
  tenant_id text NOT NULL,
  user_id text NOT NULL,
  role text NOT NULL,
  PRIMARY KEY (app_id, tenant_id, user_id, role),
  FOREIGN KEY (app_id, role) REFERENCES roles (app_id, role) ON DELETE CASCADE,
  FOREIGN KEY (app_id, tenant_id) REFERENCES tenants (app_id, tenant_id) ON DELETE CASCADE
);
CREATE INDEX user_roles_role ON user_roles (app_id, role, tenant_id);
CREATE INDEX user_roles_user ON user_roles (app_id, user_id);

-- The role-change feed (not CDI; like revoked_sessions, decision 009): the users whose roles or
-- whose roles' permissions changed, one row per user with the time of its latest change on the
-- database's clock, written in the transaction of the change. The BFF and the API poll it and
-- read the user's roles again. Rows older than a day are swept.
CREATE TABLE role_changes (
  app_id text NOT NULL REFERENCES apps (app_id) ON DELETE CASCADE,
  user_id text NOT NULL,
  changed_at bigint NOT NULL DEFAULT (extract(epoch FROM clock_timestamp()) * 1000)::bigint,
  PRIMARY KEY (app_id, user_id)
);
CREATE INDEX role_changes_changed_at ON role_changes (app_id, changed_at);
