package text

import (
	"context"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/document"
)

func parseAs(t *testing.T, f Format, src string) *document.Document {
	t.Helper()
	doc, err := Config{Format: f}.Parse(context.Background(), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestTXT(t *testing.T) {
	doc := parseAs(t, TXT, "First line\nsame paragraph  \n\n\nSecond.\r\n\fPage two.\n")
	want := []string{"First line\nsame paragraph", "Second.", "Page two."}
	got := blockTexts(doc)
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
	if doc.Pages != 2 || doc.Blocks[2].Page != 2 {
		t.Errorf("form feed: got %d pages, last block on page %d", doc.Pages, doc.Blocks[2].Page)
	}
}

func TestMarkdown(t *testing.T) {
	src := "---\ntitle: Engagement letter\nauthor: K. Counsel\n---\n" +
		"Intro *text*\nwrapped.\n\nSetext\n===\n\n## Terms ##\n\n" +
		"1. first\n2. second\n   - nested\n     lazy line\n10) tenth\n\n" +
		"| Fee | Amount |\n|:---|---:|\n| Retainer | 5,000 |\n| Hourly \\| rate | `a|b` |\n\n" +
		"```go\nfunc main() {}\n```\n\n    indented code\n\n> quoted **text**\n\n<table><tr><td rowspan=\"2\">x</td><td>y</td></tr><tr><td>z</td></tr></table>\n\n" +
		"![A seal](seal.png)\n\n[ref]: https://example.com\n\n---\n\nEnd \\*not emphasis\\* &amp; more."
	doc := parseAs(t, Markdown, src)
	if doc.Title != "Engagement letter" || doc.Metadata["author"] != "K. Counsel" {
		t.Errorf("front matter: title %q, metadata %v", doc.Title, doc.Metadata)
	}
	want := "Intro *text* wrapped.\n\n# Setext\n\n## Terms\n\n1. first\n2. second\n    - nested lazy line\n10) tenth\n\n" +
		"| Fee | Amount |\n| - | - |\n| Retainer | 5,000 |\n| Hourly \\| rate | `a\\|b` |\n\n```\nfunc main() {}\n```\n\n```\nindented code\n```\n\nquoted **text**\n\n" +
		"| x | y |\n| - | - |\n| x | z |\n\nA seal\n<!-- image -->\n\nEnd *not emphasis* & more."
	if got := doc.Markdown(); got != want {
		t.Errorf("Markdown:\n%s\nwant:\n%s", got, want)
	}
	var tables []*document.TableData
	for _, b := range doc.Blocks {
		if b.Table != nil {
			tables = append(tables, b.Table)
		}
	}
	if len(tables) != 2 || tables[1].Rows[0][0].RowSpan != 2 {
		t.Errorf("HTML table in Markdown: got %+v", tables)
	}
}

func TestCSVDelimiters(t *testing.T) {
	for name, tt := range map[string]struct{ src, cell string }{
		"comma":     {"a,b,c\n1,\"2,5\",3\n4,5,6\n", "2,5"},
		"semicolon": {"a;b;c\n1;\"2;5\";3\n4;5;6\n", "2;5"},
		"tab":       {"a\tb\tc\n1\t2;5\t3\n4\t5\t6\n", "2;5"},
		"pipe":      {"a|b|c\n1|2,5|3\n4|5|6\n", "2,5"},
	} {
		doc := parseAs(t, CSV, tt.src)
		g := doc.Blocks[0].Table.Grid()
		if len(g) != 3 || len(g[0]) != 3 || g[1][1] != tt.cell {
			t.Errorf("%s: got %q, want 3×3 with %q at row 1, column 1", name, g, tt.cell)
		}
		if doc.Blocks[0].Table.HeaderRows != 1 {
			t.Errorf("%s: header rows %d", name, doc.Blocks[0].Table.HeaderRows)
		}
	}
	// Ragged rows are padded to the widest.
	g := parseAs(t, CSV, "h1,h2\nx\ny,z,w\n").Blocks[0].Table.Grid()
	if len(g[0]) != 3 || g[1][1] != "" || g[2][2] != "w" {
		t.Errorf("ragged rows: got %q", g)
	}
}

func TestJSON(t *testing.T) {
	doc := parseAs(t, JSON, `[{"party":"Acme","amount":5},{"party":"Beta"}]`)
	if len(doc.Blocks) != 2 || doc.Blocks[0].Kind != document.Code || !strings.Contains(doc.Blocks[0].Text, "\n  \"amount\": 5") {
		t.Errorf("JSON array: got %+v", doc.Blocks)
	}
	doc = parseAs(t, JSONL, "{\"a\":1}\n\nnot json\n{\"b\":2}\n")
	if len(doc.Blocks) != 2 || len(doc.Notes) != 1 || !strings.Contains(doc.Notes[0].Text, "line 3") {
		t.Errorf("JSONL: got %+v, notes %+v", doc.Blocks, doc.Notes)
	}
	doc, err := Config{Format: JSONL, MaxRecords: 1}.Parse(context.Background(), []byte("{}\n{}\n"))
	if err != nil || len(doc.Blocks) != 1 || len(doc.Notes) != 1 || doc.Notes[0].Code != "truncated" {
		t.Errorf("JSONL bound: got %+v, %v", doc, err)
	}
}

func TestEncodings(t *testing.T) {
	le, be := []byte{0xFF, 0xFE}, []byte{0xFE, 0xFF}
	for _, u := range utf16.Encode([]rune("Grüße, 世界\n")) {
		le = append(le, byte(u), byte(u>>8))
		be = append(be, byte(u>>8), byte(u))
	}
	for name, tt := range map[string]struct {
		data []byte
		enc  string
		text string
	}{
		"utf-8 bom": {append([]byte{0xEF, 0xBB, 0xBF}, "Grüße, 世界"...), "", "Grüße, 世界"},
		"utf-16le":  {le, "utf-16le", "Grüße, 世界"},
		"utf-16be":  {be, "utf-16be", "Grüße, 世界"},
		"latin-1":   {[]byte("Gr\xfc\xdfe \x93quoted\x94"), "windows-1252", "Grüße “quoted”"},
	} {
		doc, err := Config{Format: TXT}.Parse(context.Background(), tt.data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if doc.Blocks[0].Text != tt.text {
			t.Errorf("%s: got %q, want %q", name, doc.Blocks[0].Text, tt.text)
		}
		if enc, _ := doc.Metadata["encoding"].(string); enc != tt.enc {
			t.Errorf("%s: encoding %q, want %q", name, enc, tt.enc)
		}
	}
}

func TestSniff(t *testing.T) {
	for src, want := range map[string]Format{
		"WEBVTT\n\n00:01.000 --> 00:02.000\nhi":      VTT,
		"1\n00:00:01,000 --> 00:00:02,000\nhi\n":     SRT,
		`{"a": [1, 2]}`:                              JSON,
		"{\"a\":1}\n{\"a\":2}\n":                     JSONL,
		"name,amount\nAcme,5\nBeta,7\n":              CSV,
		"# Title\n\nSome text with a [link](x).\n":   Markdown,
		"Dear counsel,\n\nPlease find attached.\n\n": TXT,
	} {
		doc, err := Parse(context.Background(), []byte(src))
		if err != nil {
			t.Errorf("%q: %v", src, err)
			continue
		}
		if doc.Format != string(want) {
			t.Errorf("%q: got format %q, want %q", src, doc.Format, want)
		}
	}
}

// TestErrors: truncated, garbage and empty inputs are refused with a
// typed error that says why.
func TestErrors(t *testing.T) {
	tests := []struct {
		name   string
		format Format
		data   string
		msg    string
	}{
		{"zero bytes", Auto, "", "empty"},
		{"blank markdown", Markdown, " \n\n\t", "empty"},
		{"garbage", Auto, "\x00\x01\x02\x03binary\x00", "binary"},
		{"garbage csv", CSV, "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary"},
		{"truncated json", JSON, `{"parties": ["Acme", "Be`, "invalid JSON"},
		{"garbage jsonl", JSONL, "not json\nat all\n", "no valid JSON line"},
		{"vtt without header", VTT, "00:01.000 --> 00:02.000\nhi\n", "WEBVTT"},
		{"vtt without cues", VTT, "WEBVTT\n\nno cues here\n", "no cues"},
		{"truncated srt", SRT, "1\n00:00:0", "no timed cues"},
		{"srt garbage", SRT, "hello\nworld\n", "no timed cues"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Config{Format: tt.format}.Parse(context.Background(), []byte(tt.data))
			if got := sanad.ErrorCode(err); got != sanad.CodeParserUnsupported {
				t.Fatalf("got %q (%v), want %q", got, err, sanad.CodeParserUnsupported)
			}
			if !strings.Contains(sanad.ErrorMessage(err), tt.msg) {
				t.Errorf("message %q does not say %q", sanad.ErrorMessage(err), tt.msg)
			}
			var se *sanad.Error
			if e, ok := err.(*sanad.Error); ok {
				se = e
			}
			if se == nil || !strings.HasPrefix(se.Op, "parse.") {
				t.Errorf("op of %v is not parse.<format>", err)
			}
		})
	}
	if _, err := (Config{MaxBytes: 4}).Parse(context.Background(), []byte("12345")); !strings.Contains(sanad.ErrorMessage(err), "too large") {
		t.Errorf("size bound: got %v", err)
	}
}
