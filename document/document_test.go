package document

import (
	"strings"
	"testing"
)

func TestGridAddressesSpanningCells(t *testing.T) {
	tbl := &TableData{HeaderRows: 1, Rows: [][]Cell{
		{{Text: "Region", RowSpan: 2}, {Text: "Revenue", ColSpan: 2}},
		{{Text: "2023"}, {Text: "2024"}},
		{{Text: "EU"}, {Text: "10"}, {Text: "12"}},
	}}
	grid := tbl.Grid()
	want := [][]string{{"Region", "Revenue", ""}, {"", "2023", "2024"}, {"EU", "10", "12"}}
	if len(grid) != len(want) {
		t.Fatalf("grid rows: got %d, want %d", len(grid), len(want))
	}
	for r := range want {
		if strings.Join(grid[r], ",") != strings.Join(want[r], ",") {
			t.Errorf("row %d: got %q, want %q", r, grid[r], want[r])
		}
	}
	if !tbl.Spans() {
		t.Error("Spans: got false for a table with spans")
	}
	md := tbl.Markdown()
	if !strings.HasPrefix(md, "| Region | Revenue | Revenue |\n| - | - | - |\n| Region | 2023 | 2024 |") {
		t.Errorf("Markdown:\n%s", md)
	}
	h := tbl.HTML()
	if !strings.Contains(h, `<th rowspan="2">Region</th><th colspan="2">Revenue</th>`) {
		t.Errorf("HTML: %s", h)
	}
}

func TestMarkdownOfBlocks(t *testing.T) {
	d := &Document{Blocks: []Block{
		{Kind: Header, Level: 2, Text: "Terms"},
		{Kind: Text, Text: "The fee is due."},
		{Kind: List, Text: "first"},
		{Kind: List, Level: 1, Ordered: true, Text: "nested | piped"},
		{Kind: Table, Table: &TableData{Rows: [][]Cell{{{Text: "a|b"}, {Text: "c"}}, {{Text: "1"}, {Text: "2"}}}}},
		{Kind: Code, Text: "x := 1"},
		{Kind: Image},
	}}
	want := "## Terms\n\nThe fee is due.\n\n- first\n    1. nested | piped\n\n| a\\|b | c |\n| - | - |\n| 1 | 2 |\n\n```\nx := 1\n```\n\n<!-- image -->"
	if got := d.Markdown(); got != want {
		t.Errorf("Markdown:\n%s\nwant:\n%s", got, want)
	}
	marked := &Document{Blocks: []Block{
		{Kind: List, Ordered: true, Marker: "42.", Text: "resumed"},
		{Kind: List, Level: 1, Ordered: true, Marker: "4.2.", Text: "clause"},
		{Kind: List, Level: 1, Ordered: true, Marker: "(a)", Text: "limb"},
	}}
	if got, want := marked.Markdown(), "42. resumed\n    - 4.2. clause\n    - (a) limb"; got != want {
		t.Errorf("Markdown of markers:\n%s\nwant:\n%s", got, want)
	}
	if Code.LayoutType() != "text" || Header.LayoutType() != "header" || List.LayoutType() != "text" {
		t.Error("LayoutType: list and code must be text, header header")
	}
}

func TestMarkdownSpansCoverEachBlock(t *testing.T) {
	d := &Document{Blocks: []Block{
		{Kind: Header, Level: 1, Text: "Title"},
		{Kind: List, Text: "a"},
		{Kind: List, Text: "b"},
		{Kind: Text, Text: "End."},
	}}
	md, spans := d.MarkdownSpans()
	for i, blk := range d.Blocks {
		if got := md[spans[i].Start:spans[i].End]; got != blk.Markdown() {
			t.Errorf("block %d: span gives %q, want %q", i, got, blk.Markdown())
		}
	}
}
