-- Issue 28: the operator console's audit log. Every operator action and every role change, with
-- who did it, what it changed (before and after: only the fields that changed) and the request
-- it came in. Append-only: no route changes or deletes an entry, and the database refuses to.
CREATE TABLE audit_log (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT clock_timestamp(),
  actor_id text NOT NULL,
  actor_email text NOT NULL,
  action text NOT NULL CHECK (action ~ '^[a-z]+(\.[a-z]+)+$'),
  target text NOT NULL,
  before jsonb,
  after jsonb,
  request_id text NOT NULL
);
CREATE INDEX audit_log_actor ON audit_log (actor_id, id DESC);
CREATE INDEX audit_log_target ON audit_log (target, id DESC);
CREATE INDEX audit_log_action ON audit_log (action, id DESC);

CREATE FUNCTION audit_log_is_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the audit log is append-only: % is not allowed', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;
CREATE TRIGGER audit_log_no_change BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION audit_log_is_append_only();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION audit_log_is_append_only();
