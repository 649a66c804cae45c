package chunk

import (
	"strings"
	"testing"

	"github.com/sanadhq/sanad/document"
)

func split(doc *document.Document, opt Options) ([]Chunk, string) {
	md, spans := doc.MarkdownSpans()
	return Split(doc, md, spans, "v1", opt), md
}

func TestHeadingsStartChunksAndNameThem(t *testing.T) {
	doc := &document.Document{Blocks: []document.Block{
		{Kind: document.Header, Level: 1, Text: "Annual report", Page: 1},
		{Kind: document.Header, Level: 2, Text: "Revenue", Page: 1},
		{Kind: document.Text, Text: "Revenue was £11.9m.", Page: 1},
		{Kind: document.Header, Level: 2, Text: "Costs", Page: 2},
		{Kind: document.Text, Text: "Costs rose.", Page: 2},
	}}
	chunks, md := split(doc, Options{})
	if len(chunks) != 2 {
		t.Fatalf("got %d chunks, want 2: %+v", len(chunks), chunks)
	}
	want := []struct {
		content  string
		headings string
		page     int
	}{
		{"# Annual report\n\n## Revenue\n\nRevenue was £11.9m.", "Annual report/Revenue", 1},
		{"## Costs\n\nCosts rose.", "Annual report/Costs", 2},
	}
	for i, w := range want {
		c := chunks[i]
		if c.Content != w.content || strings.Join(c.Headings, "/") != w.headings || c.Page != w.page {
			t.Errorf("chunk %d: got %q under %q on page %d, want %q under %q on page %d", i, c.Content, c.Headings, c.Page, w.content, w.headings, w.page)
		}
		if md[c.Start:c.End] != c.Content {
			t.Errorf("chunk %d: Markdown bytes [%d,%d) are %q, not its content", i, c.Start, c.End, md[c.Start:c.End])
		}
		if c.Index != i || !strings.HasPrefix(c.ID, "ck_") {
			t.Errorf("chunk %d: index %d id %q", i, c.Index, c.ID)
		}
	}
}

func TestTableKeptWholeWithItsHeader(t *testing.T) {
	rows := [][]document.Cell{{{Text: "Year"}, {Text: "Revenue"}}}
	for y := 2000; y < 2100; y++ {
		rows = append(rows, []document.Cell{{Text: strings.Repeat("x", 3) + string(rune('0'+y%10))}, {Text: "1,000"}})
	}
	doc := &document.Document{Blocks: []document.Block{
		{Kind: document.Text, Text: "Before."},
		{Kind: document.Table, Table: &document.TableData{Rows: rows, HeaderRows: 1}},
		{Kind: document.Text, Text: "After."},
	}}
	chunks, _ := split(doc, Options{Size: 400})
	var tables int
	for _, c := range chunks {
		if c.LayoutType != "table" {
			continue
		}
		tables++
		if !strings.HasPrefix(c.Content, "| Year | Revenue |\n| - | - |\n") {
			t.Errorf("table piece without its header: %q", c.Content[:min(60, len(c.Content))])
		}
		if len(c.Content) > 400 {
			t.Errorf("table piece of %d bytes, over the size 400", len(c.Content))
		}
	}
	if tables < 2 {
		t.Fatalf("a table of 100 rows in chunks of 400 bytes: got %d pieces", tables)
	}
	if chunks[0].Content != "Before." || chunks[len(chunks)-1].Content != "After." {
		t.Errorf("text around the table: %q ... %q", chunks[0].Content, chunks[len(chunks)-1].Content)
	}
}

func TestSpanningTableIsHTML(t *testing.T) {
	doc := &document.Document{Blocks: []document.Block{{Kind: document.Table, Table: &document.TableData{HeaderRows: 1, Rows: [][]document.Cell{
		{{Text: "Region", RowSpan: 2}, {Text: "Revenue", ColSpan: 2}},
		{{Text: "2023"}, {Text: "2024"}},
		{{Text: "EU"}, {Text: "10"}, {Text: "12"}},
	}}}}}
	chunks, _ := split(doc, Options{})
	if len(chunks) != 1 || !strings.Contains(chunks[0].Content, `rowspan="2"`) {
		t.Fatalf("got %+v, want one HTML table keeping its spans", chunks)
	}
}

func TestLongTextCutBetweenSentencesWithOverlap(t *testing.T) {
	var sb strings.Builder
	for i := range 60 {
		sb.WriteString("Sentence number ")
		sb.WriteString(strings.Repeat("é", i%5))
		sb.WriteString(" says something. ")
	}
	text := strings.TrimSpace(sb.String())
	doc := &document.Document{Blocks: []document.Block{{Kind: document.Text, Text: text}}}
	chunks, md := split(doc, Options{Size: 200, Overlap: 50})
	if len(chunks) < 5 {
		t.Fatalf("got %d chunks of a %d-byte text cut at 200", len(chunks), len(text))
	}
	covered := 0
	for i, c := range chunks {
		if md[c.Start:c.End] != c.Content {
			t.Fatalf("chunk %d is not the bytes it names", i)
		}
		if len(c.Content) > 200 {
			t.Errorf("chunk %d has %d bytes", i, len(c.Content))
		}
		if i > 0 && c.Start >= chunks[i-1].End {
			t.Errorf("chunk %d starts at %d, after the previous ended (%d): no overlap", i, c.Start, chunks[i-1].End)
		}
		if i < len(chunks)-1 && !strings.HasSuffix(strings.TrimSpace(c.Content), ".") {
			t.Errorf("chunk %d ends mid-sentence: %q", i, c.Content[max(0, len(c.Content)-30):])
		}
		covered = max(covered, c.End)
	}
	if covered != len(md) {
		t.Errorf("chunks cover %d of %d bytes", covered, len(md))
	}
}

func TestIDsStableAndContentDerived(t *testing.T) {
	doc := &document.Document{Blocks: []document.Block{{Kind: document.Text, Text: "One."}, {Kind: document.Header, Level: 1, Text: "Two"}, {Kind: document.Text, Text: "Three."}}}
	a, _ := split(doc, Options{})
	b, _ := split(doc, Options{})
	for i := range a {
		if a[i].ID != b[i].ID {
			t.Fatalf("chunk %d: ids differ between two splits of one document", i)
		}
	}
	doc.Blocks[2].Text = "Three, changed."
	c, _ := split(doc, Options{})
	if c[0].ID != a[0].ID || c[1].ID == a[1].ID {
		t.Errorf("after changing the second section: first id kept %v, second id changed %v", c[0].ID == a[0].ID, c[1].ID != a[1].ID)
	}
}

// FuzzSplit checks Split's invariants on arbitrary documents: no panic,
// chunks in order within the Markdown, none empty or (but for one sentence
// or row) over the size.
func FuzzSplit(f *testing.F) {
	f.Add("# T\n\npara one. para two.\n- item\n|a|b|", 80)
	f.Add(strings.Repeat("word ", 500), 100)
	f.Fuzz(func(t *testing.T, text string, size int) {
		size = 20 + abs(size)%2000
		var blocks []document.Block
		for _, line := range strings.Split(text, "\n") {
			switch {
			case strings.HasPrefix(line, "#"):
				blocks = append(blocks, document.Block{Kind: document.Header, Level: len(line) - len(strings.TrimLeft(line, "#")), Text: strings.TrimLeft(line, "# ")})
			case strings.HasPrefix(line, "- "):
				blocks = append(blocks, document.Block{Kind: document.List, Text: line[2:]})
			case strings.HasPrefix(line, "|"):
				var row []document.Cell
				for _, c := range strings.Split(line, "|") {
					row = append(row, document.Cell{Text: c, ColSpan: len(c) % 3})
				}
				blocks = append(blocks, document.Block{Kind: document.Table, Table: &document.TableData{Rows: [][]document.Cell{row, row, row}}})
			default:
				blocks = append(blocks, document.Block{Kind: document.Text, Text: line})
			}
		}
		doc := &document.Document{Blocks: blocks}
		md, spans := doc.MarkdownSpans()
		chunks := Split(doc, md, spans, "k", Options{Size: size})
		for i, c := range chunks {
			if c.Start < 0 || c.End > len(md) || c.Start > c.End {
				t.Fatalf("chunk %d: span [%d,%d) outside %d bytes", i, c.Start, c.End, len(md))
			}
			if strings.TrimSpace(c.Content) == "" {
				t.Fatalf("chunk %d is empty", i)
			}
			if i > 0 && c.Start < chunks[i-1].Start {
				t.Fatalf("chunk %d starts before chunk %d", i, i-1)
			}
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
