package docgen

import (
	"bytes"
	"fmt"
	"strings"
)

// A4 in points, and the margins of the text area.
const (
	pageWidth    = 595.0
	pageHeight   = 842.0
	marginLeft   = 64.0
	marginRight  = 64.0
	marginTop    = 72.0
	marginBottom = 72.0
	textWidth    = pageWidth - marginLeft - marginRight
	bodySize     = 10.0
	bodyLeading  = 13.5
)

// Fonts of the document: the standard Type1 fonts, WinAnsi encoded.
const (
	regular = "F1" // Helvetica
	bold    = "F2" // Helvetica-Bold
)

// A PDF lays out text, lists and ruled tables on A4 pages, top to
// bottom, and writes them as a PDF with no compression, so that the same
// content always gives the same bytes.
type PDF struct {
	// Producer and Created are the Producer and CreationDate of the info
	// dictionary; Created is a PDF date such as D:20250411120000Z.
	Producer string
	Created  string

	title  string
	footer string
	pages  []*strings.Builder
	y      float64 // baseline of the next line on the current page
}

// NewPDF starts a document with a title (its metadata) and a footer set
// on every page.
func NewPDF(title, footer string) *PDF {
	w := &PDF{title: title, footer: footer, Producer: "sanad corpus generator", Created: "D:20250411120000Z"}
	w.newPage()
	return w
}

func (w *PDF) page() *strings.Builder { return w.pages[len(w.pages)-1] }

func (w *PDF) newPage() {
	w.pages = append(w.pages, &strings.Builder{})
	w.y = pageHeight - marginTop
}

// need starts a new page unless h points of height are left.
func (w *PDF) need(h float64) {
	if w.y-h < marginBottom {
		w.newPage()
	}
}

// text sets s at (x, y) in font at size.
func (w *PDF) text(x, y float64, font string, size float64, s string) {
	fmt.Fprintf(w.page(), "BT /%s %s Tf %s %s Td (%s) Tj ET\n", font, num(size), num(x), num(y), pdfString(s))
}

// line strokes a line from (x1, y1) to (x2, y2).
func (w *PDF) line(x1, y1, x2, y2 float64) {
	fmt.Fprintf(w.page(), "%s %s m %s %s l S\n", num(x1), num(y1), num(x2), num(y2))
}

// Heading sets a heading in bold, before points below what precedes it.
func (w *PDF) Heading(s string, size float64, before float64) {
	if w.y < pageHeight-marginTop {
		w.y -= before
	}
	// Keep a heading with at least three lines of what follows.
	w.need(size + 3*bodyLeading)
	w.text(marginLeft, w.y, bold, size, s)
	w.y -= size * 1.6
}

// Paragraph sets s in the body font, wrapped to the text width.
// A paragraph is kept on one page.
func (w *PDF) Paragraph(s string) {
	lines := wrap(s, regular, bodySize, textWidth)
	w.need(bodyLeading * float64(len(lines)))
	for _, l := range lines {
		w.text(marginLeft, w.y, regular, bodySize, l)
		w.y -= bodyLeading
	}
	w.y -= bodyLeading * 0.5
}

// Item sets a bulleted list item, kept on one page.
func (w *PDF) Item(s string) {
	lines := wrap(s, regular, bodySize, textWidth-16)
	w.need(bodyLeading * float64(len(lines)))
	w.text(marginLeft+4, w.y, regular, bodySize, "•")
	for _, l := range lines {
		w.text(marginLeft+16, w.y, regular, bodySize, l)
		w.y -= bodyLeading
	}
	w.y -= bodyLeading * 0.25
}

// Table draws a table ruled on every side of every cell, its caption
// above it and its first row in bold. Columns after the first are aligned
// right.
func (w *PDF) Table(caption string, widths []float64, rows [][]string) {
	const rowHeight = 18.0
	const size = 9.5
	w.need(bodyLeading*2 + rowHeight*float64(len(rows)))
	w.y -= bodyLeading * 0.5
	w.text(marginLeft, w.y, bold, bodySize, caption)
	w.y -= bodyLeading * 0.9
	top := w.y
	total := 0.0
	for _, cw := range widths {
		total += cw
	}
	bottom := top - rowHeight*float64(len(rows))
	fmt.Fprintf(w.page(), "0.6 w\n")
	for r := range len(rows) + 1 {
		y := top - rowHeight*float64(r)
		w.line(marginLeft, y, marginLeft+total, y)
	}
	x := marginLeft
	for i := range len(widths) + 1 {
		w.line(x, top, x, bottom)
		if i < len(widths) {
			x += widths[i]
		}
	}
	for r, row := range rows {
		font := regular
		if r == 0 {
			font = bold
		}
		base := top - rowHeight*float64(r) - 12.5
		x := marginLeft
		for c, cell := range row {
			if c == 0 {
				w.text(x+5, base, font, size, cell)
			} else {
				w.text(x+widths[c]-5-textWidthOf(cell, font, size), base, font, size, cell)
			}
			x += widths[c]
		}
	}
	w.y = bottom - bodyLeading*1.5
}

// Bytes writes the PDF: catalog, page tree, the two fonts, an info
// dictionary, then each page and its content stream, with a footer and
// page number on every page.
func (w *PDF) Bytes() []byte {
	var objs []string
	n := len(w.pages)
	kids := make([]string, n)
	for i := range n {
		kids[i] = fmt.Sprintf("%d 0 R", 6+2*i)
	}
	objs = append(objs,
		"<< /Type /Catalog /Pages 2 0 R >>",
		fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>",
		fmt.Sprintf("<< /Title (%s) /Producer (%s) /CreationDate (%s) >>", pdfString(w.title), pdfString(w.Producer), w.Created),
	)
	for i, p := range w.pages {
		var c strings.Builder
		c.WriteString(p.String())
		fmt.Fprintf(&c, "0.6 w\n")
		c.WriteString(lineOp(marginLeft, 52, pageWidth-marginRight, 52))
		fmt.Fprintf(&c, "BT /%s 8 Tf %s 40 Td (%s) Tj ET\n", regular, num(marginLeft), pdfString(w.footer))
		pn := fmt.Sprintf("%d", i+1)
		fmt.Fprintf(&c, "BT /%s 8 Tf %s 40 Td (%s) Tj ET\n", regular, num(pageWidth-marginRight-textWidthOf(pn, regular, 8)), pn)
		stream := c.String()
		objs = append(objs,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %s %s] /Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> /Contents %d 0 R >>", num(pageWidth), num(pageHeight), 7+2*i),
			fmt.Sprintf("<< /Length %d >>\nstream\n%sendstream", len(stream), stream))
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R /Info 5 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

func lineOp(x1, y1, x2, y2 float64) string {
	return fmt.Sprintf("%s %s m %s %s l S\n", num(x1), num(y1), num(x2), num(y2))
}

// num formats a coordinate with at most two decimals and no trailing
// zeros.
func num(f float64) string {
	s := fmt.Sprintf("%.2f", f)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// winAnsi maps the characters outside ASCII that the documents use to
// their WinAnsiEncoding codes.
var winAnsi = map[rune]byte{
	'€': 0x80, '‘': 0x91, '’': 0x92, '“': 0x93, '”': 0x94, '•': 0x95,
	'–': 0x96, '—': 0x97, '£': 0xA3, '©': 0xA9, 'é': 0xE9, 'ë': 0xEB, 'ö': 0xF6,
}

// pdfString encodes s in WinAnsi and escapes it for a PDF literal string.
// It panics on a character the encoding lacks, so that no text is lost
// silently.
func pdfString(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '(' || r == ')' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r >= 0x20 && r < 0x7f:
			b.WriteRune(r)
		default:
			c, ok := winAnsi[r]
			if !ok {
				panic(fmt.Sprintf("no WinAnsi code for %q", r))
			}
			fmt.Fprintf(&b, "\\%03o", c)
		}
	}
	return b.String()
}

// helvetica holds the advance widths (per 1000 units of size) of
// Helvetica's printable ASCII characters, from its AFM file; the bold
// face is wider by about six per cent.
var helvetica = [95]int{
	278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, // space to /
	556, 556, 556, 556, 556, 556, 556, 556, 556, 556, // 0 to 9
	278, 278, 584, 584, 584, 556, 1015, // : to @
	667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, // A to M
	722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, // N to Z
	278, 278, 278, 469, 556, 333, // [ to `
	556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, // a to m
	556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, // n to z
	334, 260, 334, 584, // { to ~
}

var helveticaOther = map[rune]int{
	'€': 556, '‘': 222, '’': 222, '“': 333, '”': 333, '•': 350,
	'–': 556, '—': 1000, '£': 556, '©': 737, 'é': 556, 'ë': 556, 'ö': 556,
}

func textWidthOf(s, font string, size float64) float64 {
	total := 0
	for _, r := range s {
		if r >= 0x20 && r < 0x7f {
			total += helvetica[r-0x20]
		} else {
			total += helveticaOther[r]
		}
	}
	w := float64(total) * size / 1000
	if font == bold {
		w *= 1.06
	}
	return w
}

// wrap breaks s into lines no wider than width.
func wrap(s, font string, size, width float64) []string {
	var lines []string
	var cur string
	for _, word := range strings.Fields(s) {
		next := word
		if cur != "" {
			next = cur + " " + word
		}
		if cur != "" && textWidthOf(next, font, size) > width {
			lines = append(lines, cur)
			cur = word
			continue
		}
		cur = next
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}
