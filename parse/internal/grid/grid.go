// Package grid builds a [document.TableData] from cells placed on a grid,
// the way table formats describe them: a cell at a row and column that may
// span several of each (HTML rowspan and colspan, Word's gridSpan and
// vMerge, PowerPoint's rowSpan, a spreadsheet's merged range).
//
// A Builder bounds the grid it holds: a span that would push the grid past
// MaxCells positions is cut, so no input makes it allocate without limit.
package grid

import "github.com/sanadhq/sanad/document"

// DefaultMaxCells is the default bound on a table's positions (rows times
// columns).
const DefaultMaxCells = 1 << 20

// Builder collects cells. The zero value is ready to use with
// DefaultMaxCells. It is not safe for concurrent use.
type Builder struct {
	// MaxCells bounds rows times columns; 0 means DefaultMaxCells.
	MaxCells int
	// HeaderRows is copied to the table.
	HeaderRows int

	rows  [][]int // rows[r][c]: 0 empty, k>0 owner is cells[k-1]
	cells []placed
	width int
	cut   bool
}

type placed struct {
	r, c, rs, cs int
	text         string
}

func (b *Builder) limit() int {
	if b.MaxCells > 0 {
		return b.MaxCells
	}
	return DefaultMaxCells
}

// Truncated reports whether a cell or span was cut to keep the grid within
// its bound.
func (b *Builder) Truncated() bool { return b.cut }

// Rows is the number of rows the grid has so far.
func (b *Builder) Rows() int { return len(b.rows) }

// free reports whether position r, c holds no cell.
func (b *Builder) free(r, c int) bool {
	return r >= len(b.rows) || c >= len(b.rows[r]) || b.rows[r][c] == 0
}

// NextFree returns the first column at or after c in row r that no cell
// covers: where the next cell of an HTML row goes.
func (b *Builder) NextFree(r, c int) int {
	for !b.free(r, c) {
		c++
	}
	return c
}

// fits reports whether a grid of rows×cols stays within the bound.
func (b *Builder) fits(rows, cols int) bool {
	return rows > 0 && cols > 0 && rows <= b.limit()/cols
}

// Add places a cell with its top-left corner at r, c. Spans below 1 count
// as 1; a span that would overlap another cell or grow the grid past its
// bound is shortened. Add reports false, and places nothing, when r, c is
// already covered or outside the bound.
func (b *Builder) Add(r, c, rowSpan, colSpan int, text string) bool {
	if r < 0 || c < 0 || !b.free(r, c) {
		return false
	}
	rowSpan, colSpan = max(rowSpan, 1), max(colSpan, 1)
	if !b.fits(r+1, max(b.width, c+1)) {
		b.cut = true
		return false
	}
	// Shorten the spans to what is free and within the bound.
	cs := 1
	for cs < colSpan && b.free(r, c+cs) && b.fits(max(len(b.rows), r+1), max(b.width, c+cs+1)) {
		cs++
	}
	rs := 1
	for rs < rowSpan && b.fits(max(len(b.rows), r+rs+1), max(b.width, c+cs)) && b.rowFree(r+rs, c, cs) {
		rs++
	}
	if cs < colSpan || rs < rowSpan {
		b.cut = b.cut || !b.fits(r+rowSpan, c+colSpan)
	}
	b.cells = append(b.cells, placed{r: r, c: c, rs: rs, cs: cs, text: text})
	b.mark(len(b.cells), r, c, rs, cs)
	return true
}

func (b *Builder) rowFree(r, c, cs int) bool {
	for j := range cs {
		if !b.free(r, c+j) {
			return false
		}
	}
	return true
}

func (b *Builder) mark(k, r, c, rs, cs int) {
	for len(b.rows) < r+rs {
		b.rows = append(b.rows, nil)
	}
	b.width = max(b.width, c+cs)
	for i := r; i < r+rs; i++ {
		for len(b.rows[i]) < c+cs {
			b.rows[i] = append(b.rows[i], 0)
		}
		for j := c; j < c+cs; j++ {
			b.rows[i][j] = k
		}
	}
}

// ExtendDown makes the cell covering r-1, c also cover row r (Word's vMerge
// continuation, a spreadsheet merge). It reports false when there is no
// such cell, its bottom is not row r-1, or the positions it would take in
// row r are not free.
func (b *Builder) ExtendDown(r, c int) bool {
	if r <= 0 || r-1 >= len(b.rows) || c >= len(b.rows[r-1]) || b.rows[r-1][c] == 0 {
		return false
	}
	k := b.rows[r-1][c]
	p := &b.cells[k-1]
	if p.r+p.rs != r || !b.rowFree(r, p.c, p.cs) || !b.fits(r+1, b.width) {
		return false
	}
	p.rs++
	b.mark(k, r, p.c, 1, p.cs)
	return true
}

// EnsureRow makes the grid at least r+1 rows tall, so that an empty row
// is kept.
func (b *Builder) EnsureRow(r int) {
	if r >= 0 && b.fits(r+1, max(b.width, 1)) {
		for len(b.rows) <= r {
			b.rows = append(b.rows, nil)
		}
	}
}

// Table returns the table: each cell once at its top-left position with
// its spans, and an empty cell at every position no cell covers, so that
// rows line up. It returns nil for a grid with no cells.
func (b *Builder) Table() *document.TableData {
	if len(b.cells) == 0 {
		return nil
	}
	t := &document.TableData{HeaderRows: min(b.HeaderRows, len(b.rows))}
	t.Rows = make([][]document.Cell, len(b.rows))
	for r, row := range b.rows {
		out := make([]document.Cell, 0, b.width)
		for c := 0; c < b.width; c++ {
			k := 0
			if c < len(row) {
				k = row[c]
			}
			switch {
			case k == 0:
				out = append(out, document.Cell{})
			case b.cells[k-1].r == r && b.cells[k-1].c == c:
				p := b.cells[k-1]
				cell := document.Cell{Text: p.text}
				if p.rs > 1 {
					cell.RowSpan = p.rs
				}
				if p.cs > 1 {
					cell.ColSpan = p.cs
				}
				out = append(out, cell)
			}
		}
		t.Rows[r] = out
	}
	return t
}
