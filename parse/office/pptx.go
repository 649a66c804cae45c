package office

import (
	"cmp"
	"context"
	"encoding/xml"
	"errors"
	"sort"
	"strconv"
	"strings"

	"github.com/sanadhq/sanad/document"
	"github.com/sanadhq/sanad/parse/internal/grid"
)

// emuPerPoint converts DrawingML coordinates (EMU) to points.
const emuPerPoint = 12700

// rowTolerance groups shapes whose tops are this close (EMU, 0.05 in)
// into one row, read left to right: docling's reading order of a slide.
const rowTolerance = 45720

// bullet is what a paragraph's properties say of its list marker.
type bullet struct {
	set     bool   // the properties decide (buNone, buChar, buAutoNum, buBlip)
	kind    string // "none", "char", "auto", "blip"
	scheme  string // buAutoNum type, e.g. arabicPeriod
	startAt int
}

func (b bullet) isList() bool { return b.set && b.kind != "none" }

type pptPara struct {
	lvl    int
	text   string
	bullet bullet
}

// shape is one element of a slide's shape tree.
type shape struct {
	kind      string // sp, pic, frame, grp
	name      string
	ph        bool
	phType    string
	phIdx     int
	hasIdx    bool
	xfrm      box
	paras     []pptPara
	lstStyle  map[int]bullet
	kids      []*shape
	child     box // a group's child coordinate space (chOff, chExt)
	table     *document.TableData
	chartPart string
	image     string // embedded image part, when it resolves to an image
	linked    string // target of a linked (not embedded) picture
	blip      bool
}

type box struct {
	x, y, cx, cy int64
	ok           bool
}

// placeholder is a layout's or master's placeholder: where it sits and the
// list style it gives its text.
type placeholder struct {
	typ      string
	idx      int
	hasIdx   bool
	xfrm     box
	lstStyle map[int]bullet
}

type layout struct {
	phs    []placeholder
	master *master
}

type master struct {
	phs                []placeholder
	title, body, other map[int]bullet
}

type pptx struct {
	ctx     context.Context
	p       *pkg
	layouts map[string]*layout
	masters map[string]*master
	authors map[string]author
	notes   []document.Note
}

type author struct{ name, initials string }

func readPPTX(ctx context.Context, p *pkg, main string) (*document.Document, error) {
	r := &pptx{ctx: ctx, p: p, layouts: map[string]*layout{}, masters: map[string]*master{}, authors: map[string]author{}}
	rels, err := p.rels(main)
	if err != nil {
		return nil, err
	}
	var slideIDs []string
	err = r.root(main, func(x *xr) error {
		return x.children(func(se xml.StartElement) error {
			if se.Name.Local != "sldIdLst" {
				return x.skip()
			}
			return x.children(func(s xml.StartElement) error {
				if s.Name.Local == "sldId" {
					slideIDs = append(slideIDs, relAttr(s, "id"))
				}
				return x.skip()
			}, nil)
		}, nil)
	})
	if err != nil && (errors.Is(err, errTooLarge) || ctx.Err() != nil || errors.Is(err, errMissingPart)) {
		return nil, err
	}
	for _, id := range sortedKeys(rels) {
		rl := rels[id]
		if rl.External {
			continue
		}
		if relType(rl.Type, "commentAuthors") || relType(rl.Type, "authors") {
			if err := r.readAuthors(rl.Target); err != nil && errors.Is(err, errTooLarge) {
				return nil, err
			}
		}
	}

	doc := &document.Document{Format: "pptx", Metadata: coreMetadata(p)}
	if v, ok := doc.Metadata["title"].(string); ok {
		doc.Title = v
	}
	var firstErr error
	read := 0
	for _, id := range slideIDs {
		rl, ok := rels[id]
		if !ok || rl.External || !p.has(rl.Target) {
			continue
		}
		doc.Pages++
		blocks, err := r.slide(rl.Target, doc.Pages)
		if r.fatal(err) {
			return nil, err
		}
		if err != nil {
			// One unreadable slide does not hide the others; the reader is
			// told which one is missing.
			firstErr = cmp.Or(firstErr, err)
			r.notes = append(r.notes, document.Note{Page: doc.Pages, Code: "unreadable", Text: "slide could not be read: " + err.Error()})
			continue
		}
		read++
		doc.Blocks = append(doc.Blocks, blocks...)
	}
	if read == 0 && firstErr != nil {
		return nil, firstErr
	}
	doc.Notes = r.notes
	if doc.Title == "" {
		for _, b := range doc.Blocks {
			if b.Kind == document.Header {
				doc.Title = b.Text
				break
			}
		}
	}
	return doc, nil
}

// root opens a part and calls fn inside its root element.
func (r *pptx) root(part string, fn func(*xr) error) error {
	d, c, err := r.p.decoder(part)
	if err != nil {
		return err
	}
	defer c.Close()
	x := newXR(r.ctx, d)
	for {
		tok, err := x.next()
		if err != nil {
			return err
		}
		if _, ok := tok.(xml.StartElement); ok {
			return fn(x)
		}
	}
}

// fatal reports whether a reading error must stop the whole parse (a size
// refusal, an ended context) rather than leave one part unread.
func (r *pptx) fatal(err error) bool {
	return err != nil && (errors.Is(err, errTooLarge) || r.ctx.Err() != nil)
}

func (r *pptx) readAuthors(part string) error {
	return r.root(part, func(x *xr) error {
		return x.children(func(se xml.StartElement) error {
			if se.Name.Local == "cmAuthor" || se.Name.Local == "author" {
				r.authors[attr(se, "id")] = author{name: attr(se, "name"), initials: attr(se, "initials")}
			}
			return x.skip()
		}, nil)
	})
}

// slide reads one slide into blocks on page n.
func (r *pptx) slide(part string, n int) ([]document.Block, error) {
	if err := r.ctx.Err(); err != nil {
		return nil, err
	}
	srels, err := r.p.rels(part)
	if err != nil {
		return nil, err
	}
	var lay *layout
	var notesPart string
	var commentParts []string
	for _, id := range sortedKeys(srels) {
		rl := srels[id]
		if rl.External || !r.p.has(rl.Target) {
			continue
		}
		switch {
		case relType(rl.Type, "slideLayout"):
			lay, err = r.layout(rl.Target)
			if r.fatal(err) {
				return nil, err
			}
		case relType(rl.Type, "notesSlide"):
			notesPart = rl.Target
		case relType(rl.Type, "comments"):
			commentParts = append(commentParts, rl.Target)
		}
	}
	var shapes []*shape
	err = r.root(part, func(x *xr) error {
		return x.children(func(se xml.StartElement) error {
			if se.Name.Local != "cSld" {
				return x.skip()
			}
			return x.children(func(c xml.StartElement) error {
				if c.Name.Local != "spTree" {
					return x.skip()
				}
				g, err := r.group(x, srels)
				shapes = g
				return err
			}, nil)
		}, nil)
	})
	if err != nil {
		return nil, err
	}
	var out []document.Block
	r.emitShapes(&out, shapes, lay, n, box{}, box{})

	if notesPart != "" {
		text, err := r.notesText(notesPart)
		if r.fatal(err) {
			return nil, err
		}
		if text != "" {
			out = append(out, document.Block{Kind: document.Text, Text: "Notes: " + text, Page: n})
		}
	}
	for _, cp := range commentParts {
		cs, err := r.comments(cp)
		if r.fatal(err) {
			return nil, err
		}
		for _, c := range cs {
			out = append(out, document.Block{Kind: document.Text, Text: c, Page: n})
		}
	}
	return out, nil
}

// group reads the children of a shape tree or group shape.
func (r *pptx) group(x *xr, rels map[string]rel) ([]*shape, error) {
	var out []*shape
	err := x.children(func(se xml.StartElement) error {
		s, err := r.shapeElem(x, se, rels)
		if s != nil {
			out = append(out, s)
		}
		return err
	}, nil)
	return out, err
}

func (r *pptx) shapeElem(x *xr, se xml.StartElement, rels map[string]rel) (*shape, error) {
	ns, local := space(se.Name), se.Name.Local
	if ns == nsMC && local == "AlternateContent" {
		var got *shape
		done := false
		err := x.children(func(c xml.StartElement) error {
			if done || (c.Name.Local != "Choice" && c.Name.Local != "Fallback") {
				return x.skip()
			}
			done = true
			return x.children(func(cc xml.StartElement) error {
				s, err := r.shapeElem(x, cc, rels)
				if s != nil && got == nil {
					got = s
				}
				return err
			}, nil)
		}, nil)
		return got, err
	}
	if ns != nsP {
		return nil, x.skip()
	}
	s := &shape{}
	switch local {
	case "sp":
		s.kind = "sp"
	case "pic":
		s.kind = "pic"
	case "graphicFrame":
		s.kind = "frame"
	case "grpSp":
		s.kind = "grp"
	default:
		return nil, x.skip()
	}
	err := x.children(func(c xml.StartElement) error {
		switch c.Name.Local {
		case "nvSpPr", "nvPicPr", "nvGraphicFramePr", "nvGrpSpPr":
			return r.nvPr(x, s)
		case "spPr", "grpSpPr":
			return r.spPr(x, s)
		case "xfrm": // a graphic frame's p:xfrm
			return readXfrm(x, &s.xfrm, nil)
		case "txBody":
			paras, lst, err := readTxBody(x)
			s.paras, s.lstStyle = paras, lst
			return err
		case "blipFill":
			return r.blipFill(x, s, rels)
		case "graphic":
			return r.graphic(x, s, rels)
		case "sp", "pic", "graphicFrame", "grpSp", "AlternateContent":
			if s.kind != "grp" {
				return x.skip()
			}
			k, err := r.shapeElem(x, c, rels)
			if k != nil {
				s.kids = append(s.kids, k)
			}
			return err
		}
		return x.skip()
	}, nil)
	return s, err
}

func (r *pptx) nvPr(x *xr, s *shape) error {
	return x.children(func(se xml.StartElement) error {
		switch se.Name.Local {
		case "cNvPr":
			s.name = attr(se, "name")
		case "nvPr":
			return x.children(func(c xml.StartElement) error {
				if c.Name.Local == "ph" {
					s.ph = true
					s.phType = attr(c, "type")
					if hasAttr(c, "idx") {
						s.phIdx, s.hasIdx = attrInt(c, "idx", 0), true
					}
				}
				return x.skip()
			}, nil)
		}
		return x.skip()
	}, nil)
}

func (r *pptx) spPr(x *xr, s *shape) error {
	return x.children(func(se xml.StartElement) error {
		if se.Name.Local == "xfrm" {
			return readXfrm(x, &s.xfrm, &s.child)
		}
		return x.skip()
	}, nil)
}

// readXfrm reads an a:xfrm (or p:xfrm): offset and extent, and for a group
// its child offset and extent.
func readXfrm(x *xr, b, child *box) error {
	return x.children(func(se xml.StartElement) error {
		switch se.Name.Local {
		case "off":
			b.x, b.y, b.ok = attrInt64(se, "x"), attrInt64(se, "y"), true
		case "ext":
			b.cx, b.cy = attrInt64(se, "cx"), attrInt64(se, "cy")
		case "chOff":
			if child != nil {
				child.x, child.y, child.ok = attrInt64(se, "x"), attrInt64(se, "y"), true
			}
		case "chExt":
			if child != nil {
				child.cx, child.cy = attrInt64(se, "cx"), attrInt64(se, "cy")
			}
		}
		return x.skip()
	}, nil)
}

func (r *pptx) blipFill(x *xr, s *shape, rels map[string]rel) error {
	return x.children(func(se xml.StartElement) error {
		if se.Name.Local == "blip" {
			s.blip = true
			if id := relAttr(se, "embed"); id != "" {
				if rl, ok := rels[id]; ok && !rl.External && r.p.isImage(rl.Target) {
					s.image = rl.Target
				}
			}
			if id := relAttr(se, "link"); id != "" && s.image == "" {
				if rl, ok := rels[id]; ok {
					s.linked = rl.Target
				}
			}
		}
		return x.skip()
	}, nil)
}

// graphic reads a graphic frame's content: a table or a chart.
func (r *pptx) graphic(x *xr, s *shape, rels map[string]rel) error {
	return x.children(func(se xml.StartElement) error {
		if se.Name.Local != "graphicData" {
			return x.skip()
		}
		return x.children(func(c xml.StartElement) error {
			switch {
			case space(c.Name) == nsA && c.Name.Local == "tbl":
				t, err := readDrawingTable(x)
				s.table = t
				return err
			case space(c.Name) == nsC && c.Name.Local == "chart":
				if rl, ok := rels[relAttr(c, "id")]; ok && !rl.External && r.p.has(rl.Target) {
					s.chartPart = rl.Target
				}
			}
			return x.skip()
		}, nil)
	}, nil)
}

// readTxBody reads a text body: its paragraphs and its own list style.
func readTxBody(x *xr) ([]pptPara, map[int]bullet, error) {
	var paras []pptPara
	var lst map[int]bullet
	err := x.children(func(se xml.StartElement) error {
		switch se.Name.Local {
		case "lstStyle":
			l, err := readLstStyle(x)
			lst = l
			return err
		case "p":
			p, err := readDrawingPara(x)
			paras = append(paras, p)
			return err
		}
		return x.skip()
	}, nil)
	return paras, lst, err
}

// readLstStyle reads a:lstStyle (or a master's p:bodyStyle): the bullet of
// each level a:lvl1pPr..a:lvl9pPr.
func readLstStyle(x *xr) (map[int]bullet, error) {
	out := map[int]bullet{}
	err := x.children(func(se xml.StartElement) error {
		l := se.Name.Local
		if strings.HasPrefix(l, "lvl") && strings.HasSuffix(l, "pPr") {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(l, "lvl"), "pPr"))
			if err == nil && n >= 1 && n <= 9 {
				b, err := readBullet(x)
				out[n-1] = b
				return err
			}
		}
		return x.skip()
	}, nil)
	return out, err
}

// readBullet reads the list marker of paragraph properties.
func readBullet(x *xr) (bullet, error) {
	var b bullet
	err := x.children(func(se xml.StartElement) error {
		switch se.Name.Local {
		case "buNone":
			b = bullet{set: true, kind: "none"}
		case "buChar":
			b = bullet{set: true, kind: "char"}
		case "buAutoNum":
			b = bullet{set: true, kind: "auto", scheme: attr(se, "type"), startAt: attrInt(se, "startAt", 1)}
		case "buBlip":
			b = bullet{set: true, kind: "blip"}
		}
		return x.skip()
	}, nil)
	return b, err
}

// readDrawingPara reads an a:p: its level, bullet and text (line breaks as
// newlines, fields by their shown text).
func readDrawingPara(x *xr) (pptPara, error) {
	var p pptPara
	var b strings.Builder
	err := x.children(func(se xml.StartElement) error {
		switch se.Name.Local {
		case "pPr":
			p.lvl = max(0, min(attrInt(se, "lvl", 0), 8))
			bu, err := readBullet(x)
			p.bullet = bu
			return err
		case "r", "fld":
			return x.children(func(c xml.StartElement) error {
				if c.Name.Local == "t" {
					t, err := x.text()
					if b.Len() < maxTextBytes {
						b.WriteString(t)
					}
					return err
				}
				return x.skip()
			}, nil)
		case "br":
			b.WriteByte('\n')
		}
		return x.skip()
	}, nil)
	p.text = b.String()
	return p, err
}

// readDrawingTable reads an a:tbl. Every grid position has an a:tc; the
// ones a merge covers (hMerge, vMerge) are left to the spanning cell.
func readDrawingTable(x *xr) (*document.TableData, error) {
	var g grid.Builder
	row := -1
	nonEmpty := false
	err := x.children(func(se xml.StartElement) error {
		switch se.Name.Local {
		case "tblPr":
			if onOffAttr(se, "firstRow") {
				g.HeaderRows = 1
			}
		case "tr":
			row++
			g.EnsureRow(row)
			col := 0
			return x.children(func(c xml.StartElement) error {
				if c.Name.Local != "tc" {
					return x.skip()
				}
				rs, cs := attrInt(c, "rowSpan", 1), attrInt(c, "gridSpan", 1)
				covered := onOffAttr(c, "hMerge") || onOffAttr(c, "vMerge")
				var parts []string
				err := x.children(func(tc xml.StartElement) error {
					if tc.Name.Local != "txBody" {
						return x.skip()
					}
					paras, _, err := readTxBody(x)
					for _, p := range paras {
						if t := strings.TrimSpace(p.text); t != "" {
							parts = append(parts, t)
						}
					}
					return err
				}, nil)
				text := strings.Join(strings.Fields(strings.Join(parts, " ")), " ")
				if !covered {
					if g.Add(row, col, min(max(rs, 1), 1000), min(max(cs, 1), 1000), text) && text != "" {
						nonEmpty = true
					}
				}
				col++
				return err
			}, nil)
		}
		return x.skip()
	}, nil)
	if !nonEmpty {
		return nil, err
	}
	return g.Table(), err
}

// layout reads (once) a slide layout and its master.
func (r *pptx) layout(part string) (*layout, error) {
	if l, ok := r.layouts[part]; ok {
		return l, nil
	}
	l := &layout{}
	r.layouts[part] = l
	lrels, err := r.p.rels(part)
	if err != nil {
		return l, err
	}
	for _, id := range sortedKeys(lrels) {
		if rl := lrels[id]; relType(rl.Type, "slideMaster") && !rl.External && r.p.has(rl.Target) {
			l.master, err = r.master(rl.Target)
			if r.fatal(err) {
				return l, err
			}
			break
		}
	}
	l.phs, err = r.placeholders(part, nil)
	return l, err
}

func (r *pptx) master(part string) (*master, error) {
	if m, ok := r.masters[part]; ok {
		return m, nil
	}
	m := &master{}
	r.masters[part] = m
	var err error
	m.phs, err = r.placeholders(part, m)
	return m, err
}

// placeholders reads the placeholders of a layout or master, and a
// master's text styles.
func (r *pptx) placeholders(part string, m *master) ([]placeholder, error) {
	var shapes []*shape
	err := r.root(part, func(x *xr) error {
		return x.children(func(se xml.StartElement) error {
			switch se.Name.Local {
			case "cSld":
				return x.children(func(c xml.StartElement) error {
					if c.Name.Local != "spTree" {
						return x.skip()
					}
					g, err := r.group(x, nil)
					shapes = g
					return err
				}, nil)
			case "txStyles":
				if m == nil {
					return x.skip()
				}
				return x.children(func(c xml.StartElement) error {
					l, err := readLstStyle(x)
					switch c.Name.Local {
					case "titleStyle":
						m.title = l
					case "bodyStyle":
						m.body = l
					case "otherStyle":
						m.other = l
					}
					return err
				}, nil)
			}
			return x.skip()
		}, nil)
	})
	var out []placeholder
	for _, s := range shapes {
		if s.ph {
			out = append(out, placeholder{typ: s.phType, idx: s.phIdx, hasIdx: s.hasIdx, xfrm: s.xfrm, lstStyle: s.lstStyle})
		}
	}
	return out, err
}

// normType maps placeholder types to the family they inherit from.
func normType(t string) string {
	switch t {
	case "", "obj":
		return "body"
	case "ctrTitle":
		return "title"
	case "subTitle":
		return "body"
	}
	return t
}

// find returns the placeholder a slide's placeholder inherits from: the
// one with the same idx, else the first of the same type.
func find(phs []placeholder, s *shape, byIdx bool) *placeholder {
	if byIdx && s.hasIdx {
		for i := range phs {
			if phs[i].hasIdx && phs[i].idx == s.phIdx {
				return &phs[i]
			}
		}
	}
	for i := range phs {
		if normType(phs[i].typ) == normType(s.phType) {
			return &phs[i]
		}
	}
	return nil
}

// position returns a shape's box, inheriting a placeholder's from its
// layout and master.
func (r *pptx) position(s *shape, lay *layout) box {
	if s.xfrm.ok || !s.ph || lay == nil {
		return s.xfrm
	}
	if ph := find(lay.phs, s, true); ph != nil && ph.xfrm.ok {
		return ph.xfrm
	}
	if lay.master != nil {
		if ph := find(lay.master.phs, s, false); ph != nil && ph.xfrm.ok {
			return ph.xfrm
		}
	}
	return s.xfrm
}

// bulletOf resolves the list marker of a paragraph: its own properties,
// then its shape's list style, then (for a placeholder) its layout's and
// its master's text styles. Past all of them, an indented paragraph is
// still read as a list item.
func (r *pptx) bulletOf(s *shape, p pptPara, lay *layout) (bullet, bool) {
	if p.bullet.set {
		return p.bullet, p.bullet.isList()
	}
	if b, ok := s.lstStyle[p.lvl]; ok && b.set {
		return b, b.isList()
	}
	if s.ph && lay != nil {
		var fromLayout *bullet
		if ph := find(lay.phs, s, true); ph != nil {
			if b, ok := ph.lstStyle[p.lvl]; ok && b.set {
				fromLayout = &b
			}
		}
		if m := lay.master; m != nil {
			var st map[int]bullet
			switch s.phType {
			case "body", "obj", "":
				st = m.body
			case "title":
				st = m.title
			default:
				st = m.other
			}
			if b, ok := st[p.lvl]; ok && b.set {
				if b.isList() {
					return b, true
				}
				return b, false
			}
		}
		if fromLayout != nil {
			return *fromLayout, fromLayout.isList()
		}
	}
	return bullet{}, p.lvl > 0
}

// ordered returns shapes in reading order: top to bottom, shapes whose tops
// are within rowTolerance of the previous one forming a row read left to
// right; shapes without a position last, in document order.
func (r *pptx) ordered(shapes []*shape, lay *layout) []*shape {
	type entry struct {
		i    int
		s    *shape
		x, y int64
		ok   bool
	}
	var placed, rest []entry
	for i, s := range shapes {
		b := r.position(s, lay)
		e := entry{i: i, s: s, x: b.x, y: b.y, ok: b.ok}
		if b.ok {
			placed = append(placed, e)
		} else {
			rest = append(rest, e)
		}
	}
	sort.SliceStable(placed, func(a, b int) bool {
		if placed[a].y != placed[b].y {
			return placed[a].y < placed[b].y
		}
		return placed[a].i < placed[b].i
	})
	var out []*shape
	for start := 0; start < len(placed); {
		end := start + 1
		for end < len(placed) && placed[end].y-placed[end-1].y <= rowTolerance {
			end++
		}
		row := placed[start:end]
		sort.SliceStable(row, func(a, b int) bool {
			if row[a].x != row[b].x {
				return row[a].x < row[b].x
			}
			return row[a].i < row[b].i
		})
		for _, e := range row {
			out = append(out, e.s)
		}
		start = end
	}
	for _, e := range rest {
		out = append(out, e.s)
	}
	return out
}

// emitShapes adds the blocks of shapes, in reading order. off and ch map a
// group's child coordinates to the slide.
func (r *pptx) emitShapes(out *[]document.Block, shapes []*shape, lay *layout, page int, off, ch box) {
	for _, s := range r.ordered(shapes, lay) {
		bb := r.bbox(r.position(s, lay), off, ch)
		switch s.kind {
		case "grp":
			outer := s.xfrm
			if off.ok {
				t := r.transform(s.xfrm, off, ch)
				outer = t
			}
			r.emitShapes(out, s.kids, lay, page, outer, s.child)
			continue
		case "pic":
			if s.image != "" {
				*out = append(*out, document.Block{Kind: document.Image, Page: page, BBox: bb})
			} else if s.linked != "" {
				r.notes = append(r.notes, document.Note{Page: page, Code: "linked_image", Text: "a picture is linked to an external file, not embedded: " + s.linked})
			}
		case "frame":
			if s.table != nil {
				*out = append(*out, document.Block{Kind: document.Table, Table: s.table, Page: page, BBox: bb})
			}
			if s.chartPart != "" {
				bs, err := readChart(r.ctx, r.p, s.chartPart)
				if err != nil {
					bs = []document.Block{{Kind: document.Image}}
				}
				for _, b := range bs {
					b.Page, b.BBox = page, bb
					*out = append(*out, b)
				}
			}
		}
		r.emitText(out, s, lay, page, bb)
	}
}

func (r *pptx) transform(b, off, ch box) box {
	if !b.ok || !off.ok || !ch.ok || ch.cx == 0 || ch.cy == 0 {
		return b
	}
	sx, sy := float64(off.cx)/float64(ch.cx), float64(off.cy)/float64(ch.cy)
	return box{
		x: off.x + int64(float64(b.x-ch.x)*sx), y: off.y + int64(float64(b.y-ch.y)*sy),
		cx: int64(float64(b.cx) * sx), cy: int64(float64(b.cy) * sy), ok: true,
	}
}

func (r *pptx) bbox(b, off, ch box) []float64 {
	if off.ok {
		b = r.transform(b, off, ch)
	}
	if !b.ok {
		return nil
	}
	pt := func(v int64) float64 { return float64(v) / emuPerPoint }
	return []float64{pt(b.x), pt(b.y), pt(b.x + b.cx), pt(b.y + b.cy)}
}

// emitText adds a shape's paragraphs: a title placeholder's as headings,
// list paragraphs as items (numbered ones with their markers), the rest as
// text.
func (r *pptx) emitText(out *[]document.Block, s *shape, lay *layout, page int, bb []float64) {
	title := s.ph && (s.phType == "title" || s.phType == "ctrTitle")
	var counters [9]int
	var schemes [9]string
	for _, p := range s.paras {
		text := strings.TrimSpace(p.text)
		bu, isList := r.bulletOf(s, p, lay)
		if !isList {
			counters = [9]int{}
		}
		if text == "" {
			continue
		}
		if !isList {
			b := document.Block{Kind: document.Text, Text: text, Page: page, BBox: bb}
			if title {
				b.Kind, b.Level, b.Text = document.Header, 1, strings.Join(strings.Fields(text), " ")
			}
			*out = append(*out, b)
			continue
		}
		b := document.Block{Kind: document.List, Level: p.lvl, Text: text, Page: page, BBox: bb}
		for l := p.lvl + 1; l < len(counters); l++ {
			counters[l] = 0
		}
		if bu.kind == "auto" {
			if counters[p.lvl] == 0 || schemes[p.lvl] != bu.scheme {
				counters[p.lvl] = max(bu.startAt, 1) - 1
				schemes[p.lvl] = bu.scheme
			}
			counters[p.lvl]++
			b.Ordered, b.Marker = true, autoNumber(counters[p.lvl], bu.scheme)
		}
		*out = append(*out, b)
	}
}

// autoNumber renders an a:buAutoNum scheme ("arabicPeriod",
// "alphaLcParenR", "romanUcPeriod", …).
func autoNumber(n int, scheme string) string {
	var num string
	switch {
	case strings.HasPrefix(scheme, "alphaLc"):
		num = letters(n, false)
	case strings.HasPrefix(scheme, "alphaUc"):
		num = letters(n, true)
	case strings.HasPrefix(scheme, "romanLc"):
		num = strings.ToLower(roman(n))
	case strings.HasPrefix(scheme, "romanUc"):
		num = roman(n)
	default:
		num = strconv.Itoa(n)
	}
	switch {
	case strings.HasSuffix(scheme, "ParenBoth"):
		return "(" + num + ")"
	case strings.HasSuffix(scheme, "ParenR"):
		return num + ")"
	case strings.HasSuffix(scheme, "Plain"):
		return num
	case strings.HasSuffix(scheme, "Minus"):
		return "- " + num + " -"
	}
	return num + "."
}

// notesText reads the body placeholder of a notes slide.
func (r *pptx) notesText(part string) (string, error) {
	var shapes []*shape
	err := r.root(part, func(x *xr) error {
		return x.children(func(se xml.StartElement) error {
			if se.Name.Local != "cSld" {
				return x.skip()
			}
			return x.children(func(c xml.StartElement) error {
				if c.Name.Local != "spTree" {
					return x.skip()
				}
				g, err := r.group(x, nil)
				shapes = g
				return err
			}, nil)
		}, nil)
	})
	var lines []string
	for _, s := range shapes {
		if !s.ph || s.phType != "body" {
			continue
		}
		for _, p := range s.paras {
			if t := strings.TrimSpace(p.text); t != "" {
				lines = append(lines, t)
			}
		}
	}
	return strings.Join(lines, "\n"), err
}

// comments reads a slide's comments, legacy (p:cmLst) or modern
// (p188:cmLst with replies), as "[author: Name (JS), time: …]: text".
func (r *pptx) comments(part string) ([]string, error) {
	var out []string
	var walk func(x *xr, se xml.StartElement) error
	walk = func(x *xr, se xml.StartElement) error {
		switch se.Name.Local {
		case "cm", "reply":
			who, when := attr(se, "authorId"), attr(se, "dt")
			if when == "" {
				when = attr(se, "created")
			}
			var text strings.Builder
			idx := len(out)
			out = append(out, "")
			err := x.children(func(c xml.StartElement) error {
				switch c.Name.Local {
				case "text":
					t, err := x.text()
					text.WriteString(t)
					return err
				case "txBody":
					paras, _, err := readTxBody(x)
					for _, p := range paras {
						if text.Len() > 0 {
							text.WriteByte('\n')
						}
						text.WriteString(p.text)
					}
					return err
				case "replyLst":
					return x.children(func(rc xml.StartElement) error { return walk(x, rc) }, nil)
				}
				return x.skip()
			}, nil)
			a := r.authors[who]
			name := a.name
			if a.initials != "" {
				name += " (" + a.initials + ")"
			}
			out[idx] = "[author: " + strings.TrimSpace(name) + ", time: " + when + "]: " + strings.TrimSpace(text.String())
			return err
		}
		return x.skip()
	}
	err := r.root(part, func(x *xr) error {
		return x.children(func(se xml.StartElement) error { return walk(x, se) }, nil)
	})
	return out, err
}
