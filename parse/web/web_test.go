package web

import (
	"context"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/document"
)

func TestHTMLMergedCells(t *testing.T) {
	page := `<html><body><table>
<thead><tr><th>Region</th><th colspan="2">Revenue</th></tr></thead>
<tbody>
<tr><td rowspan="2">EU</td><td>10</td><td>12</td></tr>
<tr><td colspan="2">pending</td></tr>
<tr><td>US</td><td rowspan="0">n/a</td><td>7</td></tr>
<tr><td>JP</td><td>3</td></tr>
</tbody></table></body></html>`
	doc, err := Parse(context.Background(), []byte(page))
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Blocks) != 1 || doc.Blocks[0].Kind != document.Table {
		t.Fatalf("got blocks %+v, want one table", doc.Blocks)
	}
	tbl := doc.Blocks[0].Table
	if tbl.HeaderRows != 1 {
		t.Errorf("header rows: got %d, want 1", tbl.HeaderRows)
	}
	if c := tbl.Rows[0][1]; c.Text != "Revenue" || c.ColSpan != 2 {
		t.Errorf("colspan: got %+v", c)
	}
	if c := tbl.Rows[1][0]; c.Text != "EU" || c.RowSpan != 2 {
		t.Errorf("rowspan: got %+v", c)
	}
	// rowspan="0" spans to the end of its row group.
	if c := tbl.Rows[3][1]; c.Text != "n/a" || c.RowSpan != 2 {
		t.Errorf("rowspan=0: got %+v, want n/a over 2 rows", c)
	}
	want := [][]string{
		{"Region", "Revenue", ""},
		{"EU", "10", "12"},
		{"", "pending", ""},
		{"US", "n/a", "7"},
		{"JP", "", "3"},
	}
	got := tbl.Grid()
	for r := range want {
		if strings.Join(got[r], "|") != strings.Join(want[r], "|") {
			t.Errorf("row %d: got %q, want %q", r, got[r], want[r])
		}
	}
}

func TestHTMLStructure(t *testing.T) {
	page := `<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Filing - Example</title><meta property="og:title" content="Filing">
<meta name="description" content="A filing."><meta name="author" content="Clerk"></head>
<body><h1>Filing</h1><p>First <a href="https://example.com/a">link</a> and <code>x := 1</code>.<br>Next line.</p>
<ol start="3"><li>three<ul><li>nested</li></ul></li><li value="9">nine</li></ol>
<dl><dt>Term</dt><dd>Meaning</dd></dl>
<pre><code>  if x {
    y()
  }</code></pre>
<figure><img src="a.png" alt="alt text"><figcaption>Figure 1</figcaption></figure>
<p hidden>secret</p><script>var x;</script>
</body></html>`
	doc, err := Parse(context.Background(), []byte(page))
	if err != nil {
		t.Fatal(err)
	}
	if doc.Title != "Filing" || doc.Metadata["description"] != "A filing." || doc.Metadata["author"] != "Clerk" || doc.Metadata["language"] != "en" {
		t.Errorf("title %q, metadata %v", doc.Title, doc.Metadata)
	}
	want := "# Filing\n\nFirst [link](https://example.com/a) and `x := 1`.\nNext line.\n\n3. three\n    - nested\n9. nine\n- Term\n    - Meaning\n\n```\nif x {\n  y()\n}\n```\n\nFigure 1\n<!-- image -->"
	if got := doc.Markdown(); got != want {
		t.Errorf("Markdown:\n%s\nwant:\n%s", got, want)
	}
}

func TestHTMLEncodings(t *testing.T) {
	utf16le := []byte{0xFF, 0xFE}
	for _, u := range utf16.Encode([]rune("<p>Grüße</p>")) {
		utf16le = append(utf16le, byte(u), byte(u>>8))
	}
	latin1 := []byte("<html><head><meta charset=\"iso-8859-1\"></head><body><p>Gr\xfc\xdfe</p></body></html>")
	for name, data := range map[string][]byte{"utf-16le": utf16le, "latin-1": latin1} {
		doc, err := Parse(context.Background(), data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := doc.Markdown(); got != "Grüße" {
			t.Errorf("%s: got %q, want Grüße", name, got)
		}
	}
}

func TestHTMLErrors(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		cfg  Config
		msg  string
	}{
		{"zero bytes", nil, Config{}, "empty"},
		{"blank", []byte("  \n\t "), Config{}, "empty"},
		{"binary", []byte("\x00\x01\x02PK\x03\x04 garbage \x00\x00"), Config{}, "binary"},
		{"too large", []byte("<p>" + strings.Repeat("a", 2048) + "</p>"), Config{MaxBytes: 1024}, "too large"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.cfg.Parse(context.Background(), tt.data)
			if got := sanad.ErrorCode(err); got != sanad.CodeParserUnsupported {
				t.Fatalf("got %q (%v), want %q", got, err, sanad.CodeParserUnsupported)
			}
			if !strings.Contains(sanad.ErrorMessage(err), tt.msg) {
				t.Errorf("message %q does not say %q", sanad.ErrorMessage(err), tt.msg)
			}
		})
	}
	// Truncated markup is still HTML: what is there is read.
	doc, err := Parse(context.Background(), []byte("<html><body><h1>Cut</h1><p>half a sen"))
	if err != nil || doc.Markdown() != "# Cut\n\nhalf a sen" {
		t.Errorf("truncated page: got %v, %v", doc, err)
	}
}
