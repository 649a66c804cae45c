package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/runs"
	"github.com/sanadhq/sanad/tlog"
	"github.com/transparency-dev/merkle/compact"
)

var _ ledger.Store = (*DB)(nil)

func hkey(h []byte) int64 { return int64(binary.BigEndian.Uint64(h[:8])) }

func nodeKey(id compact.NodeID) int64 { return int64(uint64(id.Level)<<56 | id.Index) }

// AppendEvents implements [ledger.Appender]: one transaction inserts the
// events, the Merkle nodes they complete and the runs projection.
func (db *DB) AppendEvents(ctx context.Context, events []*ledger.Event) (uint64, error) {
	const op = "sqlite.append"
	if db.write == nil {
		return 0, sanad.Errorf(sanad.CodeInvalidInput, op, "the store is open read-only")
	}
	if len(events) == 0 {
		return 0, nil
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return 0, classify(err, op, "begin")
	}
	defer tx.Rollback()
	tree, err := db.treeInTx(ctx, tx)
	if err != nil {
		return 0, err
	}
	first := tree.Size()
	tree = tree.Clone()
	insEvent, err := tx.PrepareContext(ctx, "INSERT INTO events (idx, trace, seq, hkey, hash, type, run, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
	if err != nil {
		return 0, classify(err, op, "prepare")
	}
	defer insEvent.Close()
	insNode, err := tx.PrepareContext(ctx, "INSERT INTO tlog_nodes (id, hash) VALUES (?, ?)")
	if err != nil {
		return 0, classify(err, op, "prepare")
	}
	defer insNode.Close()
	var nodeErr error
	for i, ev := range events {
		idx := first + uint64(i)
		var run any
		if ev.Run != "" {
			run = ev.Run
		}
		if _, err := insEvent.ExecContext(ctx, int64(idx), ev.Trace, int64(ev.Seq), hkey(ev.Hash[:]), ev.Hash[:], ev.Type, run, ev.Canonical()); err != nil {
			return 0, classify(err, op, fmt.Sprintf("event %s seq %d", ev.Trace, ev.Seq))
		}
		err := tree.Append(tlog.LeafHash(ev.Hash[:]), func(n tlog.Node) {
			if n.ID.Level == 0 || nodeErr != nil {
				return
			}
			_, nodeErr = insNode.ExecContext(ctx, nodeKey(n.ID), n.Hash)
		})
		if err != nil {
			return 0, sanad.Wrap(err, sanad.CodeInternal, op, "merkle append")
		}
		if nodeErr != nil {
			return 0, classify(nodeErr, op, "merkle node")
		}
		if err := projectRun(ctx, tx, ev); err != nil {
			return 0, err
		}
	}
	if err := tx.Commit(); err != nil {
		db.tree = nil
		return 0, classify(err, op, "commit")
	}
	db.tree = tree
	return first, nil
}

// treeInTx returns the tree's right edge as of this transaction, reloading it
// if another connection has appended since it was cached.
func (db *DB) treeInTx(ctx context.Context, tx *sql.Tx) (*tlog.Tree, error) {
	var size int64
	if err := tx.QueryRowContext(ctx, "SELECT COALESCE(MAX(idx) + 1, 0) FROM events").Scan(&size); err != nil {
		return nil, classify(err, "sqlite.append", "tree size")
	}
	if db.tree != nil && db.tree.Size() == uint64(size) {
		return db.tree, nil
	}
	ids := tlog.EdgeNodes(uint64(size))
	hashes, err := readNodes(ctx, tx, ids)
	if err != nil {
		return nil, err
	}
	t, err := tlog.RestoreTree(uint64(size), hashes)
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeIntegrity, "sqlite.append", "stored Merkle tree is damaged")
	}
	db.tree = t
	return t, nil
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// ReadNodes implements [tlog.NodeReader].
func (db *DB) ReadNodes(ctx context.Context, ids []compact.NodeID) ([][]byte, error) {
	return readNodes(ctx, db.read, ids)
}

func readNodes(ctx context.Context, q querier, ids []compact.NodeID) ([][]byte, error) {
	const op = "sqlite.nodes"
	out := make([][]byte, len(ids))
	for i, id := range ids {
		var h []byte
		var err error
		if id.Level == 0 {
			err = q.QueryRowContext(ctx, "SELECT hash FROM events WHERE idx = ?", int64(id.Index)).Scan(&h)
			if err == nil {
				h = tlog.LeafHash(h)
			}
		} else {
			err = q.QueryRowContext(ctx, "SELECT hash FROM tlog_nodes WHERE id = ?", nodeKey(id)).Scan(&h)
		}
		if err == sql.ErrNoRows {
			return nil, sanad.Errorf(sanad.CodeIntegrity, op, "Merkle node (level %d, index %d) is missing", id.Level, id.Index)
		}
		if err != nil {
			return nil, classify(err, op, "read node")
		}
		if len(h) != tlog.HashSize {
			return nil, sanad.Errorf(sanad.CodeIntegrity, op, "Merkle node (level %d, index %d) is damaged", id.Level, id.Index)
		}
		out[i] = h
	}
	return out, nil
}

// TreeSize implements [ledger.TreeStore].
func (db *DB) TreeSize(ctx context.Context) (uint64, error) {
	var size int64
	if err := db.read.QueryRowContext(ctx, "SELECT COALESCE(MAX(idx) + 1, 0) FROM events").Scan(&size); err != nil {
		return 0, classify(err, "sqlite.tree_size", "tree size")
	}
	return uint64(size), nil
}

// TraceHead implements [ledger.Reader].
func (db *DB) TraceHead(ctx context.Context, trace string) (uint64, canon.Digest, error) {
	var seq int64
	var h []byte
	err := db.read.QueryRowContext(ctx, "SELECT seq, hash FROM events WHERE trace = ? ORDER BY seq DESC LIMIT 1", trace).Scan(&seq, &h)
	if err == sql.ErrNoRows {
		return 0, canon.Digest{}, nil
	}
	if err != nil {
		return 0, canon.Digest{}, classify(err, "sqlite.trace_head", "read trace head")
	}
	var d canon.Digest
	if len(h) != len(d) {
		return 0, d, sanad.Errorf(sanad.CodeIntegrity, "sqlite.trace_head", "stored hash of %s seq %d is damaged", trace, seq)
	}
	copy(d[:], h)
	return uint64(seq), d, nil
}

// ReadTrace implements [ledger.Reader].
func (db *DB) ReadTrace(ctx context.Context, trace string, after uint64, fn func(ledger.Stored) error) error {
	return db.scan(ctx, "sqlite.read_trace", fn, "SELECT idx, data FROM events WHERE trace = ? AND seq > ? ORDER BY seq", trace, int64(after))
}

// ReadLog implements [ledger.Reader].
func (db *DB) ReadLog(ctx context.Context, from uint64, fn func(ledger.Stored) error) error {
	return db.scan(ctx, "sqlite.read_log", fn, "SELECT idx, data FROM events WHERE idx >= ? ORDER BY idx", int64(from))
}

func (db *DB) scan(ctx context.Context, op string, fn func(ledger.Stored) error, query string, args ...any) error {
	rows, err := db.read.QueryContext(ctx, query, args...)
	if err != nil {
		return classify(err, op, "query")
	}
	defer rows.Close()
	for rows.Next() {
		var idx int64
		var raw sql.RawBytes
		if err := rows.Scan(&idx, &raw); err != nil {
			return classify(err, op, "scan")
		}
		if err := fn(ledger.Stored{Index: uint64(idx), Raw: raw}); err != nil {
			return err
		}
	}
	return classify(rows.Err(), op, "read")
}

// EventByHash implements [ledger.Reader].
func (db *DB) EventByHash(ctx context.Context, h canon.Digest) (ledger.Stored, error) {
	rows, err := db.read.QueryContext(ctx, "SELECT idx, hash, data FROM events WHERE hkey = ?", hkey(h[:]))
	if err != nil {
		return ledger.Stored{}, classify(err, "sqlite.event_by_hash", "query")
	}
	defer rows.Close()
	for rows.Next() {
		var idx int64
		var hash, data []byte
		if err := rows.Scan(&idx, &hash, &data); err != nil {
			return ledger.Stored{}, classify(err, "sqlite.event_by_hash", "scan")
		}
		if string(hash) == string(h[:]) {
			return ledger.Stored{Index: uint64(idx), Raw: data}, nil
		}
	}
	if err := rows.Err(); err != nil {
		return ledger.Stored{}, classify(err, "sqlite.event_by_hash", "read")
	}
	return ledger.Stored{}, sanad.Errorf(sanad.CodeNotFound, "sqlite.event_by_hash", "no event with hash %s", h)
}

// Traces implements [ledger.Reader].
func (db *DB) Traces(ctx context.Context) ([]string, error) {
	rows, err := db.read.QueryContext(ctx, "SELECT trace FROM events WHERE seq = 1 ORDER BY idx")
	if err != nil {
		return nil, classify(err, "sqlite.traces", "query")
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, classify(err, "sqlite.traces", "scan")
		}
		out = append(out, t)
	}
	return out, classify(rows.Err(), "sqlite.traces", "read")
}

// SaveCheckpoint implements [ledger.CheckpointStore].
func (db *DB) SaveCheckpoint(ctx context.Context, size uint64, signed []byte) error {
	if db.write == nil {
		return sanad.Errorf(sanad.CodeInvalidInput, "sqlite.save_checkpoint", "the store is open read-only")
	}
	_, err := db.write.ExecContext(ctx, "INSERT INTO checkpoints (size, note) VALUES (?, ?) ON CONFLICT (size) DO NOTHING", int64(size), signed)
	return classify(err, "sqlite.save_checkpoint", "insert")
}

// Checkpoints implements [ledger.CheckpointStore].
func (db *DB) Checkpoints(ctx context.Context) ([][]byte, error) {
	rows, err := db.read.QueryContext(ctx, "SELECT note FROM checkpoints ORDER BY size")
	if err != nil {
		return nil, classify(err, "sqlite.checkpoints", "query")
	}
	defer rows.Close()
	var out [][]byte
	for rows.Next() {
		var n []byte
		if err := rows.Scan(&n); err != nil {
			return nil, classify(err, "sqlite.checkpoints", "scan")
		}
		out = append(out, n)
	}
	return out, classify(rows.Err(), "sqlite.checkpoints", "read")
}

// projectRun applies a run event to the runs table within tx.
func projectRun(ctx context.Context, tx *sql.Tx, ev *ledger.Event) error {
	const op = "sqlite.project_run"
	switch ev.Type {
	case runs.TypeStarted, runs.TypeCompleted, runs.TypeFailed, runs.TypeDenied, runs.TypeCancelled:
	default:
		return nil
	}
	var cur *sanad.Run
	if ev.Type != runs.TypeStarted {
		var rec []byte
		err := tx.QueryRowContext(ctx, "SELECT record FROM runs WHERE run_id = ?", ev.Run).Scan(&rec)
		if err != nil && err != sql.ErrNoRows {
			return classify(err, op, "read run")
		}
		if err == nil {
			cur = new(sanad.Run)
			if err := json.Unmarshal(rec, cur); err != nil {
				return sanad.Wrap(err, sanad.CodeIntegrity, op, "stored run record is damaged")
			}
		}
	}
	next, _, err := runs.Project(cur, ev)
	if err != nil {
		return sanad.Wrap(err, sanad.CodeInvalidInput, op, err.Error())
	}
	rec, err := json.Marshal(next)
	if err != nil {
		return sanad.Wrap(err, sanad.CodeInternal, op, "encode run")
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO runs (run_id, trace, parent_id, kind, tenant, case_id, agent, status, started_at, record)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (run_id) DO UPDATE SET status = excluded.status, record = excluded.record`,
		next.ID, next.Trace, next.ParentID, string(next.Kind), next.Scope.Tenant, next.Scope.Case, next.Agent,
		string(next.Status), next.StartedAt.UTC().Format("2006-01-02T15:04:05.000000000Z"), rec)
	return classify(err, op, "upsert run")
}
