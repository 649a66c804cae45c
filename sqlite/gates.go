package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/gate"
	"github.com/sanadhq/sanad/ledger"
)

var _ gate.Store = (*DB)(nil)

// projectGate records a gate event's place in the log within tx.
func projectGate(ctx context.Context, tx *sql.Tx, ev *ledger.Event, idx uint64) error {
	const op = "sqlite.project_gate"
	if ev.Type != gate.TypeCreated && ev.Type != gate.TypeResolved {
		return nil
	}
	var b struct {
		GateID   string `json:"gate_id"`
		Decision string `json:"decision"`
	}
	if err := json.Unmarshal(ev.Body, &b); err != nil {
		return sanad.Wrap(err, sanad.CodeInvalidInput, op, "gate body")
	}
	var err error
	if ev.Type == gate.TypeCreated {
		_, err = tx.ExecContext(ctx, "INSERT INTO gates (gate_id, status, created_idx) VALUES (?, 'open', ?)", b.GateID, int64(idx))
	} else {
		_, err = tx.ExecContext(ctx, "UPDATE gates SET status = ?, resolved_idx = ? WHERE gate_id = ?", b.Decision, int64(idx), b.GateID)
	}
	return classify(err, op, "gate "+b.GateID)
}

// Gate implements [gate.Store].
func (db *DB) Gate(ctx context.Context, id string) (gate.Gate, error) {
	var created int64
	var resolved sql.NullInt64
	err := db.read.QueryRowContext(ctx, "SELECT created_idx, resolved_idx FROM gates WHERE gate_id = ?", id).Scan(&created, &resolved)
	if err == sql.ErrNoRows {
		return gate.Gate{}, sanad.Errorf(sanad.CodeNotFound, "sqlite.gate", "no gate %q", id)
	}
	if err != nil {
		return gate.Gate{}, classify(err, "sqlite.gate", "query")
	}
	return db.composeGate(ctx, created, resolved)
}

// Gates implements [gate.Store]: gates with that status ("" for all), oldest first.
func (db *DB) Gates(ctx context.Context, status gate.Status) ([]gate.Gate, error) {
	q, args := "SELECT created_idx, resolved_idx FROM gates ORDER BY created_idx", []any{}
	if status != "" {
		q, args = "SELECT created_idx, resolved_idx FROM gates WHERE status = ? ORDER BY created_idx", []any{string(status)}
	}
	rows, err := db.read.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, classify(err, "sqlite.gates", "query")
	}
	type pos struct {
		created  int64
		resolved sql.NullInt64
	}
	var ps []pos
	for rows.Next() {
		var p pos
		if err := rows.Scan(&p.created, &p.resolved); err != nil {
			rows.Close()
			return nil, classify(err, "sqlite.gates", "scan")
		}
		ps = append(ps, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, classify(err, "sqlite.gates", "read")
	}
	out := make([]gate.Gate, 0, len(ps))
	for _, p := range ps {
		g, err := db.composeGate(ctx, p.created, p.resolved)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
}

func (db *DB) composeGate(ctx context.Context, created int64, resolved sql.NullInt64) (gate.Gate, error) {
	load := func(idx int64) (*ledger.Event, error) {
		var raw []byte
		if err := db.st.leafData.QueryRowContext(ctx, idx).Scan(&raw); err != nil {
			return nil, classify(err, "sqlite.gate", "read event")
		}
		ev, err := ledger.Decode(raw)
		if err != nil {
			return nil, sanad.Wrap(err, sanad.CodeIntegrity, "sqlite.gate", err.Error())
		}
		return ev, nil
	}
	c, err := load(created)
	if err != nil {
		return gate.Gate{}, err
	}
	var r *ledger.Event
	if resolved.Valid {
		if r, err = load(resolved.Int64); err != nil {
			return gate.Gate{}, err
		}
	}
	g, err := gate.Project(c, r)
	if err != nil {
		return g, sanad.Wrap(err, sanad.CodeIntegrity, "sqlite.gate", err.Error())
	}
	return g, nil
}

// CheckGates checks the gates table against the log: every gate.created
// event has its row, open until its gate.resolved event, whose decision is
// the row's status, and no row lacks its events. A deleted or edited row
// would hide a gate from those who must resolve it.
func (db *DB) CheckGates(ctx context.Context) error {
	const op = "sqlite.check_gates"
	type row struct {
		status            string
		created, resolved int64
	}
	have := map[string]row{}
	q, err := db.read.QueryContext(ctx, "SELECT gate_id, status, created_idx, coalesce(resolved_idx, -1) FROM gates")
	if err != nil {
		return classify(err, op, "query")
	}
	for q.Next() {
		var id string
		var r row
		if err := q.Scan(&id, &r.status, &r.created, &r.resolved); err != nil {
			q.Close()
			return classify(err, op, "scan")
		}
		have[id] = r
	}
	q.Close()
	if err := q.Err(); err != nil {
		return classify(err, op, "read")
	}
	want := map[string]row{}
	err = db.ReadLog(ctx, 0, func(st ledger.Stored) error {
		if st.Type != gate.TypeCreated && st.Type != gate.TypeResolved {
			return nil
		}
		ev, err := ledger.Decode(st.Raw)
		if err != nil {
			return sanad.Wrap(err, sanad.CodeIntegrity, op, err.Error())
		}
		var b struct {
			GateID   string `json:"gate_id"`
			Decision string `json:"decision"`
		}
		if err := json.Unmarshal(ev.Body, &b); err != nil {
			return sanad.Wrap(err, sanad.CodeIntegrity, op, "gate body")
		}
		if ev.Type == gate.TypeCreated {
			want[b.GateID] = row{status: "open", created: int64(st.Index), resolved: -1}
			return nil
		}
		r := want[b.GateID]
		r.status, r.resolved = b.Decision, int64(st.Index)
		want[b.GateID] = r
		return nil
	})
	if err != nil {
		return err
	}
	for id, w := range want {
		if h, ok := have[id]; !ok || h != w {
			return sanad.Errorf(sanad.CodeIntegrity, op, "the gates projection does not match the log: gate %s is %s (created at leaf %d), its row says %+v", id, w.status, w.created, h)
		}
	}
	if len(have) != len(want) {
		return sanad.Errorf(sanad.CodeIntegrity, op, "the gates projection does not match the log: %d rows, %d gates created", len(have), len(want))
	}
	return nil
}
