-- Issue 28: editors change the catalogue from the operator console. Every program carries its
-- current revision (0: as the seed wrote it, never edited), and every create, change, revert and
-- retirement writes a revision row with the whole program as written, who did it and what changed.
-- A retired program leaves the public catalogue but stays in the libraries and purchases that
-- refer to it. The catalogue's version goes up with every write, so every API instance's listing
-- index and every BFF cache of catalogue answers notices within seconds.
ALTER TABLE programs
  ADD COLUMN revision integer NOT NULL DEFAULT 0 CHECK (revision >= 0),
  ADD COLUMN retired_at timestamptz;

CREATE TABLE program_revisions (
  program_id text NOT NULL REFERENCES programs (id),
  revision integer NOT NULL CHECK (revision > 0),
  at timestamptz NOT NULL DEFAULT clock_timestamp(),
  actor_id text NOT NULL,
  actor_email text NOT NULL,
  action text NOT NULL CHECK (action IN ('create', 'update', 'revert', 'retire')),
  -- The program as written (shared/catalogue/program-editor.ts) after this revision.
  program jsonb NOT NULL,
  -- The fields this revision changed: { field: { before, after } }.
  changes jsonb NOT NULL,
  retired boolean NOT NULL DEFAULT false,
  PRIMARY KEY (program_id, revision)
);

-- Goes up with every editor's write (and every seed applied): what the listing index and the
-- BFF's caches compare to know the catalogue changed.
CREATE TABLE catalogue_version (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  version bigint NOT NULL DEFAULT 0
);
INSERT INTO catalogue_version (id, version) VALUES (true, 0);
