-- Projection of db.write events: the current record of every key of every
-- domain table, by scope. Appends get their event index as key.
CREATE TABLE records (
  tenant  TEXT    NOT NULL,
  case_id TEXT    NOT NULL,
  tbl     TEXT    NOT NULL,
  rkey    TEXT    NOT NULL,
  sha256  TEXT    NOT NULL,
  run     TEXT    NOT NULL,
  idx     INTEGER NOT NULL,
  PRIMARY KEY (tenant, case_id, tbl, rkey)
) WITHOUT ROWID;
