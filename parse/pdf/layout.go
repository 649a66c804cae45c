package pdf

import (
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// line is a piece of one text line: words on the same baseline with no
// wide gap between them. A line of a two-column page is two lines, one
// in each column; so is a table row's pair of neighbouring cells.
type line struct {
	words []*word // left to right on the page
	rect
	size   float64 // the largest word size
	bold   bool    // every word is bold
	italic bool
	mono   bool    // every word's font says it is fixed-width
	pitch  float64 // the width all its glyphs share, -1 if none, 0 if unknown
	rtl    bool
	text   string // in reading order
	used   bool   // taken into a table
}

// lineGap is the widest gap between two words of one line, in line
// heights; a wider gap starts another line (the next column, or cell).
const lineGap = 0.8

// buildRows groups words into rows: words whose vertical extents mostly
// overlap, sorted by x. Vertical words each make their own row.
func buildRows(words []*word) [][]*word {
	ws := make([]*word, 0, len(words))
	var vertical []*word
	for _, w := range words {
		if w.vertical {
			vertical = append(vertical, w)
		} else {
			ws = append(ws, w)
		}
	}
	sort.SliceStable(ws, func(i, j int) bool { return ws[i].cy() < ws[j].cy() })
	type row struct {
		words  []*word
		y0, y1 float64 // the band of the row's tallest word
	}
	var rows []*row
	for _, w := range ws {
		var best *row
		bestOv := 0.0
		// Rows are made in order of their centres: only recent rows can
		// still overlap this word.
		for i := len(rows) - 1; i >= 0 && i >= len(rows)-8; i-- {
			r := rows[i]
			ov := min(r.y1, w.y1) - max(r.y0, w.y0)
			need := 0.5 * min(r.y1-r.y0, w.h())
			if ov >= need && ov > bestOv {
				best, bestOv = r, ov
			}
		}
		if best == nil {
			rows = append(rows, &row{words: []*word{w}, y0: w.y0, y1: w.y1})
			continue
		}
		best.words = append(best.words, w)
		if w.h() > best.y1-best.y0 {
			best.y0, best.y1 = w.y0, w.y1
		}
	}
	out := make([][]*word, 0, len(rows)+len(vertical))
	for _, r := range rows {
		sort.SliceStable(r.words, func(i, j int) bool { return r.words[i].x0 < r.words[j].x0 })
		out = append(out, r.words)
	}
	for _, w := range vertical {
		out = append(out, []*word{w})
	}
	return out
}

// splitRow cuts a row of words into lines at gaps wider than lineGap line
// heights, unless the rows just above and below have words across the gap
// (a justified line's wide space, not a gutter). A lone bullet or list
// number stays with the text after it.
func splitRow(ws []*word, above, below []*word) []*line {
	var out []*line
	var cur []*word
	emit := func() {
		if len(cur) > 0 {
			out = append(out, newLine(cur))
			cur = nil
		}
	}
	for i, w := range ws {
		if i > 0 {
			prev := ws[i-1]
			h := max(min(prev.size, w.size), 1)
			gap := w.x0 - prev.x1
			limit := lineGap * h
			if prev.mono && w.mono || samePitch(prev.pitch, w.pitch) {
				limit = 6 * h // code aligned with spaces
			}
			if gap > limit && !(len(cur) == 1 && isMarker(cur[0].text) && gap < 4*h) && !bridged(prev.x1, w.x0, h, above, below) {
				emit()
			}
		}
		cur = append(cur, w)
	}
	emit()
	return out
}

// bridged reports whether the neighbouring rows (nil when there is none
// close by) have words across the middle of the gap [a, b]: any of them
// for a gap under one and a half line heights (a justified line's wide
// space), all of them for a wider one.
func bridged(a, b, h float64, above, below []*word) bool {
	if b-a >= 3*h || above == nil && below == nil {
		return false
	}
	mid := (a + b) / 2
	across := func(row []*word) bool {
		for _, w := range row {
			if w.x0 < mid && w.x1 > mid {
				return true
			}
		}
		return false
	}
	if b-a < 1.5*h {
		return above != nil && across(above) || below != nil && across(below)
	}
	return (above == nil || across(above)) && (below == nil || across(below))
}

// isMarker reports whether a word is a list bullet or number.
func isMarker(s string) bool {
	return isBullet(s) || orderedMarker.MatchString(s+" ")
}

func newLine(ws []*word) *line {
	l := &line{words: ws, rect: ws[0].rect, bold: true, italic: true, mono: true}
	rtl, letters := 0, 0
	for i, w := range ws {
		l.rect = l.rect.union(w.rect)
		// A bullet's glyph may be larger than the text it marks.
		if i > 0 || len(ws) == 1 || !isMarker(w.text) {
			l.size = max(l.size, w.size)
		}
		l.bold = l.bold && w.bold
		l.italic = l.italic && w.italic
		l.mono = l.mono && w.mono
		n := len([]rune(w.text))
		letters += n
		if w.rtl {
			rtl += n
		}
	}
	l.rtl = rtl*2 > letters
	l.text = joinWords(ws, l.rtl)
	l.pitch = linePitch(ws)
	return l
}

// linePitch is the width all of a line's glyphs share, -1 when they differ,
// or 0 when no word can tell (see pitch).
func linePitch(ws []*word) float64 {
	p := 0.0
	for _, w := range ws {
		if w.pitch < 0 {
			return -1
		}
		if w.pitch == 0 {
			continue
		}
		if p == 0 {
			p = w.pitch
		} else if math.Abs(w.pitch-p) > 0.03*p {
			return -1
		}
	}
	return p
}

// samePitch reports whether two pitches are one fixed width.
func samePitch(a, b float64) bool {
	return a > 0 && b > 0 && math.Abs(a-b) <= 0.03*max(a, b)
}

// joinWords joins a line's words in reading order: right to left for a
// right-to-left line, with no space between ideographs.
func joinWords(ws []*word, rtl bool) string {
	order := ws
	if rtl {
		order = make([]*word, len(ws))
		for i, w := range ws {
			order[len(ws)-1-i] = w
		}
	}
	var b strings.Builder
	for i, w := range order {
		if i > 0 {
			prev := order[i-1]
			if !(endsCJK(prev.text) && startsCJK(w.text) && nearX(prev.rect, w.rect, 0.3*w.size)) {
				b.WriteByte(' ')
			}
		}
		b.WriteString(w.text)
	}
	return b.String()
}

func nearX(a, b rect, d float64) bool {
	return max(a.x0-b.x1, b.x0-a.x1) <= d
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) || r >= 0x3000 && r <= 0x303F || r >= 0xFF00 && r <= 0xFFEF
}

func endsCJK(s string) bool {
	r := []rune(s)
	return len(r) > 0 && isCJK(r[len(r)-1])
}

func startsCJK(s string) bool {
	for _, r := range s {
		return isCJK(r)
	}
	return false
}

var bullets = map[string]bool{
	"•": true, "·": true, "▪": true, "▫": true, "■": true, "□": true, "●": true, "○": true, "◦": true,
	"◆": true, "◇": true, "►": true, "▶": true, "➢": true, "➤": true, "→": true, "✓": true, "✔": true,
	"-": true, "–": true, "—": true, "*": true, "❖": true, "✗": true, "☐": true, "☑": true, "☒": true,
	"⁃": true, "∙": true,
}

// isBullet reports whether s is a list bullet: a bullet sign, or a single
// private-use character (a symbol font's bullet with no Unicode meaning).
func isBullet(s string) bool {
	if bullets[s] {
		return true
	}
	r := []rune(s)
	return len(r) == 1 && unicode.Is(unicode.Co, r[0])
}

// buildLines makes the lines of a page.
func buildLines(words []*word) []*line {
	alignBullets(words)
	rows := buildRows(words)
	near := func(r []*word, other []*word) bool {
		if len(other) == 0 || other[0].vertical || r[0].vertical {
			return false
		}
		h := max(r[0].h(), other[0].h())
		return math.Abs(r[0].cy()-other[0].cy()) <= 1.8*h
	}
	var lines []*line
	for i, row := range rows {
		var above, below []*word
		if i > 0 && near(row, rows[i-1]) {
			above = rows[i-1]
		}
		if i+1 < len(rows) && near(row, rows[i+1]) {
			below = rows[i+1]
		}
		lines = append(lines, splitRow(row, above, below)...)
	}
	return lines
}

// alignBullets gives each bullet the vertical extent of the text it marks:
// a symbol font's glyph box can be much taller than the text beside it,
// and would otherwise not share its row.
func alignBullets(words []*word) {
	for _, b := range words {
		if !isBullet(b.text) || b.vertical {
			continue
		}
		var next *word
		for _, w := range words {
			if w == b || w.vertical || w.x0 < b.x1-0.5 || w.x0-b.x1 > 3*max(w.size, b.h()) {
				continue
			}
			if d := math.Abs(w.cy() - b.cy()); d > 0.6*max(w.h(), b.h()) {
				continue
			}
			if next == nil || w.x0 < next.x0 {
				next = w
			}
		}
		if next != nil {
			b.y0, b.y1, b.size = next.y0, next.y1, next.size
		}
	}
}

// block is a unit of the page in reading order: a paragraph, heading, list
// item, code, table or image.
type block struct {
	rect
	lines   []*line
	kind    kindGuess
	size    float64
	bold    bool
	mono    bool
	text    string
	level   int
	ordered bool
	marker  string // a list item's marker
	table   *tableGrid
	page    int
	ocr     bool
	caption string
	// furniture marks a running header, footer or page number.
	furniture bool
	// taken marks a caption given to an image or table.
	taken bool
}

type kindGuess int

const (
	kText kindGuess = iota
	kHeading
	kList
	kCode
	kTable
	kImage
	kCaption
)

// buildBlocks groups lines into blocks: each line joins the block whose
// last line is just above it, overlaps it horizontally and has the same
// size and style; otherwise it starts a block.
func buildBlocks(lines []*line) []*block {
	ls := make([]*line, 0, len(lines))
	for _, l := range lines {
		if !l.used {
			ls = append(ls, l)
		}
	}
	sort.SliceStable(ls, func(i, j int) bool {
		if ls[i].y0 != ls[j].y0 {
			return ls[i].y0 < ls[j].y0
		}
		return ls[i].x0 < ls[j].x0
	})
	var blocks []*block
	for _, l := range ls {
		// The nearest block above that overlaps l horizontally (its last
		// line may be short, or indented like code).
		var best *block
		bestGap := 0.0
		for _, b := range blocks {
			last := b.lines[len(b.lines)-1]
			if b.overlapX(l.rect) <= 0 {
				continue
			}
			gap := l.y0 - last.y1
			if gap < -0.5*min(l.h(), last.h()) {
				continue // beside, not above
			}
			if best == nil || gap < bestGap {
				best, bestGap = b, gap
			}
		}
		if best != nil && joins(best, l, bestGap) {
			best.lines = append(best.lines, l)
			best.rect = best.rect.union(l.rect)
			continue
		}
		blocks = append(blocks, &block{rect: l.rect, lines: []*line{l}})
	}
	return blocks
}

// joins reports whether line l continues block b, gap below b's last line.
func joins(b *block, l *line, gap float64) bool {
	last := b.lines[len(b.lines)-1]
	h := max(min(last.h(), l.h()), 1)
	if gap > 0.9*h {
		return false
	}
	if len(b.lines) >= 2 {
		// Keep the block's line spacing: a wider gap is a new paragraph.
		prev := b.lines[len(b.lines)-2]
		spacing := last.y0 - prev.y1
		if gap > spacing+0.35*h && gap > 0.25*h {
			return false
		}
	}
	if r := l.size / max(last.size, 0.1); r < 0.85 || r > 1.18 {
		return false
	}
	if last.bold != l.bold && (len(b.lines) == 1 || l.bold) && !(len(l.words) <= 2 && !l.bold) {
		return false
	}
	if code(last) && proportional(l) || proportional(last) && code(l) || last.pitch > 0 && l.pitch > 0 && !samePitch(last.pitch, l.pitch) {
		return false
	}
	// A line set apart by style (all italic, or all bold, above text that
	// is not) is a heading of its own.
	if len(b.lines) == 1 && (last.italic && !l.italic || last.bold && !l.bold) && last.x1 < l.x1-2*h {
		return false
	}
	if startsItem(l.text) {
		return false
	}
	// A line much wider than the block on both sides belongs elsewhere.
	if l.x0 < b.x0-2*h && l.x1 > b.x1+2*h {
		return false
	}
	return true
}

// code reports whether a line may be code: its font is fixed-width, or its
// glyphs all have one width.
func code(l *line) bool { return l.mono || l.pitch > 0 }

// proportional reports whether a line is set in a proportional font.
func proportional(l *line) bool { return !l.mono && l.pitch < 0 }

// startsItem reports whether a line begins a list item.
func startsItem(s string) bool {
	m, _ := listMarker(s)
	return m != ""
}

// order puts items in reading order by recursive cuts: first between
// columns (a vertical gap that runs through the whole region), then
// between horizontal bands, keeping together consecutive bands that share
// a column gap.
func order(items []*block, rtl bool) []*block {
	if len(items) <= 1 {
		return items
	}
	if cols := splitColumns(items, rtl); len(cols) > 1 {
		var out []*block
		for _, c := range cols {
			out = append(out, order(c, rtl)...)
		}
		return out
	}
	bands := splitBands(items)
	if len(bands) <= 1 {
		out := slices.Clone(items)
		sort.SliceStable(out, func(i, j int) bool {
			if out[i].overlapY(out[j].rect) > 0.5*min(out[i].h(), out[j].h()) {
				if rtl {
					return out[i].x1 > out[j].x1
				}
				return out[i].x0 < out[j].x0
			}
			return out[i].y0 < out[j].y0
		})
		return out
	}
	var out []*block
	cur := bands[0]
	for _, next := range bands[1:] {
		union := append(slices.Clone(cur), next...)
		if len(splitColumns(union, rtl)) > 1 {
			cur = union
			continue
		}
		out = append(out, order(cur, rtl)...)
		cur = next
	}
	return append(out, order(cur, rtl)...)
}

// splitColumns cuts items at vertical gaps that no text crosses, when the
// gap is wide enough to be a gutter and both sides hold real text. An image
// or table blocks a gap only when it lies well on both sides of it (a
// figure across both columns); one that just reaches into the gutter goes
// to the column holding its centre.
func splitColumns(items []*block, rtl bool) [][]*block {
	if len(items) < 2 {
		return nil
	}
	var text, other []*block
	for _, b := range items {
		if b.kind == kImage || b.kind == kTable {
			other = append(other, b)
		} else {
			text = append(text, b)
		}
	}
	if len(text) < 2 {
		text, other = items, nil
	}
	s := slices.Clone(text)
	sort.SliceStable(s, func(i, j int) bool { return s[i].x0 < s[j].x0 })
	size := medianSize(s)
	var groups [][]*block
	var gaps [][2]float64
	start := 0
	reach := s[0].x1
	for i := 1; i < len(s); i++ {
		if s[i].x0-reach >= max(0.8*size, 4) && !blocked(other, reach, s[i].x0) {
			groups = append(groups, s[start:i])
			gaps = append(gaps, [2]float64{reach, s[i].x0})
			start = i
		}
		reach = max(reach, s[i].x1)
	}
	groups = append(groups, s[start:])
	if len(groups) < 2 {
		return nil
	}
	// Merge a group that is too slight to be a column (a lone number, a
	// bullet) into its neighbour.
	var out [][]*block
	var outGaps [][2]float64
	for i, g := range groups {
		if len(out) > 0 && (slight(g) || slight(out[len(out)-1])) {
			out[len(out)-1] = append(out[len(out)-1], g...)
			continue
		}
		if i > 0 {
			outGaps = append(outGaps, gaps[i-1])
		}
		out = append(out, slices.Clone(g))
	}
	if len(out) < 2 {
		return nil
	}
	for _, b := range other {
		c := 0
		for c < len(outGaps) && b.cx() > (outGaps[c][0]+outGaps[c][1])/2 {
			c++
		}
		out[c] = append(out[c], b)
	}
	if rtl {
		slices.Reverse(out)
	}
	return out
}

// blocked reports whether an image or table lies well on both sides of the
// gap [a, b].
func blocked(other []*block, a, b float64) bool {
	for _, o := range other {
		if o.x0 < a && o.x1 > b && a-o.x0 > 0.25*o.w() && o.x1-b > 0.25*o.w() {
			return true
		}
	}
	return false
}

// slight reports whether a group of items is too little to be a column of
// its own: only short one-line items.
func slight(g []*block) bool {
	for _, b := range g {
		if b.kind == kTable || b.kind == kImage || len(b.lines) > 1 {
			return false
		}
		if len(b.lines) == 1 && len([]rune(b.lines[0].text)) > 12 {
			return false
		}
	}
	return true
}

// splitBands cuts items at horizontal gaps that no item crosses, top to
// bottom.
func splitBands(items []*block) [][]*block {
	s := slices.Clone(items)
	sort.SliceStable(s, func(i, j int) bool { return s[i].y0 < s[j].y0 })
	var bands [][]*block
	start := 0
	reach := s[0].y1
	for i := 1; i < len(s); i++ {
		if s[i].y0 >= reach-0.5 {
			bands = append(bands, s[start:i])
			start = i
		}
		reach = max(reach, s[i].y1)
	}
	return append(bands, s[start:])
}

func medianSize(bs []*block) float64 {
	var sizes []float64
	for _, b := range bs {
		for _, l := range b.lines {
			sizes = append(sizes, l.size)
		}
	}
	if len(sizes) == 0 {
		return 10
	}
	slices.Sort(sizes)
	return sizes[len(sizes)/2]
}
