package sqlite

import (
	"context"
	"encoding/json"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/runs"
)

// Run returns the projected record of a run, or NOT_FOUND.
func (db *DB) Run(ctx context.Context, id string) (sanad.Run, error) {
	rs, err := db.queryRuns(ctx, runsByID+"WHERE r.run_id = ?", id)
	if err != nil {
		return sanad.Run{}, err
	}
	if len(rs) == 0 {
		return sanad.Run{}, sanad.Errorf(sanad.CodeNotFound, "sqlite.run", "no run %q", id)
	}
	return rs[0], nil
}

// Runs returns the projected runs, of one trace or (trace "") all, in the
// order they started.
func (db *DB) Runs(ctx context.Context, trace string) ([]sanad.Run, error) {
	if trace == "" {
		return db.queryRuns(ctx, runsByID+"ORDER BY r.started_idx")
	}
	return db.queryRuns(ctx, runsByStart+"WHERE s.trace = ? AND s.type = 'run.started' ORDER BY s.seq", trace)
}

// RecentRuns returns up to limit root runs (those that started a trace),
// newest first. A limit of zero or less returns them all.
func (db *DB) RecentRuns(ctx context.Context, limit int) ([]sanad.Run, error) {
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	return db.queryRuns(ctx, runsByStart+"WHERE s.type = 'run.started' AND s.run = s.trace ORDER BY s.idx DESC LIMIT ?", limit)
}

// The two ways to the runs: from the runs table (by run id, or all), and
// from the run.started events (a trace's, through the (trace, seq) index,
// or the latest, walking the log back).
const (
	runsByID = `SELECT s.data, e.data FROM runs r
		JOIN events s ON s.idx = r.started_idx LEFT JOIN events e ON e.idx = r.ended_idx `
	runsByStart = `SELECT s.data, e.data FROM events s
		JOIN runs r ON r.run_id = s.run LEFT JOIN events e ON e.idx = r.ended_idx `
)

// queryRuns composes, from their run.started and terminal events, the
// records of the runs query selects (runsByID or runsByStart and its
// clauses).
func (db *DB) queryRuns(ctx context.Context, query string, args ...any) ([]sanad.Run, error) {
	const op = "sqlite.runs"
	rows, err := db.read.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, classify(err, op, "query")
	}
	defer rows.Close()
	var out []sanad.Run
	for rows.Next() {
		var startedRaw, endedRaw []byte
		if err := rows.Scan(&startedRaw, &endedRaw); err != nil {
			return nil, classify(err, op, "scan")
		}
		started, err := ledger.Decode(startedRaw)
		if err != nil {
			return nil, sanad.Wrap(err, sanad.CodeIntegrity, op, "stored run.started event is damaged: "+err.Error())
		}
		var endedBody json.RawMessage
		var endedAt time.Time
		if endedRaw != nil {
			ended, err := ledger.Decode(endedRaw)
			if err != nil {
				return nil, sanad.Wrap(err, sanad.CodeIntegrity, op, "stored terminal event is damaged: "+err.Error())
			}
			endedBody, endedAt = ended.Body, ended.Time
		}
		r, err := runs.Compose(started.Body, endedBody, endedAt)
		if err != nil {
			return nil, sanad.Wrap(err, sanad.CodeIntegrity, op, "stored run record is damaged")
		}
		out = append(out, r)
	}
	return out, classify(rows.Err(), op, "read")
}

// RebuildRuns drops the runs projection and rebuilds it from the ledger's
// events, in one transaction.
func (db *DB) RebuildRuns(ctx context.Context) error {
	const op = "sqlite.rebuild_runs"
	if db.write == nil {
		return sanad.Errorf(sanad.CodeInvalidInput, op, "the store is open read-only")
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return classify(err, op, "begin")
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "DELETE FROM runs"); err != nil {
		return classify(err, op, "delete")
	}
	var last int64 = -1
	for {
		// Read in pages so that the whole log never sits in memory.
		var evs []*ledger.Event
		rows, err := tx.QueryContext(ctx, "SELECT idx, data FROM events WHERE idx > ? AND type LIKE 'run.%' ORDER BY idx LIMIT 4096", last)
		var idxs []uint64
		if err != nil {
			return classify(err, op, "query")
		}
		for rows.Next() {
			var raw []byte
			if err := rows.Scan(&last, &raw); err != nil {
				rows.Close()
				return classify(err, op, "scan")
			}
			ev, err := ledger.Decode(raw)
			if err != nil {
				rows.Close()
				return sanad.Wrap(err, sanad.CodeIntegrity, op, err.Error())
			}
			evs = append(evs, ev)
			idxs = append(idxs, uint64(last))
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return classify(err, op, "read")
		}
		if len(evs) == 0 {
			break
		}
		if err := projectRuns(ctx, tx, &db.st, evs, func(i int) int64 { return int64(idxs[i]) }, nil); err != nil {
			return err
		}
	}
	return classify(tx.Commit(), op, "commit")
}

// CheckRuns compares the runs projection with the events it points at:
// every run.started event has its row, every row points at its run's
// run.started event and, once the run ended, at its terminal event, with
// the status that event records. A difference is INTEGRITY: the projection
// is not to be trusted over the log, and can be rebuilt from it.
func (db *DB) CheckRuns(ctx context.Context) error {
	const op = "sqlite.check_runs"
	type row struct {
		trace, status  string
		started, ended int64
	}
	rows := map[string]row{}
	q, err := db.read.QueryContext(ctx, "SELECT run_id, trace, status, started_idx, coalesce(ended_idx, -1) FROM runs")
	if err != nil {
		return classify(err, op, "query")
	}
	for q.Next() {
		var id string
		var r row
		if err := q.Scan(&id, &r.trace, &r.status, &r.started, &r.ended); err != nil {
			q.Close()
			return classify(err, op, "scan")
		}
		rows[id] = r
	}
	q.Close()
	if err := q.Err(); err != nil {
		return classify(err, op, "read")
	}
	bad := func(format string, args ...any) error {
		return sanad.Errorf(sanad.CodeIntegrity, op, "the runs projection does not match the log: "+format, args...)
	}
	seen := 0
	err = db.ReadLog(ctx, 0, func(st ledger.Stored) error {
		status, ok := runs.StatusOf(st.Type)
		if !ok {
			return nil
		}
		ev, err := ledger.Decode(st.Raw)
		if err != nil {
			return sanad.Wrap(err, sanad.CodeIntegrity, op, err.Error())
		}
		r, known := rows[ev.Run]
		switch {
		case !known:
			return bad("run %s (leaf %d) has no row", ev.Run, st.Index)
		case ev.Type == runs.TypeStarted:
			seen++
			if r.started != int64(st.Index) || r.trace != ev.Trace {
				return bad("run %s starts at leaf %d of trace %s, its row says leaf %d of %s", ev.Run, st.Index, ev.Trace, r.started, r.trace)
			}
		case r.ended != int64(st.Index) || r.status != string(status):
			return bad("run %s ends %s at leaf %d, its row says %s at leaf %d", ev.Run, status, st.Index, r.status, r.ended)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for id, r := range rows {
		if r.ended < 0 && r.status != string(sanad.StatusRunning) {
			return bad("run %s is %s but no event ends it", id, r.status)
		}
	}
	if seen != len(rows) {
		return bad("%d runs started in the log, %d rows", seen, len(rows))
	}
	return nil
}

// Running returns the runs of kind whose record says they are running, in
// the order they started.
func (db *DB) Running(ctx context.Context, kind sanad.RunKind) ([]sanad.Run, error) {
	rs, err := db.queryRuns(ctx, runsByID+"WHERE r.status = 'running' ORDER BY r.started_idx")
	if err != nil {
		return nil, err
	}
	out := rs[:0]
	for _, r := range rs {
		if r.Kind == kind {
			out = append(out, r)
		}
	}
	return out, nil
}
