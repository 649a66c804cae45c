//go:build windows

package lockfile

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// The lock covers the file's first byte, which need not exist: every holder
// locks the same range, and readers of the (empty) file are not blocked.
const lockLow, lockHigh = 1, 0

// lockFile takes an exclusive LockFileEx lock on f without waiting; ok is false
// when another handle holds it.
func lockFile(f *os.File) (ok bool, err error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return false, err
	}
	var lerr error
	if err := rc.Control(func(fd uintptr) {
		lerr = windows.LockFileEx(windows.Handle(fd), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, lockLow, lockHigh, new(windows.Overlapped))
	}); err != nil {
		return false, err
	}
	if errors.Is(lerr, windows.ERROR_LOCK_VIOLATION) {
		return false, nil
	}
	return lerr == nil, lerr
}

func unlockFile(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var uerr error
	if err := rc.Control(func(fd uintptr) {
		uerr = windows.UnlockFileEx(windows.Handle(fd), 0, lockLow, lockHigh, new(windows.Overlapped))
	}); err != nil {
		return err
	}
	return uerr
}
