-- The drive (issue 12): each user's files and folders. The bytes of a file are a stored object
-- (server/api/files/storage.ts) named by `storage_key`, a random id — never by the user's name.
CREATE TABLE file_items (
  -- Opaque and random (128 bits, base64url).
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  -- NULL: the root of the user's drive. While an item is in the trash it keeps the folder it was
  -- deleted from, where a restore puts it back (the root when that folder is gone). A folder
  -- purged from the trash leaves what was deleted from it earlier in the trash, parentless.
  parent_id text REFERENCES file_items (id) ON DELETE SET NULL,
  type text NOT NULL CHECK (type IN ('file', 'folder')),
  -- NFC, trimmed, checked by shared/files/names.ts; the Windows recycle bin is never an item.
  name text NOT NULL CHECK (name <> '' AND octet_length(name) <= 255 AND lower(name) <> '$recycle.bin'),
  size bigint NOT NULL DEFAULT 0 CHECK (size >= 0),
  mime_type text,
  storage_key text UNIQUE,
  -- 'pending': the row is written and counted against the quota, the object is being put in
  -- place; nobody sees it until it is 'ready'. A crash between leaves a pending row that the
  -- sweep removes with its objects.
  state text NOT NULL DEFAULT 'ready' CHECK (state IN ('pending', 'ready')),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  trashed_at timestamptz,
  -- The item the user deleted, which this one went to the trash with (itself for that item):
  -- the trash lists those, and a restore brings back the whole group.
  trashed_with text,
  CHECK ((type = 'file') = (storage_key IS NOT NULL)),
  CHECK (parent_id IS NULL OR parent_id <> id),
  CHECK ((trashed_at IS NULL) = (trashed_with IS NULL))
);

-- One live item of a name (in any letter case) per folder: the trash does not count, so a
-- deleted "report.pdf" does not keep a new one from being made.
CREATE UNIQUE INDEX file_items_live_name ON file_items (user_id, coalesce(parent_id, ''), lower(name)) WHERE trashed_at IS NULL;
CREATE INDEX file_items_user ON file_items (user_id);
CREATE INDEX file_items_parent ON file_items (parent_id);
CREATE INDEX file_items_trashed_with ON file_items (trashed_with) WHERE trashed_with IS NOT NULL;
CREATE INDEX file_items_trashed_at ON file_items (trashed_at) WHERE trashed_at IS NOT NULL;
CREATE INDEX file_items_pending ON file_items (created_at) WHERE state = 'pending';
