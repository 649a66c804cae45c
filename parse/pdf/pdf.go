// Package pdf reads PDF files into [document.Document]: text with its
// place on the page, put in reading order (columns, then top to bottom),
// headings, list items, code, tables (drawn with ruling lines, or aligned
// in columns) and images, with running headers, footers and page numbers
// left out. Pages without a usable text layer are read by OCR when an
// engine is installed, and say so in the document's notes when not.
//
// PDF rendering and text extraction come from pdfium, compiled to
// WebAssembly and run by wazero, so the binary stays pure Go. See [Pool]
// for how instances are started and shared.
package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/document"
)

// Defaults of [Options].
const (
	DefaultMaxPages = 2000
	DefaultTimeout  = 5 * time.Minute
	DefaultMaxBytes = 512 << 20
	// OCRDPI is the resolution pages are rendered at for OCR.
	OCRDPI = 300
)

// Options controls [Parse]. The zero value is ready to use.
type Options struct {
	// ForceOCR reads every page by OCR, ignoring its text layer.
	ForceOCR bool
	// OCR recognises pages without a usable text layer; nil means the
	// tesseract command ([Tesseract]) when it is installed.
	OCR OCR
	// MaxPages is the most pages read; later pages are left out, with a
	// note. Zero means [DefaultMaxPages].
	MaxPages int
	// Timeout bounds the whole document, OCR included. Zero means
	// [DefaultTimeout].
	Timeout time.Duration
	// MaxBytes is the largest file accepted. Zero means [DefaultMaxBytes].
	MaxBytes int64
	// Pool runs pdfium; nil means [DefaultPool].
	Pool *Pool
}

const op = "parse.pdf"

// Parse reads a PDF. Its errors are *sanad.Error: CodeParserEncrypted for a
// password-protected file, CodeParserUnsupported for anything that is not a
// readable PDF (empty, truncated, too large), CodeTimeout when the time
// limit passes and CodeCancelled when ctx is cancelled. A page that cannot
// be read is left out with a note rather than failing the document.
func Parse(ctx context.Context, data []byte, opts Options) (doc *document.Document, err error) {
	defer func() {
		if r := recover(); r != nil {
			doc, err = nil, sanad.Errorf(sanad.CodeInternal, op, "reading the PDF failed: %v", r)
		}
	}()
	if opts.MaxPages <= 0 {
		opts.MaxPages = DefaultMaxPages
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.OCR == nil {
		opts.OCR = Tesseract{}
	}
	pool := opts.Pool
	if pool == nil {
		pool = DefaultPool()
	}
	switch {
	case len(data) == 0:
		return nil, sanad.Errorf(sanad.CodeParserUnsupported, op, "the file is empty")
	case int64(len(data)) > opts.MaxBytes:
		return nil, sanad.Errorf(sanad.CodeParserUnsupported, op, "the file is %d bytes, more than the %d accepted", len(data), opts.MaxBytes)
	case !bytes.Contains(data[:min(len(data), 1024)], []byte("%PDF-")):
		return nil, sanad.Errorf(sanad.CodeParserUnsupported, op, "not a PDF: the file has no %%PDF- header")
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()

	r := &reader{data: data, opts: opts, pool: pool}
	if err := r.read(ctx); err != nil {
		return nil, r.classify(ctx, err)
	}
	return r.assemble(), nil
}

// classify turns an error into a *sanad.Error.
func (r *reader) classify(ctx context.Context, err error) error {
	var se *sanad.Error
	switch {
	case errors.As(err, &se):
		return err
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded):
		return sanad.Wrap(err, sanad.CodeTimeout, op, fmt.Sprintf("reading the PDF took longer than %s", r.opts.Timeout))
	case errors.Is(err, context.Canceled):
		return sanad.Wrap(err, sanad.CodeCancelled, op, "reading the PDF was cancelled")
	case errors.Is(err, errPoolClosed):
		return sanad.Wrap(err, sanad.CodeUnavailable, op, "the PDF reader is closed")
	}
	return sanad.Wrap(err, sanad.CodeInternal, op, "reading the PDF failed")
}

// openError classifies pdfium's refusal to open a file.
func openError(err error) error {
	var pe pdfiumError
	if !errors.As(err, &pe) {
		// pdfium failed inside (a trap on a malformed file).
		return sanad.Wrap(err, sanad.CodeParserUnsupported, op, "not a readable PDF: pdfium could not open it")
	}
	switch int(pe) {
	case errPassword:
		return sanad.Wrap(err, sanad.CodeParserEncrypted, op, "the PDF is encrypted and needs a password")
	case errSecurity:
		return sanad.Wrap(err, sanad.CodeParserEncrypted, op, "the PDF is encrypted with an unsupported security handler")
	case errFormat:
		return sanad.Wrap(err, sanad.CodeParserUnsupported, op, "not a readable PDF: the file is damaged or truncated")
	}
	return sanad.Wrap(err, sanad.CodeParserUnsupported, op, "not a readable PDF: "+err.Error())
}

// reader holds one Parse call's state.
type reader struct {
	data []byte
	opts Options
	pool *Pool

	total int // pages in the file
	pages []pageResult
	meta  map[string]any

	// mu guards ocrAvail.
	mu       sync.Mutex
	ocrAvail *error
}

// pageResult is what one page gave.
type pageResult struct {
	height float64
	blocks []*block
	notes  []document.Note
}

// pagesPerJob is how many pages make it worth starting another instance.
const pagesPerJob = 6

// read reads every page: the first instance opens the file, counts its
// pages and reads the first share; when there are enough pages, more
// instances read the other shares side by side.
func (r *reader) read(ctx context.Context) error {
	counted := make(chan struct{}, 1)
	first := make(chan error, 1)
	var share [][2]int
	go func() {
		first <- r.pool.run(ctx, func(inst pdfium.Pdfium) error {
			return r.withDocument(ctx, inst, func(s *session) error {
				n, err := s.doc.pageCount()
				if err != nil {
					if ctx.Err() != nil {
						return ctx.Err()
					}
					return sanad.Wrap(err, sanad.CodeParserUnsupported, op, "not a readable PDF: its pages cannot be counted")
				}
				if n <= 0 {
					return sanad.Errorf(sanad.CodeParserUnsupported, op, "not a readable PDF: it has no pages")
				}
				r.total = n
				n = min(n, r.opts.MaxPages)
				r.pages = make([]pageResult, n)
				r.meta = readMeta(s.doc)
				jobs := min(max(n/pagesPerJob, 1), r.pool.Instances())
				for i := range jobs {
					share = append(share, [2]int{i * n / jobs, (i + 1) * n / jobs})
				}
				counted <- struct{}{}
				return r.readPages(ctx, s, share[0][0], share[0][1])
			})
		})
	}()
	firstDone := false
	select {
	case <-counted:
	case err := <-first:
		if err != nil {
			return err
		}
		firstDone = true
	}
	var wg sync.WaitGroup
	errs := make([]error, len(share))
	for i := 1; i < len(share); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = r.pool.run(ctx, func(inst pdfium.Pdfium) error {
				return r.withDocument(ctx, inst, func(s *session) error {
					return r.readPages(ctx, s, share[i][0], share[i][1])
				})
			})
		}()
	}
	if !firstDone {
		errs[0] = <-first
	}
	wg.Wait()
	return errors.Join(errs...)
}

// session is the document open in one instance.
type session struct {
	inst pdfium.Pdfium
	doc  *pdfDoc
	// wrapped is the same document opened through go-pdfium's API, for
	// rendering pages for OCR; opened when first needed.
	wrapped references.FPDF_DOCUMENT
}

// withDocument opens the file in inst for f.
func (r *reader) withDocument(ctx context.Context, inst pdfium.Pdfium, f func(*session) error) error {
	n, err := nativeOf(ctx, inst, r.pool.cfg.Interruptible)
	if err != nil {
		return err
	}
	doc, err := n.openDocument(r.data)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return openError(err)
	}

	s := &session{inst: inst, doc: doc}
	defer func() {
		if s.wrapped != "" {
			inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: s.wrapped})
		}
		if ctx.Err() == nil {
			doc.close()
		}
	}()
	return f(s)
}

// readPages reads pages [from, to), OCR included.
func (r *reader) readPages(ctx context.Context, s *session, from, to int) error {
	for i := from; i < to; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		pr := &r.pages[i]
		pc, err := readPage(s.doc, i)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			pr.notes = append(pr.notes, document.Note{Page: i + 1, Code: "page_unreadable", Text: fmt.Sprintf("page %d could not be read: %v", i+1, err)})
			continue
		}
		pr.height = pc.height
		if pc.truncated {
			pr.notes = append(pr.notes, document.Note{Page: i + 1, Code: "truncated", Text: fmt.Sprintf("page %d has more text or drawing objects than are read; the rest were left out", i+1)})
		}
		ocr := false
		bad, why := garbled(pc.stats)
		if !bad && pc.stats.total < 80 && imageCover(pc) > 0.5 {
			bad, why = true, "its text layer is a few characters over a full-page image"
		}
		if r.opts.ForceOCR || bad {
			if r.opts.ForceOCR {
				why = "OCR was requested for every page"
			}
			words, note, err := r.recognize(ctx, s, i, pc, why)
			if err != nil {
				return err
			}
			pr.notes = append(pr.notes, note)
			if words != nil {
				pc.words = words
				ocr = true
			}
		}
		var figureWords int
		pr.blocks, figureWords = layoutPage(pc, ocr)
		if figureWords > 0 {
			pr.notes = append(pr.notes, document.Note{Page: i + 1, Code: "figure_text_omitted", Text: fmt.Sprintf("page %d: %d words of labels inside figures were left out of the text", i+1, figureWords)})
		}
	}
	return nil
}

// imageCover is the share of the page the largest image covers.
func imageCover(pc *pageContent) float64 {
	best := 0.0
	for _, im := range pc.images {
		best = max(best, im.w()*im.h()/(pc.width*pc.height))
	}
	return best
}

// ocrAvailable checks once per document whether the engine can run.
func (r *reader) ocrAvailable() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ocrAvail == nil {
		var err error
		if a, ok := r.opts.OCR.(Availability); ok {
			err = a.Available()
		}
		r.ocrAvail = &err
	}
	return *r.ocrAvail
}

// recognize renders page i and runs OCR on it. It returns the words found
// (nil when OCR could not run) and the note to record. Only the context's
// end is an error.
func (r *reader) recognize(ctx context.Context, s *session, i int, pc *pageContent, why string) ([]word, document.Note, error) {
	page := i + 1
	unavailable := document.Note{Page: page, Code: "ocr_unavailable", Text: fmt.Sprintf("page %d has no usable text layer and tesseract is not installed", page)}
	if r.opts.ForceOCR {
		unavailable.Text = fmt.Sprintf("OCR was requested for page %d but tesseract is not installed; its text layer was kept", page)
	}
	if err := r.ocrAvailable(); err != nil {
		return nil, unavailable, nil
	}
	if s.wrapped == "" {
		d, err := s.inst.OpenDocument(&requests.OpenDocument{File: &r.data})
		if err != nil {
			return nil, document.Note{Page: page, Code: "ocr_failed", Text: fmt.Sprintf("page %d could not be rendered for OCR: %v", page, err)}, nil
		}
		s.wrapped = d.Document
	}
	img, err := renderPage(s.inst, s.wrapped, i)
	if err != nil {
		return nil, document.Note{Page: page, Code: "ocr_failed", Text: fmt.Sprintf("page %d could not be rendered for OCR: %v", page, err)}, nil
	}
	ws, err := r.opts.OCR.Recognize(ctx, img)
	switch {
	case ctx.Err() != nil:
		return nil, document.Note{}, ctx.Err()
	case err != nil && ocrUnavailable(err):
		r.mu.Lock()
		r.ocrAvail = &err
		r.mu.Unlock()
		return nil, unavailable, nil
	case err != nil:
		return nil, document.Note{Page: page, Code: "ocr_failed", Text: fmt.Sprintf("OCR of page %d failed: %v", page, err)}, nil
	}
	// Scale from the image's pixels to the page's points.
	scale := pc.width / float64(max(img.Bounds().Dx(), 1))
	return ocrWords(ws, scale), document.Note{Page: page, Code: "ocr_used", Text: fmt.Sprintf("page %d was read by OCR: %s", page, why)}, nil
}

// renderPage renders page i at OCRDPI into an image the caller owns.
func renderPage(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, i int) (image.Image, error) {
	res, err := inst.RenderPageInDPI(&requests.RenderPageInDPI{
		Page: requests.Page{ByIndex: &requests.PageByIndex{Document: doc, Index: i}},
		DPI:  OCRDPI,
	})
	if err != nil {
		return nil, err
	}
	defer res.Cleanup()
	src := res.Result.Image
	dst := image.NewRGBA(src.Bounds())
	copy(dst.Pix, src.Pix)
	return dst, nil
}

// readMeta reads the document information dictionary.
func readMeta(d *pdfDoc) map[string]any {
	meta := map[string]any{}
	for _, tag := range []struct{ tag, key string }{
		{"Title", "title"}, {"Author", "author"}, {"Subject", "subject"}, {"Keywords", "keywords"},
		{"Creator", "creator"}, {"Producer", "producer"}, {"CreationDate", "created"}, {"ModDate", "modified"},
	} {
		v := strings.TrimSpace(strings.ReplaceAll(d.metaText(tag.tag), "\x00", ""))
		if v == "" {
			continue
		}
		if tag.key == "created" || tag.key == "modified" {
			if t, ok := pdfDate(v); ok {
				v = t.Format(time.RFC3339)
			}
		}
		meta[tag.key] = v
	}
	if v := d.fileVersion(); v > 0 {
		meta["pdf_version"] = fmt.Sprintf("%d.%d", v/10, v%10)
	}
	return meta
}

// pdfDate parses a PDF date: D:YYYYMMDDHHmmSSOHH'mm'.
func pdfDate(s string) (time.Time, bool) {
	s = strings.TrimPrefix(s, "D:")
	s = strings.ReplaceAll(s, "'", "")
	layouts := []string{"20060102150405-0700", "20060102150405Z0700", "20060102150405Z", "20060102150405", "200601021504", "2006010215", "20060102", "200601", "2006"}
	for _, l := range layouts {
		if len(s) < len(strings.TrimSuffix(strings.TrimSuffix(l, "-0700"), "Z0700")) {
			continue
		}
		if t, err := time.Parse(l, s); err == nil {
			return t, true
		}
	}
	if len(s) >= 14 {
		if t, err := time.Parse("20060102150405", s[:14]); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// layoutPage turns a page's words, lines and images into blocks in reading
// order.
//
// Short labels lying inside a figure (an image smaller than the page) are
// part of the figure, not of the text: they are left out, and counted.
func layoutPage(pc *pageContent, ocr bool) (blocks []*block, figureWords int) {
	words := dedupe(pc.words)
	var items []*block
	rtlPage := rtlShare(words) > 0.5
	lattice := latticeTables(pc.rules, words)
	var rest []rule
	for _, r := range pc.rules {
		if !insideAny(lattice, r) {
			rest = append(rest, r)
		}
	}
	for _, t := range append(lattice, ruledTables(rest, words, pc.height)...) {
		items = append(items, &block{kind: kTable, rect: t.rect, table: t})
	}
	free := words[:0:0]
	for _, w := range words {
		if !w.inTable {
			free = append(free, w)
		}
	}
	lines := buildLines(free)
	for _, t := range streamTables(lines, pc.width) {
		items = append(items, &block{kind: kTable, rect: t.rect, table: t})
	}
	var figures []rect
	for _, im := range pc.images {
		if im.w()*im.h() > 0.85*pc.width*pc.height || overlapsTable(items, im) {
			continue // a scanned page's image, or a table's background
		}
		figures = append(figures, im)
	}
	for _, b := range buildBlocks(lines) {
		if label(b, figures) {
			for _, l := range b.lines {
				figureWords += len(l.words)
			}
			continue
		}
		for _, it := range splitItems(b) {
			for _, p := range splitParagraphs(it) {
				p.finish()
				items = append(items, p)
			}
		}
	}
	for _, im := range figures {
		items = append(items, &block{kind: kImage, rect: im})
	}
	if rtlPage {
		for _, b := range items {
			if b.kind == kTable {
				b.table.data.Rows = mirror(b.table.data.Rows)
			}
		}
	}
	out := order(items, rtlPage)
	for _, b := range out {
		b.page = pc.number
		b.ocr = ocr
	}
	attachCaptions(out)
	return out, figureWords
}

// label reports whether a block is a figure's label: a few words inside an
// image.
func label(b *block, figures []rect) bool {
	if len(b.lines) > 2 {
		return false
	}
	n := 0
	for _, l := range b.lines {
		n += len(l.words)
	}
	if n > 8 {
		return false
	}
	for _, f := range figures {
		if b.x0 >= f.x0-1 && b.x1 <= f.x1+1 && b.y0 >= f.y0-1 && b.y1 <= f.y1+1 {
			return true
		}
	}
	return false
}

// dedupe drops words drawn twice over themselves (a shadow, or bold
// faked by printing twice): the same text in nearly the same box.
func dedupe(ws []word) []*word {
	out := make([]*word, 0, len(ws))
	seen := map[string][]*word{}
	for i := range ws {
		w := &ws[i]
		dup := false
		for _, o := range seen[w.text] {
			ox, oy := o.overlapX(w.rect), o.overlapY(w.rect)
			if ox > 0 && oy > 0 && ox*oy > 0.6*w.w()*w.h() {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		seen[w.text] = append(seen[w.text], w)
		out = append(out, w)
	}
	return out
}

// insideAny reports whether a ruling line lies within one of the tables.
func insideAny(ts []*tableGrid, r rule) bool {
	mx, my := (r.from+r.to)/2, r.pos
	if !r.horizontal {
		mx, my = r.pos, (r.from+r.to)/2
	}
	for _, t := range ts {
		if t.contains(mx, my) || t.x0-3 <= mx && mx <= t.x1+3 && t.y0-3 <= my && my <= t.y1+3 {
			return true
		}
	}
	return false
}

// rtlShare is the share of letters in right-to-left scripts.
func rtlShare(words []*word) float64 {
	n, rtl := 0, 0
	for _, w := range words {
		k := len([]rune(w.text))
		n += k
		if w.rtl {
			rtl += k
		}
	}
	if n == 0 {
		return 0
	}
	return float64(rtl) / float64(n)
}

// mirror reverses each row's cells, so that a right-to-left table reads
// from its right-hand column. Spanning cells keep their spans: a row's
// cells listed right to left still tile it.
func mirror(rows [][]document.Cell) [][]document.Cell {
	out := make([][]document.Cell, len(rows))
	for i, r := range rows {
		out[i] = slices.Clone(r)
		slices.Reverse(out[i])
	}
	return out
}

func overlapsTable(items []*block, r rect) bool {
	for _, b := range items {
		if b.kind == kTable && b.overlapX(r) > 0.5*r.w() && b.overlapY(r) > 0.5*r.h() {
			return true
		}
	}
	return false
}

// assemble makes the document: furniture dropped, headings found against
// the body size, list depths set.
func (r *reader) assemble() *document.Document {
	doc := &document.Document{Format: "pdf", Pages: r.total, Metadata: r.meta}
	var pages [][]*block
	var heights []float64
	for i := range r.pages {
		pages = append(pages, r.pages[i].blocks)
		heights = append(heights, r.pages[i].height)
	}
	running, numbers := markFurniture(pages, heights)
	body := bodySize(pages)
	for _, bs := range pages {
		for _, b := range bs {
			if !b.furniture && !b.taken && isHeading(b, body) {
				if b.kind == kList {
					b.text = joinLines(lineTexts(b), true)
				}
				b.kind = kHeading
			}
		}
	}
	headingLevels(pages)
	var all []*block
	for _, bs := range pages {
		for _, b := range bs {
			if !b.furniture && !b.taken {
				all = append(all, b)
			}
		}
	}
	orderedLists(all)
	listLevels(all)
	for _, b := range all {
		if blk, ok := b.documentBlock(); ok {
			doc.Blocks = append(doc.Blocks, blk)
		}
	}
	for i := range r.pages {
		doc.Notes = append(doc.Notes, r.pages[i].notes...)
	}
	if running > 0 || numbers > 0 {
		doc.Notes = append(doc.Notes, document.Note{Code: "furniture_removed", Text: fmt.Sprintf("left out %d running header or footer lines repeated across pages and %d page numbers", running, numbers)})
	}
	if len(r.pages) < r.total {
		doc.Notes = append(doc.Notes, document.Note{Code: "truncated", Text: fmt.Sprintf("the document has %d pages; only the first %d were read", r.total, len(r.pages))})
	}
	doc.Title = title(r.meta, doc.Blocks)
	return doc
}

func lineTexts(b *block) []string {
	var out []string
	for _, l := range b.lines {
		out = append(out, normalize(l.text))
	}
	return out
}

// title is the metadata title, unless it looks like a file name, or else
// the first top-level heading.
func title(meta map[string]any, bs []document.Block) string {
	if t, _ := meta["title"].(string); t != "" {
		lt := strings.ToLower(t)
		bad := strings.HasPrefix(lt, "microsoft word") || lt == "untitled" || lt == "title"
		for _, ext := range []string{".doc", ".docx", ".pdf", ".indd", ".tex", ".dvi", ".rtf", ".xls", ".ppt"} {
			bad = bad || strings.HasSuffix(lt, ext)
		}
		if !bad {
			return t
		}
	}
	best := 7
	text := ""
	for _, b := range bs {
		if b.Kind == document.Header && b.Level < best {
			best, text = b.Level, b.Text
			if best == 1 {
				break
			}
		}
	}
	return text
}

// headerRows is 1 when a table's first row reads as its header: words
// only, above rows that hold numbers.
func headerRows(t *document.TableData) int {
	if len(t.Rows) < 2 {
		return 0
	}
	filled := 0
	for _, c := range t.Rows[0] {
		if c.Text == "" {
			continue
		}
		if numeric(c.Text) {
			return 0
		}
		filled++
	}
	if filled == 0 {
		return 0
	}
	for _, r := range t.Rows[1:] {
		for _, c := range r {
			if numeric(c.Text) {
				return 1
			}
		}
	}
	return 0
}

// documentBlock converts a block.
func (b *block) documentBlock() (document.Block, bool) {
	out := document.Block{Page: b.page, BBox: b.bbox()}
	if b.ocr {
		out.Source = "ocr"
	}
	switch b.kind {
	case kTable:
		if b.table == nil || len(b.table.data.Rows) == 0 {
			return out, false
		}
		out.Kind = document.Table
		b.table.data.Caption = b.caption
		b.table.data.HeaderRows = headerRows(b.table.data)
		out.Table = b.table.data
	case kImage:
		out.Kind = document.Image
		out.Text = b.caption
	case kHeading:
		out.Kind = document.Header
		out.Text = b.text
		out.Level = max(b.level, 1)
	case kList:
		out.Kind = document.List
		out.Text = b.text
		out.Level = b.level
		out.Ordered = b.ordered
	case kCode:
		out.Kind = document.Code
		out.Text = b.text
	default:
		out.Kind = document.Text
		out.Text = b.text
	}
	if out.Kind != document.Table && out.Kind != document.Image && strings.TrimSpace(out.Text) == "" {
		return out, false
	}
	return out, true
}
