-- The announced maintenance window (spec §3 "Version response"): at most one row.
CREATE TABLE maintenance (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  maintenance_time timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);
