// Package sqlite is sanad's embedded store: the ledger's events, Merkle tree
// and checkpoints, the runs projection and the artifact index in one SQLite
// file (modernc.org/sqlite, pure Go, WAL mode).
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/tlog"
	sqlitedrv "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Synchronous settings for [Config.Synchronous].
const (
	// SyncNormal: in WAL mode a commit survives a process crash; the last
	// commits may be lost on power failure.
	SyncNormal = "NORMAL"
	// SyncFull: every commit is fsynced and survives power failure.
	SyncFull = "FULL"
)

// Config configures [Open].
type Config struct {
	Path string
	// Synchronous is SyncNormal (the default) or SyncFull.
	Synchronous string
	// BusyTimeoutMS is how long a connection waits for a lock (default 10000).
	BusyTimeoutMS int
	// ReadOnly opens the file for reading only; no migration is run.
	ReadOnly bool
	// Crash is called at PointBeforeCommit, inside an append's transaction
	// once every row is written, so that a test can stop the process in
	// the middle of a commit; nil does nothing.
	Crash func(point string)
}

// PointBeforeCommit is the crash point inside an append's transaction.
const PointBeforeCommit = "sqlite.inside_transaction"

// Validate reports a bad setting.
func (c *Config) Validate() error {
	if c.Path == "" {
		return errors.New("sqlite: no database path")
	}
	switch c.Synchronous {
	case "", SyncNormal, SyncFull:
	default:
		return fmt.Errorf("sqlite: synchronous must be %s or %s, not %q", SyncNormal, SyncFull, c.Synchronous)
	}
	return nil
}

// DB is an open store. It is safe for concurrent use; writes are serialized
// through one connection.
type DB struct {
	cfg   Config
	write *sql.DB // one connection: the only writer
	read  *sql.DB // a pool of readers

	st stmts // prepared once; used through tx.StmtContext

	dirty    atomic.Bool // set by commits, cleared by the checkpointer
	stopCkpt context.CancelFunc
	ckptDone chan struct{}

	mu   sync.Mutex // guards tree; held during AppendEvents
	tree *tlog.Tree // right edge of the Merkle tree, nil until loaded
}

// stmts are the statements of the hot paths, prepared once.
type stmts struct {
	endRun, size, insArtifact *sql.Stmt // on the write connection
	// insEvents, insNodes, insRuns and insArtifacts insert insertChunks[i]
	// rows each.
	insEvents, insNodes, insRuns, insArtifacts          [len(insertChunks)]*sql.Stmt
	readTrace, node, leaf, leafData, nodeSpan, leafSpan *sql.Stmt // on the read pool
}

func (db *DB) prepare(ctx context.Context) error {
	prep := func(c *sql.DB, q string) (*sql.Stmt, error) { return c.PrepareContext(ctx, q) }
	var err error
	must := func(dst **sql.Stmt, c *sql.DB, q string) {
		if err == nil {
			*dst, err = prep(c, q)
		}
	}
	if db.write != nil {
		for i, rows := range insertChunks {
			must(&db.st.insEvents[i], db.write, insertSQL(eventsInsert, eventCols, rows))
			must(&db.st.insNodes[i], db.write, insertSQL(nodesInsert, 2, rows))
			must(&db.st.insRuns[i], db.write, insertSQL(runsInsert, runCols, rows))
			must(&db.st.insArtifacts[i], db.write, insertSQL(artifactsInsert, artifactCols, rows)+onConflictNothing)
		}
		must(&db.st.size, db.write, treeSizeSQL)
		must(&db.st.endRun, db.write, "UPDATE runs SET status = ?, ended_idx = ? WHERE run_id = ?")
		must(&db.st.insArtifact, db.write, insertSQL(artifactsInsert, artifactCols, 1)+onConflictNothing)
	}
	must(&db.st.readTrace, db.read, "SELECT idx, hash, data, trace, seq, type, coalesce(run, '') FROM events WHERE trace = ? AND seq > ? ORDER BY seq")
	must(&db.st.node, db.read, nodeSQL)
	must(&db.st.leaf, db.read, leafSQL)
	must(&db.st.nodeSpan, db.read, nodeSpanSQL)
	must(&db.st.leafSpan, db.read, leafSpanSQL)
	must(&db.st.leafData, db.read, "SELECT data FROM events WHERE idx = ?")
	return classify(err, "sqlite.open", "prepare statements")
}

// Open opens (creating if needed) the database at cfg.Path and brings its
// schema up to date.
func Open(ctx context.Context, cfg Config) (*DB, error) {
	const op = "sqlite.open"
	if err := cfg.Validate(); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, err.Error())
	}
	if cfg.Synchronous == "" {
		cfg.Synchronous = SyncNormal
	}
	if cfg.BusyTimeoutMS == 0 {
		cfg.BusyTimeoutMS = 10000
	}
	db := &DB{cfg: cfg}
	var err error
	if db.read, err = sql.Open("sqlite", db.dsn(true)); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeDependencyDown, op, err.Error())
	}
	db.read.SetMaxOpenConns(8)
	if !cfg.ReadOnly {
		if db.write, err = sql.Open("sqlite", db.dsn(false)); err != nil {
			db.read.Close()
			return nil, sanad.Wrap(err, sanad.CodeDependencyDown, op, err.Error())
		}
		db.write.SetMaxOpenConns(1)
		db.write.SetMaxIdleConns(1)
		db.write.SetConnMaxLifetime(0)
		if err := db.migrate(ctx); err != nil {
			db.Close()
			return nil, err
		}
		ckpt, err := sql.Open("sqlite", db.dsn(false))
		if err != nil {
			db.Close()
			return nil, sanad.Wrap(err, sanad.CodeDependencyDown, op, err.Error())
		}
		ckpt.SetMaxOpenConns(1)
		var cctx context.Context
		cctx, db.stopCkpt = context.WithCancel(context.Background())
		db.ckptDone = make(chan struct{})
		go db.checkpointLoop(cctx, ckpt)
	} else if err := db.checkReadable(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if err := db.prepare(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

func (db *DB) dsn(readOnly bool) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout("+strconv.Itoa(db.cfg.BusyTimeoutMS)+")")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous("+db.cfg.Synchronous+")")
	if readOnly {
		q.Add("_pragma", "query_only(1)")
		if db.cfg.ReadOnly {
			q.Set("mode", "ro")
		}
	} else {
		// Pages stay at SQLite's 4 KiB: a commit writes each dirty page as
		// a WAL frame, and 16 and 32 KiB pages made small commits slower (a
		// workflow step 43 -> 57 and 66 us) for ~5% less CPU per event in
		// large ones. To try another size: the driver runs _pragma values
		// in sorted order, so a page_size pragma would follow
		// journal_mode(WAL) and be ignored; set _journal_mode=WAL instead,
		// which it applies after them.
		q.Add("_pragma", "journal_mode(WAL)")
		// Commits never checkpoint: the checkpointer goroutine does, off the
		// commit path (see checkpointLoop).
		q.Add("_pragma", "wal_autocheckpoint(0)")
		q.Set("_txlock", "immediate")
	}
	// The path is part of a URI: escape what would end or alter it.
	path := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(db.cfg.Path)
	return "file:" + path + "?" + q.Encode()
}

// Close closes the database.
func (db *DB) Close() error {
	var errs []error
	if db.stopCkpt != nil {
		db.stopCkpt()
		<-db.ckptDone
		db.stopCkpt = nil
	}
	if db.write != nil {
		errs = append(errs, db.write.Close())
	}
	if db.read != nil {
		errs = append(errs, db.read.Close())
	}
	return errors.Join(errs...)
}

var _ ledger.Syncer = (*DB)(nil)

// Sync makes every commit so far durable: with synchronous=NORMAL a commit
// reaches the write-ahead log but not the disk, so Sync flushes the log and
// the database file to it.
func (db *DB) Sync(ctx context.Context) error {
	const op = "sqlite.sync"
	for _, p := range []string{db.cfg.Path + "-wal", db.cfg.Path} {
		f, err := os.OpenFile(p, os.O_RDWR, 0)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return sanad.Wrap(err, sanad.CodeUnavailable, op, err.Error())
		}
		err = f.Sync()
		f.Close()
		if err != nil {
			return sanad.Wrap(err, sanad.CodeUnavailable, op, err.Error())
		}
	}
	return nil
}

// Path returns the database file's path.
func (db *DB) Path() string { return db.cfg.Path }

func (db *DB) migrate(ctx context.Context) error {
	const op = "sqlite.migrate"
	var version int
	if err := db.write.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return classify(err, op, "cannot read the database (is it a sanad SQLite file?)")
	}
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return sanad.Wrap(err, sanad.CodeInternal, op, "migrations")
	}
	sort.Strings(names)
	if version > len(names) {
		return sanad.Errorf(sanad.CodeInvalidInput, op, "database schema version %d is newer than this sanad (%d): upgrade sanad", version, len(names))
	}
	for i := version; i < len(names); i++ {
		body, err := migrations.ReadFile(names[i])
		if err != nil {
			return sanad.Wrap(err, sanad.CodeInternal, op, "migrations")
		}
		tx, err := db.write.BeginTx(ctx, nil)
		if err != nil {
			return classify(err, op, "begin migration")
		}
		if _, err := tx.ExecContext(ctx, string(body)); err != nil {
			tx.Rollback()
			return classify(err, op, fmt.Sprintf("migration %s", names[i]))
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", i+1)); err != nil {
			tx.Rollback()
			return classify(err, op, "set schema version")
		}
		if err := tx.Commit(); err != nil {
			return classify(err, op, "commit migration")
		}
	}
	return nil
}

func (db *DB) checkReadable(ctx context.Context) error {
	var version int
	if err := db.read.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return classify(err, "sqlite.open", "cannot read the database (is it a sanad SQLite file?)")
	}
	names, _ := fs.Glob(migrations, "migrations/*.sql")
	if version > len(names) {
		return sanad.Errorf(sanad.CodeInvalidInput, "sqlite.open", "database schema version %d is newer than this sanad (%d): upgrade sanad", version, len(names))
	}
	var n int
	if err := db.read.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema WHERE name = 'events'").Scan(&n); err != nil {
		return classify(err, "sqlite.open", "cannot read the database (is it a sanad SQLite file?)")
	}
	if n != 1 {
		return sanad.Errorf(sanad.CodeNotFound, "sqlite.open", "%s holds no sanad ledger", db.cfg.Path)
	}
	if version < len(names) {
		return sanad.Errorf(sanad.CodeUnavailable, "sqlite.open", "database schema version %d is older than this sanad (%d): open it once for writing to upgrade it", version, len(names))
	}
	return nil
}

// classify turns a driver error into a *sanad.Error with a code callers can
// branch on: CONFLICT for constraint violations, UNAVAILABLE for locks,
// INTEGRITY for a damaged file, DEPENDENCY_DOWN otherwise.
func classify(err error, op, msg string) error {
	if err == nil {
		return nil
	}
	var se *sqlitedrv.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_CONSTRAINT:
			return sanad.Wrap(err, sanad.CodeConflict, op, msg+": "+se.Error())
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return sanad.Wrap(err, sanad.CodeUnavailable, op, msg+": the database is locked by another writer")
		case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
			return sanad.Wrap(err, sanad.CodeIntegrity, op, msg+": the database file is damaged or not a database")
		case sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM:
			return sanad.Wrap(err, sanad.CodeInvalidInput, op, msg+": "+se.Error())
		}
	}
	if errors.Is(err, context.Canceled) {
		return sanad.Wrap(err, sanad.CodeCancelled, op, msg+": cancelled")
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return sanad.Wrap(err, sanad.CodeTimeout, op, msg+": deadline exceeded")
	}
	if strings.Contains(err.Error(), "database disk image is malformed") || strings.Contains(err.Error(), "file is not a database") {
		return sanad.Wrap(err, sanad.CodeIntegrity, op, msg+": the database file is damaged or not a database")
	}
	return sanad.Wrap(err, sanad.CodeDependencyDown, op, msg+": "+err.Error())
}
