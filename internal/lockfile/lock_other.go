//go:build !(unix && !aix) && !windows

package lockfile

import (
	"errors"
	"os"
)

var errUnsupported = errors.New("file locks are not supported on this system")

func lockFile(*os.File) (bool, error) { return false, errUnsupported }

func unlockFile(*os.File) error { return errUnsupported }
