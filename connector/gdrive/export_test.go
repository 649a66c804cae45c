package gdrive

import (
	"context"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/sanadhq/sanad/connector"
)

// TestDrive is the fake Drive for the package's external tests: a folder
// "root" of text files, and a connector for it.
type TestDrive struct{ d *fakeDrive }

// NewTestDrive returns a fake Drive holding an empty folder "root".
func NewTestDrive(tb testing.TB) *TestDrive {
	tb.Helper()
	d := newFakeDrive(tb)
	d.add(&fakeFile{id: "root", name: "Deal room", mime: FolderType})
	return &TestDrive{d}
}

// Add puts a text file in root.
func (t *TestDrive) Add(id, name, content string) {
	t.d.add(&fakeFile{id: id, name: name, mime: "text/plain", parents: []string{"root"}, content: []byte(content)})
}

// Edit changes a file's content and advances its modification time.
func (t *TestDrive) Edit(id, content string) { t.d.edit(id, content) }

// Trash moves a file to the trash.
func (t *TestDrive) Trash(id string) {
	t.d.mu.Lock()
	defer t.d.mu.Unlock()
	t.d.files[id].trashed = true
}

// Downloads returns how many file contents were served (files.get
// ?alt=media), by file id.
func (t *TestDrive) Downloads() map[string]int {
	t.d.mu.Lock()
	defer t.d.mu.Unlock()
	out := map[string]int{}
	for kind, n := range t.d.calls {
		if id, ok := strings.CutPrefix(kind, "media:"); ok {
			out[id] = n
		}
	}
	return out
}

// Connector returns a connector for the fake that downloads into
// workspace, with the service account key "sa".
func (t *TestDrive) Connector(tb testing.TB, workspace string) *Connector {
	tb.Helper()
	key := t.d.serviceAccountKey(rsaKey(tb))
	opt := connector.Options{
		Workspace: workspace, MinInterval: -1, AllowPrivateNetworks: true,
		Retry: connector.RetryPolicy{MaxAttempts: 3, BaseDelay: 5 * time.Millisecond, MaxDelay: 20 * time.Millisecond},
		Credentials: func(_ context.Context, id string) ([]byte, error) {
			if id == "sa" {
				return key, nil
			}
			return nil, fs.ErrNotExist
		},
	}
	c, err := New(opt, Config{BaseURL: t.d.URL, PageSize: 2})
	if err != nil {
		tb.Fatal(err)
	}
	return c
}
