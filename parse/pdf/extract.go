package pdf

import (
	"context"
	"math"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/enums"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
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

// size is the displayed page's width and height.
func (tr pageTransform) size() (float64, float64) {
	w, h := tr.r-tr.l, tr.t-tr.b
	if tr.rotation%2 == 1 {
		return h, w
	}
	return w, h
}

// readPage reads the text, ruling lines and images of page index (0-based)
// of an open document.
func readPage(ctx context.Context, inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, index int) (*pageContent, error) {
	lp, err := inst.FPDF_LoadPage(&requests.FPDF_LoadPage{Document: doc, Index: index})
	if err != nil {
		return nil, err
	}
	defer inst.FPDF_ClosePage(&requests.FPDF_ClosePage{Page: lp.Page})
	page := requests.Page{ByReference: &lp.Page}

	bb, err := inst.FPDF_GetPageBoundingBox(&requests.FPDF_GetPageBoundingBox{Page: page})
	if err != nil {
		return nil, err
	}
	tr := pageTransform{l: float64(bb.Rect.Left), b: float64(bb.Rect.Bottom), r: float64(bb.Rect.Right), t: float64(bb.Rect.Top)}
	if tr.b > tr.t {
		tr.b, tr.t = tr.t, tr.b
	}
	if rot, err := inst.FPDFPage_GetRotation(&requests.FPDFPage_GetRotation{Page: page}); err == nil {
		tr.rotation = int(rot.PageRotation) & 3
	}
	pc := &pageContent{number: index + 1}
	pc.width, pc.height = tr.size()

	if err := readText(ctx, inst, page, tr, pc); err != nil {
		return nil, err
	}
	if err := readObjects(ctx, inst, lp.Page, tr, pc); err != nil {
		return nil, err
	}
	return pc, nil
}

// glyph is one character of the text layer.
type glyph struct {
	r     rune
	box   rect
	index int
}

func readText(ctx context.Context, inst pdfium.Pdfium, page requests.Page, tr pageTransform, pc *pageContent) error {
	tp, err := inst.FPDFText_LoadPage(&requests.FPDFText_LoadPage{Page: page})
	if err != nil {
		return err
	}
	defer inst.FPDFText_ClosePage(&requests.FPDFText_ClosePage{TextPage: tp.TextPage})
	cc, err := inst.FPDFText_CountChars(&requests.FPDFText_CountChars{TextPage: tp.TextPage})
	if err != nil {
		return err
	}
	n := cc.Count
	if n <= 0 {
		return nil
	}
	if n > maxCharsPerPage {
		n = maxCharsPerPage
		pc.truncated = true
	}
	runes := make([]rune, 0, n)
	if t, err := inst.FPDFText_GetText(&requests.FPDFText_GetText{TextPage: tp.TextPage, StartIndex: 0, Count: n}); err == nil {
		runes = []rune(t.Text)
	}
	if len(runes) != n {
		// A character outside the basic plane takes two UTF-16 units in
		// the bulk text; read one character at a time instead.
		runes = runes[:0]
		for i := range n {
			u, err := inst.FPDFText_GetUnicode(&requests.FPDFText_GetUnicode{TextPage: tp.TextPage, Index: i})
			if err != nil {
				return err
			}
			runes = append(runes, rune(u.Unicode))
		}
	}

	var cur []glyph
	flush := func() {
		if len(cur) > 0 {
			if w, ok := makeWord(inst, tp.TextPage, cur); ok {
				pc.words = append(pc.words, w)
			}
			cur = cur[:0]
		}
	}
	for i, r := range runes {
		if i%512 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		pc.stats.add(r)
		switch {
		case r == 0xFFFE:
			// pdfium's mark for a hyphen that ends a line.
			r = '-'
		case unicode.IsControl(r) && !unicode.IsSpace(r):
			// A symbol font's glyph code with no Unicode value (a bullet,
			// a check box): kept as a private-use character.
			r = 0xF000 + r
		}
		if r == 0 || unicode.IsSpace(r) || r == 0xFEFF || r == 0x200B {
			flush()
			continue
		}
		box, err := inst.FPDFText_GetLooseCharBox(&requests.FPDFText_GetLooseCharBox{TextPage: tp.TextPage, Index: i})
		if err != nil {
			flush()
			continue
		}
		g := glyph{r: r, index: i, box: tr.rect(float64(box.Rect.Left), float64(box.Rect.Bottom), float64(box.Rect.Right), float64(box.Rect.Top))}
		if g.box.w() <= 0 && g.box.h() <= 0 {
			continue
		}
		if len(cur) > 0 && !adjacent(cur[len(cur)-1], g) {
			flush()
		}
		if len(cur) > 0 && duplicate(cur[len(cur)-1], g) {
			continue // drawn twice to look bold
		}
		if n := len(cur); n > 0 && g.r == 0x0644 && isAlef(cur[n-1].r) && sameBox(cur[n-1].box, g.box) {
			// A lam-alef ligature comes out of pdfium as alef, lam: put
			// the letters back in their order.
			cur[n-1], g = g, cur[n-1]
		}
		cur = append(cur, g)
	}
	flush()
	return nil
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

func duplicate(prev, g glyph) bool {
	return prev.r == g.r && math.Abs(prev.box.x0-g.box.x0) < 0.5 && math.Abs(prev.box.y0-g.box.y0) < 0.5
}

func isAlef(r rune) bool { return r == 0x0622 || r == 0x0623 || r == 0x0625 || r == 0x0627 }

func sameBox(a, b rect) bool {
	return math.Abs(a.x0-b.x0) < 0.5 && math.Abs(a.x1-b.x1) < 0.5
}

func isRTL(r rune) bool {
	return unicode.In(r, unicode.Arabic, unicode.Hebrew, unicode.Syriac, unicode.Thaana, unicode.Nko)
}

// makeWord turns glyphs into a word, with the font of its first glyph.
func makeWord(inst pdfium.Pdfium, tp references.FPDF_TEXTPAGE, gs []glyph) (word, bool) {
	var b strings.Builder
	box := gs[0].box
	rtl := 0
	for _, g := range gs {
		b.WriteRune(g.r)
		box = box.union(g.box)
		if isRTL(g.r) {
			rtl++
		}
	}
	w := word{text: b.String(), rect: box, rtl: rtl*2 > len(gs)}
	// The glyph height stands in for the font size: pdfium's font size is
	// the one set in the content stream, before the text matrix scales it.
	hs := 0.0
	for _, g := range gs {
		hs = max(hs, g.box.h())
	}
	w.size = hs
	if len(gs) > 1 {
		// Text written along the page's height: glyphs stacked, not side by
		// side.
		first, last := gs[0].box, gs[len(gs)-1].box
		if math.Abs(last.cy()-first.cy()) > math.Abs(last.cx()-first.cx()) {
			w.vertical = true
		}
	}
	if a, err := inst.FPDFText_GetCharAngle(&requests.FPDFText_GetCharAngle{TextPage: tp, Index: gs[0].index}); err == nil {
		deg := math.Mod(float64(a.CharAngle)*180/math.Pi+360, 360)
		if deg > 10 && deg < 350 && math.Abs(deg-180) > 10 {
			w.vertical = true
		}
	}
	if w.vertical {
		w.size = min(box.w(), box.h())
	}
	if fi, err := inst.FPDFText_GetFontInfo(&requests.FPDFText_GetFontInfo{TextPage: tp, Index: gs[0].index}); err == nil {
		name := strings.ToLower(fi.FontName)
		if i := strings.IndexByte(name, '+'); i >= 0 && i < 8 {
			name = name[i+1:]
		}
		w.bold = fi.Flags&(1<<18) != 0 || strings.Contains(name, "bold") || strings.Contains(name, "black") ||
			strings.Contains(name, "heavy") || strings.Contains(name, "semibold") || strings.Contains(name, "demi") ||
			strings.HasSuffix(name, ",b") || strings.HasSuffix(name, "-b") || strings.Contains(name, "-bd") || texBold.MatchString(name)
		w.italic = fi.Flags&(1<<6) != 0 || strings.Contains(name, "italic") || strings.Contains(name, "oblique") || texItalic.MatchString(name)
		w.mono = fi.Flags&1 != 0 || strings.Contains(name, "mono") || strings.Contains(name, "courier") || strings.Contains(name, "consol")
	}
	if !w.bold {
		if fw, err := inst.FPDFText_GetFontWeight(&requests.FPDFText_GetFontWeight{TextPage: tp, Index: gs[0].index}); err == nil && fw.FontWeight >= 600 {
			w.bold = true
		}
	}
	return w, utf8.RuneCountInString(w.text) > 0
}

type point struct{ x, y float64 }

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

// objectReader walks a page's objects for ruling lines and images.
type objectReader struct {
	ctx   context.Context
	inst  pdfium.Pdfium
	tr    pageTransform
	pc    *pageContent
	count int
	fills []rect // filled rectangles: shaded cells, frames
}

func readObjects(ctx context.Context, inst pdfium.Pdfium, page references.FPDF_PAGE, tr pageTransform, pc *pageContent) error {
	n, err := inst.FPDFPage_CountObjects(&requests.FPDFPage_CountObjects{Page: requests.Page{ByReference: &page}})
	if err != nil {
		return nil // no objects to read
	}
	or := &objectReader{ctx: ctx, inst: inst, tr: tr, pc: pc}
	for i := range n.Count {
		if or.count >= maxObjectsPerPage {
			pc.truncated = true
			break
		}
		o, err := inst.FPDFPage_GetObject(&requests.FPDFPage_GetObject{Page: requests.Page{ByReference: &page}, Index: i})
		if err != nil {
			continue
		}
		if err := or.object(o.PageObject, identity, 0); err != nil {
			return err
		}
	}
	pc.rules = append(pc.rules, fillRules(or.fills)...)
	return nil
}

func (or *objectReader) object(obj references.FPDF_PAGEOBJECT, parent matrix, depth int) error {
	or.count++
	if or.count%256 == 0 && or.ctx.Err() != nil {
		return or.ctx.Err()
	}
	t, err := or.inst.FPDFPageObj_GetType(&requests.FPDFPageObj_GetType{PageObject: obj})
	if err != nil {
		return nil
	}
	switch t.Type {
	case enums.FPDF_PAGEOBJ_PATH:
		or.path(obj, parent)
	case enums.FPDF_PAGEOBJ_IMAGE:
		if r, ok := or.bounds(obj, parent); ok && r.w() >= minImageSide && r.h() >= minImageSide {
			or.pc.images = append(or.pc.images, r)
		}
	case enums.FPDF_PAGEOBJ_FORM:
		if depth > 8 {
			return nil
		}
		m := parent
		if fm, err := or.inst.FPDFPageObj_GetMatrix(&requests.FPDFPageObj_GetMatrix{PageObject: obj}); err == nil {
			m = toMatrix(fm.Matrix.A, fm.Matrix.B, fm.Matrix.C, fm.Matrix.D, fm.Matrix.E, fm.Matrix.F).then(parent)
		}
		n, err := or.inst.FPDFFormObj_CountObjects(&requests.FPDFFormObj_CountObjects{PageObject: obj})
		if err != nil {
			return nil
		}
		for i := range n.Count {
			if or.count >= maxObjectsPerPage {
				or.pc.truncated = true
				return nil
			}
			c, err := or.inst.FPDFFormObj_GetObject(&requests.FPDFFormObj_GetObject{PageObject: obj, Index: uint64(i)})
			if err != nil {
				continue
			}
			if err := or.object(c.PageObject, m, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

func toMatrix(a, b, c, d, e, f float32) matrix {
	return matrix{float64(a), float64(b), float64(c), float64(d), float64(e), float64(f)}
}

// bounds is an object's box on the displayed page.
func (or *objectReader) bounds(obj references.FPDF_PAGEOBJECT, parent matrix) (rect, bool) {
	b, err := or.inst.FPDFPageObj_GetBounds(&requests.FPDFPageObj_GetBounds{PageObject: obj})
	if err != nil {
		return rect{}, false
	}
	return or.place(parent, float64(b.Left), float64(b.Bottom), float64(b.Right), float64(b.Top)), true
}

// place maps a box in a form's space to the displayed page.
func (or *objectReader) place(m matrix, x0, y0, x1, y1 float64) rect {
	var r rect
	for i, p := range [][2]float64{{x0, y0}, {x1, y0}, {x0, y1}, {x1, y1}} {
		x, y := m.apply(p[0], p[1])
		x, y = or.tr.point(x, y)
		if i == 0 {
			r = rect{x, y, x, y}
		} else {
			r = r.union(rect{x, y, x, y})
		}
	}
	return r
}

// thin is the widest a filled box may be and still read as a line.
const thin = 3.0

// checkBox is the largest side of a small square drawn next to text.
const checkBox = 12.0

// path records a path's ruling lines: thin filled boxes, stroked
// horizontal and vertical segments, and the edges of filled rectangles
// (shaded cells and frames).
func (or *objectReader) path(obj references.FPDF_PAGEOBJECT, parent matrix) {
	dm, err := or.inst.FPDFPath_GetDrawMode(&requests.FPDFPath_GetDrawMode{PageObject: obj})
	if err != nil {
		return
	}
	filled := dm.FillMode != enums.FPDF_FILLMODE_NONE
	stroked := dm.Stroke
	if filled && !stroked {
		if c, err := or.inst.FPDFPageObj_GetFillColor(&requests.FPDFPageObj_GetFillColor{PageObject: obj}); err == nil && (c.FillColor.A < 16 || white(c.FillColor.R, c.FillColor.G, c.FillColor.B)) {
			return
		}
	}
	if stroked {
		if c, err := or.inst.FPDFPageObj_GetStrokeColor(&requests.FPDFPageObj_GetStrokeColor{PageObject: obj}); err == nil && (c.StrokeColor.A < 16 || white(c.StrokeColor.R, c.StrokeColor.G, c.StrokeColor.B)) {
			stroked = false
			if !filled {
				return
			}
		}
	}
	if !filled && !stroked {
		return
	}
	box, ok := or.bounds(obj, parent)
	if !ok {
		return
	}
	if box.h() <= thin && box.w() > thin {
		or.addRule(true, box.cy(), box.x0, box.x1)
		return
	}
	if box.w() <= thin && box.h() > thin {
		or.addRule(false, box.cx(), box.y0, box.y1)
		return
	}
	if box.w() <= thin && box.h() <= thin {
		return
	}
	// A larger path: read its segments.
	n, err := or.inst.FPDFPath_CountSegments(&requests.FPDFPath_CountSegments{PageObject: obj})
	if err != nil || n.Count <= 0 || n.Count > maxSegmentsPerPath {
		return
	}
	m := parent
	if pm, err := or.inst.FPDFPageObj_GetMatrix(&requests.FPDFPageObj_GetMatrix{PageObject: obj}); err == nil {
		m = toMatrix(pm.Matrix.A, pm.Matrix.B, pm.Matrix.C, pm.Matrix.D, pm.Matrix.E, pm.Matrix.F).then(parent)
	}
	var sub []point
	curved := false
	endSub := func() {
		if len(sub) >= 2 && !curved {
			or.subpath(sub, filled, stroked)
		}
		sub, curved = sub[:0], false
	}
	for i := range n.Count {
		s, err := or.inst.FPDFPath_GetPathSegment(&requests.FPDFPath_GetPathSegment{PageObject: obj, Index: i})
		if err != nil {
			return
		}
		p, err := or.inst.FPDFPathSegment_GetPoint(&requests.FPDFPathSegment_GetPoint{PathSegment: s.PathSegment})
		if err != nil {
			return
		}
		st, err := or.inst.FPDFPathSegment_GetType(&requests.FPDFPathSegment_GetType{PathSegment: s.PathSegment})
		if err != nil {
			return
		}
		x, y := m.apply(float64(p.X), float64(p.Y))
		x, y = or.tr.point(x, y)
		switch st.Type {
		case enums.FPDF_SEGMENT_MOVETO:
			endSub()
			sub = append(sub, point{x, y})
		case enums.FPDF_SEGMENT_LINETO:
			sub = append(sub, point{x, y})
		default:
			curved = true
		}
		if cl, err := or.inst.FPDFPathSegment_GetClose(&requests.FPDFPathSegment_GetClose{PathSegment: s.PathSegment}); err == nil && cl.IsClose && len(sub) > 0 {
			sub = append(sub, sub[0])
		}
	}
	endSub()
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

func white(r, g, b uint) bool { return r >= 245 && g >= 245 && b >= 245 }
