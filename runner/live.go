package runner

import (
	"os"
	"path/filepath"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/internal/lockfile"
)

// liveDir is the folder of a home that holds a lock file for each run some
// process is executing: locked while it runs, so that another process can
// tell a live run from an interrupted one, and no two callers execute one
// run at once.
const liveDir = "live"

// livePath is the lock file of the root run id.
func (r *Runner) livePath(id string) string {
	return filepath.Join(r.home.Dir, liveDir, id+".lock")
}

// hold takes the lock that says run id is being executed. A run another
// caller is executing is CONFLICT. release gives the lock back, and removes
// the file once the run has ended.
func (r *Runner) hold(id string) (release func(ended bool), err error) {
	const op = "runner.live"
	path := r.livePath(id)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeUnavailable, op, "cannot create "+filepath.Dir(path)+": "+err.Error())
	}
	unlock, ok, err := lockfile.TryLock(path)
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeUnavailable, op, err.Error())
	}
	if !ok {
		return nil, sanad.Errorf(sanad.CodeConflict, op, "run %s is being executed by another caller", id)
	}
	return func(ended bool) {
		if ended {
			// Nobody executes a run that has ended: the file can go while
			// it is still locked.
			os.Remove(path)
		}
		unlock()
	}, nil
}

// state says whether a running run rec is live, waiting on a gate or
// interrupted.
func (r *Runner) state(rec sanad.Run, waiting bool) (string, error) {
	root := rec.RootID
	if root == "" {
		root = rec.ID
	}
	live, err := lockfile.Held(r.livePath(root))
	if err != nil {
		return "", sanad.Wrap(err, sanad.CodeUnavailable, "runner.live", err.Error())
	}
	switch {
	case live:
		return StateLive, nil
	case waiting:
		return StateWaiting, nil
	}
	return StateInterrupted, nil
}
