-- The kernel: the event log, its Merkle tree, checkpoints, and the
-- projections and indexes derived from it.
CREATE TABLE events (
  idx   INTEGER PRIMARY KEY,          -- leaf index in the Merkle log, from 0
  trace TEXT    NOT NULL,
  seq   INTEGER NOT NULL,
  hash  BLOB    NOT NULL,             -- 32-byte event hash (the leaf data)
  type  TEXT    NOT NULL,
  run   TEXT,
  data  BLOB    NOT NULL,             -- canonical JSON of the sealed event
  UNIQUE (trace, seq)
);

-- Merkle nodes of level >= 1; id = level << 56 | index. Level 0 is derived
-- from events.hash.
CREATE TABLE tlog_nodes (
  id   INTEGER PRIMARY KEY,
  hash BLOB NOT NULL
) WITHOUT ROWID;

CREATE TABLE checkpoints (
  size INTEGER PRIMARY KEY,
  note BLOB    NOT NULL
);

-- Projection of run.* events: the run.started body as recorded, and the
-- terminal event's body and time once the run ends. Composed on read.
CREATE TABLE runs (
  run_id     TEXT PRIMARY KEY,
  trace      TEXT NOT NULL,
  status     TEXT NOT NULL,
  started    BLOB NOT NULL,              -- body of run.started
  ended      BLOB,                       -- body of the terminal event
  ended_at   TEXT
);
CREATE INDEX runs_trace ON runs (trace);

CREATE TABLE artifacts (
  artifact_id    TEXT    NOT NULL,
  tenant         TEXT    NOT NULL,
  case_id        TEXT    NOT NULL,
  sha256         TEXT    NOT NULL,
  media_type     TEXT    NOT NULL,
  size_bytes     INTEGER NOT NULL,
  created_by_run TEXT    NOT NULL,
  PRIMARY KEY (artifact_id, tenant, case_id)
) WITHOUT ROWID;
