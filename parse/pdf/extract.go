package pdf

import (
	"math"
	"regexp"
	"unicode"
)

// rect is a box on the page in points, from the top left.
type rect struct{ x0, y0, x1, y1 float64 }

func (r rect) w() float64  { return r.x1 - r.x0 }
func (r rect) h() float64  { return r.y1 - r.y0 }
func (r rect) cx() float64 { return (r.x0 + r.x1) / 2 }
func (r rect) cy() float64 { return (r.y0 + r.y1) / 2 }

func (r rect) union(s rect) rect {
	return rect{min(r.x0, s.x0), min(r.y0, s.y0), max(r.x1, s.x1), max(r.y1, s.y1)}
}

// overlapX is how far r and s overlap horizontally (negative: the gap).
func (r rect) overlapX(s rect) float64 { return min(r.x1, s.x1) - max(r.x0, s.x0) }

// overlapY is how far r and s overlap vertically (negative: the gap).
func (r rect) overlapY(s rect) float64 { return min(r.y1, s.y1) - max(r.y0, s.y0) }

func (r rect) contains(x, y float64) bool {
	return x >= r.x0 && x <= r.x1 && y >= r.y0 && y <= r.y1
}

func (r rect) bbox() []float64 {
	round := func(v float64) float64 { return math.Round(v*100) / 100 }
	return []float64{round(r.x0), round(r.y0), round(r.x1), round(r.y1)}
}

// word is a run of glyphs with no space between them, in logical order.
type word struct {
	text string
	rect
	size     float64 // the glyphs' line height, a stand-in for the font size
	bold     bool
	italic   bool
	mono     bool
	rtl      bool // the word is in a right-to-left script
	vertical bool // the word is not written left to right along the page
	inTable  bool // the word is a table cell's
	// pitch is the width every glyph of the word has, or -1 when their
	// widths differ: a line of words with one pitch is set in a
	// fixed-width font even when the font does not say so.
	pitch float64
}

// rule is a ruling line: horizontal (y0 == y1) or vertical (x0 == x1).
type rule struct {
	horizontal bool
	pos        float64 // y of a horizontal rule, x of a vertical one
	from, to   float64 // its extent along its direction
}

// pageContent is what one page holds, read from pdfium.
type pageContent struct {
	number        int // 1-based
	width, height float64
	words         []word
	rules         []rule
	images        []rect
	stats         charStats
	truncated     bool // the page had more objects than were read
}

// limits on what one page may make pdfium do.
const (
	maxObjectsPerPage  = 20000
	maxSegmentsPerPath = 2000
	maxCharsPerPage    = 200000
	minImageSide       = 24 // points; smaller images are decoration
)

// pageTransform maps pdfium's page space (y up, origin at the media box)
// to the displayed page (y down, origin at the top left, page rotation
// applied).
type pageTransform struct {
	l, b, r, t float64
	rotation   int
}

func (tr pageTransform) point(x, y float64) (float64, float64) {
	switch tr.rotation {
	case 1:
		return y - tr.b, x - tr.l
	case 2:
		return tr.r - x, y - tr.b
	case 3:
		return tr.t - y, tr.r - x
	}
	return x - tr.l, tr.t - y
}

func (tr pageTransform) rect(x0, y0, x1, y1 float64) rect {
	ax, ay := tr.point(x0, y0)
	bx, by := tr.point(x1, y1)
	return rect{min(ax, bx), min(ay, by), max(ax, bx), max(ay, by)}
}

// vector maps a direction in page space to the displayed page.
func (tr pageTransform) vector(x, y float64) (float64, float64) {
	switch tr.rotation {
	case 1:
		return y, x
	case 2:
		return -x, y
	case 3:
		return -y, -x
	}
	return x, -y
}

// size is the displayed page's width and height.
func (tr pageTransform) size() (float64, float64) {
	w, h := tr.r-tr.l, tr.t-tr.b
	if tr.rotation%2 == 1 {
		return h, w
	}
	return w, h
}

// glyph is one character of the text layer.
type glyph struct {
	r     rune
	box   rect
	index int
}

// adjacent reports whether g continues the word that ends with prev: on the
// same line, with no gap wider than a fraction of the glyph height, in
// either direction (right-to-left scripts run leftwards), and of about the
// same size (a footnote mark is a word of its own). Glyphs stacked one
// above the other (text turned on its side) continue a word too.
func adjacent(prev, g glyph) bool {
	h := max(min(prev.box.h(), g.box.h()), 1)
	if stacked(prev.box, g.box) {
		return true
	}
	if prev.box.overlapY(g.box) < 0.5*h {
		return false
	}
	if r := g.box.h() / max(prev.box.h(), 0.1); r < 0.75 || r > 1.33 {
		return false
	}
	gap := max(g.box.x0-prev.box.x1, prev.box.x0-g.box.x1)
	if gap > 0.18*h {
		return false
	}
	// A glyph far back over the previous one starts a new run (text drawn
	// out of order), unless it is right-to-left.
	if g.box.x1 < prev.box.x0-0.5*h && !isRTL(g.r) && !isRTL(prev.r) {
		return false
	}
	return true
}

// stacked reports whether b sits right above or below a, in the same
// column: the next glyph of text written along the page's height.
func stacked(a, b rect) bool {
	w := min(a.w(), b.w())
	if w <= 0 || a.overlapX(b) < 0.7*w || math.Abs(a.w()-b.w()) > 0.3*w {
		return false
	}
	gap := max(b.y0-a.y1, a.y0-b.y1)
	return gap <= 0.3*w && gap > -0.3*min(a.h(), b.h()) && a.overlapY(b) < 0.5*min(a.h(), b.h())
}

// duplicate reports whether g is prev drawn again in the same place (bold
// faked by printing twice). Right-to-left scripts are left alone: their
// joining glyphs can repeat in place legitimately.
func duplicate(prev, g glyph) bool {
	return prev.r == g.r && !isRTL(g.r) && math.Abs(prev.box.x0-g.box.x0) < 0.5 && math.Abs(prev.box.y0-g.box.y0) < 0.5
}

func isAlef(r rune) bool { return r == 0x0622 || r == 0x0623 || r == 0x0625 || r == 0x0627 }

func sameBox(a, b rect) bool {
	return math.Abs(a.x0-b.x0) < 0.5 && math.Abs(a.x1-b.x1) < 0.5
}

func isRTL(r rune) bool {
	return unicode.In(r, unicode.Arabic, unicode.Hebrew, unicode.Syriac, unicode.Thaana, unicode.Nko)
}

// TeX's fonts say their weight and shape in their names: cmbx10 is bold
// extended, sfti1000 text italic.
var (
	texBold   = regexp.MustCompile(`^(?:cm|sf|ec|tc|lm|cmss|sfss)?(?:bx|b)\d{1,4}$|^(?:cm|sf|ec|lm)(?:ss)?bx`)
	texItalic = regexp.MustCompile(`^(?:cm|sf|ec|lm)(?:ti|sl|bxti|bxsl|it)\d{1,4}$`)
)

// matrix is an affine transform [a b c d e f] as in PDF.
type matrix struct{ a, b, c, d, e, f float64 }

var identity = matrix{1, 0, 0, 1, 0, 0}

func (m matrix) apply(x, y float64) (float64, float64) {
	return m.a*x + m.c*y + m.e, m.b*x + m.d*y + m.f
}

// then is m followed by n.
func (m matrix) then(n matrix) matrix {
	return matrix{
		a: m.a*n.a + m.b*n.c, b: m.a*n.b + m.b*n.d,
		c: m.c*n.a + m.d*n.c, d: m.c*n.b + m.d*n.d,
		e: m.e*n.a + m.f*n.c + n.e, f: m.e*n.b + m.f*n.d + n.f,
	}
}

func (or *objectReader) subpath(pts []point, filled, stroked bool) {
	var box rect
	for i, p := range pts {
		if i == 0 {
			box = rect{p.x, p.y, p.x, p.y}
		} else {
			box = box.union(rect{p.x, p.y, p.x, p.y})
		}
	}
	if stroked {
		if box.w() < checkBox && box.h() < checkBox && box.w() > thin && box.h() > thin {
			return // a check box or a bullet square, not a table's frame
		}
		for i := 1; i < len(pts); i++ {
			a, b := pts[i-1], pts[i]
			switch {
			case math.Abs(a.y-b.y) < 0.5 && math.Abs(a.x-b.x) > thin:
				or.addRule(true, (a.y+b.y)/2, min(a.x, b.x), max(a.x, b.x))
			case math.Abs(a.x-b.x) < 0.5 && math.Abs(a.y-b.y) > thin:
				or.addRule(false, (a.x+b.x)/2, min(a.y, b.y), max(a.y, b.y))
			}
		}
		return
	}
	// Filled: a thin box is a line; a rectangle gives its edges, unless it
	// covers most of the page (a background).
	switch {
	case box.h() <= thin && box.w() > thin:
		or.addRule(true, box.cy(), box.x0, box.x1)
	case box.w() <= thin && box.h() > thin:
		or.addRule(false, box.cx(), box.y0, box.y1)
	case box.w() < checkBox && box.h() < checkBox:
		// A check box or a bullet square, not a table's frame.
	case box.w() > thin && box.h() > thin && len(pts) <= 6 && box.w()*box.h() < 0.5*or.pc.width*or.pc.height:
		for i := 1; i < len(pts); i++ {
			a, b := pts[i-1], pts[i]
			if math.Abs(a.x-b.x) > 0.5 && math.Abs(a.y-b.y) > 0.5 {
				return // not a rectangle
			}
		}
		if len(or.fills) < maxFills {
			or.fills = append(or.fills, box)
		}
	}
}

// maxFills bounds the filled rectangles kept per page.
const maxFills = 2000

// fillRules turns filled rectangles into ruling lines along their edges,
// after joining rectangles that touch edge to edge: a cell shaded one text
// line at a time is one cell.
func fillRules(fills []rect) []rule {
	merged := true
	for merged {
		merged = false
		for i := 0; i < len(fills) && !merged; i++ {
			for j := i + 1; j < len(fills); j++ {
				a, b := fills[i], fills[j]
				sameCols := math.Abs(a.x0-b.x0) < 1 && math.Abs(a.x1-b.x1) < 1 && a.overlapY(b) > -1
				sameRows := math.Abs(a.y0-b.y0) < 1 && math.Abs(a.y1-b.y1) < 1 && a.overlapX(b) > -1
				if sameCols || sameRows {
					fills[i] = a.union(b)
					fills = append(fills[:j], fills[j+1:]...)
					merged = true
					break
				}
			}
		}
	}
	var rs []rule
	for _, f := range fills {
		rs = append(rs,
			rule{horizontal: true, pos: f.y0, from: f.x0, to: f.x1},
			rule{horizontal: true, pos: f.y1, from: f.x0, to: f.x1},
			rule{horizontal: false, pos: f.x0, from: f.y0, to: f.y1},
			rule{horizontal: false, pos: f.x1, from: f.y0, to: f.y1})
	}
	return rs
}

func (or *objectReader) addRule(horizontal bool, pos, from, to float64) {
	if len(or.pc.rules) < maxObjectsPerPage {
		or.pc.rules = append(or.pc.rules, rule{horizontal: horizontal, pos: pos, from: from, to: to})
	}
}
