package pdf

import (
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/sanadhq/sanad/document"
)

// Tables whose columns come from the text: a region's words are split into
// columns at the vertical gaps (nearly) no row crosses, and into rows by
// ruling lines or text rows.

// columnCuts returns the x positions between the columns of a table region,
// given its text rows (words left to right). A gap counts when at most one
// row in six crosses it (a header spanning columns, a long cell) and it is
// at least half a line high; in a region known to be a table (ruled), a
// narrower gap counts too when the next column's words start at the same x
// in two rows or more (a cell filled to its edge).
func columnCuts(rows [][]*word, ruled bool) []float64 {
	if len(rows) == 0 {
		return nil
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	var sizes []float64
	for _, r := range rows {
		for _, w := range r {
			lo, hi = min(lo, w.x0), max(hi, w.x1)
			sizes = append(sizes, w.size)
		}
	}
	if hi-lo <= 0 || hi-lo > 5000 {
		return nil
	}
	slices.Sort(sizes)
	size := max(sizes[len(sizes)/2], 1)
	const step = 0.5
	n := int((hi-lo)/step) + 1
	cover := make([]int, n)
	for _, r := range rows {
		// Each row covers its words' extents once, even where words
		// overlap.
		seen := make([]bool, n)
		for _, w := range r {
			a, b := int((w.x0-lo)/step), int((w.x1-lo)/step)
			for i := max(a, 0); i <= min(b, n-1); i++ {
				if !seen[i] {
					seen[i] = true
					cover[i]++
				}
			}
		}
	}
	allowed := len(rows) / 6
	var cuts []float64
	for i := 0; i < n; {
		if cover[i] > allowed {
			i++
			continue
		}
		j := i
		for j < n && cover[j] <= allowed {
			j++
		}
		a, b := lo+float64(i)*step, lo+float64(j)*step
		if i > 0 && j < n {
			w := b - a
			if w >= 0.5*size || ruled && w >= 0.25*size && alignedStarts(rows, b) >= 2 {
				cuts = append(cuts, (a+b)/2)
			}
		}
		i = j
	}
	return cuts
}

// alignedStarts counts the rows with a word starting at x.
func alignedStarts(rows [][]*word, x float64) int {
	n := 0
	for _, r := range rows {
		for _, w := range r {
			if math.Abs(w.x0-x) <= 1.5 {
				n++
				break
			}
		}
	}
	return n
}

// columnOf is the column of x given the cuts.
func columnOf(cuts []float64, x float64) int {
	return sort.SearchFloat64s(cuts, x)
}

// splitBand splits a band of text rows (the space between two ruling
// lines) into one table row per text row when it holds several rows of a
// table rather than one row of wrapped cells: four text rows or more, with
// two columns or more filled in at least 70% of them. Wrapped cells fill
// one column deeply and the others little.
func splitBand(rows [][]*word, cuts []float64) [][][]*word {
	if len(rows) < 4 {
		return [][][]*word{rows}
	}
	ncol := len(cuts) + 1
	filled := make([]int, ncol)
	for _, r := range rows {
		seen := make([]bool, ncol)
		for _, w := range r {
			c := columnOf(cuts, w.cx())
			if !seen[c] {
				seen[c] = true
				filled[c]++
			}
		}
	}
	dense := 0
	for _, f := range filled {
		if f*10 >= len(rows)*7 {
			dense++
		}
	}
	if dense < 2 {
		return [][][]*word{rows}
	}
	out := make([][][]*word, len(rows))
	for i, r := range rows {
		out[i] = [][]*word{r}
	}
	return out
}

// fillGrid makes a table of bands (each a table row's text rows) and column
// cuts. A word crossing cuts starts a cell spanning the columns it covers
// when those are otherwise empty in its row.
func fillGrid(bands [][][]*word, cuts []float64) *document.TableData {
	ncol := len(cuts) + 1
	data := &document.TableData{}
	for _, band := range bands {
		cells := make([][]*word, ncol)
		spanTo := make([]int, ncol)
		for c := range spanTo {
			spanTo[c] = c
		}
		for _, r := range band {
			for _, w := range r {
				c0 := columnOf(cuts, w.x0+0.25*min(w.size, w.w()))
				c1 := columnOf(cuts, w.x1-0.25*min(w.size, w.w()))
				c1 = max(c1, c0)
				cells[c0] = append(cells[c0], w)
				spanTo[c0] = max(spanTo[c0], c1)
			}
		}
		var row []document.Cell
		for c := 0; c < ncol; c++ {
			cell := document.Cell{Text: cellText(cells[c])}
			end := spanTo[c]
			for k := c + 1; k <= end; k++ {
				if len(cells[k]) > 0 {
					end = k - 1
					break
				}
			}
			if end > c && len(cells[c]) > 0 {
				cell.ColSpan = end - c + 1
				row = append(row, cell)
				c = end
				continue
			}
			row = append(row, cell)
		}
		data.Rows = append(data.Rows, row)
	}
	return data
}

// prose reports whether a table's cells hold running text rather than
// data: many words per cell on average.
func prose(data *document.TableData, limit float64) bool {
	words, cells := 0, 0
	for _, r := range data.Rows {
		for _, c := range r {
			if c.Text != "" {
				cells++
				words += len(strings.Fields(c.Text))
			}
		}
	}
	return cells == 0 || float64(words) > limit*float64(cells)
}

// ruledTables finds tables ruled with horizontal lines only (rules between
// rows, or only above and below the header and at the bottom): three or
// more horizontal lines of the same extent, one above the other. The rows
// are the bands between the lines (split further when a band holds several
// aligned text rows); the columns come from the text. The text row just
// above the first line, if close, is the header.
func ruledTables(rules []rule, words []*word, pageHeight float64) []*tableGrid {
	var hs []rule
	for _, r := range mergeCollinearCopy(rules) {
		if r.horizontal && r.to-r.from > 30 {
			hs = append(hs, r)
		}
	}
	// Families: lines of the same extent.
	sort.Slice(hs, func(i, j int) bool { return hs[i].pos < hs[j].pos })
	used := make([]bool, len(hs))
	var tables []*tableGrid
	for i := range hs {
		if used[i] {
			continue
		}
		fam := []rule{hs[i]}
		used[i] = true
		for j := i + 1; j < len(hs); j++ {
			if used[j] || math.Abs(hs[j].from-hs[i].from) > 4 || math.Abs(hs[j].to-hs[i].to) > 4 {
				continue
			}
			if hs[j].pos-fam[len(fam)-1].pos > 0.3*pageHeight {
				break
			}
			fam = append(fam, hs[j])
			used[j] = true
		}
		if len(fam) < 3 {
			continue
		}
		if t := ruledTable(fam, words); t != nil {
			tables = append(tables, t)
		}
	}
	return tables
}

func mergeCollinearCopy(rules []rule) []rule {
	var hs []rule
	for _, r := range rules {
		if r.horizontal {
			hs = append(hs, r)
		}
	}
	return mergeCollinear(hs)
}

func ruledTable(fam []rule, words []*word) *tableGrid {
	x0, x1 := fam[0].from, fam[0].to
	for _, r := range fam {
		x0, x1 = min(x0, r.from), max(x1, r.to)
	}
	top, bottom := fam[0].pos, fam[len(fam)-1].pos
	var inside []*word
	for _, w := range words {
		if w.inTable || w.vertical {
			continue
		}
		if w.cx() >= x0-2 && w.cx() <= x1+2 && w.cy() > top && w.cy() < bottom {
			inside = append(inside, w)
		}
	}
	if len(inside) < 3 {
		return nil
	}
	size := medianWordSize(inside)
	// The header: text rows just above the first line, within its extent.
	var above []*word
	for _, w := range words {
		if w.inTable || w.vertical || w.cx() < x0-2 || w.cx() > x1+2 || w.y1 > top+1 || w.y1 < top-3*size {
			continue
		}
		above = append(above, w)
	}
	headerTop := top
	if len(above) > 0 {
		rows := buildRows(above)
		last := rows[len(rows)-1] // the row nearest the line
		headerTop = math.Inf(1)
		for _, w := range last {
			headerTop = min(headerTop, w.y0)
		}
		for _, w := range above {
			if w.y0 >= headerTop-1 {
				inside = append(inside, w)
			}
		}
	}
	rows := buildRows(inside)
	cuts := columnCuts(rows, true)
	if len(cuts) == 0 {
		return nil
	}
	ys := []float64{headerTop}
	for _, r := range fam {
		if r.pos > headerTop+1 {
			ys = append(ys, r.pos)
		}
	}
	var bands [][][]*word
	for b := 0; b+1 < len(ys); b++ {
		var band [][]*word
		for _, r := range rows {
			if cy := r[0].cy(); cy > ys[b] && cy < ys[b+1] {
				band = append(band, r)
			}
		}
		if len(band) == 0 {
			continue
		}
		bands = append(bands, splitBand(band, cuts)...)
	}
	if len(bands) < 2 {
		return nil
	}
	data := fillGrid(bands, cuts)
	if prose(data, 8) {
		return nil
	}
	box := rect{x0, headerTop, x1, bottom}
	for _, w := range inside {
		w.inTable = true
	}
	return &tableGrid{rect: box, data: data}
}

func medianWordSize(ws []*word) float64 {
	if len(ws) == 0 {
		return 10
	}
	s := make([]float64, len(ws))
	for i, w := range ws {
		s[i] = w.size
	}
	slices.Sort(s)
	return s[len(s)/2]
}
