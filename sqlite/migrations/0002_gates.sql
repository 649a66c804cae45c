-- Projection of gate.* events: which gates exist, their status, and where
-- their events are in the log.
CREATE TABLE gates (
  gate_id      TEXT PRIMARY KEY,
  status       TEXT    NOT NULL,
  created_idx  INTEGER NOT NULL,
  resolved_idx INTEGER
) WITHOUT ROWID;
CREATE INDEX gates_status ON gates (status);
