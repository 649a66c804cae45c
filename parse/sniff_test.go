package parse

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sanadhq/sanad/internal/sharedtest"
)

// TestSniffRealFiles checks that every source file of the Docling test set
// is sniffed as the format its extension names.
func TestSniffRealFiles(t *testing.T) {
	root := sharedtest.Dir(t, "docparse", "docling", "tests", "data")
	want := map[string]string{".pdf": PDF, ".docx": DOCX, ".pptx": PPTX, ".html": HTML, ".htm": HTML, ".md": MD, ".csv": CSV, ".xlsx": XLSX}
	n := 0
	for _, dir := range []string{"pdf", "docx", "pptx", "html", "md", "csv"} {
		files, _ := filepath.Glob(filepath.Join(root, dir, "sources", "*"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			w, ok := want[strings.ToLower(filepath.Ext(f))]
			if !ok {
				continue
			}
			// Sniff without the extension where the bytes alone decide.
			name := filepath.Base(f)
			if w == PDF || w == DOCX || w == PPTX || w == XLSX {
				name = "file"
			}
			got, enc, reason := Sniff(name, data)
			if got != w || enc {
				t.Errorf("%s: sniffed %q (encrypted %v, %s), want %q", f, got, enc, reason, w)
			}
			n++
		}
	}
	if n < 50 {
		t.Errorf("sniffed only %d files", n)
	}
}

func TestSniffRefusals(t *testing.T) {
	var zipped bytes.Buffer
	zw := zip.NewWriter(&zipped)
	w, _ := zw.Create("readme.txt")
	w.Write([]byte("hello"))
	zw.Close()
	ole := append(append([]byte{}, oleMagic...), make([]byte, 100)...)
	tests := []struct {
		name      string
		data      []byte
		encrypted bool
		reason    string
	}{
		{"empty.pdf", nil, false, "empty"},
		{"x.bin", []byte{0, 1, 2, 3, 0, 0, 0, 9}, false, "binary"},
		{"a.zip", zipped.Bytes(), false, "not a Word"},
		{"broken.docx", []byte("PK\x03\x04garbage"), false, "damaged ZIP"},
		{"old.doc", ole, false, "legacy binary Office"},
		{"secret.docx", append(append([]byte{}, ole...), utf16("EncryptionInfo")...), true, "encrypted"},
		{"scan.png", []byte("\x89PNG\r\n\x1a\n...."), false, "image"},
	}
	for _, tt := range tests {
		got, enc, reason := Sniff(tt.name, tt.data)
		if got != "" || enc != tt.encrypted || !strings.Contains(reason, tt.reason) {
			t.Errorf("%s: got %q encrypted %v reason %q, want refusal with %q", tt.name, got, enc, reason, tt.reason)
		}
	}
	for name, want := range map[string]string{"notes.txt": TXT, "talk.vtt": VTT, "talk.srt": SRT, "rows.jsonl": JSONL, "x.json": JSON, "readme": TXT} {
		if got, _, _ := Sniff(name, []byte("some text\n")); got != want {
			t.Errorf("%s: got %q, want %q", name, got, want)
		}
	}
	if got, _, _ := Sniff("page", []byte("  <!DOCTYPE html><html>")); got != HTML {
		t.Errorf("an HTML page without extension: got %q", got)
	}
}
