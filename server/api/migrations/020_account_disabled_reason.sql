-- Issue 28: an account disabled from the operator console (or `npm run accounts -- disable`) says
-- why, and who did it; disabled_at (migration 003) says when. All three are cleared on enable.
ALTER TABLE users
  ADD COLUMN disabled_reason text,
  ADD COLUMN disabled_by_id text,
  ADD COLUMN disabled_by_email text;
