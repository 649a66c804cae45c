package pdf

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode"
)

// readPage reads the text, ruling lines and images of page index (0-based)
// of an open document.
func readPage(d *pdfDoc, index int) (*pageContent, error) {
	n := d.n
	page, err := n.call("FPDF_LoadPage", d.doc, uint64(index))
	if err != nil {
		return nil, err
	}
	if uint32(page) == 0 {
		code, _ := n.call("FPDF_GetLastError")
		return nil, pdfiumError(int(code))
	}
	defer n.call("FPDF_ClosePage", page)

	if ok, err := n.callBool("FPDF_GetPageBoundingBox", page, n.out(0)); !ok {
		if err == nil {
			err = errors.New("the page has no size")
		}
		return nil, err
	}
	// FS_RECTF: left, top, right, bottom.
	tr := pageTransform{l: n.f32(0), t: n.f32(1), r: n.f32(2), b: n.f32(3)}
	if tr.b > tr.t {
		tr.b, tr.t = tr.t, tr.b
	}
	if tr.l > tr.r {
		tr.l, tr.r = tr.r, tr.l
	}
	if rot, err := n.callInt("FPDFPage_GetRotation", page); err == nil {
		tr.rotation = rot & 3
	}
	pc := &pageContent{number: index + 1}
	pc.width, pc.height = tr.size()
	if !(pc.width > 0 && pc.height > 0 && pc.width < 20000 && pc.height < 20000) {
		return nil, fmt.Errorf("the page size %.0fx%.0f is not usable", pc.width, pc.height)
	}
	if err := readText(n, page, tr, pc); err != nil {
		return nil, err
	}
	if err := readObjects(n, page, tr, pc); err != nil {
		return nil, err
	}
	return pc, nil
}

func readText(n *native, page uint64, tr pageTransform, pc *pageContent) error {
	tp, err := n.call("FPDFText_LoadPage", page)
	if err != nil {
		return err
	}
	if uint32(tp) == 0 {
		return nil // no text
	}
	defer n.call("FPDFText_ClosePage", tp)
	count, err := n.callInt("FPDFText_CountChars", tp)
	if err != nil || count <= 0 {
		return err
	}
	if count > maxCharsPerPage {
		count = maxCharsPerPage
		pc.truncated = true
	}
	runes, err := pageRunes(n, tp, count)
	if err != nil {
		return err
	}

	var cur []glyph
	flush := func() error {
		if len(cur) > 0 {
			w, err := makeWord(n, tp, tr, cur)
			if err != nil {
				return err
			}
			pc.words = append(pc.words, w)
			cur = cur[:0]
		}
		return nil
	}
	for i, r := range runes {
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
			if err := flush(); err != nil {
				return err
			}
			continue
		}
		ok, err := n.callBool("FPDFText_GetLooseCharBox", tp, uint64(i), n.out(0))
		if err != nil {
			return err
		}
		if !ok {
			if err := flush(); err != nil {
				return err
			}
			continue
		}
		// FS_RECTF: left, top, right, bottom.
		g := glyph{r: r, index: i, box: tr.rect(n.f32(0), n.f32(3), n.f32(2), n.f32(1))}
		if g.box.w() <= 0 && g.box.h() <= 0 {
			continue
		}
		if len(cur) > 0 && !adjacent(cur[len(cur)-1], g) {
			if err := flush(); err != nil {
				return err
			}
		}
		if len(cur) > 0 && duplicate(cur[len(cur)-1], g) {
			continue // drawn twice to look bold
		}
		if k := len(cur); k > 0 && g.r == 0x0644 && isAlef(cur[k-1].r) && sameBox(cur[k-1].box, g.box) {
			// A lam-alef ligature comes out of pdfium as alef, lam: put
			// the letters back in their order.
			cur[k-1], g = g, cur[k-1]
		}
		cur = append(cur, g)
	}
	return flush()
}

// pageRunes reads the text page's characters, one rune per character.
func pageRunes(n *native, tp uint64, count int) ([]rune, error) {
	buf, err := n.malloc(2 * (count + 1))
	if err != nil {
		return nil, err
	}
	defer n.free(buf)
	written, err := n.callInt("FPDFText_GetText", tp, 0, uint64(count), uint64(buf))
	if err != nil {
		return nil, err
	}
	if written > 0 && written <= count+1 {
		b, _ := n.mem.Read(buf, uint32(2*written))
		u := make([]uint16, 0, written)
		for i := 0; i+1 < len(b); i += 2 {
			u = append(u, uint16(b[i])|uint16(b[i+1])<<8)
		}
		if len(u) > 0 && u[len(u)-1] == 0 {
			u = u[:len(u)-1]
		}
		if len(u) == count && !hasSurrogates(u) {
			runes := make([]rune, count)
			for i, c := range u {
				runes[i] = rune(c)
			}
			return runes, nil
		}
	}
	// A character outside the basic plane takes two UTF-16 units in the
	// bulk text; read one character at a time instead.
	runes := make([]rune, count)
	for i := range count {
		r, err := n.call("FPDFText_GetUnicode", tp, uint64(i))
		if err != nil {
			return nil, err
		}
		runes[i] = rune(uint32(r))
	}
	return runes, nil
}

func hasSurrogates(u []uint16) bool {
	for _, c := range u {
		if c >= 0xD800 && c <= 0xDFFF {
			return true
		}
	}
	return false
}

// makeWord turns glyphs into a word, with the font of its first glyph.
func makeWord(n *native, tp uint64, tr pageTransform, gs []glyph) (word, error) {
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
	w := word{text: b.String(), rect: box, rtl: rtl*2 > len(gs), pitch: pitch(gs)}
	// The glyph height stands in for the font size: pdfium's font size is
	// the one set in the content stream, before the text matrix scales it.
	for _, g := range gs {
		w.size = max(w.size, g.box.h())
	}
	if em, x, y, ux, uy, ok := charPlacement(n, tp, tr, gs[0].index); ok {
		// Text not written left to right along the displayed page is
		// turned (a column head set sideways) and makes lines of its own.
		w.vertical = !(ux > 0 && math.Abs(uy) < 0.2*ux)
		if !w.vertical && em > 0.5 && em < 500 {
			// Loose boxes come from the font's ascent and descent, which
			// some fonts state wrongly (a line of 8-point text 44 points
			// high). An upright word's height is taken from its baseline
			// and its size in points instead: the same for every font.
			_, by := tr.point(x, y)
			w.y0, w.y1 = by-0.78*em, by+0.22*em
			w.size = em * 1.1
		}
	} else if len(gs) > 1 {
		// Glyphs stacked rather than side by side.
		first, last := gs[0].box, gs[len(gs)-1].box
		w.vertical = math.Abs(last.cy()-first.cy()) > math.Abs(last.cx()-first.cx())
	}
	if w.vertical {
		w.size = min(box.w(), box.h())
	}
	name, flags, err := fontInfo(n, tp, gs[0].index)
	if err != nil {
		return w, err
	}
	w.bold = flags&(1<<18) != 0 || strings.Contains(name, "bold") || strings.Contains(name, "black") ||
		strings.Contains(name, "heavy") || strings.Contains(name, "semibold") || strings.Contains(name, "demi") ||
		strings.HasSuffix(name, ",b") || strings.HasSuffix(name, "-b") || strings.Contains(name, "-bd") || texBold.MatchString(name)
	w.italic = flags&(1<<6) != 0 || strings.Contains(name, "italic") || strings.Contains(name, "oblique") || texItalic.MatchString(name)
	w.mono = flags&1 != 0 || strings.Contains(name, "mono") || strings.Contains(name, "courier") || strings.Contains(name, "consol")
	if !w.bold {
		if fw, err := n.callInt("FPDFText_GetFontWeight", tp, uint64(gs[0].index)); err == nil && fw >= 600 {
			w.bold = true
		}
	}
	return w, nil
}

// pitch is the advance all of a word's glyphs share (a fixed-width font),
// -1 when they differ, and 0 when the word cannot tell: fewer than two
// Latin letters (digits and ideographs have one width in most fonts).
func pitch(gs []glyph) float64 {
	latin := 0
	for _, g := range gs {
		if unicode.Is(unicode.Latin, g.r) {
			latin++
		}
	}
	if latin < 2 {
		return 0
	}
	p := gs[0].box.w()
	for _, g := range gs[1:] {
		if math.Abs(g.box.w()-p) > 0.03*p {
			return -1
		}
	}
	return p
}

// fontInfo is the lower-case name (subset prefix removed) and descriptor
// flags of a character's font.
func fontInfo(n *native, tp uint64, index int) (string, int, error) {
	const nameMax = scratchSize - 8
	size, err := n.call("FPDFText_GetFontInfo", tp, uint64(index), n.out(2), nameMax, n.out(0))
	if err != nil {
		return "", 0, err
	}
	flags := int(int32(n.u32(0)))
	l := min(uint32(size), nameMax)
	if l == 0 {
		return "", flags, nil
	}
	raw, _ := n.mem.Read(n.scratch+8, l)
	name := strings.ToLower(strings.TrimRight(string(raw), "\x00"))
	if i := strings.IndexByte(name, '+'); i >= 0 && i < 8 {
		name = name[i+1:]
	}
	return name, flags, nil
}

// objectReader walks a page's objects for ruling lines and images.
type objectReader struct {
	n     *native
	tr    pageTransform
	pc    *pageContent
	count int
	fills []rect // filled rectangles: shaded cells, frames
}

// pdfium's object and path segment types.
const (
	objPath  = 2
	objImage = 3
	objForm  = 5

	segLine = 0
	segMove = 2
)

func readObjects(n *native, page uint64, tr pageTransform, pc *pageContent) error {
	count, err := n.callInt("FPDFPage_CountObjects", page)
	if err != nil {
		return err
	}
	or := &objectReader{n: n, tr: tr, pc: pc}
	for i := range count {
		if or.count >= maxObjectsPerPage {
			pc.truncated = true
			break
		}
		o, err := n.call("FPDFPage_GetObject", page, uint64(i))
		if err != nil {
			return err
		}
		if uint32(o) == 0 {
			continue
		}
		if err := or.object(o, identity, 0); err != nil {
			return err
		}
	}
	pc.rules = append(pc.rules, fillRules(or.fills)...)
	return nil
}

func (or *objectReader) object(obj uint64, parent matrix, depth int) error {
	or.count++
	n := or.n
	t, err := n.callInt("FPDFPageObj_GetType", obj)
	if err != nil {
		return err
	}
	switch t {
	case objPath:
		return or.path(obj, parent)
	case objImage:
		r, ok, err := or.bounds(obj, parent)
		if err != nil {
			return err
		}
		if ok && r.w() >= minImageSide && r.h() >= minImageSide {
			or.pc.images = append(or.pc.images, r)
		}
	case objForm:
		if depth > 8 {
			return nil
		}
		m, err := or.matrix(obj)
		if err != nil {
			return err
		}
		m = m.then(parent)
		count, err := n.callInt("FPDFFormObj_CountObjects", obj)
		if err != nil {
			return err
		}
		for i := range count {
			if or.count >= maxObjectsPerPage {
				or.pc.truncated = true
				return nil
			}
			c, err := n.call("FPDFFormObj_GetObject", obj, uint64(i))
			if err != nil {
				return err
			}
			if uint32(c) == 0 {
				continue
			}
			if err := or.object(c, m, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// matrix is an object's transformation matrix.
func (or *objectReader) matrix(obj uint64) (matrix, error) {
	n := or.n
	ok, err := n.callBool("FPDFPageObj_GetMatrix", obj, n.out(0))
	if err != nil || !ok {
		return identity, err
	}
	return matrix{n.f32(0), n.f32(1), n.f32(2), n.f32(3), n.f32(4), n.f32(5)}, nil
}

// bounds is an object's box on the displayed page.
func (or *objectReader) bounds(obj uint64, parent matrix) (rect, bool, error) {
	n := or.n
	ok, err := n.callBool("FPDFPageObj_GetBounds", obj, n.out(0), n.out(1), n.out(2), n.out(3))
	if err != nil || !ok {
		return rect{}, false, err
	}
	return or.place(parent, n.f32(0), n.f32(1), n.f32(2), n.f32(3)), true, nil
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

// visible reads a fill or stroke colour (fn names the getter) and reports
// whether it shows on white paper: not transparent, not white.
func (or *objectReader) visible(fn string, obj uint64) (bool, error) {
	n := or.n
	ok, err := n.callBool(fn, obj, n.out(0), n.out(1), n.out(2), n.out(3))
	if err != nil || !ok {
		return true, err
	}
	r, g, b, a := n.u32(0), n.u32(1), n.u32(2), n.u32(3)
	return a >= 16 && !(r >= 245 && g >= 245 && b >= 245), nil
}

type point struct{ x, y float64 }

// path records a path's ruling lines: thin filled boxes, stroked
// horizontal and vertical segments, and the edges of filled rectangles
// (shaded cells and frames).
func (or *objectReader) path(obj uint64, parent matrix) error {
	n := or.n
	ok, err := n.callBool("FPDFPath_GetDrawMode", obj, n.out(0), n.out(1))
	if err != nil || !ok {
		return err
	}
	filled := n.u32(0) != 0
	stroked := n.u32(1) != 0
	if filled {
		v, err := or.visible("FPDFPageObj_GetFillColor", obj)
		if err != nil {
			return err
		}
		filled = v
	}
	if stroked {
		v, err := or.visible("FPDFPageObj_GetStrokeColor", obj)
		if err != nil {
			return err
		}
		stroked = v
	}
	if !filled && !stroked {
		return nil
	}
	box, ok, err := or.bounds(obj, parent)
	if err != nil || !ok {
		return err
	}
	switch {
	case box.h() <= thin && box.w() > thin:
		or.addRule(true, box.cy(), box.x0, box.x1)
		return nil
	case box.w() <= thin && box.h() > thin:
		or.addRule(false, box.cx(), box.y0, box.y1)
		return nil
	case box.w() <= thin && box.h() <= thin:
		return nil
	}
	// A larger path: read its segments.
	count, err := n.callInt("FPDFPath_CountSegments", obj)
	if err != nil || count <= 0 || count > maxSegmentsPerPath {
		return err
	}
	m, err := or.matrix(obj)
	if err != nil {
		return err
	}
	m = m.then(parent)
	var sub []point
	curved := false
	endSub := func() {
		if len(sub) >= 2 && !curved {
			or.subpath(sub, filled, stroked)
		}
		sub, curved = sub[:0], false
	}
	for i := range count {
		seg, err := n.call("FPDFPath_GetPathSegment", obj, uint64(i))
		if err != nil {
			return err
		}
		if uint32(seg) == 0 {
			return nil
		}
		if ok, err := n.callBool("FPDFPathSegment_GetPoint", seg, n.out(0), n.out(1)); err != nil || !ok {
			return err
		}
		x, y := m.apply(n.f32(0), n.f32(1))
		x, y = or.tr.point(x, y)
		st, err := n.callInt("FPDFPathSegment_GetType", seg)
		if err != nil {
			return err
		}
		switch st {
		case segMove:
			endSub()
			sub = append(sub, point{x, y})
		case segLine:
			sub = append(sub, point{x, y})
		default:
			curved = true
		}
		cl, err := n.callBool("FPDFPathSegment_GetClose", seg)
		if err != nil {
			return err
		}
		if cl && len(sub) > 0 {
			sub = append(sub, sub[0])
		}
	}
	endSub()
	return nil
}

// charPlacement is a character's size in points (the font size scaled by
// the text and page matrices), its origin on the baseline in pdfium's page
// space, and the direction of its baseline on the displayed page.
func charPlacement(n *native, tp uint64, tr pageTransform, index int) (em, x, y, ux, uy float64, ok bool) {
	fs, err := n.call("FPDFText_GetFontSize", tp, uint64(index))
	if err != nil {
		return
	}
	size := math.Float64frombits(fs)
	if got, err := n.callBool("FPDFText_GetMatrix", tp, uint64(index), n.out(0)); err != nil || !got {
		return
	}
	a, b, c, d := n.f32(0), n.f32(1), n.f32(2), n.f32(3)
	em = size * math.Sqrt(math.Abs(a*d-b*c))
	ux, uy = tr.vector(a, b)
	if got, err := n.callBool("FPDFText_GetCharOrigin", tp, uint64(index), n.out(0), n.out(2)); err != nil || !got {
		return
	}
	x, _ = n.mem.ReadFloat64Le(n.scratch)
	y, _ = n.mem.ReadFloat64Le(n.scratch + 8)
	ok = !math.IsNaN(em) && !math.IsInf(em, 0) && !math.IsNaN(x+y) && (ux != 0 || uy != 0)
	return
}
