package ledger_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/ledgertest"
	"github.com/sanadhq/sanad/sqlite"
	"github.com/sanadhq/sanad/tlog"
)

// The exhaustive tamper suite: one real home ledger, built once, and every
// family of tampering an attacker with the files could apply to it, each case
// on a fresh copy of the files. A case is detected when the ledger is refused
// where `sanad ledger verify` opens and checks it — opening the database
// read-only, loading the keys the log registered, ledger.Audit of the whole
// log with the home's checkpoint file as mirror, then the runs projection —
// or, when all of that passes, when the home refuses to open for writing with
// its user-named checkpoint folder (home.Config.CheckpointDirs), as the
// runtime opens it. (The read-only open is sqlite.Open with ReadOnly, as
// home.Open does it, with the event types compiled once: the key folder and
// the blob folder it also opens are not tampered with.)
//
// The ledger: exTraces traces of exTraceEvents events or a few more each
// (more than 1,000 events besides the key registrations), a checkpoint
// signed after every trace (the home's close signs it), and a copy of the
// database and the checkpoint file kept at each checkpoint. The latest
// checkpoint is also in a user-named checkpoint folder.
//
// Sample sizes (the default run, and in brackets the run with
// SANAD_TAMPER_FULL=1; each family logs its figures):
//
//   - byte flips: every flipStride-th event row [every one], every
//     nodeStride-th node row [every one], and every checkpoint row; in each,
//     every stored column (idx, trace, seq, hash, type, run, data; id, hash;
//     size, note): one byte, the first, the last or one at random, in turn
//     [the same for event rows; the first, the last and flipRandom at random
//     for node and checkpoint rows]; each XORed with a random non-zero mask
//     (fixed seed). Integer columns are flipped as their 8-byte two's
//     complement; a NULL run is set to a value instead. Besides, [every byte
//     of every column of the last event row, a registration of a key, a
//     node row and the exhaustiveCps latest checkpoint rows, XOR
//     0x01, the smallest change]. And the last character of a checkpoint's
//     signature, whose low bits are base64 padding, XORed with masks 1 to 15
//     in the latest checkpoint [in every checkpoint; every mask in the
//     latest].
//   - index columns set to plausible values (another row's idx, another
//     trace's name, another seq, type or run, a free node id, another
//     checkpoint size, and swaps of two rows' values): indexStride-th event
//     rows [every fourth], nodeStride-th node rows [every one], every
//     cpStride-th checkpoint row and the latest [every one].
//   - row deletions: every deleteStride-th event row [every one], every
//     nodeStride-th node row [every one], every checkpoint row.
//   - the tail of every trace removed, from its last event or from its
//     middle one, in turn [both, and from every fifth seq]: with the tree rows
//     left; with the tree rows and checkpoint rows that cover the removed
//     leaves deleted too; and with the home's checkpoint file also put back
//     to the one before the removed leaves.
//   - rollback: the database restored to each earlier checkpoint (every
//     rollbackStride-th [each]) while the checkpoint file holds the latest;
//     and the database and the checkpoint file restored together while the
//     user-named folder holds the latest.
//
// A log cut at its end together with every checkpoint the home keeps (the
// database and the checkpoint file rolled back together, or the last trace's
// tail removed with its tree and checkpoint rows and the checkpoint file put
// back) is a shorter log that is whole: only a checkpoint kept elsewhere can
// tell. Those cases are refused by the open for writing with the user-named
// folder; `sanad ledger verify` reads the home's own checkpoint file only.
//
// Deleted checkpoint rows are counted apart: see checkpointDeletions.
const (
	exTraces      = 20
	exTraceEvents = 50
)

// exSample is how much of each family a run tries.
type exSample struct {
	full                                               bool
	flipStride, nodeStride, cpStride, flipRandom       int
	exhaustiveCps                                      int
	indexStride, deleteStride, tailEvery, rollbackStep int
}

func exSampleSize() exSample {
	if os.Getenv("SANAD_TAMPER_FULL") != "" {
		return exSample{full: true, flipStride: 1, nodeStride: 1, cpStride: 1, flipRandom: 2, exhaustiveCps: 4, indexStride: 4, deleteStride: 1, tailEvery: 5, rollbackStep: 1}
	}
	return exSample{flipStride: 149, nodeStride: 8, cpStride: 4, indexStride: 211, deleteStride: 97, rollbackStep: 3}
}

// exState is the home's database and checkpoint file as they were when one
// checkpoint was the latest.
type exState struct {
	db, checkpoint []byte
	size           uint64
}

// exFixture is the ledger the suite tampers with.
type exFixture struct {
	dir        string            // the pristine, closed home
	keys       map[string][]byte // key file name → content
	states     []exState         // oldest first; the last is the pristine state
	mirrorName string            // the file the home keeps in its checkpoint folder
	types      *ledger.Types
	traces     []string           // work traces, in log order
	rows       []exEventRow       // every event row, by idx
	nodes      []exNodeRow        // every tlog_nodes row, by id
	cps        []exCheckpointRow  // every checkpoint row, by size
	leaves     map[string][]int64 // trace → leaf index of each event, by seq
}

type exEventRow struct {
	idx, seq   int64
	trace, typ string
	run        sql.NullString
	hash, data []byte
}

type exNodeRow struct {
	id   int64
	hash []byte
}

type exCheckpointRow struct {
	size int64
	note []byte
}

var ex struct {
	once   sync.Once
	fx     *exFixture
	failed bool
}

// exLedger builds the suite's ledger once per test binary.
func exLedger(tb testing.TB) *exFixture {
	tb.Helper()
	ex.once.Do(func() {
		ex.failed = true
		fx, err := buildExFixture(tb)
		if err != nil {
			tb.Fatalf("building the tamper suite's ledger: %v", err)
		}
		ex.fx = fx
		ex.failed = false
	})
	if ex.failed {
		tb.Fatal("building the tamper suite's ledger failed in an earlier test")
	}
	return ex.fx
}

func buildExFixture(tb testing.TB) (*exFixture, error) {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "sanad-tamper-suite-")
	if err != nil {
		return nil, err
	}
	exCleanup = append(exCleanup, dir)
	elsewhere := filepath.Join(dir, "elsewhere")
	homeDir := filepath.Join(dir, "home")
	fx := &exFixture{dir: homeDir, keys: map[string][]byte{}, leaves: map[string][]int64{}}
	open := func() (*home.Home, error) {
		return home.Open(ctx, home.Config{Dir: homeDir, CheckpointDirs: []string{elsewhere}})
	}
	h, err := open()
	if err != nil {
		return nil, err
	}
	for i := range exTraces {
		fx.traces = append(fx.traces, ledgertest.Record(tb, h, exTraceEvents))
		// Closing the home signs a checkpoint of what it appended.
		if err := h.Close(); err != nil {
			return nil, err
		}
		st, err := fx.snapshot()
		if err != nil {
			return nil, err
		}
		fx.states = append(fx.states, st)
		if i == exTraces-1 {
			break
		}
		if h, err = open(); err != nil {
			return nil, err
		}
	}
	names, err := os.ReadDir(filepath.Join(homeDir, "keys"))
	if err != nil {
		return nil, err
	}
	for _, e := range names {
		if fx.keys[e.Name()], err = os.ReadFile(filepath.Join(homeDir, "keys", e.Name())); err != nil {
			return nil, err
		}
	}
	last := fx.states[len(fx.states)-1]
	// The user-named folder holds the latest checkpoint, as the home does.
	ms, err := os.ReadDir(elsewhere)
	if err != nil || len(ms) != 1 {
		return nil, fmt.Errorf("the checkpoint folder holds %d files (%v), want 1", len(ms), err)
	}
	if got, err := os.ReadFile(filepath.Join(elsewhere, ms[0].Name())); err != nil || string(got) != string(last.checkpoint) {
		return nil, fmt.Errorf("the checkpoint folder does not hold the latest checkpoint (%v)", err)
	}
	fx.mirrorName = ms[0].Name()
	if fx.types, err = home.Types(); err != nil {
		return nil, err
	}
	return fx, fx.readRows(last)
}

// exCleanup are the folders TestMain removes.
var exCleanup []string

// snapshot reads the closed home's database and checkpoint file.
func (fx *exFixture) snapshot() (exState, error) {
	if info, err := os.Stat(filepath.Join(fx.dir, "sanad.db-wal")); err == nil && info.Size() > 0 {
		return exState{}, errors.New("the closed home left a write-ahead log")
	}
	db, err := os.ReadFile(filepath.Join(fx.dir, "sanad.db"))
	if err != nil {
		return exState{}, err
	}
	cp, err := os.ReadFile(filepath.Join(fx.dir, home.CheckpointFile))
	if err != nil {
		return exState{}, err
	}
	lines := strings.SplitN(string(cp), "\n", 3)
	var size uint64
	if _, err := fmt.Sscan(lines[1], &size); err != nil {
		return exState{}, fmt.Errorf("checkpoint size %q: %v", lines[1], err)
	}
	return exState{db: db, checkpoint: cp, size: size}, nil
}

// readRows reads every row of the tables the suite tampers with.
func (fx *exFixture) readRows(st exState) error {
	dir, err := os.MkdirTemp("", "sanad-tamper-read-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "sanad.db"), st.db, 0o600); err != nil {
		return err
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "sanad.db"))
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.Query("SELECT idx, trace, seq, hash, type, run, data FROM events ORDER BY idx")
	if err != nil {
		return err
	}
	for rows.Next() {
		var r exEventRow
		if err := rows.Scan(&r.idx, &r.trace, &r.seq, &r.hash, &r.typ, &r.run, &r.data); err != nil {
			rows.Close()
			return err
		}
		fx.rows = append(fx.rows, r)
		fx.leaves[r.trace] = append(fx.leaves[r.trace], r.idx)
	}
	rows.Close()
	if rows, err = db.Query("SELECT id, hash FROM tlog_nodes ORDER BY id"); err != nil {
		return err
	}
	for rows.Next() {
		var r exNodeRow
		if err := rows.Scan(&r.id, &r.hash); err != nil {
			rows.Close()
			return err
		}
		fx.nodes = append(fx.nodes, r)
	}
	rows.Close()
	if rows, err = db.Query("SELECT size, note FROM checkpoints ORDER BY size"); err != nil {
		return err
	}
	for rows.Next() {
		var r exCheckpointRow
		if err := rows.Scan(&r.size, &r.note); err != nil {
			rows.Close()
			return err
		}
		fx.cps = append(fx.cps, r)
	}
	rows.Close()
	return rows.Err()
}

// exCase is one tampering: an edit of the database (nil for none), and of
// the files beside it (nil for none), applied to the files of state (an index
// of exFixture.states; -1 for the pristine one).
type exCase struct {
	desc  string
	state int
	edit  func(db *sql.DB) error
	files func(dir, elsewhere string) error
}

// exRun is where a family's cases run: a home folder and a checkpoint
// folder, laid anew for each case.
type exRun struct {
	fx             *exFixture
	dir, elsewhere string
}

func newExRun(t *testing.T, fx *exFixture) *exRun {
	t.Helper()
	base := t.TempDir()
	r := &exRun{fx: fx, dir: filepath.Join(base, "home"), elsewhere: filepath.Join(base, "elsewhere")}
	for _, d := range []string{filepath.Join(r.dir, "keys"), filepath.Join(r.dir, "blobs"), r.elsewhere} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// mirrorPath is the file the home keeps in the user-named folder.
func (r *exRun) mirrorPath() string { return filepath.Join(r.elsewhere, r.fx.mirrorName) }

// lay writes the files of state into the run's folders: the database and
// checkpoint file of state, the keys, and the latest checkpoint in the
// user-named folder.
func (r *exRun) lay(state int) error {
	st := r.fx.states[len(r.fx.states)-1]
	if state >= 0 {
		st = r.fx.states[state]
	}
	for _, name := range []string{"sanad.db-wal", "sanad.db-shm"} {
		if err := os.Remove(filepath.Join(r.dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(r.dir, "sanad.db"), st.db, 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(r.dir, home.CheckpointFile), st.checkpoint, 0o600); err != nil {
		return err
	}
	for name, data := range r.fx.keys {
		if err := os.WriteFile(filepath.Join(r.dir, "keys", name), data, 0o600); err != nil {
			return err
		}
	}
	return os.WriteFile(r.mirrorPath(), r.fx.states[len(r.fx.states)-1].checkpoint, 0o600)
}

// edit opens the database file directly, as an attacker with the files
// would, and applies fn. Unlike ledgertest.Tamper it returns fn's error: an
// edit the schema's constraints refuse cannot be made that way.
func (r *exRun) edit(fn func(db *sql.DB) error) error {
	db, err := sql.Open("sqlite", "file:"+filepath.Join(r.dir, "sanad.db"))
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("PRAGMA synchronous = OFF"); err != nil {
		return err
	}
	if err := fn(db); err != nil {
		return err
	}
	return db.Close()
}

// detect reports where the tampered home was refused: "" if nowhere.
func (r *exRun) detect(ctx context.Context) (stage string, err error) {
	db, err := sqlite.Open(ctx, sqlite.Config{Path: filepath.Join(r.dir, "sanad.db"), ReadOnly: true})
	if err != nil {
		return "read-only open", err
	}
	err = func() error {
		defer db.Close()
		ks, err := ledger.LoadKeys(ctx, db)
		if err != nil {
			stage = "keys"
			return err
		}
		origin := home.OriginOf(ks.Log)
		cfg := ledger.AuditConfig{Store: db, Types: r.fx.types, Origin: origin, Mirrors: home.Mirrors(r.dir, origin, nil)}
		if _, err := ledger.Audit(ctx, cfg, ""); err != nil {
			stage = "ledger verify"
			return err
		}
		if err := db.CheckRuns(ctx); err != nil {
			stage = "ledger verify (runs)"
			return err
		}
		return nil
	}()
	if err != nil {
		return stage, err
	}
	w, err := home.Open(ctx, home.Config{Dir: r.dir, CheckpointDirs: []string{r.elsewhere}})
	if err != nil {
		return "open for writing", err
	}
	return "", w.Close()
}

// exTally counts a family's outcomes.
type exTally struct {
	cases, detected, refused int
	byStage                  map[string]int
	notIntegrity             int // detected by an error that is neither a VerifyError nor INTEGRITY
}

// runFamily runs cases and logs the family's figures.
func runFamily(t *testing.T, fx *exFixture, name string, cases []exCase) {
	t.Helper()
	ctx := context.Background()
	r := newExRun(t, fx)
	tl := exTally{byStage: map[string]int{}}
	start := time.Now()
	for _, c := range cases {
		if err := r.lay(c.state); err != nil {
			t.Fatalf("%s: laying the files: %v", c.desc, err)
		}
		if c.edit != nil {
			if err := r.edit(c.edit); err != nil {
				if sanad.ErrorCode(err) == sanad.CodeConflict || strings.Contains(err.Error(), "constraint failed") {
					tl.refused++
					continue
				}
				t.Fatalf("%s: editing the database: %v", c.desc, err)
			}
		}
		if c.files != nil {
			if err := c.files(r.dir, r.elsewhere); err != nil {
				t.Fatalf("%s: editing the files: %v", c.desc, err)
			}
		}
		tl.cases++
		stage, err := r.detect(ctx)
		if stage == "" {
			t.Errorf("family %s: NOT DETECTED: %s (writer close: %v)", name, c.desc, err)
			continue
		}
		tl.detected++
		tl.byStage[stage]++
		if !isVerifyFailure(err) {
			tl.notIntegrity++
			if testing.Verbose() {
				t.Logf("%s: refused at %s with a non-integrity error: %v", c.desc, stage, err)
			}
		}
	}
	t.Logf("family %s: %d cases, %d detected (%s); %d edits refused by the schema's constraints, not counted; %d detected by an error other than a verification failure; %s",
		name, tl.cases, tl.detected, stages(tl.byStage), tl.refused, tl.notIntegrity, time.Since(start).Round(time.Millisecond))
}

func stages(m map[string]int) string {
	var parts []string
	for _, s := range []string{"read-only open", "keys", "ledger verify", "ledger verify (runs)", "open for writing"} {
		if m[s] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", s, m[s]))
		}
	}
	return strings.Join(parts, ", ")
}

// exColumn is one stored column of a row, for byte flips.
type exColumn struct {
	table, keyCol string
	key           int64
	col           string
	kind          byte // 'i' integer, 't' text, 'b' blob, 'n' NULL text
	text          []byte
	num           int64
}

func (c exColumn) len() int {
	switch c.kind {
	case 'i':
		return 8
	case 'n':
		return 1
	}
	return len(c.text)
}

// flip returns the case that XORs byte pos of the column with mask.
func (c exColumn) flip(pos int, mask byte) exCase {
	var v any
	desc := fmt.Sprintf("%s %s=%d: column %s", c.table, c.keyCol, c.key, c.col)
	switch c.kind {
	case 'i':
		n := c.num ^ int64(uint64(mask)<<(8*(7-pos)))
		v, desc = n, desc+fmt.Sprintf(" %d -> %d (byte %d of 8 xor %#02x)", c.num, n, pos, mask)
	case 'n':
		v, desc = "r-forged", desc+" NULL -> 'r-forged'"
	default:
		b := append([]byte(nil), c.text...)
		b[pos] ^= mask
		desc += fmt.Sprintf(" byte %d of %d xor %#02x", pos, len(b), mask)
		if c.kind == 't' {
			v = string(b)
		} else {
			v = b
		}
	}
	q := fmt.Sprintf("UPDATE %s SET %s = ? WHERE %s = ?", c.table, c.col, c.keyCol)
	return exCase{desc: desc, state: -1, edit: func(db *sql.DB) error { return execOne(db, q, v, c.key) }}
}

// execOne runs q, which must change exactly one row.
func execOne(db *sql.DB, q string, args ...any) error {
	res, err := db.Exec(q, args...)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return fmt.Errorf("%s changed %d rows, want 1", q, n)
	}
	return nil
}

func (fx *exFixture) eventColumns(r exEventRow) []exColumn {
	c := func(col string, kind byte, text []byte, num int64) exColumn {
		return exColumn{table: "events", keyCol: "idx", key: r.idx, col: col, kind: kind, text: text, num: num}
	}
	run := c("run", 't', []byte(r.run.String), 0)
	if !r.run.Valid {
		run.kind = 'n'
	}
	return []exColumn{c("idx", 'i', nil, r.idx), c("trace", 't', []byte(r.trace), 0), c("seq", 'i', nil, r.seq),
		c("hash", 'b', r.hash, 0), c("type", 't', []byte(r.typ), 0), run, c("data", 'b', r.data, 0)}
}

func (fx *exFixture) nodeColumns(r exNodeRow) []exColumn {
	return []exColumn{{table: "tlog_nodes", keyCol: "id", key: r.id, col: "id", kind: 'i', num: r.id},
		{table: "tlog_nodes", keyCol: "id", key: r.id, col: "hash", kind: 'b', text: r.hash}}
}

func (fx *exFixture) checkpointColumns(r exCheckpointRow) []exColumn {
	return []exColumn{{table: "checkpoints", keyCol: "size", key: r.size, col: "size", kind: 'i', num: r.size},
		{table: "checkpoints", keyCol: "size", key: r.size, col: "note", kind: 'b', text: r.note}}
}

// sampledFlips returns the flips of cols: in each column one byte (the
// first, the last or one at random, by turn) or, with k > 0, the first, the
// last and k more at random; each with a random mask.
func sampledFlips(rng *rand.Rand, cols []exColumn, turn, k int) []exCase {
	var out []exCase
	for ci, c := range cols {
		n := c.len()
		var pos []int
		switch {
		case k > 0:
			pos = append(pos, 0, n-1)
			for range k {
				pos = append(pos, rng.IntN(n))
			}
		case (turn+ci)%3 == 0:
			pos = []int{0}
		case (turn+ci)%3 == 1:
			pos = []int{n - 1}
		default:
			pos = []int{rng.IntN(n)}
		}
		seen := map[int]bool{}
		for _, p := range pos {
			if !seen[p] {
				seen[p] = true
				out = append(out, c.flip(p, byte(1+rng.IntN(255))))
			}
		}
	}
	return out
}

// everyFlip returns the flip of every byte of cols, XOR 0x01.
func everyFlip(cols []exColumn) []exCase {
	var out []exCase
	for _, c := range cols {
		for p := range c.len() {
			out = append(out, c.flip(p, 0x01))
		}
	}
	return out
}

// TestTamperSuiteFlips flips bytes of every stored column of the event,
// Merkle node and checkpoint rows (see the sample above).
func TestTamperSuiteFlips(t *testing.T) {
	fx := exLedger(t)
	s := exSampleSize()
	rng := rand.New(rand.NewPCG(1, 2))
	k := 0
	if s.full {
		k = s.flipRandom
	}
	var evs, nodes, cps []exCase
	for i, r := range fx.rows {
		if i%s.flipStride == 0 {
			evs = append(evs, sampledFlips(rng, fx.eventColumns(r), i/s.flipStride, 0)...)
		}
	}
	for i, r := range fx.nodes {
		if i%s.nodeStride == 0 {
			nodes = append(nodes, sampledFlips(rng, fx.nodeColumns(r), i/s.nodeStride, k)...)
		}
	}
	for i, r := range fx.cps {
		cps = append(cps, sampledFlips(rng, fx.checkpointColumns(r), i, k)...)
	}
	// The last character of checkpoints' signatures, with masks: base64
	// leaves padding bits in it.
	for i, r := range fx.cps {
		masks := 15
		switch {
		case s.full && i == len(fx.cps)-1:
			masks = 255
		case !s.full && i != len(fx.cps)-1:
			continue
		}
		last := fx.checkpointColumns(r)[1]
		at := bytes.LastIndexByte(r.note[:len(r.note)-1], '=') - 1
		if at < 0 || r.note[len(r.note)-2] != '=' {
			t.Fatalf("the signature of checkpoint %d does not end in a padding character: %q", r.size, r.note)
		}
		for m := 1; m <= masks; m++ {
			cps = append(cps, last.flip(at, byte(m)))
		}
	}
	if s.full {
		// Every byte of a few rows: the last event, a key registration; a
		// node; the latest checkpoints.
		for _, i := range []int{len(fx.rows) - 1, int(fx.leaves[ledger.KeysTrace][2])} {
			evs = append(evs, everyFlip(fx.eventColumns(fx.rows[i]))...)
		}
		nodes = append(nodes, everyFlip(fx.nodeColumns(fx.nodes[len(fx.nodes)/2]))...)
		for _, r := range fx.cps[len(fx.cps)-s.exhaustiveCps:] {
			cps = append(cps, everyFlip(fx.checkpointColumns(r))...)
		}
	}
	t.Logf("ledger: %d event rows in %d work traces and the keys trace, %d node rows, %d checkpoint rows", len(fx.rows), len(fx.traces), len(fx.nodes), len(fx.cps))
	t.Run("events", func(t *testing.T) { runFamily(t, fx, "byte flips: event rows", evs) })
	t.Run("nodes", func(t *testing.T) { runFamily(t, fx, "byte flips: Merkle node rows", nodes) })
	t.Run("checkpoints", func(t *testing.T) { runFamily(t, fx, "byte flips: checkpoint rows", cps) })
}

// nodeRange returns the leaves a node row covers, [from, to).
func nodeRange(id int64) (from, to int64) {
	level, index := uint64(id)>>56, uint64(id)&(1<<56-1)
	return int64(index << level), int64((index + 1) << level)
}

// TestTamperSuiteIndexColumns sets the index columns of rows — what the
// store files a row under, which no signature covers — to values a careful
// attacker would pick: ones found elsewhere in the ledger.
func TestTamperSuiteIndexColumns(t *testing.T) {
	fx := exLedger(t)
	s := exSampleSize()
	next := int64(len(fx.rows))
	types := []string{"run.started", "run.completed", "run.failed", "run.denied", "policy.decided", ledger.TypeKeyRegistered}
	var cases []exCase
	add := func(desc string, q string, args ...any) {
		cases = append(cases, exCase{desc: desc, state: -1, edit: func(db *sql.DB) error { return execOne(db, q, args...) }})
	}
	swap := func(desc, table, keyCol, col string, a, b int64) {
		cases = append(cases, exCase{desc: desc, state: -1, edit: func(db *sql.DB) error {
			q := fmt.Sprintf("UPDATE %s SET %s = CASE %s WHEN ? THEN (SELECT %s FROM %s WHERE %s = ?) ELSE (SELECT %s FROM %s WHERE %s = ?) END WHERE %s IN (?, ?)",
				table, col, keyCol, col, table, keyCol, col, table, keyCol, keyCol)
			res, err := db.Exec(q, a, b, a, a, b)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n != 2 {
				return fmt.Errorf("%s: changed %d rows, want 2", desc, n)
			}
			return nil
		}})
	}
	for i, r := range fx.rows {
		if i%s.indexStride != 0 {
			continue
		}
		other := fx.traces[(i+1)%len(fx.traces)]
		if other == r.trace {
			other = fx.traces[(i+2)%len(fx.traces)]
		}
		last := int64(len(fx.leaves[r.trace]))
		add(fmt.Sprintf("event idx %d moved to the free idx %d", r.idx, next), "UPDATE events SET idx = ? WHERE idx = ?", next, r.idx)
		if i+1 < len(fx.rows) {
			cases = append(cases, exCase{desc: fmt.Sprintf("events idx %d and %d swap their idx", r.idx, r.idx+1), state: -1, edit: func(db *sql.DB) error {
				for _, q := range []string{"UPDATE events SET idx = -1 WHERE idx = ?", "UPDATE events SET idx = ? WHERE idx = ?", "UPDATE events SET idx = ? WHERE idx = -1"} {
					var args []any
					switch {
					case strings.Contains(q, "= -1 WHERE"):
						args = []any{r.idx}
					case strings.Contains(q, "WHERE idx = -1"):
						args = []any{r.idx + 1}
					default:
						args = []any{r.idx, r.idx + 1}
					}
					if err := execOne(db, q, args...); err != nil {
						return err
					}
				}
				return nil
			}})
		}
		add(fmt.Sprintf("event idx %d (%s seq %d) filed under trace %s seq %d", r.idx, r.trace, r.seq, other, len(fx.leaves[other])+1),
			"UPDATE events SET trace = ?, seq = ? WHERE idx = ?", other, int64(len(fx.leaves[other])+1), r.idx)
		add(fmt.Sprintf("event idx %d (%s seq %d) filed under seq %d", r.idx, r.trace, r.seq, last+1), "UPDATE events SET seq = ? WHERE idx = ?", last+1, r.idx)
		if r.seq < last {
			j := fx.leaves[r.trace][r.seq] // the next event of the trace
			swap(fmt.Sprintf("events idx %d and %d (seq %d and %d of %s) swap their seq", r.idx, j, r.seq, r.seq+1, r.trace), "events", "idx", "seq", r.idx, j)
		}
		typ := types[i%len(types)]
		if typ == r.typ {
			typ = types[(i+1)%len(types)]
		}
		add(fmt.Sprintf("event idx %d type %s -> %s", r.idx, r.typ, typ), "UPDATE events SET type = ? WHERE idx = ?", typ, r.idx)
		otherRun := fx.rows[(i+7)%len(fx.rows)].run
		switch {
		case !r.run.Valid:
			add(fmt.Sprintf("event idx %d run NULL -> %s", r.idx, fx.rows[len(fx.rows)-1].run.String), "UPDATE events SET run = ? WHERE idx = ?", fx.rows[len(fx.rows)-1].run.String, r.idx)
		case otherRun.Valid && otherRun.String != r.run.String:
			add(fmt.Sprintf("event idx %d run %s -> %s", r.idx, r.run.String, otherRun.String), "UPDATE events SET run = ? WHERE idx = ?", otherRun.String, r.idx)
			add(fmt.Sprintf("event idx %d run %s -> NULL", r.idx, r.run.String), "UPDATE events SET run = NULL WHERE idx = ?", r.idx)
		default:
			add(fmt.Sprintf("event idx %d run %s -> NULL", r.idx, r.run.String), "UPDATE events SET run = NULL WHERE idx = ?", r.idx)
		}
	}
	for i, r := range fx.nodes {
		if i%s.nodeStride != 0 {
			continue
		}
		level, index := uint64(r.id)>>56, uint64(r.id)&(1<<56-1)
		free := []int64{int64(level<<56 | (index + 1000)), int64((level-1)<<56 | index)}
		for _, id := range free {
			add(fmt.Sprintf("node (level %d, index %d) moved to id (level %d, index %d)", level, index, uint64(id)>>56, uint64(id)&(1<<56-1)),
				"UPDATE tlog_nodes SET id = ? WHERE id = ?", id, r.id)
		}
		if i+1 < len(fx.nodes) {
			o := fx.nodes[i+1]
			cases = append(cases, exCase{desc: fmt.Sprintf("nodes %#x and %#x swap their ids", r.id, o.id), state: -1, edit: func(db *sql.DB) error {
				if err := execOne(db, "UPDATE tlog_nodes SET hash = ? WHERE id = ?", o.hash, r.id); err != nil {
					return err
				}
				return execOne(db, "UPDATE tlog_nodes SET hash = ? WHERE id = ?", r.hash, o.id)
			}})
		}
	}
	for i, r := range fx.cps {
		if i%s.cpStride != 0 && i != len(fx.cps)-1 {
			continue
		}
		add(fmt.Sprintf("checkpoint size %d filed under size %d", r.size, r.size+1), "UPDATE checkpoints SET size = ? WHERE size = ?", r.size+1, r.size)
		add(fmt.Sprintf("checkpoint size %d filed under size %d", r.size, r.size-1), "UPDATE checkpoints SET size = ? WHERE size = ?", r.size-1, r.size)
		if i+1 < len(fx.cps) {
			o := fx.cps[i+1]
			cases = append(cases, exCase{desc: fmt.Sprintf("checkpoints of size %d and %d swap their notes", r.size, o.size), state: -1, edit: func(db *sql.DB) error {
				if err := execOne(db, "UPDATE checkpoints SET note = ? WHERE size = ?", o.note, r.size); err != nil {
					return err
				}
				return execOne(db, "UPDATE checkpoints SET note = ? WHERE size = ?", r.note, o.size)
			}})
		}
	}
	runFamily(t, fx, "index columns changed", cases)
}

// TestTamperSuiteDeletions deletes rows, one at a time.
func TestTamperSuiteDeletions(t *testing.T) {
	fx := exLedger(t)
	s := exSampleSize()
	var evs, nodes []exCase
	del := func(table, keyCol string, key int64) exCase {
		q := fmt.Sprintf("DELETE FROM %s WHERE %s = ?", table, keyCol)
		return exCase{desc: fmt.Sprintf("%s row %s=%d deleted", table, keyCol, key), state: -1, edit: func(db *sql.DB) error { return execOne(db, q, key) }}
	}
	for i, r := range fx.rows {
		if i%s.deleteStride == 0 || i == len(fx.rows)-1 {
			evs = append(evs, del("events", "idx", r.idx))
		}
	}
	for i, r := range fx.nodes {
		if i%s.nodeStride == 0 || i == len(fx.nodes)-1 {
			nodes = append(nodes, del("tlog_nodes", "id", r.id))
		}
	}
	t.Run("events", func(t *testing.T) { runFamily(t, fx, "deletions: event rows", evs) })
	t.Run("nodes", func(t *testing.T) { runFamily(t, fx, "deletions: Merkle node rows", nodes) })
	t.Run("checkpoints", func(t *testing.T) { checkpointDeletions(t, fx) })
}

// checkpointDeletions deletes each checkpoint row in turn. Every checkpoint
// names the one signed before it (tlog.Checkpoint.Prev), so the deletion of
// any row but the latest breaks the chain and is detected. The latest is
// also held outside the database (the checkpoint file and the user-named
// folder), which names the row before it: the next open for writing stores
// it again, byte for byte (ed25519 signatures are deterministic), so its
// deletion loses nothing; the test checks that it is restored.
func checkpointDeletions(t *testing.T, fx *exFixture) {
	ctx := context.Background()
	r := newExRun(t, fx)
	detected, harmless := 0, 0
	for i, cp := range fx.cps {
		desc := fmt.Sprintf("checkpoints row size=%d deleted", cp.size)
		if err := r.lay(-1); err != nil {
			t.Fatal(err)
		}
		if err := r.edit(func(db *sql.DB) error { return execOne(db, "DELETE FROM checkpoints WHERE size = ?", cp.size) }); err != nil {
			t.Fatal(err)
		}
		db, err := sqlite.Open(ctx, sqlite.Config{Path: filepath.Join(r.dir, "sanad.db"), ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		root, err := tlog.Prover{Nodes: db}.RootAt(ctx, uint64(cp.size))
		db.Close()
		if err != nil {
			t.Fatalf("%s: root at %d: %v", desc, cp.size, err)
		}
		text := cp.note[:bytes.Index(cp.note, []byte("\n\n"))+1]
		stated, err := tlog.ParseCheckpoint(text)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(root, stated.Hash) {
			t.Errorf("%s: the log's root at %d is not the one the deleted checkpoint stated", desc, cp.size)
		}
		stage, err := r.detect(ctx) // on a pass, opens for writing and closes
		if stage != "" {
			detected++
			t.Logf("%s: detected at %s: %v", desc, stage, err)
			continue
		}
		if i < len(fx.cps)-1 {
			t.Errorf("%s: not detected", desc)
			continue
		}
		harmless++
		{
			// The open for writing signed the latest checkpoint again.
			var got []byte
			err := r.edit(func(db *sql.DB) error {
				return db.QueryRow("SELECT note FROM checkpoints WHERE size = ?", cp.size).Scan(&got)
			})
			if err != nil || !bytes.Equal(got, cp.note) {
				t.Errorf("%s: after an open for writing the latest checkpoint is not stored again as it was (%v)", desc, err)
			}
		}
	}
	t.Logf("family deletions: checkpoint rows: %d cases, %d detected, %d restored from the copy kept outside the database (the latest: see checkpointDeletions)",
		len(fx.cps), detected, harmless)
}

// TestTamperSuiteTails removes the tail of every trace: its events from
// seq k on.
func TestTamperSuiteTails(t *testing.T) {
	fx := exLedger(t)
	s := exSampleSize()
	type tail struct {
		trace string
		k     int
	}
	var tails []tail
	for i, tr := range append([]string{ledger.KeysTrace}, fx.traces...) {
		n := len(fx.leaves[tr])
		ks := []int{n, (n + 1) / 2}
		if !s.full {
			ks = ks[i%2 : i%2+1]
		}
		for k := 1; s.tailEvery > 0 && k < n; k += s.tailEvery {
			ks = append(ks, k)
		}
		for _, k := range ks {
			tails = append(tails, tail{tr, k})
		}
	}
	var bare, covered, withFile []exCase
	for _, tl := range tails {
		leaves := fx.leaves[tl.trace][tl.k-1:]
		first := leaves[0]
		desc := fmt.Sprintf("trace %s: events from seq %d (leaves %d..%d) deleted", tl.trace, tl.k, first, leaves[len(leaves)-1])
		delEvents := func(db *sql.DB) error {
			_, err := db.Exec("DELETE FROM events WHERE trace = ? AND seq >= ?", tl.trace, tl.k)
			return err
		}
		// The tree rows that cover a removed leaf, and the checkpoints
		// of a log that holds one.
		var nodeIDs []any
		for _, n := range fx.nodes {
			if _, to := nodeRange(n.id); to > first {
				nodeIDs = append(nodeIDs, n.id)
			}
		}
		cover := func(db *sql.DB) error {
			if err := delEvents(db); err != nil {
				return err
			}
			for _, id := range nodeIDs {
				if err := execOne(db, "DELETE FROM tlog_nodes WHERE id = ?", id); err != nil {
					return err
				}
			}
			_, err := db.Exec("DELETE FROM checkpoints WHERE size > ?", first)
			return err
		}
		// The home's checkpoint file put back to the latest one that
		// holds none of the removed leaves (none if there is none).
		earlier := -1
		for j, st := range fx.states {
			if st.size <= uint64(first) {
				earlier = j
			}
		}
		fileBack := func(dir, _ string) error {
			p := filepath.Join(dir, home.CheckpointFile)
			if earlier < 0 {
				return os.Remove(p)
			}
			return os.WriteFile(p, fx.states[earlier].checkpoint, 0o600)
		}
		bare = append(bare, exCase{desc: desc + ", tree rows left", state: -1, edit: delEvents})
		covered = append(covered, exCase{desc: desc + fmt.Sprintf(", and the %d tree rows and the checkpoint rows that cover them", len(nodeIDs)), state: -1, edit: cover})
		withFile = append(withFile, exCase{desc: desc + ", the tree and checkpoint rows that cover them, and the checkpoint file put back", state: -1, edit: cover, files: fileBack})
	}
	t.Run("tree-left", func(t *testing.T) { runFamily(t, fx, "trace tails removed, tree rows left", bare) })
	t.Run("tree-removed", func(t *testing.T) {
		runFamily(t, fx, "trace tails removed with their tree and checkpoint rows", covered)
	})
	t.Run("checkpoint-file-too", func(t *testing.T) {
		runFamily(t, fx, "trace tails removed with their tree and checkpoint rows and the checkpoint file", withFile)
	})
}

// TestTamperSuiteRollback restores the database as it was at each earlier
// checkpoint.
func TestTamperSuiteRollback(t *testing.T) {
	fx := exLedger(t)
	s := exSampleSize()
	latest := fx.states[len(fx.states)-1]
	var dbOnly, both []exCase
	for j := len(fx.states) - 2; j >= 0; j -= s.rollbackStep {
		st := fx.states[j]
		dbOnly = append(dbOnly, exCase{desc: fmt.Sprintf("database restored to the checkpoint of size %d, the checkpoint file holds %d", st.size, latest.size), state: j,
			files: func(dir, _ string) error {
				return os.WriteFile(filepath.Join(dir, home.CheckpointFile), latest.checkpoint, 0o600)
			}})
		both = append(both, exCase{desc: fmt.Sprintf("database and checkpoint file restored to the checkpoint of size %d, the user-named folder holds %d", st.size, latest.size), state: j})
	}
	t.Run("database", func(t *testing.T) { runFamily(t, fx, "rollback of the database", dbOnly) })
	t.Run("database-and-file", func(t *testing.T) {
		runFamily(t, fx, "rollback of the database and the checkpoint file", both)
	})
}
