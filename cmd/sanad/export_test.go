package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/bundle/bundletest"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/ledgertest"
)

// runCLI runs the command line in this process and returns its exit code,
// stdout and stderr.
func runCLI(tb testing.TB, args ...string) (int, string, string) {
	tb.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// quickstart runs quickstart in a new home and returns the home, the trace
// it ran, the bundle it exported and its log key.
func quickstart(tb testing.TB) (dir, trace, bundlePath, logKey string) {
	tb.Helper()
	dir = filepath.Join(tb.TempDir(), "home")
	code, out, errOut := runCLI(tb, "--home", dir, "quickstart", "--json")
	if code != 0 {
		tb.Fatalf("quickstart: exit %d: %s", code, errOut)
	}
	var qs struct {
		Trace  string `json:"trace"`
		Bundle string `json:"bundle"`
		LogKey string `json:"log_key"`
	}
	if err := json.Unmarshal([]byte(out), &qs); err != nil {
		tb.Fatalf("quickstart --json: %v", err)
	}
	return dir, qs.Trace, qs.Bundle, qs.LogKey
}

// TestVerifyForgedBundle: a bundle re-signed with fresh agent keys and a
// fresh log key under the same log name is whole and self-consistent. sanad
// verify refuses it (exit 1) when no key is pinned for its log, saying that
// only self-consistency could be checked, accepts it as such only with
// --unpinned, and fails it when the real log key is pinned — by --log-key or
// by the home's trusted-logs file, to which the export added the key.
func TestVerifyForgedBundle(t *testing.T) {
	dir, _, real, logKey := quickstart(t)
	b, err := os.ReadFile(real)
	if err != nil {
		t.Fatal(err)
	}
	forged := filepath.Join(t.TempDir(), "forged.tar.gz")
	if err := os.WriteFile(forged, bundletest.Forge(t, b, func(ev map[string]any) { ev["scope"].(map[string]any)["case"] = "deal-002" }), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(t.TempDir(), "empty-home")
	for _, tt := range []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"no key pinned", []string{"--home", empty, "verify", forged}, 1, "", "only self-consistency was checked"},
		{"no key pinned, json", []string{"--home", empty, "verify", forged, "--json"}, 1, `"pinned":false`, "only self-consistency was checked"},
		{"unpinned accepted", []string{"--home", empty, "verify", forged, "--unpinned"}, 0, "UNPINNED", "warning: only self-consistency was checked"},
		{"log key", []string{"--home", empty, "verify", forged, "--log-key", logKey}, 1, "", "is not signed by the pinned key"},
		{"home's trusted logs", []string{"--home", dir, "verify", forged}, 1, "", "is not signed by the pinned key"},
		{"home's trusted logs, unpinned allowed", []string{"--home", dir, "verify", forged, "--unpinned"}, 1, "", "is not signed by the pinned key"},
		{"the real bundle", []string{"--home", dir, "verify", real}, 0, "signed by the pinned log key", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tt.args...)
			if code != tt.code || !strings.Contains(out, tt.stdout) || !strings.Contains(errOut, tt.stderr) {
				t.Errorf("sanad %s: got exit %d, stdout %q, stderr %q; want exit %d, stdout with %q, stderr with %q",
					strings.Join(tt.args, " "), code, out, errOut, tt.code, tt.stdout, tt.stderr)
			}
		})
	}
}

// exportLeftovers returns the files in dir other than keep: a bundle or a
// temporary file an export left behind.
func exportLeftovers(tb testing.TB, dir string, keep ...string) []string {
	tb.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if !slices.Contains(keep, e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestExportRefusesTamperedTrace: with the events table of a home edited in
// SQL — the trace's last events hidden (seq negated), one hidden in the
// middle, two events' seq swapped, another trace's event relabelled into
// the trace — sanad export fails (exit 1) and writes no bundle and leaves no
// temporary file: nothing is signed about a trace the store's index does not
// return as the signed events say.
func TestExportRefusesTamperedTrace(t *testing.T) {
	src, trace, _, _ := quickstart(t)
	for _, tt := range []struct {
		name  string
		edits []string
	}{
		{"last events hidden", []string{`UPDATE events SET seq = -seq WHERE trace = ?1 AND seq >= 20`}},
		{"an event hidden", []string{`UPDATE events SET seq = -seq WHERE trace = ?1 AND seq = 10`}},
		{"two events swapped", []string{
			`UPDATE events SET seq = -5 WHERE trace = ?1 AND seq = 5`,
			`UPDATE events SET seq = 5 WHERE trace = ?1 AND seq = 6`,
			`UPDATE events SET seq = 6 WHERE trace = ?1 AND seq = -5`,
		}},
		{"another trace's event relabelled", []string{`UPDATE events SET trace = ?1, seq = 1000 WHERE idx = (SELECT max(idx) FROM events WHERE trace != ?1)`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := ledgertest.CopyHome(t, src)
			ledgertest.Tamper(t, dir, func(db *sql.DB) error {
				for _, q := range tt.edits {
					res, err := db.Exec(q, trace)
					if err != nil {
						return err
					}
					if n, _ := res.RowsAffected(); n == 0 {
						return fmt.Errorf("%s changed no row", q)
					}
				}
				return nil
			})
			outDir := t.TempDir()
			code, _, errOut := runCLI(t, "--home", dir, "export", trace, "-o", filepath.Join(outDir, "b.tar.gz"))
			t.Logf("export: exit %d: %s", code, strings.TrimSpace(errOut))
			if code != 1 || !strings.Contains(errOut, "not exported") {
				t.Errorf("export: got exit %d, stderr %q; want exit 1 and the trace not exported", code, errOut)
			}
			if left := exportLeftovers(t, outDir); len(left) != 0 {
				t.Errorf("export left %q in the output folder, want nothing", left)
			}
		})
	}
}

// TestExportLeavesNoTempFile: an export that fails — an unknown trace, or
// an interrupted one (a signal cancels the command's context) — leaves no
// temporary file and no bundle in the output folder; and an export removes
// the temporary files older than an hour that exports killed midway left
// there (SIGKILL cannot be handled), and nothing else.
func TestExportLeavesNoTempFile(t *testing.T) {
	dir, trace, _, _ := quickstart(t)
	out := t.TempDir()
	old := time.Now().Add(-2 * time.Hour)
	for _, name := range []string{".sanad-export-111", "other.txt"} {
		if err := os.WriteFile(filepath.Join(out, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(filepath.Join(out, name), old, old); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(out, ".sanad-export-222"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(out, ".sanad-export-dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(filepath.Join(out, ".sanad-export-dir"), old, old); err != nil {
		t.Fatal(err)
	}
	kept := []string{".sanad-export-222", ".sanad-export-dir", "other.txt"}
	bundlePath := filepath.Join(out, "b.tar.gz")

	code, _, errOut := runCLI(t, "--home", dir, "export", "no-such-trace", "-o", bundlePath)
	if code != 1 {
		t.Errorf("export of an unknown trace: got exit %d (%s), want 1", code, errOut)
	}
	if left := exportLeftovers(t, out, kept...); len(left) != 0 {
		t.Errorf("export of an unknown trace: left %q in the output folder, want only %q (the stale temporary file removed)", left, kept)
	}

	t.Run("interrupted", func(t *testing.T) {
		h, err := home.Open(context.Background(), home.Config{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		cmd := &cobra.Command{}
		cmd.SetContext(ctx)
		if _, err := exportTrace(cmd, h, sanad.Scope{Tenant: "operator"}, trace, bundlePath); err == nil {
			t.Error("export with its context cancelled: got nil, want an error")
		}
		if left := exportLeftovers(t, out, kept...); len(left) != 0 {
			t.Errorf("interrupted export: left %q in the output folder, want nothing new", left)
		}
	})

	code, _, errOut = runCLI(t, "--home", dir, "export", trace, "-o", bundlePath)
	if code != 0 {
		t.Fatalf("export: exit %d: %s", code, errOut)
	}
	if left := exportLeftovers(t, out, append(kept, "b.tar.gz")...); len(left) != 0 {
		t.Errorf("export: left %q in the output folder, want only the bundle besides %q", left, kept)
	}
}
