-- The profile (issue 11): a display name, and whether the account's language was chosen by the
-- user on /@/my-profile (then every sign-in applies it) or only recorded from the visitor's
-- language at sign-up (then a visitor's own choice before sign-in is kept).
ALTER TABLE users ADD COLUMN name text;
ALTER TABLE users ADD COLUMN language_chosen boolean NOT NULL DEFAULT false;
