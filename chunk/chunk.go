// Package chunk splits a parsed document into the passages an index holds
// and a citation points at. Splitting follows the document's structure: a
// heading starts a chunk, a table stays whole with its header row (a table
// too large for one chunk is cut between rows, the header repeated), and a
// long paragraph is cut between sentences. Every chunk knows the bytes of
// the document's Markdown it came from, the pages it covers and the headings
// above it, and its id is derived from its content and position.
package chunk

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sanadhq/sanad/document"
)

// Defaults of Options.
const (
	DefaultSize    = 1500 // bytes of Markdown
	DefaultOverlap = 150
)

// Options sets how large chunks are.
type Options struct {
	// Size is the largest chunk, in bytes of Markdown (DefaultSize when 0).
	// A single sentence or table row longer than that is a chunk of its own.
	Size int
	// Overlap is how many bytes of the text before it a chunk cut out of a
	// long run of text repeats, so that a sentence at a cut is whole in one
	// of the two (DefaultOverlap when 0; negative for none).
	Overlap int
}

// Chunk is one passage of a document.
type Chunk struct {
	// ID is derived from the key given to Split, the chunk's position in
	// the document and its content: the same document version always gives
	// the same ids, and a changed passage a new one.
	ID    string `json:"chunk_id"`
	Index int    `json:"chunk_index"`
	// Content is the passage's Markdown; a table whose cells span rows or
	// columns is HTML, which keeps the spans.
	Content string `json:"content"`
	// LayoutType is text, table, image or header (seed 004's layout_type):
	// table when the chunk is a table, header when it holds only headings.
	LayoutType string `json:"layout_type"`
	// Page and PageEnd are the first and last page the chunk is on (0 for
	// a document without pages).
	Page    int `json:"page_number,omitempty"`
	PageEnd int `json:"page_end,omitempty"`
	// BBox is the box of the chunk's first block on its first page, when
	// the format places blocks.
	BBox []float64 `json:"bbox,omitempty"`
	// Start and End are the bytes [Start, End) of the document's Markdown
	// the chunk came from.
	Start int `json:"start"`
	End   int `json:"end"`
	// Headings are the headings the chunk sits under, outermost first.
	Headings []string `json:"headings,omitempty"`
}

// Split returns the chunks of doc, whose Markdown is md with block spans
// spans (document.MarkdownSpans). key names the document version in the
// chunk ids (its checksum, say).
func Split(doc *document.Document, md string, spans []document.Span, key string, opt Options) []Chunk {
	if opt.Size <= 0 {
		opt.Size = DefaultSize
	}
	if opt.Overlap == 0 {
		opt.Overlap = DefaultOverlap
	}
	opt.Overlap = min(max(opt.Overlap, 0), opt.Size/2)
	s := splitter{doc: doc, md: md, spans: spans, opt: opt}
	for i := range doc.Blocks {
		s.block(i)
	}
	s.flush()
	for i := range s.out {
		c := &s.out[i]
		c.Index = i
		c.ID = id(key, c)
	}
	return s.out
}

// splitter holds the chunk being gathered: blocks first to last.
type splitter struct {
	doc   *document.Document
	md    string
	spans []document.Span
	opt   Options
	out   []Chunk

	headings    []heading // the open sections
	first, last int       // blocks of the chunk being gathered; first < 0: none
	onlyHeaders bool
	started     bool
}

type heading struct {
	level int
	text  string
}

func (s *splitter) block(i int) {
	b := s.doc.Blocks[i]
	sp := s.spans[i]
	switch {
	case b.Kind == document.Header:
		if s.started && (!s.onlyHeaders || sp.End-s.spans[s.first].Start > s.opt.Size) {
			s.flush()
		}
		s.open(b)
		s.add(i)
		return
	case b.Kind == document.Table:
		s.flush()
		s.table(i)
		return
	}
	if sp.End-sp.Start > s.opt.Size {
		s.flush()
		s.longText(i)
		return
	}
	if s.started && sp.End-s.spans[s.first].Start > s.opt.Size {
		s.flush()
	}
	s.add(i)
	s.onlyHeaders = false
}

// open records heading b as the innermost open section.
func (s *splitter) open(b document.Block) {
	level := max(b.Level, 1)
	for len(s.headings) > 0 && s.headings[len(s.headings)-1].level >= level {
		s.headings = s.headings[:len(s.headings)-1]
	}
	s.headings = append(s.headings, heading{level, strings.Join(strings.Fields(b.Text), " ")})
}

func (s *splitter) add(i int) {
	if !s.started {
		s.started, s.first, s.onlyHeaders = true, i, true
	}
	s.last = i
}

// flush ends the chunk being gathered.
func (s *splitter) flush() {
	if !s.started {
		return
	}
	start, end := s.spans[s.first].Start, s.spans[s.last].End
	layout := "text"
	if s.onlyHeaders {
		layout = "header"
	}
	s.emit(s.md[start:end], layout, start, end, s.first, s.last)
	s.started = false
}

// emit appends a chunk of blocks first..last.
func (s *splitter) emit(content, layout string, start, end, first, last int) {
	if strings.TrimSpace(content) == "" {
		return
	}
	c := Chunk{Content: content, LayoutType: layout, Start: start, End: end, Headings: s.path()}
	for i := first; i <= last; i++ {
		if p := s.doc.Blocks[i].Page; p > 0 {
			if c.Page == 0 {
				c.Page = p
			}
			c.PageEnd = max(c.PageEnd, p)
		}
	}
	c.BBox = s.doc.Blocks[first].BBox
	s.out = append(s.out, c)
}

// path returns the headings of the open sections.
func (s *splitter) path() []string {
	if len(s.headings) == 0 {
		return nil
	}
	p := make([]string, len(s.headings))
	for i, h := range s.headings {
		p[i] = h.text
	}
	return p
}

// table emits table block i whole, as Markdown or, when its cells span,
// HTML; a table larger than a chunk is cut between rows, each piece with
// the header rows.
func (s *splitter) table(i int) {
	b := s.doc.Blocks[i]
	sp := s.spans[i]
	t := b.Table
	if t == nil || len(t.Rows) == 0 {
		return
	}
	render := func(t *document.TableData) string {
		if t.Spans() {
			return t.HTML()
		}
		return t.Markdown()
	}
	whole := render(t)
	if len(whole) <= s.opt.Size || len(t.Rows) <= max(t.HeaderRows, 1)+1 {
		s.emit(whole, "table", sp.Start, sp.End, i, i)
		return
	}
	head := max(t.HeaderRows, 1)
	if t.Spans() {
		head = max(head, spanningHead(t))
	}
	// Cut the body rows into pieces, each rendered with the header rows;
	// the span of each piece is the table's, as rows do not map to bytes
	// when cells span.
	body := t.Rows[head:]
	for len(body) > 0 {
		n := 1
		for n < len(body) {
			piece := &document.TableData{Rows: append(append([][]document.Cell{}, t.Rows[:head]...), body[:n+1]...), HeaderRows: t.HeaderRows, Caption: t.Caption}
			if len(render(piece)) > s.opt.Size || spansBeyond(body[:n+1], n+1) {
				break
			}
			n++
		}
		piece := &document.TableData{Rows: append(append([][]document.Cell{}, t.Rows[:head]...), body[:n]...), HeaderRows: t.HeaderRows, Caption: t.Caption}
		s.emit(render(piece), "table", sp.Start, sp.End, i, i)
		body = body[n:]
	}
}

// spanningHead is how many rows at the top of t a cell of the header rows
// spans into.
func spanningHead(t *document.TableData) int {
	n := max(t.HeaderRows, 1)
	for r := 0; r < n && r < len(t.Rows); r++ {
		for _, c := range t.Rows[r] {
			n = max(n, r+max(c.RowSpan, 1))
		}
	}
	return min(n, len(t.Rows))
}

// spansBeyond reports whether a cell of rows spans past the first n rows:
// the cut would split it.
func spansBeyond(rows [][]document.Cell, n int) bool {
	for r, row := range rows {
		for _, c := range row {
			if r+max(c.RowSpan, 1) > n {
				return true
			}
		}
	}
	return false
}

// longText cuts text block i, longer than a chunk, between sentences (or
// words, for a sentence longer than a chunk), each piece after the first
// starting up to Overlap bytes before the previous one ended.
func (s *splitter) longText(i int) {
	sp := s.spans[i]
	text := s.md[sp.Start:sp.End]
	layout := s.doc.Blocks[i].Kind.LayoutType()
	cuts := boundaries(text)
	start := 0
	for start < len(text) {
		end := start + s.opt.Size
		if end >= len(text) {
			end = len(text)
		} else {
			end = lastAtMost(cuts, end, start)
			for end < len(text) && !utf8.RuneStart(text[end]) {
				end++
			}
		}
		s.emit(text[start:end], layout, sp.Start+start, sp.Start+end, i, i)
		if end == len(text) {
			break
		}
		next := end
		if s.opt.Overlap > 0 {
			if back := firstAtLeast(cuts, max(end-s.opt.Overlap, start+1), end); back < end {
				next = back
			}
		}
		start = next
	}
}

// boundaries returns the offsets in text where a cut may fall, in order:
// after the space that follows a sentence's end, else after any space.
func boundaries(text string) (cuts []cut) {
	var last rune // the last rune that is not a space
	for i, r := range text {
		if !unicode.IsSpace(r) {
			last = r
			continue
		}
		end := last == '.' || last == '?' || last == '!' || last == ':' || last == ';'
		cuts = append(cuts, cut{at: i + utf8.RuneLen(r), sentence: end})
	}
	return cuts
}

type cut struct {
	at       int
	sentence bool
}

// lastAtMost returns the last sentence cut in (lo, hi], else the last word
// cut there, else hi.
func lastAtMost(cuts []cut, hi, lo int) int {
	j := sort.Search(len(cuts), func(j int) bool { return cuts[j].at > hi }) - 1
	word := -1
	for ; j >= 0 && cuts[j].at > lo; j-- {
		if cuts[j].sentence {
			return cuts[j].at
		}
		if word < 0 {
			word = cuts[j].at
		}
	}
	if word > 0 {
		return word
	}
	return hi
}

// firstAtLeast returns the first sentence cut in [lo, hi), else the first
// word cut there, else hi.
func firstAtLeast(cuts []cut, lo, hi int) int {
	j := sort.Search(len(cuts), func(j int) bool { return cuts[j].at >= lo })
	word := -1
	for ; j < len(cuts) && cuts[j].at < hi; j++ {
		if cuts[j].sentence {
			return cuts[j].at
		}
		if word < 0 {
			word = cuts[j].at
		}
	}
	if word >= 0 {
		return word
	}
	return hi
}

// id is the chunk's id: a hash of the document version, the chunk's bytes
// and its content.
func id(key string, c *Chunk) string {
	h := sha256.New()
	h.Write([]byte(key))
	h.Write([]byte{0})
	h.Write([]byte(strconv.Itoa(c.Start) + ":" + strconv.Itoa(c.End) + ":" + strconv.Itoa(c.Index)))
	h.Write([]byte{0})
	h.Write([]byte(c.Content))
	return "ck_" + hex.EncodeToString(h.Sum(nil)[:16])
}
