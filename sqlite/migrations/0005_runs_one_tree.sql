-- The runs projection is one b-tree, keyed by run id: a commit that starts a
-- run writes one page of it instead of three (the table, the index of its
-- key and the index by trace). A trace's runs, and the latest root runs, are
-- found from their run.started events instead.
CREATE TABLE runs_v5 (
  run_id      TEXT    PRIMARY KEY,
  trace       TEXT    NOT NULL,
  status      TEXT    NOT NULL,
  started_idx INTEGER NOT NULL,          -- leaf index of run.started
  ended_idx   INTEGER                    -- leaf index of the terminal event
) WITHOUT ROWID;
INSERT INTO runs_v5 (run_id, trace, status, started_idx, ended_idx)
SELECT run_id, trace, status, started_idx, ended_idx FROM runs;
DROP TABLE runs;
ALTER TABLE runs_v5 RENAME TO runs;
