package office

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/internal/sharedtest"
)

const maxSeedBytes = 40 << 10

// seedFrom adds the docling sources of a format to a fuzz corpus.
func seedFrom(f *testing.F, format string) {
	f.Helper()
	dir := sharedtest.Dir(f, "docparse", "docling", "tests", "data", format, "sources")
	entries, err := os.ReadDir(dir)
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			f.Fatal(err)
		}
		// Large seeds make every mutation slow to run and to minimise; the
		// small files cover the same structures.
		if len(data) <= maxSeedBytes {
			f.Add(data)
		}
	}
}

// fuzzParse checks that any input gives a document or a typed error, never
// a panic (which Parse would report as CodeInternal) or an untyped error.
func fuzzParse(t *testing.T, data []byte) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	doc, err := Config{MaxTotalBytes: 64 << 20}.Parse(ctx, data)
	if err != nil {
		switch sanad.ErrorCode(err) {
		case sanad.CodeParserUnsupported, sanad.CodeParserEncrypted:
		default:
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	if doc == nil || doc.Pages < 1 {
		t.Fatalf("document without pages: %+v", doc)
	}
	_ = doc.Markdown()
}

func FuzzDOCX(f *testing.F) {
	seedFrom(f, "docx")
	f.Fuzz(fuzzParse)
}

func FuzzPPTX(f *testing.F) {
	seedFrom(f, "pptx")
	f.Fuzz(fuzzParse)
}

func FuzzXLSX(f *testing.F) {
	f.Add(workbook(f))
	for _, wb := range embeddedWorkbooks(f) {
		f.Add(wb)
	}
	f.Fuzz(fuzzParse)
}
