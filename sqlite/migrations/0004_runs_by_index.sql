-- The runs projection points at a run's events instead of copying their
-- bodies: a run's record is composed on read from its run.started event and,
-- once it has ended, its terminal event. (Copying them wrote each run's
-- bodies twice.)
CREATE INDEX migrate_events_run ON events (run, type);
CREATE TABLE runs_by_index (
  run_id      TEXT    PRIMARY KEY,
  trace       TEXT    NOT NULL,
  status      TEXT    NOT NULL,
  started_idx INTEGER NOT NULL,          -- leaf index of run.started
  ended_idx   INTEGER                    -- leaf index of the terminal event
);
INSERT INTO runs_by_index (run_id, trace, status, started_idx, ended_idx)
SELECT r.run_id, r.trace, r.status,
  (SELECT e.idx FROM events e WHERE e.run = r.run_id AND e.type = 'run.started'),
  (SELECT e.idx FROM events e WHERE e.run = r.run_id
     AND e.type IN ('run.completed', 'run.failed', 'run.denied', 'run.cancelled'))
FROM runs r ORDER BY r.rowid;
DROP TABLE runs;
ALTER TABLE runs_by_index RENAME TO runs;
CREATE INDEX runs_trace ON runs (trace);
DROP INDEX migrate_events_run;
