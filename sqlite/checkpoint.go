package sqlite

import (
	"context"
	"database/sql"
	"time"
)

// checkpointEvery is how often the checkpointer copies the write-ahead log
// into the database file while appends go on.
const checkpointEvery = 250 * time.Millisecond

// checkpointLoop runs WAL checkpoints on its own connection, so that commits
// never pay for them (the write connection has wal_autocheckpoint off). It
// runs a PASSIVE checkpoint after commits, at most every checkpointEvery, and
// a TRUNCATE checkpoint when the store closes.
func (db *DB) checkpointLoop(ctx context.Context, conn *sql.DB) {
	defer close(db.ckptDone)
	tick := time.NewTicker(checkpointEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			_, _ = conn.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
			conn.Close()
			return
		case <-tick.C:
			if db.dirty.Swap(false) {
				_, _ = conn.ExecContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)")
			}
		}
	}
}
