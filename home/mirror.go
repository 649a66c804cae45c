package home

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/sanadhq/sanad/ledger"
)

// CheckpointFile is the file of a home that holds the latest checkpoint its
// log signed, outside its database.
const CheckpointFile = "checkpoint"

// maxCheckpointBytes bounds a checkpoint file read back.
const maxCheckpointBytes = 64 << 10

// FileMirror keeps the latest signed checkpoint in one file, replaced
// atomically and made durable (the file, then its folder) before Store
// returns. It implements [ledger.Mirror].
type FileMirror struct {
	Path string
}

var _ ledger.Mirror = FileMirror{}

// Name implements [ledger.Mirror].
func (m FileMirror) Name() string { return m.Path }

// Load implements [ledger.Mirror]: nil when the file does not exist.
func (m FileMirror) Load() ([]byte, error) {
	f, err := os.Open(m.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxCheckpointBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxCheckpointBytes {
		return nil, errors.New(m.Path + " is too large to be a checkpoint")
	}
	return data, nil
}

// Store implements [ledger.Mirror].
func (m FileMirror) Store(signed []byte) error {
	dir := filepath.Dir(m.Path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".checkpoint-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(signed); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), m.Path); err != nil {
		return err
	}
	return syncDir(dir)
}

// syncDir makes a rename in dir durable. Where folders cannot be synced
// (Windows), the rename is as durable as the system makes it.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) && !errors.Is(err, errors.ErrUnsupported) {
		return err
	}
	return nil
}

// mirrorName is the file a home's checkpoint takes in a folder shared with
// other homes: its log's origin, made a file name.
func mirrorName(origin string) string {
	return strings.NewReplacer("/", "-", ":", "-").Replace(origin) + ".checkpoint"
}

// Mirrors returns the mirrors of the home in dir whose log is origin: its
// checkpoint file, and the file it keeps in each of dirs.
func Mirrors(dir, origin string, dirs []string) []ledger.Mirror {
	out := []ledger.Mirror{FileMirror{Path: filepath.Join(dir, CheckpointFile)}}
	for _, d := range dirs {
		out = append(out, FileMirror{Path: filepath.Join(d, mirrorName(origin))})
	}
	return out
}
