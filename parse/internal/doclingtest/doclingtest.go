// Package doclingtest scores a parser against docling's ground truth: the
// source files of one format in ../shared/testdata/docparse/docling and the
// Markdown docling made of each.
package doclingtest

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/sanadhq/sanad/document"
	"github.com/sanadhq/sanad/internal/sharedtest"
	"github.com/sanadhq/sanad/internal/textsim"
)

// ParseFunc is a parser under test.
type ParseFunc func(ctx context.Context, data []byte) (*document.Document, error)

// Run parses every source of format that has a ground truth, logs each
// file's similarity and the mean, and fails the test if a file does not
// parse or the mean falls below floor. It returns the mean. When the
// environment names a directory in SANAD_DOCLING_DUMP, the Markdown of
// each file is written there, for reading the differences.
func Run(t *testing.T, format string, floor float64, parse ParseFunc) float64 {
	t.Helper()
	dir := sharedtest.Dir(t, "docparse", "docling", "tests", "data", format)
	sources, err := os.ReadDir(filepath.Join(dir, "sources"))
	if err != nil {
		t.Fatal(err)
	}
	dump := os.Getenv("SANAD_DOCLING_DUMP")
	var names []string
	for _, e := range sources {
		if !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	var sum float64
	n := 0
	for _, name := range names {
		want, err := os.ReadFile(filepath.Join(dir, "groundtruth", name+".md"))
		if err != nil {
			t.Logf("%-50s no ground truth, skipped", name)
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, "sources", name))
		if err != nil {
			t.Fatal(err)
		}
		doc, err := parse(context.Background(), data)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			n++
			continue
		}
		got := doc.Markdown()
		if dump != "" {
			_ = os.WriteFile(filepath.Join(dump, name+".md"), []byte(got), 0o644)
		}
		sim := textsim.Similarity(got, string(want))
		t.Logf("%-50s %.3f", name, sim)
		sum += sim
		n++
	}
	if n == 0 {
		t.Fatalf("no %s sources with ground truth in %s", format, dir)
	}
	mean := sum / float64(n)
	t.Logf("%s: mean similarity %.4f over %d files (floor %.2f)", strings.ToUpper(format), mean, n, floor)
	if mean < floor {
		t.Errorf("%s: mean similarity %.4f, want at least %.2f", format, mean, floor)
	}
	return mean
}
