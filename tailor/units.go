package tailor

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// unitKind says what a [unit] was in its passage.
type unitKind int

const (
	sentenceUnit unitKind = iota // a sentence of a paragraph
	itemUnit                     // an item of a list
	rowUnit                      // a row of a table
)

// unit is the smallest piece of a passage an answer quotes: a sentence, a
// list item or a table row.
type unit struct {
	chunk int // index into Input.ContextChunks
	pos   int // order within the chunk
	kind  unitKind
	text  string // the text, markup removed; a row as "label — header: value; ..."
	// label and cells are a row's first cell and the others with their
	// headers.
	label string
	cells []cell
	// context is the headings above the unit and its document's title.
	context  string
	toks     []token
	ctxToks  []token
	fragment bool // the passage starts inside this sentence
}

type cell struct{ header, value string }

// maxUnitsPerChunk bounds the work done on one passage.
const maxUnitsPerChunk = 400

// splitUnits returns the units of a passage's Markdown: headings are
// context, not units; each table row, list item and sentence is one.
func splitUnits(md string, chunk int, title string, headings []string) []unit {
	var out []unit
	heads := append([]string{}, headings[:min(len(headings), 8)]...)
	levels := make([]int, len(heads)) // the Markdown level of each of heads; 0 for the metadata's
	add := func(u unit) {
		if len(out) >= maxUnitsPerChunk || strings.TrimSpace(u.text) == "" {
			return
		}
		u.chunk, u.pos = chunk, len(out)
		u.context = strings.Join(append([]string{title}, heads...), " · ")
		u.toks = tokens(u.text)
		u.ctxToks = tokens(u.context)
		if len(u.toks) == 0 {
			return
		}
		out = append(out, u)
	}
	var para []string
	flush := func() {
		if len(para) == 0 {
			return
		}
		text := clean(strings.Join(para, " "))
		para = nil
		for i, s := range sentences(text) {
			r, _ := utf8.DecodeRuneInString(s)
			add(unit{kind: sentenceUnit, text: s, fragment: len(out) == 0 && i == 0 && unicode.IsLower(r)})
		}
	}
	lines := strings.Split(strings.ReplaceAll(md, "\r\n", "\n"), "\n")
	fenced := false
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trim := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trim, "```") || strings.HasPrefix(trim, "~~~"):
			flush()
			fenced = !fenced
		case fenced:
		case trim == "":
			flush()
		case headingLine.MatchString(trim) || labelLine.MatchString(trim):
			flush()
			h := strings.TrimSuffix(clean(strings.TrimLeft(trim, "# ")), ":")
			// A heading replaces those of its level and below; a label
			// line sits under the headings above it.
			level := len(trim) - len(strings.TrimLeft(trim, "#"))
			if level == 0 {
				level = 7
			}
			for len(levels) > 0 && levels[len(levels)-1] >= level {
				levels, heads = levels[:len(levels)-1], heads[:len(heads)-1]
			}
			if h != "" {
				heads, levels = append(heads, boundTo(h, 200)), append(levels, level)
			}
		case ruleLine.MatchString(trim):
			flush()
		case strings.HasPrefix(trim, "|"):
			flush()
			j := i
			for j < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[j]), "|") {
				j++
			}
			for _, u := range tableUnits(pipeRows(lines[i:j])) {
				add(u)
			}
			i = j - 1
		case strings.HasPrefix(strings.ToLower(trim), "<table"):
			flush()
			j := i
			var b strings.Builder
			for ; j < len(lines); j++ {
				b.WriteString(lines[j])
				b.WriteByte('\n')
				if strings.Contains(strings.ToLower(lines[j]), "</table>") {
					break
				}
			}
			for _, u := range tableUnits(htmlRows(b.String())) {
				add(u)
			}
			i = j
		case listItem.MatchString(line):
			flush()
			item := []string{listItem.ReplaceAllString(line, "")}
			for i+1 < len(lines) {
				next := lines[i+1]
				nt := strings.TrimSpace(next)
				if nt == "" || listItem.MatchString(next) || headingLine.MatchString(nt) || strings.HasPrefix(nt, "|") || !strings.HasPrefix(next, " ") && !strings.HasPrefix(next, "\t") {
					break
				}
				item = append(item, nt)
				i++
			}
			text := clean(strings.Join(item, " "))
			if len(text) > 400 { // a long item reads as sentences
				for _, s := range sentences(text) {
					add(unit{kind: itemUnit, text: s})
				}
			} else {
				add(unit{kind: itemUnit, text: text})
			}
		default:
			para = append(para, strings.TrimLeft(trim, "> "))
		}
	}
	flush()
	return out
}

var (
	headingLine = regexp.MustCompile(`^#{1,6}(\s|$)`)
	ruleLine    = regexp.MustCompile(`^([-*_]\s*){3,}$`)
	// labelLine is a line that is all emphasis: a label or a note, read as
	// a heading.
	labelLine = regexp.MustCompile(`^(\*\*[^*]+\*\*|__[^_]+__|\*[^*]+\*|_[^_]+_):?$`)
	listItem  = regexp.MustCompile(`^\s{0,8}([-*+•]|\d{1,3}[.)])\s+`)
	separator = regexp.MustCompile(`^\|?(\s*:?-{2,}:?\s*\|)+\s*(:?-{2,}:?\s*)?$`)
	linkText  = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	htmlTag   = regexp.MustCompile(`<[^>]{0,200}>`)
	spaces    = regexp.MustCompile(`\s+`)
)

// clean removes inline Markdown and HTML markup, leaving the words a reader
// reads.
func clean(s string) string {
	s = linkText.ReplaceAllString(s, "$1")
	s = htmlTag.ReplaceAllString(s, " ")
	s = strings.NewReplacer("**", "", "__", "", "`", "", "\\|", "|", "&nbsp;", " ", "&amp;", "&").Replace(s)
	s = strings.Map(func(r rune) rune {
		if r == '*' {
			return -1
		}
		return r
	}, s)
	return strings.TrimSpace(spaces.ReplaceAllString(s, " "))
}

// pipeRows splits the lines of a pipe table into cells; the separator row
// marks the rows above it as the header and is dropped.
func pipeRows(lines []string) (header []string, rows [][]string) {
	var all [][]string
	sep := -1
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if separator.MatchString(t) {
			if sep < 0 {
				sep = len(all)
			}
			continue
		}
		t = strings.TrimSuffix(strings.TrimPrefix(t, "|"), "|")
		var cells []string
		for _, c := range splitCells(t) {
			cells = append(cells, clean(c))
		}
		all = append(all, cells)
	}
	return headerAndRows(all, sep)
}

// splitCells splits a table row at the pipes not escaped by a backslash.
func splitCells(s string) []string {
	var cells []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			i++
			continue
		}
		if s[i] == '|' {
			cells = append(cells, s[start:i])
			start = i + 1
		}
	}
	return append(cells, s[start:])
}

// headerAndRows takes the rows above sep (or the first row, when the table
// has no separator and more than one row) as the header; several header rows
// are joined column by column.
func headerAndRows(all [][]string, sep int) ([]string, [][]string) {
	if len(all) == 0 {
		return nil, nil
	}
	if sep <= 0 {
		if len(all) == 1 {
			return nil, all
		}
		sep = 1
	}
	var header []string
	for _, r := range all[:sep] {
		for c, v := range r {
			for len(header) <= c {
				header = append(header, "")
			}
			if v != "" && !strings.Contains(header[c], v) {
				header[c] = strings.TrimSpace(header[c] + " " + v)
			}
		}
	}
	return header, all[sep:]
}

var (
	htmlRow  = regexp.MustCompile(`(?is)<tr[^>]*>(.*?)</tr>`)
	htmlCell = regexp.MustCompile(`(?is)<t([hd])[^>]*>(.*?)</t[hd]>`)
)

// htmlRows reads an HTML table: rows of th cells before the first row with
// a td cell are the header.
func htmlRows(s string) ([]string, [][]string) {
	var all [][]string
	sep := 0
	for _, m := range htmlRow.FindAllStringSubmatch(s, maxUnitsPerChunk) {
		var cells []string
		allHead := true
		for _, c := range htmlCell.FindAllStringSubmatch(m[1], 64) {
			cells = append(cells, clean(c[2]))
			allHead = allHead && strings.EqualFold(c[1], "h")
		}
		if allHead && len(all) == sep {
			sep++
		}
		all = append(all, cells)
	}
	if sep == 0 {
		sep = -1
	}
	return headerAndRows(all, sep)
}

// tableUnits makes one unit per row: its first non-empty cell is its label,
// the others are paired with their column's header.
func tableUnits(header []string, rows [][]string) []unit {
	var out []unit
	for _, r := range rows {
		u := unit{kind: rowUnit}
		for c, v := range r {
			if v == "" {
				continue
			}
			h := ""
			if c < len(header) {
				h = header[c]
			}
			if u.label == "" && c < max(1, len(r)-1) && !numeric(v) {
				u.label = v
				continue
			}
			u.cells = append(u.cells, cell{header: h, value: v})
		}
		if len(u.cells) == 0 {
			if u.label == "" {
				continue
			}
			u.cells, u.label = []cell{{value: u.label}}, ""
		}
		u.text = renderRow(u.label, u.cells)
		out = append(out, u)
	}
	return out
}

// numeric reports whether a cell holds a figure rather than a name.
func numeric(v string) bool {
	for _, t := range tokens(v) {
		if t.num == nil {
			return false
		}
	}
	return true
}

// renderRow writes a row as "label — header: value; header: value".
func renderRow(label string, cells []cell) string {
	var b strings.Builder
	if label != "" {
		b.WriteString(label)
		b.WriteString(" — ")
	}
	for i, c := range cells {
		if i > 0 {
			b.WriteString("; ")
		}
		if c.header != "" {
			b.WriteString(c.header)
			b.WriteString(": ")
		}
		b.WriteString(c.value)
	}
	return b.String()
}

// abbreviations end with a period that does not end a sentence.
var abbreviations = wordSet(`mr mrs ms dr prof sr jr st vs etc inc ltd co corp no nos fig figs approx dept est
	jan feb mar apr jun jul aug sep sept oct nov dec e.g i.e u.s u.k a.m p.m cf al vol pp p ph.d`)

// sentences splits a paragraph at '.', '!' and '?' followed by a space and
// a capital, a digit or an opening mark, except after an abbreviation or an
// initial.
func sentences(text string) []string {
	var out []string
	rs := []rune(text)
	start := 0
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if r != '.' && r != '!' && r != '?' {
			continue
		}
		end := i + 1
		for end < len(rs) && strings.ContainsRune(`"'”’)]`, rs[end]) {
			end++
		}
		if end < len(rs) && !unicode.IsSpace(rs[end]) {
			continue
		}
		next := end
		for next < len(rs) && unicode.IsSpace(rs[next]) {
			next++
		}
		if next < len(rs) {
			n := rs[next]
			if !(unicode.IsUpper(n) || unicode.IsDigit(n) || strings.ContainsRune(`"“'‘([`, n)) {
				continue
			}
		}
		if r == '.' {
			w := lastWord(rs[start:i])
			if abbreviations[strings.ToLower(w)] || utf8.RuneCountInString(w) == 1 && unicode.IsUpper([]rune(w)[0]) {
				continue
			}
		}
		if s := strings.TrimSpace(string(rs[start:end])); s != "" {
			out = append(out, s)
		}
		start = end
		i = end - 1
	}
	if s := strings.TrimSpace(string(rs[start:])); s != "" {
		out = append(out, s)
	}
	return out
}

// lastWord returns the letters and inner periods at the end of rs (e.g,
// u.s).
func lastWord(rs []rune) string {
	j := len(rs)
	for j > 0 && (unicode.IsLetter(rs[j-1]) || rs[j-1] == '.') {
		j--
	}
	return strings.Trim(string(rs[j:]), ".")
}
