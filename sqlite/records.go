package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"strconv"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/dbwrite"
	"github.com/sanadhq/sanad/ledger"
)

// projectRecord applies a db.write event to the records table within tx.
func projectRecord(ctx context.Context, tx *sql.Tx, ev *ledger.Event, idx uint64) error {
	if ev.Type != dbwrite.TypeWrite {
		return nil
	}
	var b dbwrite.Body
	if err := json.Unmarshal(ev.Body, &b); err != nil {
		return sanad.Wrap(err, sanad.CodeInvalidInput, "sqlite.project_record", "db.write body")
	}
	key := b.Key
	if b.Op == dbwrite.Append {
		key = "#" + strconv.FormatUint(idx, 10)
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO records (tenant, case_id, tbl, rkey, sha256, run, idx) VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (tenant, case_id, tbl, rkey) DO UPDATE SET sha256 = excluded.sha256, run = excluded.run, idx = excluded.idx`,
		ev.Scope.Tenant, ev.Scope.Case, b.Table, key, b.SHA256, ev.Run, int64(idx))
	return classify(err, "sqlite.project_record", "record "+b.Table+"/"+key)
}

// Records returns the current records of a domain table in scope, in the
// order they were last written. Another case's records are not returned.
func (db *DB) Records(ctx context.Context, scope sanad.Scope, table string) ([]dbwrite.Row, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT rkey, sha256, run, idx FROM records
		WHERE tenant = ? AND case_id = ? AND tbl = ? ORDER BY idx`, scope.Tenant, scope.Case, table)
	if err != nil {
		return nil, classify(err, "sqlite.records", "query")
	}
	defer rows.Close()
	var out []dbwrite.Row
	for rows.Next() {
		r := dbwrite.Row{Table: table, Scope: scope}
		var idx int64
		if err := rows.Scan(&r.Key, &r.SHA256, &r.Run, &idx); err != nil {
			return nil, classify(err, "sqlite.records", "scan")
		}
		r.Index = uint64(idx)
		out = append(out, r)
	}
	return out, classify(rows.Err(), "sqlite.records", "read")
}
