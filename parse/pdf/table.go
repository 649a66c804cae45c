package pdf

import (
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/sanadhq/sanad/document"
)

// tableGrid is a detected table: its cells and where it is.
type tableGrid struct {
	rect
	data *document.TableData
}

// ruleTol is how far apart two ruling lines may be and still be one, and
// how far a line may stop short of another and still meet it.
const ruleTol = 2.0

// mergeRules joins collinear, touching ruling lines and splits them by
// direction.
func mergeRules(rules []rule) (hs, vs []rule) {
	for _, r := range rules {
		if r.to-r.from < 1 {
			continue
		}
		if r.horizontal {
			hs = append(hs, r)
		} else {
			vs = append(vs, r)
		}
	}
	return mergeCollinear(hs), mergeCollinear(vs)
}

func mergeCollinear(rs []rule) []rule {
	if len(rs) == 0 {
		return nil
	}
	sort.Slice(rs, func(i, j int) bool {
		if math.Abs(rs[i].pos-rs[j].pos) > 0.01 {
			return rs[i].pos < rs[j].pos
		}
		return rs[i].from < rs[j].from
	})
	// Cluster positions, then merge overlapping extents in each cluster.
	var out []rule
	for i := 0; i < len(rs); {
		j := i + 1
		for j < len(rs) && rs[j].pos-rs[j-1].pos <= 1.0 {
			j++
		}
		group := slices.Clone(rs[i:j])
		pos := 0.0
		for _, r := range group {
			pos += r.pos
		}
		pos /= float64(len(group))
		sort.Slice(group, func(a, b int) bool { return group[a].from < group[b].from })
		cur := group[0]
		cur.pos = pos
		for _, r := range group[1:] {
			if r.from <= cur.to+1.5 {
				cur.to = max(cur.to, r.to)
				continue
			}
			out = append(out, cur)
			cur = r
			cur.pos = pos
		}
		out = append(out, cur)
		i = j
	}
	return out
}

// meets reports whether horizontal h and vertical v cross or touch.
func meets(h, v rule) bool {
	return v.pos >= h.from-ruleTol && v.pos <= h.to+ruleTol && h.pos >= v.from-ruleTol && h.pos <= v.to+ruleTol
}

// latticeTables finds tables drawn with ruling lines: groups of horizontal
// and vertical lines that meet, their crossings making the grid. Cells the
// lines do not separate are merged into spanning cells.
func latticeTables(rules []rule, words []*word) []*tableGrid {
	hs, vs := mergeRules(rules)
	if len(hs) < 2 || len(vs) < 2 {
		return nil
	}
	n := len(hs) + len(vs)
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for i, h := range hs {
		for j, v := range vs {
			if meets(h, v) {
				parent[find(i)] = find(len(hs) + j)
			}
		}
	}
	groups := map[int][]int{}
	for i := range n {
		groups[find(i)] = append(groups[find(i)], i)
	}
	var tables []*tableGrid
	keys := make([]int, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		var gh, gv []rule
		for _, i := range groups[k] {
			if i < len(hs) {
				gh = append(gh, hs[i])
			} else {
				gv = append(gv, vs[i-len(hs)])
			}
		}
		if len(gh) < 2 || len(gv) < 2 {
			continue
		}
		if t := gridTable(gh, gv, words); t != nil {
			tables = append(tables, t)
		}
	}
	return tables
}

// cluster returns the distinct values of xs, those within tol merged.
func cluster(xs []float64, tol float64) []float64 {
	if len(xs) == 0 {
		return nil
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	var out []float64
	sum, cnt := s[0], 1.0
	for _, x := range s[1:] {
		if x-s[0] <= tol || x-sum/cnt <= tol {
			sum += x
			cnt++
			continue
		}
		out = append(out, sum/cnt)
		sum, cnt = x, 1
		s[0] = x
	}
	return append(out, sum/cnt)
}

// covered reports how much of [a, b] the lines at pos (within tol) cover.
func covered(rs []rule, pos, a, b float64) float64 {
	if b <= a {
		return 1
	}
	var iv [][2]float64
	for _, r := range rs {
		if math.Abs(r.pos-pos) <= ruleTol && r.to > a && r.from < b {
			iv = append(iv, [2]float64{max(r.from, a), min(r.to, b)})
		}
	}
	sort.Slice(iv, func(i, j int) bool { return iv[i][0] < iv[j][0] })
	total, end := 0.0, a
	for _, x := range iv {
		if x[1] <= end {
			continue
		}
		total += x[1] - max(x[0], end)
		end = x[1]
	}
	return total / (b - a)
}

// gridTable makes the table of one group of ruling lines that meet: the
// grid of their positions, cells the lines do not separate merged, words
// placed by their centres. It returns nil for a frame around text (fewer
// than two columns, or fewer than three cells with text).
func gridTable(hs, vs []rule, words []*word) *tableGrid {
	var hx, vx []float64
	left, right := math.Inf(1), math.Inf(-1)
	top, bottom := math.Inf(1), math.Inf(-1)
	for _, h := range hs {
		hx = append(hx, h.pos)
		left, right = min(left, h.from), max(right, h.to)
	}
	for _, v := range vs {
		vx = append(vx, v.pos)
		top, bottom = min(top, v.from), max(bottom, v.to)
	}
	xs := cluster(vx, ruleTol)
	ys := cluster(hx, ruleTol)
	// Lines reaching past the outermost crossings close the grid there (a
	// table with no outer frame on one side).
	if left < xs[0]-3*ruleTol {
		xs = append([]float64{left}, xs...)
	}
	if right > xs[len(xs)-1]+3*ruleTol {
		xs = append(xs, right)
	}
	if top < ys[0]-3*ruleTol {
		ys = append([]float64{top}, ys...)
	}
	if bottom > ys[len(ys)-1]+3*ruleTol {
		ys = append(ys, bottom)
	}
	nr, nc := len(ys)-1, len(xs)-1
	if nr < 1 || nc < 1 || nr*nc < 2 || nr > 500 || nc > 100 {
		return nil
	}
	box := rect{xs[0], ys[0], xs[nc], ys[nr]}
	if box.w() < 20 || box.h() < 8 {
		return nil
	}
	if extra := rowLines(xs, ys, box, words); extra != nil {
		hs, vs = append(hs, extra...), append(vs, extraVertical(extra, xs)...)
		hx = hx[:0]
		for _, h := range hs {
			hx = append(hx, h.pos)
		}
		ys = cluster(hx, ruleTol)
		if top < ys[0]-3*ruleTol {
			ys = append([]float64{top}, ys...)
		}
		if bottom > ys[len(ys)-1]+3*ruleTol {
			ys = append(ys, bottom)
		}
		nr = len(ys) - 1
		if nr > 500 {
			return nil
		}
	}
	// Cells no line separates are one.
	id := make([]int, nr*nc)
	for i := range id {
		id[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for id[i] != i {
			id[i] = id[id[i]]
			i = id[i]
		}
		return i
	}
	for r := range nr {
		for c := range nc {
			if c+1 < nc && covered(vs, xs[c+1], ys[r], ys[r+1]) < 0.5 {
				id[find(r*nc+c)] = find(r*nc + c + 1)
			}
			if r+1 < nr && covered(hs, ys[r+1], xs[c], xs[c+1]) < 0.5 {
				id[find(r*nc+c)] = find((r+1)*nc + c)
			}
		}
	}
	type span struct{ r0, c0, r1, c1 int }
	spans := map[int]*span{}
	for r := range nr {
		for c := range nc {
			k := find(r*nc + c)
			s, ok := spans[k]
			if !ok {
				spans[k] = &span{r, c, r, c}
				continue
			}
			s.r0, s.c0, s.r1, s.c1 = min(s.r0, r), min(s.c0, c), max(s.r1, r), max(s.c1, c)
		}
	}
	// A merged group that is not a rectangle is split back into cells.
	owner := make([]int, nr*nc)
	for r := range nr {
		for c := range nc {
			owner[r*nc+c] = find(r*nc + c)
		}
	}
	for k, s := range spans {
		rectangular := true
		for r := s.r0; r <= s.r1 && rectangular; r++ {
			for c := s.c0; c <= s.c1; c++ {
				if owner[r*nc+c] != k {
					rectangular = false
					break
				}
			}
		}
		if !rectangular {
			for r := s.r0; r <= s.r1; r++ {
				for c := s.c0; c <= s.c1; c++ {
					if owner[r*nc+c] == k {
						owner[r*nc+c] = -(r*nc + c) - 1
					}
				}
			}
		}
	}
	spanOf := func(r, c int) span {
		k := owner[r*nc+c]
		if k < 0 {
			return span{r, c, r, c}
		}
		return *spans[k]
	}
	// Words to cells, by their centres.
	cellWords := map[[2]int][]*word{}
	for _, w := range words {
		x, y := w.cx(), w.cy()
		if !box.contains(x, y) {
			continue
		}
		r := sort.SearchFloat64s(ys, y) - 1
		c := sort.SearchFloat64s(xs, x) - 1
		r, c = min(max(r, 0), nr-1), min(max(c, 0), nc-1)
		s := spanOf(r, c)
		cellWords[[2]int{s.r0, s.c0}] = append(cellWords[[2]int{s.r0, s.c0}], w)
	}
	// Fewer than three cells with text is a box or a drawing, not a table.
	if len(cellWords) < 3 {
		return nil
	}
	texts := map[[2]int]string{}
	for k, ws := range cellWords {
		texts[k] = cellText(ws)
	}
	// Rows and columns too thin to hold text (double rules) are dropped
	// when empty.
	keepRow := make([]bool, nr)
	keepCol := make([]bool, nc)
	for r := range nr {
		keepRow[r] = ys[r+1]-ys[r] > 4
	}
	for c := range nc {
		keepCol[c] = xs[c+1]-xs[c] > 4
	}
	for k := range texts {
		keepRow[k[0]], keepCol[k[1]] = true, true
	}
	// Rows and columns whose every cell is empty are dropped too.
	for r := range nr {
		empty := true
		for c := range nc {
			if s := spanOf(r, c); texts[[2]int{s.r0, s.c0}] != "" {
				empty = false
				break
			}
		}
		if empty {
			keepRow[r] = false
		}
	}
	for c := range nc {
		empty := true
		for r := range nr {
			if s := spanOf(r, c); texts[[2]int{s.r0, s.c0}] != "" {
				empty = false
				break
			}
		}
		if empty {
			keepCol[c] = false
		}
	}
	rowIdx := indexKept(keepRow)
	colIdx := indexKept(keepCol)
	nRows, nCols := count(keepRow), count(keepCol)
	// One column of text in a frame is a box, not a table.
	if nRows < 1 || nCols < 2 {
		return nil
	}
	data := &document.TableData{}
	for r := range nr {
		if !keepRow[r] {
			continue
		}
		var row []document.Cell
		for c := range nc {
			if !keepCol[c] {
				continue
			}
			s := spanOf(r, c)
			r0, r1 := firstKept(keepRow, s.r0, s.r1), lastKept(keepRow, s.r0, s.r1)
			c0, c1 := firstKept(keepCol, s.c0, s.c1), lastKept(keepCol, s.c0, s.c1)
			if r0 != r || c0 != c {
				continue // covered by a spanning cell listed at its top left
			}
			cell := document.Cell{Text: texts[[2]int{s.r0, s.c0}]}
			if n := rowIdx[r1] - rowIdx[r0] + 1; n > 1 {
				cell.RowSpan = n
			}
			if n := colIdx[c1] - colIdx[c0] + 1; n > 1 {
				cell.ColSpan = n
			}
			row = append(row, cell)
		}
		data.Rows = append(data.Rows, row)
	}
	// A few boxes of running text are a page's layout, not a table.
	if len(data.Rows) <= 3 && prose(data, 20) {
		return nil
	}
	for _, w := range words {
		if box.contains(w.cx(), w.cy()) {
			w.inTable = true
		}
	}
	return &tableGrid{rect: box, data: data}
}

// rowLines finds the bands of a ruled grid that hold several rows of
// the table (a table ruled around its header and frame only) and returns
// the horizontal lines that would separate those rows, halfway between
// them.
func rowLines(xs, ys []float64, box rect, words []*word) []rule {
	var extra []rule
	cuts := xs[1 : len(xs)-1]
	for r := 0; r+1 < len(ys); r++ {
		var in []*word
		for _, w := range words {
			if w.cx() > box.x0 && w.cx() < box.x1 && w.cy() > ys[r] && w.cy() < ys[r+1] && !w.vertical {
				in = append(in, w)
			}
		}
		rows := buildRows(in)
		if len(rows) < 2 || len(splitBand(rows, cuts)) < 2 {
			continue
		}
		for i := 1; i < len(rows); i++ {
			prevBottom, nextTop := math.Inf(-1), math.Inf(1)
			for _, w := range rows[i-1] {
				prevBottom = max(prevBottom, w.y1)
			}
			for _, w := range rows[i] {
				nextTop = min(nextTop, w.y0)
			}
			y := (prevBottom + nextTop) / 2
			extra = append(extra, rule{horizontal: true, pos: y, from: box.x0, to: box.x1})
		}
	}
	return extra
}

// extraVertical continues the grid's column lines through the rows that
// rowLines added, so that their cells stay apart.
func extraVertical(extra []rule, xs []float64) []rule {
	if len(extra) == 0 {
		return nil
	}
	lo, hi := extra[0].pos, extra[0].pos
	for _, e := range extra {
		lo, hi = min(lo, e.pos), max(hi, e.pos)
	}
	var out []rule
	for _, x := range xs {
		out = append(out, rule{horizontal: false, pos: x, from: lo - 50, to: hi + 50})
	}
	return out
}

func indexKept(keep []bool) []int {
	idx := make([]int, len(keep))
	n := 0
	for i, k := range keep {
		idx[i] = n
		if k {
			n++
		}
	}
	return idx
}

func count(keep []bool) int {
	n := 0
	for _, k := range keep {
		if k {
			n++
		}
	}
	return n
}

func firstKept(keep []bool, a, b int) int {
	for i := a; i <= b; i++ {
		if keep[i] {
			return i
		}
	}
	return a
}

func lastKept(keep []bool, a, b int) int {
	for i := b; i >= a; i-- {
		if keep[i] {
			return i
		}
	}
	return b
}

// cellText is the text of a cell's words: lines top to bottom, joined with
// spaces.
func cellText(ws []*word) string {
	var parts []string
	for _, row := range buildRows(ws) {
		parts = append(parts, newLine(row).text)
	}
	return joinLines(parts, false)
}

// streamTables finds tables without ruling lines: runs of close rows with
// several short cells each (a lone short line inside a run is a label row
// or a wrapped cell) whose text falls into the same columns.
func streamTables(lines []*line, pageWidth float64) []*tableGrid {
	var free []*line
	for _, l := range lines {
		if !l.used && len(l.words) > 0 && !l.words[0].vertical {
			free = append(free, l)
		}
	}
	rows := lineRows(free)
	var tables []*tableGrid
	for i := 0; i < len(rows); {
		if !tabularRow(rows[i], pageWidth) {
			i++
			continue
		}
		// Extend the run downwards while rows stay close and tabular (a
		// lone short line inside the run is a label row or a wrapped
		// cell).
		j := i + 1
		last := i
		for j < len(rows) {
			h := max(rowHeight(rows[j-1]), rowHeight(rows[j]))
			if rowTop(rows[j])-rowBottom(rows[j-1]) > 1.6*h {
				break
			}
			if tabularRow(rows[j], pageWidth) {
				last = j
			} else if !(len(rows[j]) == 1 && rows[j][0].w() < 0.3*pageWidth && len(rows[j][0].words) <= 6) {
				break
			}
			j++
		}
		run := rows[i : last+1]
		if ts := regionTables(run, pageWidth); len(ts) > 0 {
			tables = append(tables, ts...)
			i = last + 1
			continue
		}
		i++
	}
	return tables
}

// lineRows groups lines whose vertical extents overlap, top to bottom, each
// row left to right.
func lineRows(ls []*line) [][]*line {
	s := slices.Clone(ls)
	sort.SliceStable(s, func(i, j int) bool { return s[i].cy() < s[j].cy() })
	var rows [][]*line
	for _, l := range s {
		if n := len(rows); n > 0 {
			r := rows[n-1]
			band := r[0].rect
			for _, x := range r[1:] {
				band = band.union(x.rect)
			}
			if band.overlapY(l.rect) >= 0.5*min(l.h(), band.h()) {
				rows[n-1] = append(r, l)
				continue
			}
		}
		rows = append(rows, []*line{l})
	}
	for _, r := range rows {
		sort.SliceStable(r, func(i, j int) bool { return r[i].x0 < r[j].x0 })
	}
	return rows
}

func rowTop(r []*line) float64 {
	y := math.Inf(1)
	for _, l := range r {
		y = min(y, l.y0)
	}
	return y
}

func rowBottom(r []*line) float64 {
	y := math.Inf(-1)
	for _, l := range r {
		y = max(y, l.y1)
	}
	return y
}

func rowHeight(r []*line) float64 {
	h := 0.0
	for _, l := range r {
		h = max(h, l.h())
	}
	return h
}

// tabularRow reports whether a row looks like a table row: three or more
// cells, or two of which one is a number or both are short.
func tabularRow(r []*line, pageWidth float64) bool {
	if len(r) < 2 {
		return false
	}
	for _, l := range r {
		// Code set in a fixed-width font aligns like a table, and is not.
		if l.w() > 0.45*pageWidth || len(l.words) > 12 || l.mono {
			return false
		}
	}
	if len(r) >= 3 {
		return true
	}
	return numeric(r[0].text) || numeric(r[1].text) || r[0].w() < 0.25*pageWidth && r[1].w() < 0.25*pageWidth
}

// numeric reports whether s is mostly digits: an amount, a date, a count.
func numeric(s string) bool {
	d, other := 0, 0
	for _, r := range s {
		switch {
		case unicode.IsDigit(r):
			d++
		case unicode.IsLetter(r):
			other++
		}
	}
	return d > 0 && d >= other
}

// regionTables makes tables of a run of rows. A gap between columns much
// wider than the others (a fifth of the page, three times the next widest)
// parts two regions side by side (a table beside a page column of text, or
// two tables), each tried on its own. The lines of a table made are marked
// used.
func regionTables(run [][]*line, pageWidth float64) []*tableGrid {
	var ls []*line
	for _, r := range run {
		ls = append(ls, r...)
	}
	sort.Slice(ls, func(i, j int) bool { return ls[i].x0 < ls[j].x0 })
	// Gaps in the horizontal projection of the lines.
	type gap struct{ a, b float64 }
	var gaps []gap
	reach := ls[0].x1
	for _, l := range ls[1:] {
		if l.x0 > reach {
			gaps = append(gaps, gap{reach, l.x0})
		}
		reach = max(reach, l.x1)
	}
	if len(gaps) >= 1 {
		widest, second := -1, 0.0
		for i, g := range gaps {
			if widest < 0 || g.b-g.a > gaps[widest].b-gaps[widest].a {
				if widest >= 0 {
					second = max(second, gaps[widest].b-gaps[widest].a)
				}
				widest = i
			} else {
				second = max(second, g.b-g.a)
			}
		}
		g := gaps[widest]
		if w := g.b - g.a; w > 0.2*pageWidth && w > 3*second {
			cut := (g.a + g.b) / 2
			var left, right [][]*line
			for _, r := range run {
				var lr, rr []*line
				for _, l := range r {
					if l.cx() < cut {
						lr = append(lr, l)
					} else {
						rr = append(rr, l)
					}
				}
				if len(lr) > 0 {
					left = append(left, lr)
				}
				if len(rr) > 0 {
					right = append(right, rr)
				}
			}
			return append(regionTables(left, pageWidth), regionTables(right, pageWidth)...)
		}
	}
	t := columnTable(run)
	if t == nil {
		return nil
	}
	for _, r := range run {
		for _, l := range r {
			l.used = true
		}
	}
	return []*tableGrid{t}
}

// columnTable makes a table of a run of rows when their words fall into
// at least two columns, each text row a table row.
func columnTable(run [][]*line) *tableGrid {
	if len(run) == 0 {
		return nil
	}
	multi := 0
	var rows [][]*word
	var box rect
	for i, r := range run {
		if len(r) >= 2 {
			multi++
		}
		var ws []*word
		for _, l := range r {
			ws = append(ws, l.words...)
			if i == 0 && len(ws) == len(l.words) {
				box = l.rect
			}
			box = box.union(l.rect)
		}
		sort.SliceStable(ws, func(a, b int) bool { return ws[a].x0 < ws[b].x0 })
		rows = append(rows, ws)
	}
	if multi < 3 {
		return nil
	}
	cuts := columnCuts(rows, false)
	if len(cuts) == 0 {
		return nil
	}
	bands := make([][][]*word, len(rows))
	for i, r := range rows {
		bands[i] = [][]*word{r}
	}
	data := fillGrid(bands, cuts)
	// Prose set in two columns aligns too; table cells are short.
	if prose(data, 5) {
		return nil
	}
	return &tableGrid{rect: box, data: data}
}

// joinLines joins the lines of a paragraph: a hyphen that breaks a word at
// a line end is removed, ideographic text is joined without spaces.
func joinLines(parts []string, dehyphenate bool) string {
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			prev := parts[i-1]
			switch {
			case dehyphenate && hyphenated(prev, p):
				s := b.String()
				b.Reset()
				b.WriteString(s[:len(s)-1])
			case endsCJK(prev) && startsCJK(p):
			default:
				b.WriteByte(' ')
			}
		}
		b.WriteString(p)
	}
	return b.String()
}

// hyphenated reports whether a line ending in a hyphen breaks a word that
// the next line finishes.
func hyphenated(prev, next string) bool {
	pr := []rune(prev)
	if len(pr) < 3 || pr[len(pr)-1] != '-' || !unicode.IsLetter(pr[len(pr)-2]) {
		return false
	}
	for _, r := range next {
		return unicode.IsLower(r)
	}
	return false
}
