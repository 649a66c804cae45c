package web

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/internal/sharedtest"
)

func FuzzHTML(f *testing.F) {
	dir := sharedtest.Dir(f, "docparse", "docling", "tests", "data", "html", "sources")
	entries, err := os.ReadDir(dir)
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			f.Fatal(err)
		}
		// Small seeds keep each run fast; they cover the same markup.
		if len(data) <= 16<<10 {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := Parse(context.Background(), data)
		if err != nil {
			if sanad.ErrorCode(err) != sanad.CodeParserUnsupported {
				t.Fatalf("unexpected error: %v", err)
			}
			return
		}
		_ = doc.Markdown()
		for _, b := range doc.Blocks {
			if b.Table != nil {
				_ = b.Table.Grid()
			}
		}
	})
}
