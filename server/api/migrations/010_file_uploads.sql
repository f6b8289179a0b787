-- Resumable uploads (issue 12, tus 1.0.0; decision 014). The state of an upload lives here, not in
-- one process's memory, so an upload started through one API instance continues through another
-- that shares the database and the storage.
CREATE TABLE file_uploads (
  -- Opaque and random (128 bits, base64url); the last segment of the upload's URL.
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  -- Upload-Length, required at creation. While the upload is 'receiving' it is reserved: counted
  -- against the user's quota as if the file were there already.
  length bigint NOT NULL CHECK (length >= 0),
  -- Bytes stored so far (Upload-Offset).
  received bigint NOT NULL DEFAULT 0 CHECK (received >= 0 AND received <= length),
  -- Upload-Metadata as the client sent it (decoded), given back by HEAD.
  metadata jsonb NOT NULL DEFAULT '{}',
  -- Where the file goes: the folder given at creation (the root when it is gone by the finish),
  -- the folders of relativePath under it (made at the finish), and the file's name; all checked.
  parent_id text,
  folders jsonb NOT NULL DEFAULT '[]',
  name text NOT NULL,
  -- A $RECYCLE.BIN upload: its bytes are read and dropped, nothing is stored, counted or made.
  sink boolean NOT NULL DEFAULT false,
  -- The temporary object the bytes are appended to (none for a sink).
  temp_key text UNIQUE,
  -- 'receiving' → 'committing' (the file's pending row exists and holds the bytes in the quota
  -- instead of the reservation) → 'finished' (the file is there; kept a day so a client that asks
  -- again learns the upload is complete).
  state text NOT NULL DEFAULT 'receiving' CHECK (state IN ('receiving', 'committing', 'finished')),
  file_id text,
  storage_key text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  -- 24 hours after the last byte arrived (Upload-Expires); the sweep removes the upload then.
  expires_at timestamptz NOT NULL,
  CHECK (sink = (temp_key IS NULL)),
  CHECK ((state = 'receiving') = (storage_key IS NULL) OR sink)
);

CREATE INDEX file_uploads_reserved ON file_uploads (user_id) WHERE state = 'receiving' AND NOT sink;
CREATE INDEX file_uploads_expires ON file_uploads (expires_at);

-- The tus lock of an upload, shared by every API instance: a lease that its holder renews while
-- it works, and that a newer request for the same upload asks it to give up (tus requestRelease).
-- Not tied to file_uploads: a creation takes the lock before the upload's row exists.
CREATE TABLE file_upload_locks (
  upload_id text PRIMARY KEY,
  owner text NOT NULL,
  expires_at timestamptz NOT NULL,
  release_requested boolean NOT NULL DEFAULT false
);
