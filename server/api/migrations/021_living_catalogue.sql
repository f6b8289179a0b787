-- Issue 29: a living catalogue. Programs keep a release history, fed by editors and by public
-- feeds (AppStream catalogs, Homebrew's cask list); what changes of a program people watch becomes
-- their notifications, mailed at once or as a daily digest; saved searches notify of programs
-- that newly match. The tables of every part are here, so the parts can be built side by side.

-- Releases: a program's versions, newest first by date (then by when they were recorded). The
-- program's version and "updated" (programs.version, updated_on) are its newest release's, kept
-- in step by server/api/catalogue/releases.ts in the same transaction.
CREATE TABLE program_releases (
  program_id text NOT NULL REFERENCES programs (id),
  version text NOT NULL CHECK (length(version) BETWEEN 1 AND 100),
  released_on date NOT NULL,
  released_precision text NOT NULL DEFAULT 'day' CHECK (released_precision IN ('year', 'month', 'day')),
  notes_url text CHECK (notes_url IS NULL OR length(notes_url) <= 2000),
  -- 'editor' (the console, the seed) or the feed it came from, e.g. 'appstream:dl.flathub.org'.
  source text NOT NULL CHECK (length(source) BETWEEN 1 AND 200),
  recorded_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (program_id, version)
);
CREATE INDEX program_releases_newest ON program_releases (released_on DESC, recorded_at DESC);
CREATE INDEX program_releases_of_program ON program_releases (program_id, released_on DESC, recorded_at DESC);

-- A release recorded is a revision of its program too (action 'release', by an editor or a feed).
ALTER TABLE program_revisions DROP CONSTRAINT program_revisions_action_check;
ALTER TABLE program_revisions ADD CONSTRAINT program_revisions_action_check CHECK (action IN ('create', 'update', 'revert', 'retire', 'release'));

-- Every program begins with the release the catalogue already shows.
INSERT INTO program_releases (program_id, version, released_on, released_precision, source, recorded_at)
  SELECT id, version, updated_on, updated_precision, 'editor', '2000-01-01T00:00:00Z' FROM programs
  ON CONFLICT DO NOTHING;

-- The ids a program has in other catalogues: { flathub?, winget?, homebrew? }. One program per id.
ALTER TABLE programs ADD COLUMN external_ids jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(external_ids) = 'object');
CREATE UNIQUE INDEX programs_flathub_id ON programs ((external_ids ->> 'flathub')) WHERE external_ids ? 'flathub';
CREATE UNIQUE INDEX programs_winget_id ON programs ((external_ids ->> 'winget')) WHERE external_ids ? 'winget';
CREATE UNIQUE INDEX programs_homebrew_id ON programs ((external_ids ->> 'homebrew')) WHERE external_ids ? 'homebrew';

-- What happened to a program that a watcher may want to know: written in the transaction of the
-- change (a release, a price or a licence type that changed), then fanned out to the watchers in
-- batches. `fanned_out_to` is the last watcher (user id, in order) already given a notification:
-- a restart resumes after it; `done_at` is set when every watcher has one.
CREATE TABLE catalogue_events (
  id bigserial PRIMARY KEY,
  program_id text NOT NULL REFERENCES programs (id),
  type text NOT NULL CHECK (type IN ('release', 'price', 'licence')),
  at timestamptz NOT NULL DEFAULT clock_timestamp(),
  -- release: { version, date, notesUrl? , source }; price: { before, after }; licence: { before, after }.
  data jsonb NOT NULL,
  fanned_out_to text,
  done_at timestamptz
);
CREATE INDEX catalogue_events_pending ON catalogue_events (id) WHERE done_at IS NULL;
CREATE INDEX catalogue_events_of_program ON catalogue_events (program_id, id);

-- Watchlists: which events of a program an account wants to hear of.
CREATE TABLE watches (
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  program_id text NOT NULL REFERENCES programs (id),
  events text[] NOT NULL CHECK (cardinality(events) BETWEEN 1 AND 3 AND events <@ ARRAY['release', 'price', 'licence']),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, program_id)
);
CREATE INDEX watches_of_program ON watches (program_id, user_id);

-- How an account hears of its notifications by mail, and whether adding to the library watches.
ALTER TABLE users
  ADD COLUMN notify text NOT NULL DEFAULT 'daily' CHECK (notify IN ('off', 'immediate', 'daily')),
  ADD COLUMN watch_on_add boolean NOT NULL DEFAULT true,
  -- When the last notification mail (immediate or digest) was queued for this account.
  ADD COLUMN notified_at timestamptz;

-- Notifications: one per account and thing to tell (`dedupe`: 'event:<id>' for a catalogue event,
-- 'search:<id>:<programId>' for a saved search's new match), so a batch run twice adds nothing.
CREATE TABLE notifications (
  id bigserial PRIMARY KEY,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  type text NOT NULL CHECK (type IN ('release', 'price', 'licence', 'search')),
  program_id text NOT NULL REFERENCES programs (id),
  at timestamptz NOT NULL DEFAULT clock_timestamp(),
  data jsonb NOT NULL,
  dedupe text NOT NULL,
  read_at timestamptz,
  -- Set when the mail that carries it was queued (or when the account's setting means no mail).
  mailed_at timestamptz,
  UNIQUE (user_id, dedupe)
);
CREATE INDEX notifications_of_user ON notifications (user_id, id DESC);
CREATE INDEX notifications_unread ON notifications (user_id) WHERE read_at IS NULL;
CREATE INDEX notifications_unmailed ON notifications (user_id, id) WHERE mailed_at IS NULL;

-- Saved searches: the catalogue's query string, and the programs it matched when last looked at
-- (a program that newly matches is a notification).
CREATE TABLE saved_searches (
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
  query text NOT NULL CHECK (length(query) <= 2000),
  created_at timestamptz NOT NULL DEFAULT now(),
  -- The catalogue version its matches were last brought to.
  checked_version bigint NOT NULL DEFAULT 0
);
CREATE INDEX saved_searches_of_user ON saved_searches (user_id, created_at);
CREATE TABLE saved_search_matches (
  search_id text NOT NULL REFERENCES saved_searches (id) ON DELETE CASCADE,
  program_id text NOT NULL REFERENCES programs (id),
  PRIMARY KEY (search_id, program_id)
);

-- Feeds (CATALOGUE_FEEDS): what was last read of each, for conditional requests and the console.
CREATE TABLE catalogue_feeds (
  feed text PRIMARY KEY,
  etag text,
  last_modified text,
  checked_at timestamptz,
  succeeded_at timestamptz,
  -- The last failure (fetch, timeout, too big, malformed), cleared by the next success.
  problem text,
  problem_at timestamptz
);

-- What a feed run found that it did not apply by itself: a version that goes backwards or a date
-- in the future (ignored), a feed that failed. Shown in the console; each reported once.
CREATE TABLE feed_reports (
  id bigserial PRIMARY KEY,
  feed text NOT NULL,
  at timestamptz NOT NULL DEFAULT clock_timestamp(),
  kind text NOT NULL,
  program_id text REFERENCES programs (id),
  detail text NOT NULL,
  dedupe text NOT NULL UNIQUE
);
CREATE INDEX feed_reports_newest ON feed_reports (id DESC);

-- A difference a feed found (homepage, name, description) that an editor accepts or rejects.
-- One pending proposal per program, field and feed: a newer value replaces it.
CREATE TABLE proposed_changes (
  id bigserial PRIMARY KEY,
  program_id text NOT NULL REFERENCES programs (id),
  field text NOT NULL CHECK (field IN ('homepage', 'name', 'description')),
  current_value jsonb NOT NULL,
  proposed_value jsonb NOT NULL,
  source text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  decision text CHECK (decision IN ('accepted', 'rejected')),
  decided_at timestamptz,
  decided_by_id text,
  decided_by_email text
);
CREATE UNIQUE INDEX proposed_changes_pending ON proposed_changes (program_id, field, source) WHERE decision IS NULL;
