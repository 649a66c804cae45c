package text

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/internal/sharedtest"
)

func seedDocling(f *testing.F, format string) {
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
		f.Add(data)
	}
}

// fuzzAs checks that any input gives a document or a typed refusal, never
// a panic.
func fuzzAs(format Format) func(*testing.T, []byte) {
	return func(t *testing.T, data []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		doc, err := Config{Format: format}.Parse(ctx, data)
		if err != nil {
			if sanad.ErrorCode(err) != sanad.CodeParserUnsupported {
				t.Fatalf("unexpected error: %v", err)
			}
			return
		}
		_ = doc.Markdown()
	}
}

func FuzzMarkdown(f *testing.F) {
	seedDocling(f, "md")
	f.Fuzz(fuzzAs(Markdown))
}

func FuzzCSV(f *testing.F) {
	seedDocling(f, "csv")
	f.Fuzz(fuzzAs(CSV))
}

func transcriptSeeds(f *testing.F, vtt bool) {
	f.Helper()
	dir := sharedtest.Dir(f, "transcripts", "qmsum", "test")
	for _, name := range []string{"ES2004a.json", "education_13.json"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			f.Fatal(err)
		}
		turns := turnsOf(f, data, 12)
		if vtt {
			f.Add([]byte(toVTT(turns)))
		} else {
			f.Add([]byte(toSRT(turns)))
		}
	}
	if vtt {
		f.Add([]byte("WEBVTT\n\n00:01.000 --> 00:04.000\n<v.loud Alice>Hello <i>there</i></v> <v Bob>hi\n\nNOTE x\n\n00:05.000 --> 00:06.000\n- Bob: yes\n"))
	} else {
		f.Add([]byte("1\n00:00:01,000 --> 00:00:02,000\n[JUDGE] Order.\n\n2\n00:00:02,000 --> 00:00:03,000\n<i>COUNSEL: Yes.</i>\n"))
	}
}

func FuzzVTT(f *testing.F) {
	transcriptSeeds(f, true)
	f.Fuzz(fuzzAs(VTT))
}

func FuzzSRT(f *testing.F) {
	transcriptSeeds(f, false)
	f.Fuzz(fuzzAs(SRT))
}
