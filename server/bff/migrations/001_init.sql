-- The BFF's own schema. Its tables (login attempts, avatars) arrive with the features that use
-- them; this first migration records that the schema exists and is owned by the BFF.
COMMENT ON SCHEMA bff IS 'Softshelf BFF: login-attempt blocking, avatar limits';
