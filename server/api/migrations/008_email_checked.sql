-- The account's email can change (issue 11, "change the email"): the auth core holds it, the
-- product keeps a copy. When a session's token shows another email than the copy, the API asks the
-- core and notes when (ms since the epoch); tokens issued before that are not asked about again.
ALTER TABLE users ADD COLUMN email_checked_at bigint;
