package office

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/sanadhq/sanad/document"
	"github.com/sanadhq/sanad/parse/internal/grid"
)

// docx reads a WordprocessingML document.
type docx struct {
	ctx   context.Context
	p     *pkg
	st    *styles
	num   *numbering
	lists listCounters
	rels  map[string]rel // of the part being read

	headingCount map[int]int // numbered headings, per level

	notes     map[string]map[string][]document.Block // "footnote"/"endnote" → id → blocks
	noteOrder []noteRef
	inNote    bool

	// Tracked changes seen in the text read (body, notes, headers).
	insertions, deletions int
}

type noteRef struct{ kind, id, label string }

// sink receives the blocks of one container: the body, a table cell, a
// text box. It remembers whether the last paragraph was code, so that
// consecutive code paragraphs make one block.
type sink struct {
	blocks     []document.Block
	lastCode   bool
	blankCodes int
}

func (s *sink) add(b document.Block) {
	s.blocks = append(s.blocks, b)
	s.lastCode = false
	s.blankCodes = 0
}

func readDOCX(ctx context.Context, p *pkg, main string) (*document.Document, error) {
	r := &docx{ctx: ctx, p: p, headingCount: map[int]int{}, notes: map[string]map[string][]document.Block{}}
	rels, err := p.rels(main)
	if err != nil {
		return nil, err
	}
	r.rels = rels
	if err := r.readSupport(rels); err != nil {
		return nil, err
	}
	doc := &document.Document{Format: "docx", Pages: 1, Metadata: coreMetadata(p)}
	if v, ok := doc.Metadata["title"].(string); ok {
		doc.Title = v
	}

	body := &sink{}
	if err := r.readPart(main, body); err != nil {
		return nil, err
	}
	doc.Blocks = body.blocks

	// Footnotes and endnotes, in the order the text refers to them.
	for _, ref := range r.noteOrder {
		bs := r.notes[ref.kind][ref.id]
		first := true
		for _, b := range bs {
			if first && (b.Kind == document.Text || b.Kind == document.List) {
				b.Kind, b.Level, b.Ordered, b.Marker = document.Text, 0, false, ""
				b.Text = "[^" + ref.label + "]: " + b.Text
				first = false
			}
			doc.Blocks = append(doc.Blocks, b)
		}
	}

	if r.insertions+r.deletions > 0 {
		doc.Notes = append(doc.Notes, document.Note{Code: "tracked_changes", Text: fmt.Sprintf(
			"the document has tracked changes (%d insertions, %d deletions): insertions are read as accepted and deleted text is left out", r.insertions, r.deletions)})
	}

	// Reviewers' comments are not part of the text (docling leaves them
	// out too); they are kept as notes, in document order.
	for _, id := range sortedKeys(rels) {
		rl := rels[id]
		if !relType(rl.Type, "comments") || rl.External || !p.has(rl.Target) {
			continue
		}
		cs, err := r.readComments(rl.Target)
		if err != nil && (errors.Is(err, errTooLarge) || ctx.Err() != nil) {
			return nil, err
		}
		doc.Notes = append(doc.Notes, cs...)
	}

	// Headers and footers are page furniture: kept out of the body (as
	// docling does) and reported as notes, once each.
	seen := map[string]bool{}
	for _, id := range sortedKeys(rels) {
		rl := rels[id]
		kind := ""
		switch {
		case relType(rl.Type, "header"):
			kind = "page_header"
		case relType(rl.Type, "footer"):
			kind = "page_footer"
		default:
			continue
		}
		if rl.External || !p.has(rl.Target) {
			continue
		}
		saved := r.rels
		hr, err := p.rels(rl.Target)
		if err != nil {
			return nil, err
		}
		r.rels = hr
		s := &sink{}
		err = r.readPart(rl.Target, s)
		r.rels = saved
		if err != nil {
			if errors.Is(err, errTooLarge) || r.ctx.Err() != nil {
				return nil, err
			}
			continue
		}
		text := strings.TrimSpace(plainText(s.blocks))
		if text != "" && !seen[kind+text] {
			seen[kind+text] = true
			doc.Notes = append(doc.Notes, document.Note{Code: kind, Text: "not in the body: " + text})
		}
	}
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

// readSupport reads styles, numbering and notes, which the body refers to.
// A missing or malformed supporting part is read as far as it goes.
func (r *docx) readSupport(rels map[string]rel) error {
	r.st = &styles{byID: map[string]*wstyle{}, maxChainHops: 10}
	r.num = &numbering{nums: map[int]*numInst{}, abstracts: map[int]*abstractNum{}}
	for _, id := range sortedKeys(rels) {
		rl := rels[id]
		if rl.External || !r.p.has(rl.Target) {
			continue
		}
		var err error
		switch {
		case relType(rl.Type, "styles"):
			err = r.withRoot(rl.Target, func(x *xr) error {
				st, err := readStyles(x)
				r.st = st
				return err
			})
		case relType(rl.Type, "numbering"):
			err = r.withRoot(rl.Target, func(x *xr) error {
				n, err := readNumbering(x)
				r.num = n
				return err
			})
		case relType(rl.Type, "footnotes"), relType(rl.Type, "endnotes"):
			kind := "footnote"
			if relType(rl.Type, "endnotes") {
				kind = "endnote"
			}
			err = r.readNotes(rl.Target, kind)
		}
		if err != nil && (errors.Is(err, errTooLarge) || r.ctx.Err() != nil) {
			return err
		}
	}
	r.lists = listCounters{n: r.num, st: r.st}
	return nil
}

// withRoot opens a part and calls fn with the reader positioned inside its
// root element.
func (r *docx) withRoot(part string, fn func(*xr) error) error {
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

func (r *docx) readNotes(part, kind string) error {
	saved := r.rels
	defer func() { r.rels = saved }()
	rels, err := r.p.rels(part)
	if err != nil {
		return err
	}
	r.rels = rels
	r.inNote = true
	defer func() { r.inNote = false }()
	notes := map[string][]document.Block{}
	r.notes[kind] = notes
	return r.withRoot(part, func(x *xr) error {
		return x.children(func(se xml.StartElement) error {
			if se.Name.Local != "footnote" && se.Name.Local != "endnote" {
				return x.skip()
			}
			if t := attr(se, "type"); t != "" && t != "normal" {
				return x.skip()
			}
			s := &sink{}
			if err := r.blockChildren(x, s); err != nil {
				return err
			}
			notes[attr(se, "id")] = s.blocks
			return nil
		}, nil)
	})
}

// readComments reads word/comments.xml: each comment as a note
// "[author: Name (IN), time: …]: text".
func (r *docx) readComments(part string) ([]document.Note, error) {
	var out []document.Note
	err := r.withRoot(part, func(x *xr) error {
		return x.children(func(se xml.StartElement) error {
			if se.Name.Local != "comment" {
				return x.skip()
			}
			s := &sink{}
			if err := r.blockChildren(x, s); err != nil {
				return err
			}
			who := attr(se, "author")
			if in := attr(se, "initials"); in != "" {
				who += " (" + in + ")"
			}
			if text := plainText(s.blocks); text != "" {
				out = append(out, document.Note{Code: "comment", Text: "[author: " + who + ", time: " + attr(se, "date") + "]: " + text})
			}
			return nil
		}, nil)
	})
	return out, err
}

// readPart reads a part whose root holds block content (document.xml's
// w:body, a header, a footer).
func (r *docx) readPart(part string, s *sink) error {
	return r.withRoot(part, func(x *xr) error {
		return x.children(func(se xml.StartElement) error {
			if se.Name.Local == "body" {
				return r.blockChildren(x, s)
			}
			return r.block(x, se, s)
		}, nil)
	})
}

// blockChildren reads the block content of the current element.
func (r *docx) blockChildren(x *xr, s *sink) error {
	return x.children(func(se xml.StartElement) error { return r.block(x, se, s) }, nil)
}

// block reads one block-level element.
func (r *docx) block(x *xr, se xml.StartElement, s *sink) error {
	if err := r.ctx.Err(); err != nil {
		return err
	}
	ns := space(se.Name)
	if ns == nsMC && se.Name.Local == "AlternateContent" {
		return r.alternate(x, func(c xml.StartElement) error { return r.block(x, c, s) })
	}
	if ns != nsW {
		return x.skip()
	}
	switch se.Name.Local {
	case "p":
		return r.paragraph(x, s)
	case "tbl":
		return r.table(x, s)
	case "sdt":
		return x.children(func(c xml.StartElement) error {
			if c.Name.Local == "sdtContent" {
				return r.blockChildren(x, s)
			}
			return x.skip()
		}, nil)
	case "customXml", "ins", "moveTo", "txbxContent", "smartTag":
		return r.blockChildren(x, s)
	}
	return x.skip()
}

// alternate reads an mc:AlternateContent: its first choice, never the
// fallback (which repeats the same content in an older form).
func (r *docx) alternate(x *xr, fn func(xml.StartElement) error) error {
	done := false
	return x.children(func(c xml.StartElement) error {
		if done || (c.Name.Local != "Choice" && c.Name.Local != "Fallback") {
			return x.skip()
		}
		done = true
		return x.children(fn, nil)
	}, nil)
}

// para is a paragraph as read, before it is classified.
type para struct {
	style         string
	numID, ilvl   int
	hasNum        bool
	hasIlvl       bool
	outline       int // direct w:outlineLvl + 1
	text          strings.Builder
	plain         int // letters and digits outside equations
	mono, chars   int // characters in a monospaced font, all characters
	equations     []string
	display       []string // display equations (m:oMathPara)
	checkbox      int      // 0 none, 1 unchecked, 2 checked
	images        int
	boxes         []document.Block // text boxes and charts, in order
	leadingIndent bool
	fieldDepth    int
	inFieldInstr  bool
	linkDepth     int
}

// paragraph reads a w:p and emits its blocks.
func (r *docx) paragraph(x *xr, s *sink) error {
	p := &para{}
	if err := x.children(func(se xml.StartElement) error {
		if is(se, nsW, "pPr") {
			return r.pPr(x, p)
		}
		return r.inline(x, se, p, &p.text)
	}, nil); err != nil {
		return err
	}
	r.emit(p, s)
	return nil
}

func (r *docx) pPr(x *xr, p *para) error {
	return x.children(func(se xml.StartElement) error {
		switch se.Name.Local {
		case "pStyle":
			p.style = attr(se, "val")
		case "numPr":
			return readNumPr(x, &p.numID, &p.ilvl, &p.hasNum, &p.hasIlvl)
		case "outlineLvl":
			p.outline = attrInt(se, "val", -1) + 1
		}
		return x.skip()
	}, nil)
}

// inline reads one element of paragraph content into out.
func (r *docx) inline(x *xr, se xml.StartElement, p *para, out *strings.Builder) error {
	ns := space(se.Name)
	switch {
	case ns == nsMC && se.Name.Local == "AlternateContent":
		return r.alternate(x, func(c xml.StartElement) error { return r.inline(x, c, p, out) })
	case ns == nsM && se.Name.Local == "oMathPara":
		return x.children(func(c xml.StartElement) error {
			if c.Name.Local == "oMath" {
				eq, err := r.equation(x, c)
				if eq != "" {
					p.display = append(p.display, eq)
				}
				return err
			}
			return x.skip()
		}, nil)
	case ns == nsM && se.Name.Local == "oMath":
		eq, err := r.equation(x, se)
		if eq != "" {
			p.equations = append(p.equations, eq)
			out.WriteString(" $" + eq + "$ ")
		}
		return err
	case ns != nsW:
		return x.skip()
	}
	switch se.Name.Local {
	case "r":
		return r.run(x, p, out)
	case "hyperlink":
		var inner strings.Builder
		p.linkDepth++
		err := x.children(func(c xml.StartElement) error { return r.inline(x, c, p, &inner) }, nil)
		p.linkDepth--
		target := ""
		if id := relAttr(se, "id"); id != "" {
			if rl, ok := r.rels[id]; ok && rl.External {
				target = rl.Target
			}
		}
		if a := attr(se, "anchor"); target == "" && a != "" {
			target = "#" + a
		} else if a != "" {
			target += "#" + a
		}
		writeLink(out, inner.String(), target)
		return err
	case "sdt":
		return x.children(func(c xml.StartElement) error {
			switch c.Name.Local {
			case "sdtPr":
				return r.sdtPr(x, p)
			case "sdtContent":
				return x.children(func(cc xml.StartElement) error { return r.inline(x, cc, p, out) }, nil)
			}
			return x.skip()
		}, nil)
	case "ins", "moveTo":
		r.insertions++
		return x.children(func(c xml.StartElement) error { return r.inline(x, c, p, out) }, nil)
	case "del", "moveFrom":
		r.deletions++
	case "fldSimple", "smartTag", "customXml", "dir", "bdo", "rubyBase", "ruby":
		return x.children(func(c xml.StartElement) error { return r.inline(x, c, p, out) }, nil)
	}
	return x.skip()
}

func writeLink(out *strings.Builder, text, target string) {
	t := strings.TrimSpace(text)
	if t == "" || target == "" || strings.ContainsAny(target, " \n") {
		out.WriteString(text)
		return
	}
	lead := text[:len(text)-len(strings.TrimLeftFunc(text, unicode.IsSpace))]
	trail := text[len(strings.TrimRightFunc(text, unicode.IsSpace)):]
	out.WriteString(lead + "[" + t + "](" + target + ")" + trail)
}

func (r *docx) sdtPr(x *xr, p *para) error {
	return x.children(func(se xml.StartElement) error {
		if se.Name.Local == "checkbox" {
			p.checkbox = 1
			return x.children(func(c xml.StartElement) error {
				if c.Name.Local == "checked" && onOff(c) {
					p.checkbox = 2
				}
				return x.skip()
			}, nil)
		}
		return x.skip()
	}, nil)
}

// run reads a w:r.
func (r *docx) run(x *xr, p *para, out *strings.Builder) error {
	font, rstyle := "", ""
	return x.children(func(se xml.StartElement) error {
		ns := space(se.Name)
		if ns == nsMC && se.Name.Local == "AlternateContent" {
			return r.alternate(x, func(c xml.StartElement) error { return r.runChild(x, c, p, out, font, rstyle) })
		}
		if ns == nsW && se.Name.Local == "rPr" {
			return x.children(func(c xml.StartElement) error {
				switch c.Name.Local {
				case "rFonts":
					font = runFont(c)
				case "rStyle":
					rstyle = attr(c, "val")
				}
				return x.skip()
			}, nil)
		}
		return r.runChild(x, se, p, out, font, rstyle)
	}, nil)
}

func (r *docx) runChild(x *xr, se xml.StartElement, p *para, out *strings.Builder, font, rstyle string) error {
	ns := space(se.Name)
	switch ns {
	case nsW:
	case nsM:
		return r.inline(x, se, p, out)
	default:
		return x.skip()
	}
	switch se.Name.Local {
	case "t":
		t, err := x.text()
		if p.fieldDepth > 0 && p.inFieldInstr {
			return err
		}
		r.addText(p, out, t, font, rstyle)
		return err
	case "tab", "ptab":
		out.WriteByte('\t')
		if p.text.Len() == 0 && out == &p.text {
			p.leadingIndent = true
		}
	case "br", "cr":
		if attr(se, "type") != "page" && attr(se, "type") != "column" {
			out.WriteByte('\n')
		}
	case "noBreakHyphen":
		out.WriteByte('-')
	case "sym":
		if c, err := strconv.ParseUint(attr(se, "char"), 16, 32); err == nil {
			switch rune(c) {
			case 0xF0FE, 0xF078, 0x2612, 0x2611: // Wingdings checked box, x
				if p.checkbox == 0 {
					p.checkbox = 2
				}
			case 0xF0A8, 0xF06F, 0x2610:
				if p.checkbox == 0 {
					p.checkbox = 1
				}
			}
		}
	case "fldChar":
		switch attr(se, "fldCharType") {
		case "begin":
			p.fieldDepth++
			p.inFieldInstr = true
			return x.children(func(c xml.StartElement) error {
				if c.Name.Local == "ffData" {
					return x.children(func(cc xml.StartElement) error {
						if cc.Name.Local != "checkBox" {
							return x.skip()
						}
						state := 1
						err := x.children(func(v xml.StartElement) error {
							if (v.Name.Local == "checked" || v.Name.Local == "default") && onOff(v) {
								state = 2
							}
							return x.skip()
						}, nil)
						if p.checkbox == 0 {
							p.checkbox = state
						}
						return err
					}, nil)
				}
				return x.skip()
			}, nil)
		case "separate":
			p.inFieldInstr = false
		case "end":
			if p.fieldDepth > 0 {
				p.fieldDepth--
			}
			p.inFieldInstr = false
		}
	case "footnoteReference", "endnoteReference":
		kind := strings.TrimSuffix(se.Name.Local, "Reference")
		id := attr(se, "id")
		if !r.inNote {
			label := strconv.Itoa(len(r.noteOrder) + 1)
			if kind == "endnote" {
				label = "e" + label
			}
			r.noteOrder = append(r.noteOrder, noteRef{kind: kind, id: id, label: label})
			out.WriteString("[^" + label + "]")
		}
	case "drawing":
		return r.drawing(x, p)
	case "pict", "object":
		return r.drawing(x, p)
	}
	return x.skip()
}

var checkGlyphs = map[rune]int{'☐': 1, '☒': 2, '☑': 2}

func (r *docx) addText(p *para, out *strings.Builder, t, font, rstyle string) {
	if t == "" {
		return
	}
	if out == &p.text && p.text.Len() == 0 && strings.TrimSpace(t) != "" && t[0] == ' ' {
		p.leadingIndent = true
	}
	// A checkbox drawn as a glyph.
	if p.text.Len() == 0 || p.checkbox != 0 {
		trimmed := strings.TrimLeftFunc(t, unicode.IsSpace)
		for g, state := range checkGlyphs {
			if strings.HasPrefix(trimmed, string(g)) {
				if p.checkbox == 0 {
					p.checkbox = state
				}
				t = strings.TrimPrefix(trimmed, string(g))
				break
			}
		}
	}
	out.WriteString(t)
	n := 0
	for _, c := range t {
		if !unicode.IsSpace(c) {
			n++
		}
		if unicode.IsLetter(c) || unicode.IsDigit(c) {
			p.plain++
		}
	}
	f := font
	if f == "" && rstyle != "" {
		f = r.st.font(rstyle)
	}
	if f == "" {
		f = r.st.font(p.style)
	}
	p.chars += n
	if monospace[f] {
		p.mono += n
	}
}

var monospace = map[string]bool{
	"consolas": true, "courier": true, "courier new": true, "lucida console": true, "menlo": true,
	"monaco": true, "dejavu sans mono": true, "andale mono": true, "liberation mono": true, "sf mono": true,
	"source code pro": true, "fira code": true, "fira mono": true, "roboto mono": true, "jetbrains mono": true,
	"cascadia code": true, "cascadia mono": true,
}

// equation reads an m:oMath into LaTeX.
func (r *docx) equation(x *xr, se xml.StartElement) (string, error) {
	budget := maxMathNodes
	n, err := readTree(x, se, &budget)
	if err != nil {
		return "", err
	}
	return latex(n), nil
}

// drawing reads a w:drawing, w:pict or w:object: pictures, text boxes,
// charts.
func (r *docx) drawing(x *xr, p *para) error {
	return x.children(func(se xml.StartElement) error { return r.drawingNode(x, se, p) }, nil)
}

func (r *docx) drawingNode(x *xr, se xml.StartElement, p *para) error {
	ns, local := space(se.Name), se.Name.Local
	switch {
	case ns == nsMC && local == "AlternateContent":
		return r.alternate(x, func(c xml.StartElement) error { return r.drawingNode(x, c, p) })
	case ns == nsPic && local == "pic", ns == nsV && local == "imagedata":
		p.images++
		p.boxes = append(p.boxes, document.Block{Kind: document.Image})
		return x.skip()
	case ns == nsW && local == "txbxContent":
		s := &sink{}
		if err := r.blockChildren(x, s); err != nil {
			return err
		}
		p.boxes = append(p.boxes, s.blocks...)
		return nil
	case ns == nsC && local == "chart":
		id := relAttr(se, "id")
		if rl, ok := r.rels[id]; ok && !rl.External && r.p.has(rl.Target) {
			p.boxes = append(p.boxes, r.chartBlocks(rl.Target, 0)...)
		}
		return x.skip()
	}
	return x.children(func(c xml.StartElement) error { return r.drawingNode(x, c, p) }, nil)
}

func (r *docx) chartBlocks(part string, page int) []document.Block {
	bs, err := readChart(r.ctx, r.p, part)
	if err != nil {
		return []document.Block{{Kind: document.Image, Page: page}}
	}
	for i := range bs {
		bs[i].Page = page
	}
	return bs
}

var (
	codeCall = regexp.MustCompile(`[A-Za-z_]\((?:\s*\)|[^)]*[\d,._='"][^)]*\))`)
	codeDef  = regexp.MustCompile(`(?m)^[ \t]*(?:async\s+)?(?:def|class|if|elif|while|for|with|except|finally|try|catch|switch|function|func|fn|sub|proc)\s+\S[^\n]*:[ \t]*$`)
	figureRe = regexp.MustCompile(`(?i)^(figure|table|listing)\s+\d`)
	codeKW   = regexp.MustCompile(`^\s*(import|from|select|insert|update|delete|create|#include|package|using|var|let|const|return)\b`)
)

// looksLikeCode reports whether monospaced text reads as code rather than
// as prose set in a typewriter face.
func looksLikeCode(text string) bool {
	t := strings.TrimSpace(text)
	if t == "" || figureRe.MatchString(t) {
		return false
	}
	if strings.ContainsAny(t, "{}=<>") || codeCall.MatchString(t) || codeDef.MatchString(t) {
		return true
	}
	return codeKW.MatchString(strings.ToLower(t)) && strings.ContainsAny(t, ".*;(")
}

// emit classifies a paragraph and adds its blocks to s.
func (r *docx) emit(p *para, s *sink) {
	// Text boxes, pictures and charts come first, as docling orders them.
	for _, b := range p.boxes {
		s.add(b)
	}
	raw := strings.TrimRightFunc(p.text.String(), unicode.IsSpace)
	text := normalizeSpace(raw)
	numID, ilvl, hasNum := p.numID, p.ilvl, p.hasNum
	if !hasNum {
		numID, ilvl, hasNum = r.st.numPr(p.style)
	} else if !p.hasIlvl {
		if _, sl, ok := r.st.numPr(p.style); ok {
			ilvl = sl
		}
	}
	if numID == 0 {
		hasNum = false
	}
	level, title := r.st.heading(p.style)
	if level == 0 && p.outline >= 1 && p.outline <= 9 {
		level = p.outline + 1
	}
	codeStyle := r.st.isCode(p.style)

	// Display equations stand alone.
	if p.plain == 0 && len(p.equations)+len(p.display) > 0 && level == 0 && !hasNum {
		for _, eq := range append(p.equations, p.display...) {
			s.add(document.Block{Kind: document.Text, Text: "$$" + eq + "$$"})
		}
		return
	}
	defer func() {
		for _, eq := range p.display {
			s.add(document.Block{Kind: document.Text, Text: "$$" + eq + "$$"})
		}
	}()

	switch {
	case text == "" && p.checkbox == 0:
		if s.lastCode && codeStyle {
			s.blankCodes++
		}
		return
	case level > 0 && text != "":
		if !title && hasNum {
			if lvl := r.num.level(r.st, numID, ilvl); lvl != nil && visibleFormat(lvl.fmt) {
				text = r.headingNumber(level-1) + " " + text
			}
		}
		s.add(document.Block{Kind: document.Header, Level: level, Text: text})
		return
	case p.checkbox != 0:
		box := "[ ] "
		if p.checkbox == 2 {
			box = "[x] "
		}
		b := document.Block{Kind: document.List, Text: box + strings.TrimSpace(text)}
		if hasNum {
			b.Level = ilvl
		}
		s.add(b)
		return
	case codeStyle || (!hasNum && p.chars > 0 && float64(p.mono)/float64(p.chars) >= 0.9 &&
		(looksLikeCode(raw) || (s.lastCode && p.leadingIndent))):
		code := strings.TrimRightFunc(strings.TrimLeft(raw, "\n"), unicode.IsSpace)
		if n := len(s.blocks); s.lastCode && n > 0 && s.blocks[n-1].Kind == document.Code {
			s.blocks[n-1].Text += strings.Repeat("\n", s.blankCodes+1) + code
		} else {
			s.blocks = append(s.blocks, document.Block{Kind: document.Code, Text: code})
		}
		s.lastCode, s.blankCodes = true, 0
		return
	case hasNum:
		marker, ordered := r.lists.next(numID, ilvl)
		b := document.Block{Kind: document.List, Level: max(0, min(ilvl, 8)), Text: text, Ordered: ordered}
		if ordered {
			b.Marker = marker
		}
		s.add(b)
		return
	}
	s.add(document.Block{Kind: document.Text, Text: text})
}

// headingNumber advances the counter of a numbered heading level and
// returns its number ("2.1"); a level skipped over counts as 1, as Word
// shows it.
func (r *docx) headingNumber(level int) string {
	r.headingCount[level]++
	for l := range r.headingCount {
		if l > level {
			r.headingCount[l] = 0
		}
	}
	var parts []string
	for l := 1; l <= level; l++ {
		c, ok := r.headingCount[l]
		if !ok {
			continue
		}
		if c == 0 && l < level {
			c = 1
			r.headingCount[l] = 1
		}
		parts = append(parts, strconv.Itoa(c))
	}
	return strings.Join(parts, ".")
}

// normalizeSpace trims a paragraph and turns tabs into spaces, keeping
// line breaks.
func normalizeSpace(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	for _, l := range lines {
		l = strings.Join(strings.FieldsFunc(l, func(r rune) bool { return r == ' ' || r == '\t' || r == '\u00a0' }), " ")
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// table reads a w:tbl: cells placed on the table grid, gridSpan as column
// span, vMerge continuation as row span; a table in a cell becomes text
// of that cell.
func (r *docx) table(x *xr, s *sink) error {
	var g grid.Builder
	row := -1
	headerRows := 0
	// Rows and cells may be wrapped in content controls (w:sdt) or custom
	// XML; those wrappers are read through.
	var tableChild func(se xml.StartElement) error
	tableChild = func(se xml.StartElement) error {
		if space(se.Name) != nsW {
			return x.skip()
		}
		switch se.Name.Local {
		case "tr":
		case "sdt", "sdtContent", "customXml":
			return x.children(tableChild, nil)
		default:
			return x.skip()
		}
		row++
		g.EnsureRow(row)
		col := 0
		isHeader := false
		var rowChild func(c xml.StartElement) error
		rowChild = func(c xml.StartElement) error {
			if space(c.Name) != nsW {
				return x.skip()
			}
			switch c.Name.Local {
			case "trPr":
				return x.children(func(pr xml.StartElement) error {
					switch pr.Name.Local {
					case "gridBefore":
						col += max(0, min(attrInt(pr, "val", 0), 1000))
					case "tblHeader":
						isHeader = onOff(pr)
					}
					return x.skip()
				}, nil)
			case "tc":
				span, merge, text, err := r.cell(x)
				if err != nil {
					return err
				}
				span = max(1, min(span, 1000))
				if merge == "continue" && g.ExtendDown(row, col) {
					col += span
					return nil
				}
				g.Add(row, col, 1, span, text)
				col += span
				return nil
			case "sdt", "sdtContent", "customXml":
				return x.children(rowChild, nil)
			}
			return x.skip()
		}
		err := x.children(rowChild, nil)
		// Header rows repeat at the top of each page: count the leading ones.
		if isHeader && headerRows == row {
			headerRows++
		}
		return err
	}
	if err := x.children(tableChild, nil); err != nil {
		return err
	}
	g.HeaderRows = headerRows
	if t := g.Table(); t != nil {
		s.add(document.Block{Kind: document.Table, Table: t})
	}
	return nil
}

// cell reads a w:tc: its column span, vertical merge state and its content
// as one line of text.
func (r *docx) cell(x *xr) (span int, merge, text string, err error) {
	span = 1
	s := &sink{}
	err = x.children(func(se xml.StartElement) error {
		if space(se.Name) == nsW && se.Name.Local == "tcPr" {
			return x.children(func(c xml.StartElement) error {
				switch c.Name.Local {
				case "gridSpan":
					span = attrInt(c, "val", 1)
				case "vMerge":
					merge = strings.ToLower(attr(c, "val"))
					if merge == "" {
						merge = "continue"
					}
				}
				return x.skip()
			}, nil)
		}
		return r.block(x, se, s)
	}, nil)
	return span, merge, cellText(s.blocks), err
}

// cellText flattens a cell's blocks into one line, lists keeping their
// markers and nested tables their cells in reading order.
func cellText(bs []document.Block) string {
	var parts []string
	for _, b := range bs {
		switch b.Kind {
		case document.List:
			m := "-"
			if b.Marker != "" {
				m = b.Marker
			}
			parts = append(parts, m+" "+b.Text)
		case document.Table:
			if b.Table != nil {
				for _, row := range b.Table.Rows {
					for _, c := range row {
						if c.Text != "" {
							parts = append(parts, c.Text)
						}
					}
				}
			}
		case document.Image:
			parts = append(parts, "<!-- image -->")
		default:
			if b.Text != "" {
				parts = append(parts, b.Text)
			}
		}
	}
	return strings.Join(strings.Fields(strings.Join(parts, " ")), " ")
}

// plainText joins blocks' text, for notes.
func plainText(bs []document.Block) string {
	return cellText(bs)
}

// sortedKeys returns relationship ids in a stable order (rId2 before
// rId10).
func sortedKeys(m map[string]rel) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		na, nb := strings.TrimLeft(a, "rId"), strings.TrimLeft(b, "rId")
		ia, ea := strconv.Atoi(na)
		ib, eb := strconv.Atoi(nb)
		if ea == nil && eb == nil && ia != ib {
			return ia < ib
		}
		return a < b
	})
	return keys
}
