package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/runs"
	"github.com/sanadhq/sanad/tlog"
	"github.com/transparency-dev/merkle/compact"
)

var _ ledger.Store = (*DB)(nil)

const (
	eventCols    = 7
	treeSizeSQL  = "SELECT idx + 1 FROM events ORDER BY idx DESC LIMIT 1" // uses the rowid, unlike MAX()+1
	eventsInsert = "INSERT INTO events (idx, trace, seq, hash, type, run, data) VALUES "
	nodesInsert  = "INSERT INTO tlog_nodes (id, hash) VALUES "
	runsInsert   = "INSERT INTO runs (run_id, trace, status, started_idx) VALUES "
	runCols      = 4
)

// insertSQL returns prefix followed by rows groups of cols placeholders.
func insertSQL(prefix string, cols, rows int) string {
	group := "(" + strings.TrimSuffix(strings.Repeat("?, ", cols), ", ") + ")"
	return prefix + strings.TrimSuffix(strings.Repeat(group+", ", rows), ", ")
}

// insertChunks are the row counts of the prepared multi-row INSERTs, largest
// first, ending with 1: a batch of rows goes in with one statement execution
// per chunk instead of one per row.
var insertChunks = [...]int{64, 16, 4, 1}

// insertRows inserts rows of cols values each from args, in chunks of the
// largest sizes that fit, with stmts[i] inserting insertChunks[i] rows.
func insertRows(ctx context.Context, tx *sql.Tx, stmts *[len(insertChunks)]*sql.Stmt, cols int, args []any) error {
	for i, rows := range insertChunks {
		per := cols * rows
		for len(args) >= per {
			if _, err := tx.StmtContext(ctx, stmts[i]).ExecContext(ctx, args[:per]...); err != nil {
				return err
			}
			args = args[per:]
		}
	}
	return nil
}

func nodeKey(id compact.NodeID) int64 { return int64(uint64(id.Level)<<56 | id.Index) }

// storedNodeLevels says which Merkle nodes a commit stores: those whose level
// is a multiple of it, one row per 16 leaves, one more per 256, and so on.
// Any other node is hashed from the nodes (or event hashes) up to three
// levels below it when read: at most 8 of them. Storing every node instead
// made the node rows a third of a small commit's cost. The stored nodes are
// a cache of what the event hashes determine: verification checks each.
const storedNodeLevels = 4

// AppendEvents implements [ledger.Appender]: one transaction inserts the
// events, the Merkle nodes they complete, the runs projection and the index
// entries of the artifacts they cite.
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
	// Rows go in with multi-row INSERTs of up to insertChunks[0] rows: one
	// statement execution per chunk instead of one per row.
	nodes := make([]tlog.Node, 0, len(events)>>storedNodeLevels+1)
	for _, ev := range events {
		err := tree.Append(tlog.LeafHash(ev.Hash[:]), func(n tlog.Node) {
			if n.ID.Level > 0 && n.ID.Level%storedNodeLevels == 0 {
				nodes = append(nodes, n)
			}
		})
		if err != nil {
			return 0, sanad.Wrap(err, sanad.CodeInternal, op, "merkle append")
		}
	}
	args := make([]any, 0, eventCols*len(events))
	for i, ev := range events {
		var run any
		if ev.Run != "" {
			run = ev.Run
		}
		args = append(args, int64(first)+int64(i), ev.Trace, int64(ev.Seq), ev.Hash[:], ev.Type, run, ev.Canonical())
	}
	if err := insertRows(ctx, tx, &db.st.insEvents, eventCols, args); err != nil {
		return 0, classify(err, op, fmt.Sprintf("events %s seq %d…", events[0].Trace, events[0].Seq))
	}
	args = args[:0]
	for _, n := range nodes {
		args = append(args, nodeKey(n.ID), n.Hash)
	}
	if err := insertRows(ctx, tx, &db.st.insNodes, 2, args); err != nil {
		return 0, classify(err, op, "merkle nodes")
	}
	if err := projectRuns(ctx, tx, &db.st, events, func(i int) int64 { return int64(first) + int64(i) }, args[:0]); err != nil {
		return 0, err
	}
	if err := projectRefs(ctx, tx, &db.st, events, args[:0]); err != nil {
		return 0, err
	}
	for i, ev := range events {
		if err := projectGate(ctx, tx, ev, first+uint64(i)); err != nil {
			return 0, err
		}
		if err := projectRecord(ctx, tx, ev, first+uint64(i)); err != nil {
			return 0, err
		}
	}
	if db.cfg.Crash != nil {
		db.cfg.Crash(PointBeforeCommit)
	}
	if err := tx.Commit(); err != nil {
		db.tree = nil
		return 0, classify(err, op, "commit")
	}
	db.tree = tree
	db.dirty.Store(true)
	return first, nil
}

// treeInTx returns the tree's right edge as of this transaction, reloading it
// if another connection has appended since it was cached.
func (db *DB) treeInTx(ctx context.Context, tx *sql.Tx) (*tlog.Tree, error) {
	var size int64
	if err := tx.StmtContext(ctx, db.st.size).QueryRowContext(ctx).Scan(&size); err != nil && err != sql.ErrNoRows {
		return nil, classify(err, "sqlite.append", "tree size")
	}
	if db.tree != nil && db.tree.Size() == uint64(size) {
		return db.tree, nil
	}
	ids := tlog.EdgeNodes(uint64(size))
	hashes, err := readNodes(ctx, nodeSource{
		one: func(leaf bool, key int64) *sql.Row {
			if leaf {
				return tx.QueryRowContext(ctx, leafSQL, key)
			}
			return tx.QueryRowContext(ctx, nodeSQL, key)
		},
		span: func(leaf bool, from, to int64) (*sql.Rows, error) {
			if leaf {
				return tx.QueryContext(ctx, leafSpanSQL, from, to)
			}
			return tx.QueryContext(ctx, nodeSpanSQL, from, to)
		},
	}, ids)
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

// ReadNodes implements [tlog.NodeReader].
func (db *DB) ReadNodes(ctx context.Context, ids []compact.NodeID) ([][]byte, error) {
	return readNodes(ctx, nodeSource{
		one: func(leaf bool, key int64) *sql.Row {
			if leaf {
				return db.st.leaf.QueryRowContext(ctx, key)
			}
			return db.st.node.QueryRowContext(ctx, key)
		},
		span: func(leaf bool, from, to int64) (*sql.Rows, error) {
			if leaf {
				return db.st.leafSpan.QueryContext(ctx, from, to)
			}
			return db.st.nodeSpan.QueryContext(ctx, from, to)
		},
	}, ids)
}

// Reads of the Merkle tree: an event hash (leaf) or a stored node by key, or
// the consecutive ones between two keys.
const (
	leafSQL     = "SELECT hash FROM events WHERE idx = ?"
	nodeSQL     = "SELECT hash FROM tlog_nodes WHERE id = ?"
	leafSpanSQL = "SELECT hash FROM events WHERE idx BETWEEN ? AND ? ORDER BY idx"
	nodeSpanSQL = "SELECT hash FROM tlog_nodes WHERE id BETWEEN ? AND ? ORDER BY id"
)

// nodeSource reads stored hashes: one event hash (leaf) or stored node by
// its key, or the consecutive ones from one key to another, in order.
type nodeSource struct {
	one  func(leaf bool, key int64) *sql.Row
	span func(leaf bool, from, to int64) (*sql.Rows, error)
}

// readNodes reads Merkle nodes from src: an event hash (level 0) by its
// index, a stored node by its key, and a node that is not stored (see
// storedNodeLevels) hashed from its descendants on the stored level below
// it, read in one span.
func readNodes(ctx context.Context, src nodeSource, ids []compact.NodeID) ([][]byte, error) {
	const op = "sqlite.nodes"
	missing := func(id compact.NodeID) error {
		return sanad.Errorf(sanad.CodeIntegrity, op, "Merkle node (level %d, index %d) is missing", id.Level, id.Index)
	}
	damaged := func(id compact.NodeID) error {
		return sanad.Errorf(sanad.CodeIntegrity, op, "Merkle node (level %d, index %d) is damaged", id.Level, id.Index)
	}
	key := func(id compact.NodeID) int64 {
		if id.Level == 0 {
			return int64(id.Index)
		}
		return nodeKey(id)
	}
	// below hashes id from the 2^depth nodes depth levels below it.
	below := func(id compact.NodeID, depth uint) ([]byte, error) {
		first := compact.NewNodeID(id.Level-depth, id.Index<<depth)
		last := compact.NewNodeID(first.Level, first.Index+1<<depth-1)
		rows, err := src.span(first.Level == 0, key(first), key(last))
		if err != nil {
			return nil, classify(err, op, "read nodes")
		}
		defer rows.Close()
		level := make([][]byte, 0, 1<<depth)
		for rows.Next() {
			var h []byte
			if err := rows.Scan(&h); err != nil {
				return nil, classify(err, op, "read nodes")
			}
			if len(h) != tlog.HashSize {
				return nil, damaged(compact.NewNodeID(first.Level, first.Index+uint64(len(level))))
			}
			if first.Level == 0 {
				h = tlog.LeafHash(h)
			}
			level = append(level, h)
		}
		if err := rows.Err(); err != nil {
			return nil, classify(err, op, "read nodes")
		}
		if len(level) != 1<<depth {
			return nil, missing(compact.NewNodeID(first.Level, first.Index+uint64(len(level))))
		}
		for len(level) > 1 {
			for i := range len(level) / 2 {
				level[i] = tlog.HashChildren(level[2*i], level[2*i+1])
			}
			level = level[:len(level)/2]
		}
		return level[0], nil
	}
	read := func(id compact.NodeID) ([]byte, error) {
		var h []byte
		err := src.one(id.Level == 0, key(id)).Scan(&h)
		switch {
		case err == sql.ErrNoRows && id.Level > 0 && id.Level%storedNodeLevels != 0:
			return below(id, id.Level%storedNodeLevels)
		case err == sql.ErrNoRows:
			return nil, missing(id)
		case err != nil:
			return nil, classify(err, op, "read node")
		case len(h) != tlog.HashSize:
			return nil, damaged(id)
		case id.Level == 0:
			return tlog.LeafHash(h), nil
		}
		return h, nil
	}
	out := make([][]byte, len(ids))
	for i, id := range ids {
		h, err := read(id)
		if err != nil {
			return nil, err
		}
		out[i] = h
	}
	return out, nil
}

// TreeSize implements [ledger.TreeStore].
func (db *DB) TreeSize(ctx context.Context) (uint64, error) {
	var size int64
	if err := db.read.QueryRowContext(ctx, treeSizeSQL).Scan(&size); err != nil && err != sql.ErrNoRows {
		return 0, classify(err, "sqlite.tree_size", "tree size")
	}
	return uint64(size), nil
}

// TraceHead implements [ledger.Reader]. The row the index gives as the
// head must hold an event signed as that trace and seq, with that hash.
func (db *DB) TraceHead(ctx context.Context, trace string) (uint64, canon.Digest, error) {
	const op = "sqlite.trace_head"
	var seq, idx int64
	var h, data []byte
	var typ, run string
	err := db.read.QueryRowContext(ctx, "SELECT idx, seq, hash, data, type, coalesce(run, '') FROM events WHERE trace = ? ORDER BY seq DESC LIMIT 1", trace).Scan(&idx, &seq, &h, &data, &typ, &run)
	if err == sql.ErrNoRows {
		return 0, canon.Digest{}, nil
	}
	if err != nil {
		return 0, canon.Digest{}, classify(err, op, "read trace head")
	}
	ev, err := ledger.Decode(data)
	if err != nil {
		return 0, canon.Digest{}, sanad.Wrap(err, sanad.CodeIntegrity, op, fmt.Sprintf("the head of trace %s (leaf %d) does not decode: %v", trace, idx, err))
	}
	st := ledger.Stored{Index: uint64(idx), Trace: trace, Seq: uint64(seq), Type: typ, Run: run}
	if err := st.Check(ev); err != nil || !bytes.Equal(h, ev.Hash[:]) {
		return 0, canon.Digest{}, sanad.Errorf(sanad.CodeIntegrity, op, "the index's head of trace %s (leaf %d) is not the event it holds: run sanad ledger verify", trace, idx)
	}
	return ev.Seq, ev.Hash, nil
}

// ReadTrace implements [ledger.Reader].
func (db *DB) ReadTrace(ctx context.Context, trace string, after uint64, fn func(ledger.Stored) error) error {
	rows, err := db.st.readTrace.QueryContext(ctx, trace, int64(after))
	return scanRows(rows, err, "sqlite.read_trace", fn)
}

// ReadLog implements [ledger.Reader].
func (db *DB) ReadLog(ctx context.Context, from uint64, fn func(ledger.Stored) error) error {
	return db.scan(ctx, "sqlite.read_log", fn, "SELECT idx, hash, data, trace, seq, type, coalesce(run, '') FROM events WHERE idx >= ? ORDER BY idx", int64(from))
}

func (db *DB) scan(ctx context.Context, op string, fn func(ledger.Stored) error, query string, args ...any) error {
	rows, err := db.read.QueryContext(ctx, query, args...)
	return scanRows(rows, err, op, fn)
}

func scanRows(rows *sql.Rows, err error, op string, fn func(ledger.Stored) error) error {
	if err != nil {
		return classify(err, op, "query")
	}
	defer rows.Close()
	for rows.Next() {
		var idx, seq int64
		var hash, raw sql.RawBytes
		var trace, typ, run string
		if err := rows.Scan(&idx, &hash, &raw, &trace, &seq, &typ, &run); err != nil {
			return classify(err, op, "scan")
		}
		st := ledger.Stored{Index: uint64(idx), Raw: raw, Trace: trace, Seq: uint64(seq), Type: typ, Run: run}
		copy(st.Hash[:], hash) // a damaged (short) hash stays visibly wrong
		if err := fn(st); err != nil {
			return err
		}
	}
	return classify(rows.Err(), op, "read")
}

// ReadLeaves implements [ledger.TreeStore].
func (db *DB) ReadLeaves(ctx context.Context, from uint64, fn func(uint64, canon.Digest) error) error {
	const op = "sqlite.read_leaves"
	rows, err := db.read.QueryContext(ctx, "SELECT idx, hash FROM events WHERE idx >= ? ORDER BY idx", int64(from))
	if err != nil {
		return classify(err, op, "query")
	}
	defer rows.Close()
	for rows.Next() {
		var idx int64
		var hash sql.RawBytes
		if err := rows.Scan(&idx, &hash); err != nil {
			return classify(err, op, "scan")
		}
		var d canon.Digest
		copy(d[:], hash)
		if len(hash) != len(d) {
			return sanad.Errorf(sanad.CodeIntegrity, op, "stored hash of leaf %d is damaged", idx)
		}
		if err := fn(uint64(idx), d); err != nil {
			return err
		}
	}
	return classify(rows.Err(), op, "read")
}

var _ ledger.NodeKeeper = (*DB)(nil)

// KeepsLevel implements [ledger.NodeKeeper]: the store keeps every complete
// node of the levels that are a multiple of storedNodeLevels.
func (db *DB) KeepsLevel(level uint) bool { return level > 0 && level%storedNodeLevels == 0 }

// ReadTreeNodes implements [ledger.TreeStore].
func (db *DB) ReadTreeNodes(ctx context.Context, fn func(tlog.Node) error) error {
	const op = "sqlite.read_tree_nodes"
	rows, err := db.read.QueryContext(ctx, "SELECT id, hash FROM tlog_nodes ORDER BY id")
	if err != nil {
		return classify(err, op, "query")
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var hash []byte
		if err := rows.Scan(&id, &hash); err != nil {
			return classify(err, op, "scan")
		}
		n := tlog.Node{ID: compact.NewNodeID(uint(uint64(id)>>56), uint64(id)&(1<<56-1)), Hash: hash}
		if err := fn(n); err != nil {
			return err
		}
	}
	return classify(rows.Err(), op, "read")
}

// EventByHash implements [ledger.Reader]. Events are not indexed by hash,
// which would cost a random index write per append: the lookup scans the log,
// newest first.
func (db *DB) EventByHash(ctx context.Context, h canon.Digest) (ledger.Stored, error) {
	var idx, seq int64
	var data []byte
	var trace, typ, run string
	err := db.read.QueryRowContext(ctx, "SELECT idx, data, trace, seq, type, coalesce(run, '') FROM events WHERE hash = ? ORDER BY idx DESC LIMIT 1", h[:]).Scan(&idx, &data, &trace, &seq, &typ, &run)
	if err == sql.ErrNoRows {
		return ledger.Stored{}, sanad.Errorf(sanad.CodeNotFound, "sqlite.event_by_hash", "no event with hash %s", h)
	}
	if err != nil {
		return ledger.Stored{}, classify(err, "sqlite.event_by_hash", "query")
	}
	return ledger.Stored{Index: uint64(idx), Hash: h, Raw: data, Trace: trace, Seq: uint64(seq), Type: typ, Run: run}, nil
}

// ReadTraceIndex implements [ledger.Reader]: it reads the (trace, seq)
// index alone, without the table's rows.
func (db *DB) ReadTraceIndex(ctx context.Context, fn func(ledger.Filed) error) error {
	const op = "sqlite.read_trace_index"
	rows, err := db.read.QueryContext(ctx, "SELECT trace, seq, idx FROM events INDEXED BY sqlite_autoindex_events_1 ORDER BY trace, seq")
	if err != nil {
		return classify(err, op, "query")
	}
	defer rows.Close()
	for rows.Next() {
		var f ledger.Filed
		var seq, idx int64
		if err := rows.Scan(&f.Trace, &seq, &idx); err != nil {
			return classify(err, op, "scan")
		}
		f.Seq, f.Index = uint64(seq), uint64(idx)
		if err := fn(f); err != nil {
			return err
		}
	}
	return classify(rows.Err(), op, "read")
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

// Checkpoints implements [ledger.CheckpointStore]. The size a row is filed
// under, which nothing signs, must be the size its checkpoint states. (A
// note that is not a checkpoint is returned as it is: the store keeps notes
// as given, and the ledger refuses one that does not open.)
func (db *DB) Checkpoints(ctx context.Context) ([][]byte, error) {
	const op = "sqlite.checkpoints"
	rows, err := db.read.QueryContext(ctx, "SELECT size, note FROM checkpoints ORDER BY size")
	if err != nil {
		return nil, classify(err, op, "query")
	}
	defer rows.Close()
	var out [][]byte
	for rows.Next() {
		var size int64
		var n []byte
		if err := rows.Scan(&size, &n); err != nil {
			return nil, classify(err, op, "scan")
		}
		if got, ok := checkpointSize(n); ok && got != uint64(size) {
			return nil, sanad.Errorf(sanad.CodeIntegrity, op, "the checkpoint filed under size %d does not state that size: the checkpoints table was changed", size)
		}
		out = append(out, n)
	}
	return out, classify(rows.Err(), op, "read")
}

// checkpointSize returns the size a signed checkpoint note states, without
// checking its signature.
func checkpointSize(signed []byte) (uint64, bool) {
	i := bytes.Index(signed, []byte("\n\n"))
	if i < 0 {
		return 0, false
	}
	cp, err := tlog.ParseCheckpoint(signed[:i+1])
	return cp.Size, err == nil
}

// projectRuns applies run events to the runs table within tx, events[i]
// being the log's leaf index(i): the runs they start, in multi-row INSERTs,
// then the ends of runs (which may have started among the same events),
// each recording its status and index. Records are composed on read from
// the events ([runs.Compose]). args is scratch space.
func projectRuns(ctx context.Context, tx *sql.Tx, st *stmts, events []*ledger.Event, index func(i int) int64, args []any) error {
	const op = "sqlite.project_run"
	ends := 0
	for i, ev := range events {
		status, ok := runs.StatusOf(ev.Type)
		switch {
		case !ok:
		case ev.Type == runs.TypeStarted:
			args = append(args, ev.Run, ev.Trace, string(status), index(i))
		default:
			ends++
		}
	}
	if err := insertRows(ctx, tx, &st.insRuns, runCols, args); err != nil {
		return classify(err, op, "project the runs started from leaf "+strconv.FormatInt(index(0), 10))
	}
	if ends == 0 {
		return nil
	}
	end := tx.StmtContext(ctx, st.endRun)
	for i, ev := range events {
		status, ok := runs.StatusOf(ev.Type)
		if !ok || ev.Type == runs.TypeStarted {
			continue
		}
		if _, err := end.ExecContext(ctx, string(status), index(i), ev.Run); err != nil {
			return classify(err, op, "project run "+ev.Run)
		}
	}
	return nil
}
