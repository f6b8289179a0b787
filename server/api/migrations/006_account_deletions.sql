-- Account deletion (issue 11). A request is written here first, then the auth-core user is
-- removed, then — in one transaction — the product's data goes and an anonymous row of why is
-- kept. A request still here after a crash is finished at the next start.
CREATE TABLE account_deletions (
  user_id text PRIMARY KEY,
  reason text NOT NULL,
  comment text,
  language text NOT NULL,
  requested_at timestamptz NOT NULL DEFAULT now()
);

-- What is kept of a deleted account: the reason, the comment, the language and the day. Nothing
-- that identifies the person.
CREATE TABLE deletion_reasons (
  id bigserial PRIMARY KEY,
  reason text NOT NULL,
  comment text,
  language text NOT NULL,
  day date NOT NULL
);
