-- Issue 15: a date says only what is known, and a program's texts come in the visitor's language.

-- A release known to the year or the month ("1998", "2003-05") is stored as the first day of that
-- period with its precision, so sorting by date still works and nothing shows a day nobody knows.
ALTER TABLE programs
  ADD COLUMN released_precision text NOT NULL DEFAULT 'day' CHECK (released_precision IN ('year', 'month', 'day')),
  ADD COLUMN updated_precision text NOT NULL DEFAULT 'day' CHECK (updated_precision IN ('year', 'month', 'day'));
ALTER TABLE programs
  ADD CONSTRAINT programs_released_period_start CHECK (
    (released_precision = 'day' OR extract(day FROM released_on) = 1) AND (released_precision <> 'year' OR extract(month FROM released_on) = 1)),
  ADD CONSTRAINT programs_updated_period_start CHECK (
    (updated_precision = 'day' OR extract(day FROM updated_on) = 1) AND (updated_precision <> 'year' OR extract(month FROM updated_on) = 1));

-- Summaries and descriptions in the interface languages other than English (English stays in
-- programs, the source). Filled by the seed; a program without a row for a language is shown in English.
CREATE TABLE program_translations (
  program_id text NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
  locale text NOT NULL CHECK (locale ~ '^[a-z]{2}$' AND locale <> 'en'),
  summary text NOT NULL CHECK (summary <> ''),
  description text NOT NULL CHECK (description <> ''),
  PRIMARY KEY (program_id, locale)
);

-- The rows above are the seed's to fill: forget which seed was applied, so the next start applies
-- it again (precisions and translations included) even if its files did not change.
DELETE FROM seed_state;
