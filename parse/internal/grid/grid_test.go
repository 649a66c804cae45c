package grid

import (
	"strings"
	"testing"
)

func TestBuilder(t *testing.T) {
	var b Builder
	b.HeaderRows = 1
	b.Add(0, 0, 2, 1, "Region") // covers (1,0)
	b.Add(0, 1, 1, 2, "Revenue")
	b.Add(1, b.NextFree(1, 0), 1, 1, "2023")
	if got := b.NextFree(1, 0); got != 2 {
		t.Errorf("NextFree: got %d, want 2", got)
	}
	b.Add(1, 2, 1, 1, "2024")
	b.Add(2, 0, 1, 1, "EU")
	if !b.ExtendDown(3, 0) {
		t.Error("ExtendDown: got false for a cell ending on the row above")
	}
	if b.ExtendDown(3, 1) {
		t.Error("ExtendDown: got true for an empty position above")
	}
	if b.Add(0, 2, 1, 1, "x") {
		t.Error("Add: placed a cell on a covered position")
	}
	tbl := b.Table()
	want := [][]string{{"Region", "Revenue", ""}, {"", "2023", "2024"}, {"EU", "", ""}, {"", "", ""}}
	g := tbl.Grid()
	if len(g) != len(want) {
		t.Fatalf("got %d rows %q, want %d", len(g), g, len(want))
	}
	for r := range want {
		if strings.Join(g[r], "|") != strings.Join(want[r], "|") {
			t.Errorf("row %d: got %q, want %q", r, g[r], want[r])
		}
	}
	if tbl.Rows[2][0].RowSpan != 2 || tbl.HeaderRows != 1 {
		t.Errorf("EU: got %+v, header rows %d", tbl.Rows[2][0], tbl.HeaderRows)
	}
}

func TestBuilderBound(t *testing.T) {
	b := Builder{MaxCells: 100}
	b.Add(0, 0, 1e9, 1e9, "huge")
	b.Add(0, 50, 1, 1, "far")
	if !b.Truncated() {
		t.Error("Truncated: got false after a span past the bound")
	}
	tbl := b.Table()
	cells := 0
	for _, r := range tbl.Grid() {
		cells += len(r)
	}
	if cells > 100 {
		t.Errorf("grid has %d positions, bound 100", cells)
	}
	if (&Builder{}).Table() != nil {
		t.Error("an empty builder made a table")
	}
}
