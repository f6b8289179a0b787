-- Checks in flight are not failures (issue 18). A check is still counted in `failures` before the
-- password is verified (the bound on parallel wrong attempts); `pending` says how many of them have
-- no verdict yet, so only `failures - pending` are known wrong passwords: the ones that block, and
-- the ones the status endpoint reports. A sign-in refused only because every allowed check is
-- under way waits for them instead of being told "blocked" (server/bff/auth/login-attempts.ts).
-- Rows from before have no check in flight: their failures stay failures.
ALTER TABLE login_attempts ADD COLUMN pending integer NOT NULL DEFAULT 0;
-- When the latest check was granted: checks that never ended (a crashed instance) stop counting as
-- in flight a minute after it, and count as failures, as every check did before.
ALTER TABLE login_attempts ADD COLUMN pending_since bigint NOT NULL DEFAULT 0;
-- A new id each time the counter starts afresh (a new window, or after a success cleared it): a
-- verdict settles only the counter its check was counted in.
ALTER TABLE login_attempts ADD COLUMN counter_id text NOT NULL DEFAULT '';
