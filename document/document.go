// Package document is the structured form every parser produces: a
// document as an ordered list of blocks (headings, paragraphs, list items,
// tables, images), each with where it came from (page and box), rendered to
// Markdown by one function so that every format reads the same way.
//
// Parsers live in the parse packages; chunking reads blocks, not Markdown,
// so that a table is never split from its header row and a citation can be
// traced to the page and box it came from.
package document

// Kind is what a block is. The first four are the layout types of seed 004's
// ParsedChunk; List and Code are text whose Markdown needs its own form.
type Kind string

// Block kinds.
const (
	Text   Kind = "text"   // a paragraph
	Header Kind = "header" // a heading; Level says which
	Table  Kind = "table"  // Table holds the cells
	Image  Kind = "image"  // a figure; Text holds its caption or alt text
	List   Kind = "list"   // one list item; Level is its depth from 0
	Code   Kind = "code"   // preformatted text
)

// LayoutType is the seed's layout_type of a block: text, table, image or
// header (list items and code are text).
func (k Kind) LayoutType() string {
	switch k {
	case Header, Table, Image:
		return string(k)
	}
	return string(Text)
}

// Block is one element of a document, in reading order.
type Block struct {
	Kind Kind `json:"kind"`
	// Text is the block's text: a heading's words, a paragraph, a list
	// item without its marker, an image's caption. Empty for a table.
	Text string `json:"text,omitempty"`
	// Level is a heading's level (1 for a title) or a list item's depth
	// (0 at the top).
	Level int `json:"level,omitempty"`
	// Ordered marks an item of a numbered list.
	Ordered bool `json:"ordered,omitempty"`
	// Marker is a list item's number as the document shows it ("3.",
	// "1.2.", "(a)"), when the format numbers its items; empty for bullets
	// and for items a reader numbers by position. Clause numbers are what
	// legal text is cited by, so they are kept rather than re-counted.
	Marker string `json:"marker,omitempty"`
	// Table holds a table's cells.
	Table *TableData `json:"table,omitempty"`
	// Page is the 1-based page (or slide, or sheet) the block is on; 0 when
	// the format has no pages.
	Page int `json:"page,omitempty"`
	// BBox is [x1, y1, x2, y2] on the page, in points from the top left,
	// when the format places blocks on a page.
	BBox []float64 `json:"bbox,omitempty"`
	// Source says how the text was obtained when it was not read from the
	// file's text: "ocr" for text recognised from an image of the page.
	Source string `json:"source,omitempty"`
}

// TableData is a table as a grid of cells. A cell spanning several rows or
// columns appears once, at its top-left position, with its spans; the
// positions it covers hold no cell of their own.
type TableData struct {
	Rows [][]Cell `json:"rows"`
	// HeaderRows is how many rows at the top are headers.
	HeaderRows int `json:"header_rows,omitempty"`
	// Caption is the table's caption, when it has one.
	Caption string `json:"caption,omitempty"`
}

// Cell is one cell of a table.
type Cell struct {
	Text    string `json:"text"`
	RowSpan int    `json:"row_span,omitempty"` // 0 or 1: one row
	ColSpan int    `json:"col_span,omitempty"` // 0 or 1: one column
}

// Spans reports whether any cell spans more than one row or column.
func (t *TableData) Spans() bool {
	for _, row := range t.Rows {
		for _, c := range row {
			if c.RowSpan > 1 || c.ColSpan > 1 {
				return true
			}
		}
	}
	return false
}

// Grid returns the table as a rectangular grid of texts: a spanning cell's
// text at its top-left position and empty strings at the others, so that
// every cell is addressable by row and column.
func (t *TableData) Grid() [][]string {
	type pos struct{ r, c int }
	covered := map[pos]bool{}
	var grid [][]string
	width := 0
	for r, row := range t.Rows {
		for len(grid) <= r {
			grid = append(grid, nil)
		}
		c := 0
		for _, cell := range row {
			for covered[pos{r, c}] {
				c++
			}
			rs, cs := max(cell.RowSpan, 1), max(cell.ColSpan, 1)
			for i := range rs {
				for j := range cs {
					covered[pos{r + i, c + j}] = true
				}
			}
			for len(grid) < r+rs {
				grid = append(grid, nil)
			}
			set(&grid[r], c, cell.Text)
			width = max(width, c+cs)
			c += cs
		}
	}
	for r := range grid {
		for len(grid[r]) < width {
			grid[r] = append(grid[r], "")
		}
	}
	return grid
}

func set(row *[]string, c int, text string) {
	for len(*row) <= c {
		*row = append(*row, "")
	}
	(*row)[c] = text
}

// Document is a parsed document.
type Document struct {
	// Format is the format it was parsed as: pdf, html, docx, pptx, xlsx,
	// txt, md, csv, json, vtt, srt.
	Format string `json:"format"`
	Title  string `json:"title,omitempty"`
	// Pages is the number of pages, slides or sheets; 1 for a format
	// without pages.
	Pages  int     `json:"pages"`
	Blocks []Block `json:"blocks"`
	// Metadata is what the file says of itself (author, dates, producer).
	Metadata map[string]any `json:"metadata,omitempty"`
	// Notes are what a reader should know of how it was read: pages that
	// needed OCR, OCR that was not available, content left out.
	Notes []Note `json:"notes,omitempty"`
}

// Note is a remark on how part of a document was read.
type Note struct {
	Page int    `json:"page,omitempty"`
	Code string `json:"code"` // e.g. "ocr_used", "ocr_unavailable", "truncated"
	Text string `json:"text"`
}
