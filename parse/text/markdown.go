package text

import (
	"context"
	"html"
	"regexp"
	"strings"
	"unicode"

	"github.com/sanadhq/sanad/document"
	"github.com/sanadhq/sanad/parse/web"
)

var (
	atxRe      = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
	setext1Re  = regexp.MustCompile(`^ {0,3}=+[ \t]*$`)
	setext2Re  = regexp.MustCompile(`^ {0,3}-+[ \t]*$`)
	fenceRe    = regexp.MustCompile("^( {0,3})(`{3,}|~{3,})(.*)$")
	breakRe    = regexp.MustCompile(`^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$`)
	itemRe     = regexp.MustCompile(`^([ \t]*)([-+*]|\d{1,9}[.)])([ \t]+(.*))?$`)
	delimRowRe = regexp.MustCompile(`^[ \t]*\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$`)
	htmlOpenRe = regexp.MustCompile(`^ {0,3}<(/?)([A-Za-z][A-Za-z0-9-]*)[\s/>]|^ {0,3}<!--`)
	refDefRe   = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:\s*\S+`)
	imageOnly  = regexp.MustCompile(`^!\[([^\]]*)\]\([^)]*\)$`)
)

// mdParser is a CommonMark-like block parser: it finds headings, lists,
// pipe tables, code and HTML blocks line by line; inline markup is kept
// as it is written (links stay [text](url)).
type mdParser struct {
	ctx    context.Context
	lines  []string
	i      int
	blocks []document.Block
	para   []string
	listIx []int // indents of the open list items, outermost first
	meta   map[string]any
}

func parseMarkdown(ctx context.Context, s string) (*document.Document, error) {
	p := &mdParser{ctx: ctx, lines: lines(s), meta: map[string]any{}}
	p.frontMatter()
	if err := p.run(); err != nil {
		return nil, err
	}
	doc := &document.Document{Pages: 1, Blocks: p.blocks}
	if len(p.meta) > 0 {
		doc.Metadata = p.meta
	}
	if t, ok := p.meta["title"].(string); ok {
		doc.Title = t
	}
	for _, b := range doc.Blocks {
		if doc.Title == "" && b.Kind == document.Header && b.Level == 1 {
			doc.Title = b.Text
		}
	}
	return doc, nil
}

// frontMatter reads a leading YAML block (--- … ---) of "key: value"
// lines into metadata.
func (p *mdParser) frontMatter() {
	if len(p.lines) == 0 || strings.TrimSpace(p.lines[0]) != "---" {
		return
	}
	for j := 1; j < len(p.lines) && j < 200; j++ {
		l := p.lines[j]
		if strings.TrimSpace(l) == "---" || strings.TrimSpace(l) == "..." {
			for _, kv := range p.lines[1:j] {
				k, v, ok := strings.Cut(kv, ":")
				k, v = strings.TrimSpace(k), strings.Trim(strings.TrimSpace(v), `"'`)
				if ok && k != "" && v != "" && !strings.ContainsAny(k, " \t") {
					p.meta[strings.ToLower(k)] = v
				}
			}
			p.i = j + 1
			return
		}
		if !strings.Contains(l, ":") && !strings.HasPrefix(strings.TrimSpace(l), "-") && strings.TrimSpace(l) != "" {
			return
		}
	}
}

func (p *mdParser) add(b document.Block) { p.blocks = append(p.blocks, b) }

func (p *mdParser) flush() {
	if len(p.para) == 0 {
		return
	}
	text := inlineText(strings.Join(p.para, "\n"))
	p.para = p.para[:0]
	if text == "" {
		return
	}
	if m := imageOnly.FindStringSubmatch(text); m != nil {
		p.add(document.Block{Kind: document.Image, Text: m[1]})
		return
	}
	p.add(document.Block{Kind: document.Text, Text: text})
}

func (p *mdParser) endList() { p.listIx = p.listIx[:0] }

func (p *mdParser) run() error {
	for p.i < len(p.lines) {
		if p.i&0xff == 0 {
			if err := p.ctx.Err(); err != nil {
				return err
			}
		}
		line := p.lines[p.i]
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
			p.flush()
			p.i++
			continue
		case fenceRe.MatchString(line):
			p.flush()
			p.endList()
			p.fenced()
			continue
		case indentWidth(line) >= 4 && len(p.para) == 0 && len(p.listIx) == 0:
			p.indented()
			continue
		case atxRe.MatchString(line):
			p.flush()
			p.endList()
			m := atxRe.FindStringSubmatch(line)
			if t := inlineText(m[2]); t != "" {
				p.add(document.Block{Kind: document.Header, Level: len(m[1]), Text: t})
			}
			p.i++
			continue
		case len(p.para) > 0 && len(p.listIx) == 0 && setext1Re.MatchString(line):
			p.setext(1)
			continue
		case len(p.para) > 0 && len(p.listIx) == 0 && setext2Re.MatchString(line) && !p.paraIsTableRow():
			p.setext(2)
			continue
		case breakRe.MatchString(line):
			p.flush()
			p.endList()
			p.i++
			continue
		case strings.Contains(line, "|") && p.i+1 < len(p.lines) && delimRowRe.MatchString(p.lines[p.i+1]) && strings.Contains(p.lines[p.i+1], "-"):
			p.flush()
			p.endList()
			p.table()
			continue
		case strings.HasPrefix(strings.TrimLeft(line, " "), ">"):
			p.flush()
			p.endList()
			p.quote()
			continue
		case itemRe.MatchString(line) && !(len(p.para) > 0 && len(p.listIx) == 0 && !startsList(line)):
			p.flush()
			p.item(line)
			continue
		case htmlOpenRe.MatchString(line) && len(p.para) == 0:
			p.endList()
			if err := p.htmlBlock(); err != nil {
				return err
			}
			continue
		case refDefRe.MatchString(line) && len(p.para) == 0:
			p.i++
			continue
		}
		// A lazy continuation of the last list item, or a paragraph line.
		if len(p.para) == 0 && len(p.listIx) > 0 && len(p.blocks) > 0 && p.blocks[len(p.blocks)-1].Kind == document.List && indentWidth(line) > 0 {
			last := &p.blocks[len(p.blocks)-1]
			last.Text = strings.TrimSpace(last.Text + " " + inlineText(trimmed))
			p.i++
			continue
		}
		if len(p.para) == 0 && indentWidth(line) == 0 {
			p.endList()
		}
		p.para = append(p.para, line)
		p.i++
	}
	p.flush()
	return nil
}

// startsList reports whether an item line may interrupt a paragraph
// (CommonMark: a bullet, or an ordered item starting at 1).
func startsList(line string) bool {
	m := itemRe.FindStringSubmatch(line)
	if m == nil || strings.TrimSpace(m[4]) == "" {
		return false
	}
	return !unicode.IsDigit(rune(m[2][0])) || strings.TrimLeft(m[2][:len(m[2])-1], "0") == "1"
}

func (p *mdParser) paraIsTableRow() bool {
	return len(p.para) == 1 && strings.Contains(p.para[0], "|")
}

func (p *mdParser) setext(level int) {
	text := inlineText(strings.Join(p.para, " "))
	p.para = p.para[:0]
	if text != "" {
		p.add(document.Block{Kind: document.Header, Level: level, Text: text})
	}
	p.i++
}

// indentWidth counts leading spaces, a tab as four.
func indentWidth(l string) int {
	n := 0
	for _, r := range l {
		switch r {
		case ' ':
			n++
		case '\t':
			n += 4 - n%4
		default:
			return n
		}
	}
	return n
}

func (p *mdParser) fenced() {
	m := fenceRe.FindStringSubmatch(p.lines[p.i])
	indent, fence := len(m[1]), m[2]
	p.i++
	var code []string
	for p.i < len(p.lines) {
		l := p.lines[p.i]
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, fence[:1]) && len(t) >= len(fence) && strings.Trim(t, fence[:1]) == "" && indentWidth(l) < 4 {
			p.i++
			break
		}
		for k := 0; k < indent && strings.HasPrefix(l, " "); k++ {
			l = l[1:]
		}
		code = append(code, l)
		p.i++
	}
	if text := strings.Join(code, "\n"); strings.TrimSpace(text) != "" {
		p.add(document.Block{Kind: document.Code, Text: strings.TrimRight(text, "\n ")})
	}
}

func (p *mdParser) indented() {
	var code []string
	for p.i < len(p.lines) {
		l := p.lines[p.i]
		if strings.TrimSpace(l) != "" && indentWidth(l) < 4 {
			break
		}
		code = append(code, stripIndent(l, 4))
		p.i++
	}
	text := strings.Trim(strings.Join(code, "\n"), "\n")
	if strings.TrimSpace(text) != "" {
		p.add(document.Block{Kind: document.Code, Text: strings.TrimRightFunc(text, unicode.IsSpace)})
	}
}

func stripIndent(l string, n int) string {
	w := 0
	for i, r := range l {
		if w >= n || (r != ' ' && r != '\t') {
			return l[i:]
		}
		if r == '\t' {
			w += 4 - w%4
		} else {
			w++
		}
	}
	return ""
}

// item reads a list item line; its level comes from its indentation
// against the open items.
func (p *mdParser) item(line string) {
	m := itemRe.FindStringSubmatch(line)
	indent := indentWidth(m[1])
	for len(p.listIx) > 0 && p.listIx[len(p.listIx)-1] > indent+1 {
		p.listIx = p.listIx[:len(p.listIx)-1]
	}
	if n := len(p.listIx); n == 0 || indent >= p.listIx[n-1]+2 {
		p.listIx = append(p.listIx, indent)
	} else {
		p.listIx[n-1] = indent
	}
	p.i++
	text := inlineText(m[4])
	if text == "" {
		return // an empty item
	}
	b := document.Block{Kind: document.List, Level: len(p.listIx) - 1, Text: text}
	if marker := m[2]; unicode.IsDigit(rune(marker[0])) {
		b.Ordered, b.Marker = true, strings.TrimLeft(marker[:len(marker)-1], "0")
		if b.Marker == "" {
			b.Marker = "0"
		}
		b.Marker += marker[len(marker)-1:]
	}
	p.add(b)
}

// table reads a pipe table: a header row, a delimiter row, body rows.
func (p *mdParser) table() {
	header := splitRow(p.lines[p.i])
	p.i += 2
	rows := [][]string{header}
	for p.i < len(p.lines) {
		l := p.lines[p.i]
		if strings.TrimSpace(l) == "" || !strings.Contains(l, "|") {
			break
		}
		rows = append(rows, splitRow(l))
		p.i++
	}
	width := len(header)
	t := &document.TableData{HeaderRows: 1}
	for _, r := range rows {
		cells := make([]document.Cell, width)
		for j := range min(len(r), width) {
			cells[j].Text = r[j]
		}
		t.Rows = append(t.Rows, cells)
	}
	p.add(document.Block{Kind: document.Table, Table: t})
}

// splitRow splits a pipe-table row on unescaped pipes outside code spans.
func splitRow(l string) []string {
	l = strings.TrimSpace(l)
	l = strings.TrimPrefix(l, "|")
	if strings.HasSuffix(l, "|") && !strings.HasSuffix(l, `\|`) {
		l = l[:len(l)-1]
	}
	var cells []string
	var b strings.Builder
	inCode := false
	for i := 0; i < len(l); i++ {
		c := l[i]
		switch {
		case c == '\\' && i+1 < len(l) && l[i+1] == '|':
			b.WriteByte('|')
			i++
		case c == '`':
			inCode = !inCode
			b.WriteByte(c)
		case c == '|' && !inCode:
			cells = append(cells, inlineText(b.String()))
			b.Reset()
		default:
			b.WriteByte(c)
		}
	}
	return append(cells, inlineText(b.String()))
}

// quote reads a block quote as blocks of its own.
func (p *mdParser) quote() {
	var inner []string
	for p.i < len(p.lines) {
		l := strings.TrimLeft(p.lines[p.i], " ")
		if !strings.HasPrefix(l, ">") {
			if strings.TrimSpace(l) == "" || len(inner) == 0 {
				break
			}
			inner = append(inner, l) // lazy continuation
			p.i++
			continue
		}
		l = strings.TrimPrefix(l, ">")
		l = strings.TrimPrefix(l, " ")
		inner = append(inner, l)
		p.i++
	}
	sub := &mdParser{ctx: p.ctx, lines: inner, meta: map[string]any{}}
	if err := sub.run(); err == nil {
		p.blocks = append(p.blocks, sub.blocks...)
	}
}

// htmlBlock reads raw HTML up to a blank line (a comment up to its end)
// and reads it with the HTML parser.
func (p *mdParser) htmlBlock() error {
	start := p.i
	first := strings.TrimSpace(p.lines[p.i])
	if strings.HasPrefix(first, "<!--") {
		for p.i < len(p.lines) && !strings.Contains(p.lines[p.i], "-->") {
			p.i++
		}
		p.i++
		return nil
	}
	for p.i < len(p.lines) && strings.TrimSpace(p.lines[p.i]) != "" {
		p.i++
	}
	frag := strings.Join(p.lines[start:min(p.i, len(p.lines))], "\n")
	doc, err := web.Config{Mode: web.Full}.Parse(p.ctx, []byte(frag))
	if err != nil {
		if p.ctx.Err() != nil {
			return p.ctx.Err()
		}
		return nil
	}
	p.blocks = append(p.blocks, doc.Blocks...)
	return nil
}

// inlineText readies a paragraph's inline Markdown: soft line breaks
// become spaces (hard ones stay), backslash escapes and entities are
// resolved outside code spans.
func inlineText(s string) string {
	ls := strings.Split(s, "\n")
	var b strings.Builder
	for i, l := range ls {
		hard := strings.HasSuffix(l, "  ") || strings.HasSuffix(l, `\`)
		l = strings.TrimSpace(strings.TrimSuffix(strings.TrimRight(l, " "), `\`))
		b.WriteString(l)
		if i < len(ls)-1 {
			if hard {
				b.WriteByte('\n')
			} else {
				b.WriteByte(' ')
			}
		}
	}
	return strings.TrimSpace(unescape(b.String()))
}

// unescape resolves backslash escapes of punctuation and HTML entities,
// leaving code spans as they are.
func unescape(s string) string {
	if !strings.ContainsAny(s, `\&`) {
		return s
	}
	var b strings.Builder
	parts := strings.Split(s, "`")
	for i, part := range parts {
		if i > 0 {
			b.WriteByte('`')
		}
		if i%2 == 1 && i < len(parts)-1 {
			b.WriteString(part) // inside a code span
			continue
		}
		var out strings.Builder
		for j := 0; j < len(part); j++ {
			if part[j] == '\\' && j+1 < len(part) && strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[]^_`{|}~\\", part[j+1]) >= 0 {
				out.WriteByte(part[j+1])
				j++
				continue
			}
			out.WriteByte(part[j])
		}
		b.WriteString(html.UnescapeString(out.String()))
	}
	return b.String()
}

// looksMarkdown reports whether text uses Markdown block syntax: headings,
// fences, lists, pipe tables.
func looksMarkdown(s string) bool {
	score := 0
	ls := lines(s)
	for i, l := range ls {
		if i > 500 {
			break
		}
		switch {
		case atxRe.MatchString(l) && strings.HasPrefix(strings.TrimSpace(l), "#"):
			score += 2
		case fenceRe.MatchString(l):
			score += 2
		case i+1 < len(ls) && strings.Contains(l, "|") && delimRowRe.MatchString(ls[i+1]) && strings.Contains(ls[i+1], "-"):
			score += 2
		case itemRe.MatchString(l) && strings.TrimSpace(itemRe.FindStringSubmatch(l)[4]) != "":
			score++
		}
		if strings.Contains(l, "](") || strings.Contains(l, "**") {
			score++
		}
	}
	return score >= 2
}
