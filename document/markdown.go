package document

import (
	"html"
	"strconv"
	"strings"
)

// Markdown renders the document: blocks in order, separated by blank lines,
// consecutive list items kept together.
func (d *Document) Markdown() string {
	md, _ := d.MarkdownSpans()
	return md
}

// Span is a range [Start, End) of bytes.
type Span struct{ Start, End int }

// MarkdownSpans renders the document as Markdown does and returns, for each
// block, the bytes of the Markdown it became: spans[i] is Blocks[i]'s.
func (d *Document) MarkdownSpans() (string, []Span) {
	var b strings.Builder
	spans := make([]Span, len(d.Blocks))
	for i, blk := range d.Blocks {
		if i > 0 {
			if blk.Kind == List && d.Blocks[i-1].Kind == List {
				b.WriteByte('\n')
			} else {
				b.WriteString("\n\n")
			}
		}
		start := b.Len()
		b.WriteString(blk.Markdown())
		spans[i] = Span{start, b.Len()}
	}
	return b.String(), spans
}

// Markdown renders one block. A table is a pipe table; a cell spanning
// several rows or columns repeats its text in each position it covers (the
// structure is kept by HTML, see TableData.HTML).
func (b Block) Markdown() string {
	switch b.Kind {
	case Header:
		return strings.Repeat("#", min(max(b.Level, 1), 6)) + " " + oneLine(b.Text)
	case List:
		marker := "- "
		switch {
		case numberMarker(b.Marker):
			marker = b.Marker + " "
		case b.Marker != "":
			marker = "- " + oneLine(b.Marker) + " "
		case b.Ordered:
			marker = "1. "
		}
		return strings.Repeat("    ", max(b.Level, 0)) + marker + oneLine(b.Text)
	case Code:
		fence := "```"
		for strings.Contains(b.Text, fence) {
			fence += "`"
		}
		return fence + "\n" + b.Text + "\n" + fence
	case Image:
		// The caption comes first, as docling writes it.
		if b.Text == "" {
			return "<!-- image -->"
		}
		return b.Text + "\n<!-- image -->"
	case Table:
		if b.Table == nil {
			return ""
		}
		return b.Table.Markdown()
	}
	return b.Text
}

// Markdown renders the table as a pipe table, its first row as the header.
// Spanning cells repeat their text in each position they cover.
func (t *TableData) Markdown() string {
	grid := t.filledGrid()
	if len(grid) == 0 {
		return ""
	}
	var b strings.Builder
	if t.Caption != "" {
		b.WriteString(oneLine(t.Caption))
		b.WriteString("\n\n")
	}
	for r, row := range grid {
		b.WriteString("|")
		for _, cell := range row {
			b.WriteString(" ")
			b.WriteString(escapeCell(cell))
			b.WriteString(" |")
		}
		if r == 0 {
			b.WriteString("\n|")
			for range row {
				b.WriteString(" - |")
			}
		}
		if r < len(grid)-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// filledGrid is Grid with each spanning cell's text in every position it
// covers.
func (t *TableData) filledGrid() [][]string {
	type pos struct{ r, c int }
	grid := t.Grid()
	covered := map[pos]bool{}
	for r, row := range t.Rows {
		c := 0
		for _, cell := range row {
			for covered[pos{r, c}] {
				c++
			}
			rs, cs := max(cell.RowSpan, 1), max(cell.ColSpan, 1)
			for i := range rs {
				for j := range cs {
					covered[pos{r + i, c + j}] = true
					if r+i < len(grid) && c+j < len(grid[r+i]) {
						grid[r+i][c+j] = cell.Text
					}
				}
			}
			c += cs
		}
	}
	return grid
}

// HTML renders the table as an HTML table that keeps row and column spans.
func (t *TableData) HTML() string {
	var b strings.Builder
	b.WriteString("<table>")
	if t.Caption != "" {
		b.WriteString("<caption>" + html.EscapeString(t.Caption) + "</caption>")
	}
	for r, row := range t.Rows {
		tag := "td"
		if r < t.HeaderRows {
			tag = "th"
		}
		b.WriteString("<tr>")
		for _, c := range row {
			b.WriteString("<" + tag)
			if c.RowSpan > 1 {
				b.WriteString(` rowspan="` + strconv.Itoa(c.RowSpan) + `"`)
			}
			if c.ColSpan > 1 {
				b.WriteString(` colspan="` + strconv.Itoa(c.ColSpan) + `"`)
			}
			b.WriteString(">" + html.EscapeString(c.Text) + "</" + tag + ">")
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</table>")
	return b.String()
}

// numberMarker reports whether m is a Markdown ordered-list marker: up to
// nine digits and a period or parenthesis ("42.", "3)"). Other markers
// ("1.2.", "(a)") are written after a bullet so that they read as they do in
// the document.
func numberMarker(m string) bool {
	if len(m) < 2 || len(m) > 10 || (m[len(m)-1] != '.' && m[len(m)-1] != ')') {
		return false
	}
	for i := 0; i < len(m)-1; i++ {
		if m[i] < '0' || m[i] > '9' {
			return false
		}
	}
	return true
}

// oneLine joins a text's lines with spaces.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// escapeCell makes text safe inside a pipe-table cell.
func escapeCell(s string) string {
	return strings.ReplaceAll(oneLine(s), "|", `\|`)
}
