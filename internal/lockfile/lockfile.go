// Package lockfile takes exclusive, advisory locks on files, so that one
// holder at a time owns what a lock file stands for: a home folder, or a run
// that a process is executing.
//
// A lock belongs to the open file that took it, not to the path, nor to the
// process: a second [TryLock] of the same file fails whether it comes from
// another process or from this one. The operating system releases a lock
// when its file is closed, so a lock whose process died, however it died, is
// free again. That makes a lock file a liveness signal: [Held] tells whether
// some process still holds it.
//
// The locks are flock(2) on Unix and LockFileEx on Windows. Both are
// advisory for sanad's purposes: they exclude other lockers, not readers.
package lockfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// TryLock takes the exclusive lock on the file at path, creating the file
// (mode 0644) if it does not exist. It does not wait: when another holder
// has the lock, ok is false and err nil. Otherwise, with ok true, unlock
// releases the lock and closes the file; it must be called once.
//
// unlock leaves the file in place. Removing a lock file that another process
// may be about to lock would let two processes each hold a lock on "the"
// file, one of them on a file no longer in the folder.
func TryLock(path string) (unlock func() error, ok bool, err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, false, fmt.Errorf("lockfile: %w", err)
	}
	ok, err = lockFile(f)
	if err != nil || !ok {
		f.Close()
		if err != nil {
			return nil, false, &fs.PathError{Op: "lock", Path: path, Err: err}
		}
		return nil, false, nil
	}
	return func() error {
		uerr := unlockFile(f)
		if uerr != nil {
			uerr = &fs.PathError{Op: "unlock", Path: path, Err: uerr}
		}
		return errors.Join(uerr, f.Close())
	}, true, nil
}

// Held reports whether the lock on the file at path is held, by this process
// or another. It takes the lock and releases it at once when it is free, so a
// TryLock racing with it may find the lock taken for that instant; a caller
// that must get the lock tries again. A file that does not exist is not
// held, and Held does not create it.
func Held(path string) (bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("lockfile: %w", err)
	}
	defer f.Close()
	ok, err := lockFile(f)
	if err != nil {
		return false, &fs.PathError{Op: "lock", Path: path, Err: err}
	}
	if !ok {
		return true, nil
	}
	if err := unlockFile(f); err != nil {
		return false, &fs.PathError{Op: "unlock", Path: path, Err: err}
	}
	return false, nil
}
