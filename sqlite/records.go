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

// CheckRecords checks the records table against the log: it replays every
// db.write event as projectRecord does and requires the table to hold
// exactly the result. The table is a projection anyone with the database
// can edit; what is read through it (a document's record, and so what the
// memory index is checked against) is trusted only once it agrees with the
// signed events.
func (db *DB) CheckRecords(ctx context.Context) error {
	const op = "sqlite.check_records"
	type key struct{ tenant, caseID, tbl, rkey string }
	type row struct {
		sha256, run string
		idx         int64
	}
	have := map[key]row{}
	q, err := db.read.QueryContext(ctx, "SELECT tenant, case_id, tbl, rkey, sha256, run, idx FROM records")
	if err != nil {
		return classify(err, op, "query")
	}
	for q.Next() {
		var k key
		var r row
		if err := q.Scan(&k.tenant, &k.caseID, &k.tbl, &k.rkey, &r.sha256, &r.run, &r.idx); err != nil {
			q.Close()
			return classify(err, op, "scan")
		}
		have[k] = r
	}
	q.Close()
	if err := q.Err(); err != nil {
		return classify(err, op, "read")
	}
	want := map[key]row{}
	err = db.ReadLog(ctx, 0, func(st ledger.Stored) error {
		if st.Type != dbwrite.TypeWrite {
			return nil
		}
		ev, err := ledger.Decode(st.Raw)
		if err != nil {
			return sanad.Wrap(err, sanad.CodeIntegrity, op, err.Error())
		}
		var b dbwrite.Body
		if err := json.Unmarshal(ev.Body, &b); err != nil {
			return sanad.Wrap(err, sanad.CodeIntegrity, op, "db.write body")
		}
		k := key{ev.Scope.Tenant, ev.Scope.Case, b.Table, b.Key}
		if b.Op == dbwrite.Append {
			k.rkey = "#" + strconv.FormatUint(st.Index, 10)
		}
		want[k] = row{b.SHA256, ev.Run, int64(st.Index)}
		return nil
	})
	if err != nil {
		return err
	}
	for k, w := range want {
		if h, ok := have[k]; !ok || h != w {
			return sanad.Errorf(sanad.CodeIntegrity, op, "the records projection does not match the log: %s/%s %s/%s is the write at leaf %d (%s), its row says %+v", k.tenant, k.caseID, k.tbl, k.rkey, w.idx, w.sha256, h)
		}
	}
	if len(have) != len(want) {
		return sanad.Errorf(sanad.CodeIntegrity, op, "the records projection does not match the log: %d rows, %d written", len(have), len(want))
	}
	return nil
}
