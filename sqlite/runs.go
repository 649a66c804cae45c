package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/ledger"
)

// Run returns the projected record of a run, or NOT_FOUND.
func (db *DB) Run(ctx context.Context, id string) (sanad.Run, error) {
	var rec []byte
	err := db.read.QueryRowContext(ctx, "SELECT record FROM runs WHERE run_id = ?", id).Scan(&rec)
	if err == sql.ErrNoRows {
		return sanad.Run{}, sanad.Errorf(sanad.CodeNotFound, "sqlite.run", "no run %q", id)
	}
	if err != nil {
		return sanad.Run{}, classify(err, "sqlite.run", "query")
	}
	var r sanad.Run
	if err := json.Unmarshal(rec, &r); err != nil {
		return r, sanad.Wrap(err, sanad.CodeIntegrity, "sqlite.run", "stored run record is damaged")
	}
	return r, nil
}

// Runs returns the projected runs, of one trace or (trace "") all, in order of start.
func (db *DB) Runs(ctx context.Context, trace string) ([]sanad.Run, error) {
	q := "SELECT record FROM runs ORDER BY started_at, run_id"
	args := []any{}
	if trace != "" {
		q = "SELECT record FROM runs WHERE trace = ? ORDER BY started_at, run_id"
		args = append(args, trace)
	}
	rows, err := db.read.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, classify(err, "sqlite.runs", "query")
	}
	defer rows.Close()
	var out []sanad.Run
	for rows.Next() {
		var rec []byte
		if err := rows.Scan(&rec); err != nil {
			return nil, classify(err, "sqlite.runs", "scan")
		}
		var r sanad.Run
		if err := json.Unmarshal(rec, &r); err != nil {
			return nil, sanad.Wrap(err, sanad.CodeIntegrity, "sqlite.runs", "stored run record is damaged")
		}
		out = append(out, r)
	}
	return out, classify(rows.Err(), "sqlite.runs", "read")
}

// RebuildRuns drops the runs projection and rebuilds it from the ledger's
// events, in one transaction.
func (db *DB) RebuildRuns(ctx context.Context) error {
	const op = "sqlite.rebuild_runs"
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
	rows, err := tx.QueryContext(ctx, "SELECT data FROM events WHERE type LIKE 'run.%' ORDER BY idx")
	if err != nil {
		return classify(err, op, "query")
	}
	var evs []*ledger.Event
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			rows.Close()
			return classify(err, op, "scan")
		}
		ev, err := ledger.Decode(raw)
		if err != nil {
			rows.Close()
			return sanad.Wrap(err, sanad.CodeIntegrity, op, err.Error())
		}
		evs = append(evs, ev)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return classify(err, op, "read")
	}
	for _, ev := range evs {
		if err := projectRun(ctx, tx, ev); err != nil {
			return err
		}
	}
	return classify(tx.Commit(), op, "commit")
}
