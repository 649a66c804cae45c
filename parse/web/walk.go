package web

import (
	"context"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/sanadhq/sanad/document"
	"github.com/sanadhq/sanad/parse/internal/grid"
)

// Bounds of the walk: element nesting followed (deeper content is read as
// flat text) and the text one block may collect.
const (
	maxDepth     = 400
	maxTextBytes = 8 << 20
)

// inline collects the text of one block, collapsing white space as a
// browser does and keeping <br> as a line break.
type inline struct {
	b     strings.Builder
	space bool
}

func (in *inline) text(s string) {
	for _, r := range s {
		if unicode.IsSpace(r) {
			in.space = in.b.Len() > 0
			continue
		}
		if in.b.Len() >= maxTextBytes {
			return
		}
		if in.space {
			in.b.WriteByte(' ')
			in.space = false
		}
		in.b.WriteRune(r)
	}
}

// raw writes s as it is, after any pending space.
func (in *inline) raw(s string) {
	if s == "" || in.b.Len() >= maxTextBytes {
		return
	}
	if in.space {
		in.b.WriteByte(' ')
		in.space = false
	}
	in.b.WriteString(s)
}

func (in *inline) newline() {
	if in.b.Len() > 0 {
		in.b.WriteByte('\n')
	}
	in.space = false
}

func (in *inline) sep() { in.space = in.b.Len() > 0 }

// take returns the collected text, each line trimmed, and empties it.
func (in *inline) take() string {
	lines := strings.Split(in.b.String(), "\n")
	out := lines[:0]
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	in.b.Reset()
	in.space = false
	return strings.Join(out, "\n")
}

type frameKind int

const (
	fItem frameKind = iota
	fLink
	fHeading
	fCell
	fCode
)

// frame is text being collected for something other than a paragraph: a
// list item, a link, a heading, a table cell.
type frame struct {
	kind    frameKind
	in      inline
	level   int
	ordered bool
	marker  string
	emitted bool
	images  []document.Block // pictures inside a link
	dd      bool             // a description (dd) rather than a list item
}

type walker struct {
	ctx       context.Context
	blocks    []document.Block
	para      inline
	frames    []*frame
	listDepth int
	pre       int // inside <pre>: white space kept
	visited   int
	stopped   bool
}

func newWalker(ctx context.Context) *walker { return &walker{ctx: ctx} }

// cur is where text goes now.
func (w *walker) cur() *inline {
	if n := len(w.frames); n > 0 {
		return &w.frames[n-1].in
	}
	return &w.para
}

func (w *walker) top() *frame {
	if n := len(w.frames); n > 0 {
		return w.frames[n-1]
	}
	return nil
}

// inlineOnly reports whether content is being collected into one line (a
// link, heading, cell or code span), where structure becomes text.
func (w *walker) inlineOnly() bool {
	f := w.top()
	return f != nil && f.kind != fItem
}

func (w *walker) add(b document.Block) { w.blocks = append(w.blocks, b) }

// flush ends the paragraph being collected.
func (w *walker) flush() {
	if t := w.para.take(); t != "" {
		w.add(document.Block{Kind: document.Text, Text: t})
	}
}

func (w *walker) children(n *html.Node, depth int) {
	for k := n.FirstChild; k != nil; k = k.NextSibling {
		w.node(k, depth+1)
	}
}

// block walks content whose elements may be blocks.
func (w *walker) block(n *html.Node, depth int) { w.node(n, depth) }

func (w *walker) node(n *html.Node, depth int) {
	if w.stopped {
		return
	}
	w.visited++
	if w.visited&0x3ff == 0 && w.ctx.Err() != nil {
		w.stopped = true
		return
	}
	switch n.Type {
	case html.TextNode:
		if w.pre > 0 {
			w.cur().raw(n.Data)
		} else {
			w.cur().text(n.Data)
		}
		return
	case html.DocumentNode:
		w.children(n, depth)
		return
	case html.ElementNode:
	default:
		return
	}
	if depth > maxDepth {
		w.cur().text(nodeText(n))
		return
	}
	if hidden(n) {
		return
	}
	switch n.DataAtom {
	case atom.Script, atom.Style, atom.Template, atom.Head, atom.Noscript, atom.Iframe, atom.Object,
		atom.Embed, atom.Svg, atom.Math, atom.Canvas, atom.Audio, atom.Video, atom.Select, atom.Textarea,
		atom.Button, atom.Title, atom.Meta, atom.Link:
		return
	case atom.Br:
		w.cur().newline()
	case atom.Hr:
		if !w.inlineOnly() {
			w.flush()
		}
	case atom.Img:
		w.image(n, "")
	case atom.Input:
		if strings.EqualFold(attr(n, "type"), "checkbox") {
			if hasAttr(n, "checked") {
				w.cur().raw("[x]")
			} else {
				w.cur().raw("[ ]")
			}
			w.cur().sep()
		}
	case atom.A:
		w.link(n, depth)
	case atom.Code, atom.Kbd, atom.Samp, atom.Tt:
		w.codeSpan(n, depth)
	case atom.Sup, atom.Sub:
		w.script(n, depth)
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		w.heading(n, depth)
	case atom.Ul, atom.Ol, atom.Menu:
		w.list(n, depth)
	case atom.Dl:
		w.descriptions(n, depth)
	case atom.Li:
		// A list item outside a list.
		w.structural(n, depth, func() {
			w.item(n, depth, w.listDepth, false, "", false)
		})
	case atom.Table:
		w.table(n, depth)
	case atom.Pre:
		w.preformatted(n, depth)
	case atom.Figure:
		w.figure(n, depth)
	case atom.P, atom.Div, atom.Section, atom.Article, atom.Main, atom.Header, atom.Footer, atom.Aside,
		atom.Nav, atom.Blockquote, atom.Address, atom.Center, atom.Form, atom.Fieldset, atom.Details,
		atom.Summary, atom.Figcaption, atom.Caption, atom.Legend, atom.Body, atom.Html, atom.Dd, atom.Dt,
		atom.Tr, atom.Td, atom.Th, atom.Tbody, atom.Thead, atom.Tfoot, atom.Hgroup, atom.Search:
		if w.top() != nil {
			w.cur().sep()
			w.children(n, depth)
			w.cur().sep()
			return
		}
		w.flush()
		w.children(n, depth)
		w.flush()
	default:
		w.children(n, depth)
	}
}

// hidden reports whether an element is not shown.
func hidden(n *html.Node) bool {
	if hasAttr(n, "hidden") {
		return true
	}
	style := strings.ToLower(strings.ReplaceAll(attr(n, "style"), " ", ""))
	return strings.Contains(style, "display:none") || strings.Contains(style, "visibility:hidden")
}

// structural runs fn for an element that makes blocks of its own (a list,
// a table, a heading, a picture): inside a list item it first ends the
// item's own text, and nests under it.
func (w *walker) structural(n *html.Node, depth int, fn func()) {
	f := w.top()
	if f == nil {
		w.flush()
		fn()
		return
	}
	if f.kind != fItem {
		return
	}
	w.emitItem(f)
	saved := w.listDepth
	w.listDepth = f.level + 1
	if f.dd && (n.DataAtom == atom.Dl) && !f.emitted {
		w.listDepth = f.level
	}
	fn()
	w.listDepth = saved
}

// emitItem adds a list item's text collected so far.
func (w *walker) emitItem(f *frame) {
	t := strings.Join(strings.Fields(f.in.take()), " ")
	if t == "" {
		return
	}
	if f.emitted {
		w.add(document.Block{Kind: document.Text, Text: t})
		return
	}
	b := document.Block{Kind: document.List, Level: min(f.level, 12), Text: t, Ordered: f.ordered}
	if f.ordered {
		b.Marker = f.marker
	}
	w.add(b)
	f.emitted = true
}

func (w *walker) push(k frameKind) *frame {
	f := &frame{kind: k}
	w.frames = append(w.frames, f)
	return f
}

func (w *walker) pop() *frame {
	f := w.frames[len(w.frames)-1]
	w.frames = w.frames[:len(w.frames)-1]
	return f
}

// image adds a picture: a block of its own, with its alt text (or the
// figure's caption) as its text; inside a cell, a link or a heading, a
// mention in the text.
func (w *walker) image(n *html.Node, caption string) {
	alt := collapse(attr(n, "alt"))
	if caption != "" {
		alt = caption
	}
	w.picture(n, alt)
}

func (w *walker) picture(n *html.Node, alt string) {
	if f := w.top(); f != nil {
		switch f.kind {
		case fLink:
			f.images = append(f.images, document.Block{Kind: document.Image, Text: alt})
			return
		case fItem:
		default:
			if alt != "" {
				w.cur().text(alt)
			}
			w.cur().raw("<!-- image -->")
			w.cur().sep()
			return
		}
	}
	w.structural(n, 0, func() {
		w.add(document.Block{Kind: document.Image, Text: alt})
	})
}

// link writes [text](href); a link around only a picture is the picture.
func (w *walker) link(n *html.Node, depth int) {
	f := w.push(fLink)
	w.children(n, depth)
	w.pop()
	text := strings.Join(strings.Fields(f.in.take()), " ")
	href := strings.TrimSpace(attr(n, "href"))
	switch {
	case text == "":
	case href == "" || strings.HasPrefix(strings.ToLower(href), "javascript:") || strings.ContainsAny(href, " \n()"):
		w.cur().text(text)
	default:
		w.cur().raw("[" + text + "](" + href + ")")
	}
	for _, img := range f.images {
		w.picture(n, img.Text)
	}
}

// codeSpan writes `code`.
func (w *walker) codeSpan(n *html.Node, depth int) {
	if w.pre > 0 {
		w.children(n, depth)
		return
	}
	f := w.push(fCode)
	w.children(n, depth)
	w.pop()
	if t := strings.Join(strings.Fields(f.in.take()), " "); t != "" {
		w.cur().raw("`" + t + "`")
	}
}

// script writes a superscript as ^x and a subscript as _x, so that x^2
// and H_2O keep their sense in plain text; a footnote reference (a
// superscript link) is written as it is.
func (w *walker) script(n *html.Node, depth int) {
	f := w.push(fCode)
	w.children(n, depth)
	w.pop()
	t := strings.Join(strings.Fields(f.in.take()), " ")
	if t == "" {
		return
	}
	switch {
	case strings.HasPrefix(t, "["):
		w.cur().raw(t)
	case n.DataAtom == atom.Sup:
		w.cur().raw("^" + t)
	default:
		w.cur().raw("_" + t)
	}
}

func (w *walker) heading(n *html.Node, depth int) {
	if w.inlineOnly() {
		w.cur().sep()
		w.children(n, depth)
		w.cur().sep()
		return
	}
	w.structural(n, depth, func() {
		f := w.push(fHeading)
		w.children(n, depth)
		w.pop()
		if t := strings.Join(strings.Fields(f.in.take()), " "); t != "" {
			level, _ := strconv.Atoi(n.Data[1:])
			w.add(document.Block{Kind: document.Header, Level: level, Text: t})
		}
		for _, img := range f.images {
			w.add(img)
		}
	})
}

// list reads ul and ol: one block per item, nested lists one level
// deeper, ordered items with their numbers (start and value honoured).
func (w *walker) list(n *html.Node, depth int) {
	ordered := n.DataAtom == atom.Ol
	if w.inlineOnly() {
		// Inside a cell or link: "- a - b" as text.
		c := startOf(n)
		for k := n.FirstChild; k != nil; k = k.NextSibling {
			if k.Type == html.ElementNode && k.DataAtom == atom.Li {
				m := "-"
				if ordered {
					m = strconv.Itoa(c) + "."
					c++
				}
				w.cur().sep()
				w.cur().raw(m)
				w.cur().sep()
				w.children(k, depth+1)
				w.cur().sep()
			} else {
				w.node(k, depth+1)
			}
		}
		return
	}
	w.structural(n, depth, func() {
		level := w.listDepth
		w.listDepth = level + 1
		c := startOf(n)
		for k := n.FirstChild; k != nil; k = k.NextSibling {
			if k.Type != html.ElementNode || k.DataAtom != atom.Li {
				if k.Type == html.ElementNode {
					w.node(k, depth+1)
				}
				continue
			}
			if v, err := strconv.Atoi(strings.TrimSpace(attr(k, "value"))); err == nil && ordered {
				c = v
			}
			marker := ""
			if ordered {
				marker = strconv.Itoa(c) + "."
				c++
			}
			w.item(k, depth+1, level, ordered, marker, false)
		}
		w.listDepth = level
	})
}

func startOf(n *html.Node) int {
	if v, err := strconv.Atoi(strings.TrimSpace(attr(n, "start"))); err == nil && v > -1e9 && v < 1e9 {
		return v
	}
	return 1
}

// item reads one li, dt or dd: its text up to any nested structure, which
// follows one level deeper.
func (w *walker) item(n *html.Node, depth, level int, ordered bool, marker string, dd bool) {
	f := w.push(fItem)
	f.level, f.ordered, f.marker, f.dd = level, ordered, marker, dd
	w.children(n, depth)
	w.emitItem(f)
	w.pop()
}

// descriptions reads a dl: terms as items, their descriptions nested one
// level under them.
func (w *walker) descriptions(n *html.Node, depth int) {
	if w.inlineOnly() {
		w.cur().sep()
		w.children(n, depth)
		w.cur().sep()
		return
	}
	w.structural(n, depth, func() {
		level := w.listDepth
		sawTerm := false
		var walk func(p *html.Node, d int)
		walk = func(p *html.Node, d int) {
			for k := p.FirstChild; k != nil; k = k.NextSibling {
				if k.Type != html.ElementNode || d > maxDepth {
					continue
				}
				switch k.DataAtom {
				case atom.Dt:
					sawTerm = true
					w.listDepth = level + 1
					w.item(k, d+1, level, false, "", false)
				case atom.Dd:
					l := level
					if sawTerm {
						l = level + 1
					}
					w.listDepth = l + 1
					w.item(k, d+1, l, false, "", true)
				case atom.Div: // <div> groups of dt/dd are allowed
					walk(k, d+1)
				default:
					w.node(k, d+1)
				}
			}
		}
		walk(n, depth)
		w.listDepth = level
	})
}

func (w *walker) preformatted(n *html.Node, depth int) {
	if w.top() != nil {
		// Inside an item, a cell or a link: code as inline text.
		f := w.push(fCode)
		w.children(n, depth)
		w.pop()
		if t := strings.Join(strings.Fields(f.in.take()), " "); t != "" {
			w.cur().raw("`" + t + "`")
		}
		return
	}
	w.flush()
	w.pre++
	w.children(n, depth)
	w.pre--
	code := strings.Trim(w.para.b.String(), "\n")
	code = strings.TrimRightFunc(code, unicode.IsSpace)
	w.para.b.Reset()
	w.para.space = false
	if strings.TrimSpace(code) != "" {
		w.add(document.Block{Kind: document.Code, Text: dedent(code)})
	}
}

// dedent removes the indentation all lines of code share.
func dedent(s string) string {
	lines := strings.Split(s, "\n")
	common := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " \t"))
		if common < 0 || n < common {
			common = n
		}
	}
	if common <= 0 {
		return s
	}
	for i, l := range lines {
		if len(l) >= common {
			lines[i] = l[common:]
		} else {
			lines[i] = strings.TrimLeft(l, " \t")
		}
	}
	return strings.Join(lines, "\n")
}

// figure reads a figure: its picture with the figcaption as caption.
func (w *walker) figure(n *html.Node, depth int) {
	capNode := find(n, atom.Figcaption)
	caption := ""
	if capNode != nil {
		caption = collapse(nodeText(capNode))
	}
	img := find(n, atom.Img)
	if img == nil || w.inlineOnly() {
		w.cur().sep()
		w.children(n, depth)
		w.cur().sep()
		if w.top() == nil {
			w.flush()
		}
		return
	}
	w.structural(n, depth, func() {
		var walk func(p *html.Node, d int)
		walk = func(p *html.Node, d int) {
			for k := p.FirstChild; k != nil; k = k.NextSibling {
				switch {
				case k == capNode:
				case k == img:
					w.flush()
					w.add(document.Block{Kind: document.Image, Text: cmpOr(caption, collapse(attr(k, "alt")))})
				case k.Type == html.ElementNode && d < maxDepth && find(k, atom.Img) == img:
					walk(k, d+1)
				default:
					w.node(k, d+1)
				}
			}
		}
		walk(n, depth)
		w.flush()
	})
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// table reads a table into cells placed on a grid, rowspan and colspan
// kept; a table of one cell (layout) is read as its content.
func (w *walker) table(n *html.Node, depth int) {
	rows, caption := tableRows(n)
	if w.inlineOnly() {
		// A table in a cell: its cells' text in reading order.
		for _, r := range rows {
			for _, c := range r.cells {
				w.cur().sep()
				w.children(c, depth+1)
				w.cur().sep()
			}
		}
		return
	}
	cells := 0
	for _, r := range rows {
		cells += len(r.cells)
	}
	if cells <= 1 {
		w.structural(n, depth, func() {
			for _, r := range rows {
				for _, c := range r.cells {
					w.children(c, depth+1)
				}
			}
			w.flush()
		})
		return
	}
	w.structural(n, depth, func() {
		var g grid.Builder
		header := true
		nonEmpty := false
		for i, r := range rows {
			g.EnsureRow(i)
			col := 0
			allTH := len(r.cells) > 0
			for _, c := range r.cells {
				col = g.NextFree(i, col)
				f := w.push(fCell)
				w.children(c, depth+1)
				w.pop()
				text := strings.Join(strings.Fields(f.in.take()), " ")
				if text != "" {
					nonEmpty = true
				}
				rs := spanAttr(c, "rowspan", 65534)
				if rs == 0 {
					rs = r.groupEnd - i
				}
				cs := max(spanAttr(c, "colspan", 1000), 1)
				rs = max(1, min(rs, len(rows)-i))
				g.Add(i, col, rs, cs, text)
				col += cs
				if c.DataAtom != atom.Th {
					allTH = false
				}
			}
			if header && (r.head || allTH) {
				g.HeaderRows++
			} else {
				header = false
			}
		}
		t := g.Table()
		if t == nil || !nonEmpty {
			return
		}
		t.Caption = caption
		w.add(document.Block{Kind: document.Table, Table: t})
	})
}

func spanAttr(n *html.Node, key string, limit int) int {
	v, err := strconv.Atoi(strings.TrimSpace(attr(n, key)))
	if err != nil || v < 0 {
		return 1
	}
	return min(v, limit)
}

type tableRow struct {
	cells    []*html.Node
	head     bool
	groupEnd int // index after the last row of the row's group
}

// tableRows returns a table's rows in display order (thead, then bodies
// and loose rows, then tfoot), not those of nested tables.
func tableRows(t *html.Node) ([]tableRow, string) {
	var head, body, foot []tableRow
	caption := ""
	addGroup := func(dst *[]tableRow, g *html.Node, isHead bool) {
		for r := g.FirstChild; r != nil; r = r.NextSibling {
			if r.Type == html.ElementNode && r.DataAtom == atom.Tr {
				*dst = append(*dst, rowOf(r, isHead))
			}
		}
	}
	for k := t.FirstChild; k != nil; k = k.NextSibling {
		if k.Type != html.ElementNode {
			continue
		}
		switch k.DataAtom {
		case atom.Caption:
			caption = collapse(nodeText(k))
		case atom.Thead:
			addGroup(&head, k, true)
		case atom.Tbody:
			start := len(body)
			addGroup(&body, k, false)
			for i := start; i < len(body); i++ {
				body[i].groupEnd = len(body)
			}
		case atom.Tfoot:
			addGroup(&foot, k, false)
		case atom.Tr:
			body = append(body, rowOf(k, false))
		}
	}
	var rows []tableRow
	for i := range head {
		head[i].groupEnd = len(head)
	}
	rows = append(rows, head...)
	for _, r := range body {
		if r.groupEnd == 0 {
			r.groupEnd = len(body)
		}
		r.groupEnd += len(head)
		rows = append(rows, r)
	}
	for i := range foot {
		foot[i].groupEnd = len(head) + len(body) + len(foot)
	}
	rows = append(rows, foot...)
	return rows, caption
}

func rowOf(tr *html.Node, head bool) tableRow {
	r := tableRow{head: head}
	for c := tr.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && (c.DataAtom == atom.Td || c.DataAtom == atom.Th) {
			r.cells = append(r.cells, c)
		}
	}
	return r
}
