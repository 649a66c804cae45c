package coa_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sanadhq/sanad/casework/coa"
)

// matter is one case under testdata: its sources and what mapping them
// should find.
type matter struct {
	name     string
	sources  []coa.Source
	expected struct {
		Causes       []string            `json:"causes"`        // plausible: supported or partial, above the rest
		Gaps         map[string][]string `json:"gaps"`          // cause id → element ids that must be gaps
		NotSupported []string            `json:"not_supported"` // must not be supported, nor rank above Causes
	}
}

// matters loads every matter under testdata: transcript.txt is the
// interview, every .md file a document.
func matters(tb testing.TB) []matter {
	tb.Helper()
	dirs, err := os.ReadDir("testdata")
	if err != nil {
		tb.Fatal(err)
	}
	var out []matter
	for _, d := range dirs {
		if !d.IsDir() || strings.HasPrefix(d.Name(), "fuzz") {
			continue
		}
		m := matter{name: d.Name()}
		dir := filepath.Join("testdata", d.Name())
		files, err := os.ReadDir(dir)
		if err != nil {
			tb.Fatal(err)
		}
		for _, f := range files {
			raw, err := os.ReadFile(filepath.Join(dir, f.Name()))
			if err != nil {
				tb.Fatal(err)
			}
			switch {
			case f.Name() == "expected.json":
				if err := json.Unmarshal(raw, &m.expected); err != nil {
					tb.Fatalf("%s: %v", f.Name(), err)
				}
			case f.Name() == "transcript.txt":
				m.sources = append(m.sources, coa.Source{ID: d.Name() + "/transcript", Kind: coa.KindTranscript, Name: f.Name(), Text: string(raw)})
			case strings.HasSuffix(f.Name(), ".md"):
				m.sources = append(m.sources, coa.Source{ID: d.Name() + "/" + strings.TrimSuffix(f.Name(), ".md"), Kind: coa.KindDocument, Name: f.Name(), Text: string(raw)})
			}
		}
		slices.SortFunc(m.sources, func(a, b coa.Source) int { return strings.Compare(a.ID, b.ID) })
		out = append(out, m)
	}
	if len(out) < 3 {
		tb.Fatalf("testdata holds %d matters, want at least 3", len(out))
	}
	return out
}
