-- The public catalogue (issue 3): programs, their developers, publishers, licence types and
-- categories. Categories and licence types are fixed vocabularies; programs come from the seed.
CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;

CREATE TABLE categories (
  id text PRIMARY KEY,
  position integer NOT NULL UNIQUE
);
INSERT INTO categories (id, position) VALUES
  ('3d', 1), ('graphics', 2), ('architecture-engineering', 3), ('video-motion', 4), ('game-development', 5),
  ('data-analytics', 6), ('audio-music', 7), ('productivity', 8), ('publishing', 9), ('simulation', 10);

CREATE TABLE license_types (
  id text PRIMARY KEY,
  is_free boolean NOT NULL,
  position integer NOT NULL UNIQUE
);
INSERT INTO license_types (id, is_free, position) VALUES
  ('freeware', true, 1), ('open-source', true, 2), ('freemium', true, 3),
  ('trial', false, 4), ('commercial', false, 5), ('subscription', false, 6);

CREATE TABLE developers (
  id text PRIMARY KEY,
  name text NOT NULL,
  website text
);

CREATE TABLE publishers (
  id text PRIMARY KEY,
  name text NOT NULL,
  website text
);

CREATE TABLE programs (
  id text PRIMARY KEY,
  name text NOT NULL,
  summary text NOT NULL,
  description text NOT NULL,
  developer_id text NOT NULL REFERENCES developers (id),
  publisher_id text NOT NULL REFERENCES publishers (id),
  license_type text NOT NULL REFERENCES license_types (id),
  price_amount numeric(12, 2),
  price_currency text,
  price_period text CHECK (price_period IN ('one-time', 'month', 'year')),
  platforms text[] NOT NULL,
  languages text[] NOT NULL,
  homepage text NOT NULL,
  version text NOT NULL,
  released_on date NOT NULL,
  updated_on date NOT NULL,
  popularity integer NOT NULL CHECK (popularity BETWEEN 0 AND 100),
  -- Lower-cased name, summary, developer and publisher: what search matches against.
  search_text text NOT NULL,
  CHECK ((price_amount IS NULL) = (price_currency IS NULL))
);
CREATE INDEX programs_popularity ON programs (popularity DESC, name);
CREATE INDEX programs_developer ON programs (developer_id);
CREATE INDEX programs_publisher ON programs (publisher_id);
CREATE INDEX programs_license_type ON programs (license_type);
CREATE INDEX programs_languages ON programs USING gin (languages);
CREATE INDEX programs_search ON programs USING gin (search_text public.gin_trgm_ops);

CREATE TABLE program_categories (
  program_id text NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
  category_id text NOT NULL REFERENCES categories (id),
  is_primary boolean NOT NULL DEFAULT false,
  PRIMARY KEY (program_id, category_id)
);
CREATE INDEX program_categories_category ON program_categories (category_id, program_id);

-- Which seed the catalogue holds, so a restart with the same seed does nothing.
CREATE TABLE seed_state (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  checksum text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
);
