package parse

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/internal/sharedtest"
)

// sources returns the Docling test set's source files of the formats there
// are readers for.
func sources(t testing.TB) []string {
	root := sharedtest.Dir(t, "docparse", "docling", "tests", "data")
	var files []string
	for _, dir := range []string{"pdf", "docx", "pptx", "html", "md", "csv"} {
		if _, ok := readers[dir]; !ok {
			continue
		}
		fs, _ := filepath.Glob(filepath.Join(root, dir, "sources", "*"))
		files = append(files, fs...)
	}
	return files
}

// TestEveryRealFileParses parses every source file of the Docling test set
// through the dispatcher and checks the output: chunks in order, each text
// chunk the bytes of the Markdown it names, ids unique.
func TestEveryRealFileParses(t *testing.T) {
	files := sources(t)
	if len(files) < 50 {
		t.Fatalf("found %d source files", len(files))
	}
	for _, f := range files {
		out, err := File(context.Background(), f, Options{})
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(f), err)
			continue
		}
		seen := map[string]bool{}
		for i, c := range out.Chunks {
			if c.Index != i || seen[c.ID] {
				t.Errorf("%s: chunk %d: index %d, id %s seen before %v", filepath.Base(f), i, c.Index, c.ID, seen[c.ID])
			}
			seen[c.ID] = true
			if c.Start < 0 || c.End > len(out.Markdown) || c.Start > c.End {
				t.Errorf("%s: chunk %d names bytes [%d,%d) of %d", filepath.Base(f), i, c.Start, c.End, len(out.Markdown))
				continue
			}
			if c.LayoutType != "table" && out.Markdown[c.Start:c.End] != c.Content {
				t.Errorf("%s: chunk %d is not the Markdown bytes it names", filepath.Base(f), i)
			}
		}
		if out.Metadata["checksum"] == nil || out.TotalPages < 1 {
			t.Errorf("%s: metadata %v, pages %d", filepath.Base(f), out.Metadata, out.TotalPages)
		}
	}
}

// TestBadFilesGiveTypedErrors feeds truncated, garbage and empty files of
// every format: each gives ERR_PARSER_UNSUPPORTED (or, for text formats,
// whatever text survives), never a panic or an untyped error.
func TestBadFilesGiveTypedErrors(t *testing.T) {
	files := sources(t)
	for _, bad := range []struct {
		name string
		data []byte
	}{
		{"empty.pdf", nil},
		{"garbage.docx", []byte("PK\x03\x04\x00\x00garbage garbage")},
		{"garbage.bin", []byte{0, 1, 2, 3, 4, 5, 0, 0, 0xff}},
	} {
		_, err := Bytes(context.Background(), bad.name, bad.data, Options{})
		if sanad.ErrorCode(err) != sanad.CodeParserUnsupported {
			t.Errorf("%s: got %v, want ERR_PARSER_UNSUPPORTED", bad.name, err)
		}
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ext := strings.ToLower(filepath.Ext(f))
		for _, cut := range []int{len(data) / 2, len(data) / 10} {
			_, err := Bytes(context.Background(), filepath.Base(f), data[:cut], Options{})
			if err == nil {
				continue // a text format, or a file whose first part is whole
			}
			switch sanad.ErrorCode(err) {
			case sanad.CodeParserUnsupported, sanad.CodeParserEncrypted:
			default:
				t.Errorf("%s cut at %d (%s): got %v, want a parser error", filepath.Base(f), cut, ext, err)
			}
		}
	}
}

// FuzzBytes checks that no input makes the dispatcher or a reader panic or
// return an untyped error.
func FuzzBytes(f *testing.F) {
	for _, p := range sources(f) {
		if data, err := os.ReadFile(p); err == nil && len(data) < 64<<10 {
			f.Add(filepath.Base(p), data)
		}
	}
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		_, err := Bytes(context.Background(), name, data, Options{})
		if err != nil && sanad.ErrorCode(err) == sanad.CodeInternal {
			t.Fatalf("%s: internal error: %v", name, err)
		}
	})
}
