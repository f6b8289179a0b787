-- Issue 28: programs' uploaded logos and screenshots. What we store is never the upload: a logo is
-- a sanitised SVG or a re-encoded WebP, a screenshot is the WebP files we encoded at the srcset
-- widths. Files are served by their content hash (unique), so a new image is a new URL.

-- At most one uploaded logo a program; without one the BFF draws the generated mark (decision 024).
CREATE TABLE program_logos (
  program_id text PRIMARY KEY REFERENCES programs (id) ON DELETE CASCADE,
  hash text NOT NULL UNIQUE,
  content_type text NOT NULL CHECK (content_type IN ('image/svg+xml', 'image/webp')),
  image bytea NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Up to 8 a program (checked by the API, under a lock of the program's row), shown in `position` order.
CREATE TABLE program_screenshots (
  id text PRIMARY KEY,
  program_id text NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
  position integer NOT NULL CHECK (position >= 0),
  width integer NOT NULL CHECK (width > 0),
  height integer NOT NULL CHECK (height > 0),
  -- Alternative text per language: { "en": "…", "de": "…" }.
  alt jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX program_screenshots_program ON program_screenshots (program_id, position);

-- The encoded files of a screenshot, one per width of its srcset.
CREATE TABLE program_screenshot_files (
  hash text PRIMARY KEY,
  screenshot_id text NOT NULL REFERENCES program_screenshots (id) ON DELETE CASCADE,
  width integer NOT NULL CHECK (width > 0),
  height integer NOT NULL CHECK (height > 0),
  image bytea NOT NULL,
  UNIQUE (screenshot_id, width)
);
