-- Issue 29, feeds (decision 029): what a feed calls a program's summary (AppStream's <summary>,
-- Homebrew's "desc") is compared with the program's English summary, a field of its own, not its
-- long description: a proposed change may be of the 'summary' too.
ALTER TABLE proposed_changes DROP CONSTRAINT proposed_changes_field_check;
ALTER TABLE proposed_changes ADD CONSTRAINT proposed_changes_field_check CHECK (field IN ('homepage', 'name', 'summary', 'description'));
CREATE INDEX proposed_changes_pending_newest ON proposed_changes (id DESC) WHERE decision IS NULL;
