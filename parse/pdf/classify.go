package pdf

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

var (
	// orderedMarker matches an ordered-list marker: "1.", "1)", "(1)",
	// "a)", "(a)", "iv.", followed by a space.
	orderedMarker = regexp.MustCompile(`^(?:\(?(?:\d{1,3}|[a-zA-Z]|[ivxIVX]{1,5})\)|(?:\d{1,3}|[a-z]|[ivx]{1,5})\.)\s+`)
	// sectionNumber matches a heading's number: "5", "5.1", "A.2.3",
	// "Chapter 3.", "Appendix A".
	sectionNumber = regexp.MustCompile(`^(?:(?:chapter|section|part|appendix|annex)\s+)?(?:\d{1,3}|[A-Z])(?:\.\d{1,3}){0,4}\.?\s+\S`)
	caption       = regexp.MustCompile(`(?i)^(?:figure|fig\.|table|tab\.|chart|exhibit|plate|listing)\s*[0-9IVX][0-9A-Za-z.\-–]*[.:]?(?:\s|$)`)
	// pageNumber matches a page number: "7", "- 7 -", "Page 7 of 9",
	// "vii", "7-45", "A-6".
	pageNumber = regexp.MustCompile(`(?i)^(?:page\s*)?[-–—(]?\s*(?:(?:\d{1,3}|[a-z])\s*[-–.]\s*)?(?:\d{1,4}|[ivxlc]{1,6})\s*[-–—)]?(?:\s*(?:of|/)\s*\d{1,4})?$`)
)

// listMarker returns the list marker a line starts with and the rest.
func listMarker(s string) (marker, rest string) {
	s = strings.TrimSpace(s)
	r, n := utf8.DecodeRuneInString(s)
	if n > 0 && (isBullet(string(r)) || unicode.Is(unicode.Co, r)) {
		rest = strings.TrimSpace(s[n:])
		if rest != "" && (r != '-' && r != '*' || strings.HasPrefix(s[n:], " ")) {
			return string(r), rest
		}
		return "", s
	}
	if m := orderedMarker.FindString(s); m != "" && len(s) > len(m) {
		return strings.TrimSpace(m), s[len(m):]
	}
	return "", s
}

// normalize folds ligatures and presentation forms (Arabic, Hebrew) into
// plain letters; the rest of the text is left as the file has it.
func normalize(s string) string {
	need := false
	for _, r := range s {
		if presentation(r) {
			need = true
			break
		}
	}
	if !need {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if presentation(r) {
			b.WriteString(norm.NFKC.String(string(r)))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func presentation(r rune) bool {
	return r >= 0xFB00 && r <= 0xFDFF || r >= 0xFE70 && r <= 0xFEFF
}

// finish sets a text block's text and first guess of its kind from its
// lines: list item, code, caption or paragraph. Headings are decided later,
// against the document's body size.
func (b *block) finish() {
	b.size, b.bold, b.mono = 0, true, true
	var parts []string
	pitched, pitch := true, 0.0
	glyphs := 0
	distinct := map[rune]bool{}
	for _, l := range b.lines {
		b.size = max(b.size, l.size)
		b.bold = b.bold && l.bold
		b.mono = b.mono && l.mono
		switch {
		case l.pitch < 0:
			pitched = false
		case l.pitch > 0 && pitch == 0:
			pitch = l.pitch
		case l.pitch > 0:
			pitched = pitched && samePitch(l.pitch, pitch)
		}
		for _, r := range l.text {
			if r != ' ' {
				glyphs++
				distinct[r] = true
			}
		}
		parts = append(parts, normalize(l.text))
	}
	// Lines whose glyphs all share one width are code even when the font
	// does not say it is fixed-width; a dozen glyphs of some variety make
	// the judgement safe.
	b.mono = b.mono || pitched && pitch > 0 && glyphs >= 12 && len(distinct) >= 6
	if b.mono && len(b.lines) >= 2 {
		b.kind = kCode
		b.text = codeText(b)
		return
	}
	b.text = joinLines(parts, true)
	if m, rest := listMarker(b.text); m != "" {
		b.kind = kList
		b.marker = m
		b.ordered = !isBullet(m)
		if b.ordered {
			// Kept until the list is known to be numbered from its start
			// (see orderedLists).
			b.text = m + " " + rest
		} else {
			b.text = rest
		}
		return
	}
	if caption.MatchString(b.text) {
		b.kind = kCaption
	}
}

// codeText keeps a code block's lines and their indentation.
func codeText(b *block) string {
	charW := 0.0
	n := 0
	for _, l := range b.lines {
		for _, w := range l.words {
			if c := utf8.RuneCountInString(w.text); c > 0 {
				charW += w.w()
				n += c
			}
		}
	}
	if n == 0 {
		return ""
	}
	charW /= float64(n)
	var out []string
	for _, l := range b.lines {
		indent := int((l.x0 - b.x0) / charW)
		out = append(out, strings.Repeat(" ", max(indent, 0))+l.text)
	}
	return strings.Join(out, "\n")
}

// splitParagraphs cuts a text block where a line ends a sentence well
// short of the block's right edge, or the next line is indented as a
// paragraph's first line.
func splitParagraphs(b *block) []*block {
	if len(b.lines) < 3 || codeBlock(b) {
		return []*block{b}
	}
	var out []*block
	start := 0
	for i := 1; i < len(b.lines); i++ {
		prev, l := b.lines[i-1], b.lines[i]
		h := l.h()
		short := prev.x1 < b.x1-3*h && strings.ContainsAny(lastRune(prev.text), ".!?:;")
		indented := l.x0 > b.x0+1.2*h && i+1 < len(b.lines) && b.lines[i+1].x0 < l.x0-h
		if (short || indented) && !startsLower(l.text) {
			out = append(out, sub(b, start, i))
			start = i
		}
	}
	return append(out, sub(b, start, len(b.lines)))
}

// codeBlock reports whether a block's lines may all be code: none set in
// a proportional font, one at least in a fixed-width one.
func codeBlock(b *block) bool {
	any := false
	for _, l := range b.lines {
		if proportional(l) {
			return false
		}
		any = any || code(l)
	}
	return any
}

func sub(b *block, i, j int) *block {
	n := &block{lines: b.lines[i:j], page: b.page, ocr: b.ocr, rect: b.lines[i].rect}
	for _, l := range n.lines {
		n.rect = n.rect.union(l.rect)
	}
	return n
}

func lastRune(s string) string {
	r, _ := utf8.DecodeLastRuneInString(s)
	return string(r)
}

func startsLower(s string) bool {
	for _, r := range s {
		return unicode.IsLower(r)
	}
	return false
}

// splitItems cuts a block before every line that starts a list item.
func splitItems(b *block) []*block {
	var out []*block
	start := 0
	for i := 1; i < len(b.lines); i++ {
		if startsItem(b.lines[i].text) {
			out = append(out, sub(b, start, i))
			start = i
		}
	}
	if start == 0 {
		return []*block{b}
	}
	return append(out, sub(b, start, len(b.lines)))
}

// bodySize is the size most text is set in: the size with the most
// characters.
func bodySize(pages [][]*block) float64 {
	counts := map[float64]int{}
	for _, bs := range pages {
		for _, b := range bs {
			if b.kind == kTable || b.kind == kImage {
				continue
			}
			for _, l := range b.lines {
				counts[roundHalf(l.size)] += utf8.RuneCountInString(l.text)
			}
		}
	}
	best, n := 10.0, -1
	for s, c := range counts {
		if c > n || c == n && s < best {
			best, n = s, c
		}
	}
	return best
}

func roundHalf(x float64) float64 { return float64(int(x*2+0.5)) / 2 }

// headingScore decides whether a block is a heading: set larger than the
// body, or bold at body size, or numbered as a section; and short.
func isHeading(b *block, body float64) bool {
	if b.kind != kText && b.kind != kList || len(b.lines) > 3 {
		return false
	}
	text := b.text
	words := len(strings.Fields(text))
	if words == 0 || words > 20 || !hasLetter(text) {
		return false
	}
	if pageNumber.MatchString(strings.TrimSpace(text)) {
		return false
	}
	ratio := b.size / body
	if b.ocr {
		// Recognised words carry no font, and their boxes' heights vary
		// with the letters: only clearly larger text is a heading.
		return ratio >= 1.35 && words <= 12 && len(b.lines) <= 2 && !strings.HasSuffix(text, ".")
	}
	endsSentence := strings.HasSuffix(text, ".") && !sectionNumber.MatchString(text+" x")
	switch {
	case ratio >= 1.15 && words <= 16:
		return !strings.HasSuffix(text, ",")
	case b.bold && ratio >= 0.9 && len(b.lines) <= 2 && words <= 12 && !endsSentence && !strings.HasSuffix(text, ":"):
		return true
	case b.kind == kList && b.ordered && (b.bold || ratio >= 1.1) && words <= 12:
		return true
	}
	return false
}

func hasLetter(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

// headingLevels gives headings levels from their sizes: the largest size
// is level 1 when it is used once near the top of the first page (a
// title), and the rest follow in order of size; a numbered heading ("5.1")
// takes its level from its number's depth instead.
func headingLevels(pages [][]*block) {
	var sizes []float64
	for _, bs := range pages {
		for _, b := range bs {
			if b.kind == kHeading {
				sizes = append(sizes, roundHalf(b.size))
			}
		}
	}
	if len(sizes) == 0 {
		return
	}
	// Sizes within a tenth of each other are one level.
	sorted := slices.Sorted(slices.Values(sizes))
	slices.Reverse(sorted)
	var distinct []float64
	for _, s := range sorted {
		if len(distinct) == 0 || s < 0.9*distinct[len(distinct)-1] {
			distinct = append(distinct, s)
		}
	}
	rank := func(s float64) int {
		for i, d := range distinct {
			if s >= 0.9*d {
				return min(i, 3)
			}
		}
		return min(len(distinct)-1, 3)
	}
	// A title: the first heading of the document when it is the largest.
	titleSet := false
	for _, bs := range pages {
		for _, b := range bs {
			if b.kind != kHeading {
				continue
			}
			if !titleSet {
				titleSet = true
				if rank(roundHalf(b.size)) == 0 && len(distinct) > 1 {
					b.level = 1
					continue
				}
			}
			b.level = min(rank(roundHalf(b.size))+2, 6)
			if d := numberDepth(b.text); d > 0 {
				b.level = min(d+1, 6)
			}
		}
	}
}

// numberDepth is how many levels a heading's number has: 1 for "5", 2 for
// "5.1"; 0 without a number.
func numberDepth(s string) int {
	f := strings.Fields(s)
	if len(f) < 2 {
		return 0
	}
	n := strings.TrimSuffix(f[0], ".")
	parts := strings.Split(n, ".")
	for _, p := range parts {
		if p == "" {
			return 0
		}
		for _, r := range p {
			if !unicode.IsDigit(r) {
				return 0
			}
		}
	}
	return len(parts)
}

// listLevels sets list items' depth from their indentation: within a run of
// consecutive items, each distinct indent further right is one level
// deeper.
func listLevels(bs []*block) {
	var indents []float64
	for i, b := range bs {
		if b.kind != kList {
			indents = nil
			continue
		}
		if i > 0 && bs[i-1].kind == kList && bs[i-1].page == b.page && b.x0 < bs[i-1].x0-200 {
			indents = nil // another column
		}
		x := b.x0
		lvl := -1
		for k, in := range indents {
			if x < in+3 {
				lvl = k
				break
			}
		}
		if lvl < 0 {
			indents = append(indents, x)
			lvl = len(indents) - 1
		} else {
			indents = indents[:lvl+1]
			indents[lvl] = min(indents[lvl], x)
		}
		b.level = min(lvl, 5)
	}
}

// furnitureKey is a line's text with digits folded, so that "Page 3" and
// "Page 4" compare equal.
func furnitureKey(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case unicode.IsDigit(r):
			b.WriteByte('#')
		case unicode.IsSpace(r):
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// markFurniture marks running headers and footers (the same text, digits
// aside, near the top or bottom of at least half the pages and of at
// least two) and page numbers (a lone number at the top or bottom edge of
// the page, with what shares its line: a running head such as "Title   9").
// It returns how many blocks of each it marked.
func markFurniture(pages [][]*block, heights []float64) (running, numbers int) {
	const margin = 0.15 // of the page height
	type cand struct {
		b   *block
		key string
	}
	var cands []cand
	seen := map[string]map[int]bool{}
	for p, bs := range pages {
		h := heights[p]
		topEdge, bottomEdge := math.Inf(1), math.Inf(-1)
		for _, b := range bs {
			topEdge, bottomEdge = min(topEdge, b.y0), max(bottomEdge, b.y1)
		}
		for _, b := range bs {
			if b.kind == kTable || b.kind == kImage || len(b.lines) > 2 {
				continue
			}
			top := b.y1 < margin*h
			bottom := b.y0 > (1-margin)*h
			if !top && !bottom {
				continue
			}
			lh := max(b.lines[0].h(), 1)
			atEdge := top && b.y0 <= topEdge+lh || bottom && b.y1 >= bottomEdge-lh
			if atEdge && len(b.lines) == 1 && pageNumber.MatchString(strings.TrimSpace(b.text)) {
				b.furniture = true
				numbers++
				// The rest of the page number's line is a running head.
				for _, o := range bs {
					if o != b && !o.furniture && len(o.lines) == 1 && o.kind != kTable && o.kind != kImage && o.overlapY(b.rect) > 0.5*min(o.h(), b.h()) {
						o.furniture = true
						running++
					}
				}
				continue
			}
			key := furnitureKey(b.text)
			if key == "" {
				continue
			}
			if top {
				key = "t:" + key
			} else {
				key = "b:" + key
			}
			if seen[key] == nil {
				seen[key] = map[int]bool{}
			}
			seen[key][p] = true
			cands = append(cands, cand{b, key})
		}
	}
	if len(pages) < 2 {
		return running, numbers
	}
	for _, c := range cands {
		if c.b.furniture {
			continue
		}
		if n := len(seen[c.key]); n >= 2 && n*2 >= len(pages) || n >= 3 {
			c.b.furniture = true
			running++
		}
	}
	return running, numbers
}

// attachCaptions gives images and tables the caption just above or below
// them, and marks those caption blocks as taken.
func attachCaptions(bs []*block) {
	for _, b := range bs {
		if b.kind != kImage && b.kind != kTable {
			continue
		}
		var best *block
		bestGap := 0.0
		for _, c := range bs {
			if c.kind != kCaption || c.furniture || c.taken {
				continue
			}
			if c.overlapX(b.rect) <= 0 {
				continue
			}
			gap := max(c.y0-b.y1, b.y0-c.y1)
			if gap > 3*max(c.size, 8) || gap < -2 {
				continue
			}
			wantTable := strings.HasPrefix(strings.ToLower(c.text), "tab")
			if wantTable != (b.kind == kTable) {
				continue
			}
			if best == nil || gap < bestGap {
				best, bestGap = c, gap
			}
		}
		if best != nil {
			best.taken = true
			b.caption = best.text
		}
	}
}

// orderedLists settles numbered items: a run of items numbered 1, 2, 3…
// (or a, b, c…; i, ii, iii…) from its start becomes an ordered list whose
// numbers Markdown renders again; any other numbered paragraph ("23. …",
// a question of a form) stays text with its number.
func orderedLists(bs []*block) {
	for i := 0; i < len(bs); {
		if bs[i].kind != kList || !bs[i].ordered {
			i++
			continue
		}
		j := i + 1
		for j < len(bs) && (bs[j].kind == kList) {
			j++
		}
		// Items i..j-1 are a run of list items; the ordered ones must count
		// up from the first value.
		next := 0
		ok := true
		for k := i; k < j && ok; k++ {
			if !bs[k].ordered {
				continue
			}
			v, valid := markerValue(bs[k].marker)
			switch {
			case !valid:
				ok = false
			case next == 0 && v != 1:
				ok = false
			case next != 0 && v != next && v != 1:
				ok = false
			}
			next = v + 1
		}
		for k := i; k < j; k++ {
			if !bs[k].ordered {
				continue
			}
			if ok {
				bs[k].text = strings.TrimSpace(strings.TrimPrefix(bs[k].text, bs[k].marker))
			} else {
				bs[k].kind = kText
			}
		}
		i = j
	}
}

// markerValue is the number of an ordered-list marker: 3 for "3.", "(c)"
// or "iii)".
func markerValue(m string) (int, bool) {
	m = strings.Trim(m, "().")
	if m == "" {
		return 0, false
	}
	if n, err := strconv.Atoi(m); err == nil {
		return n, true
	}
	lm := strings.ToLower(m)
	roman := map[string]int{"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7, "viii": 8, "ix": 9, "x": 10, "xi": 11, "xii": 12}
	if v, ok := roman[lm]; ok && lm != "v" && lm != "x" {
		return v, true
	}
	if len(lm) == 1 && lm[0] >= 'a' && lm[0] <= 'z' {
		return int(lm[0]-'a') + 1, true
	}
	return 0, false
}
