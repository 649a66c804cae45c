// Package roomdocs writes the PDF, DOCX and XLSX documents of the second
// held-out deal set (examples/deals-heldout-2). The Markdown, HTML and CSV
// documents, and each deal's deal.yaml and expected.json, are written by
// hand. The output depends only on this package and the shared writers of
// examples/internal/docgen, so writing it again gives the same bytes.
package roomdocs

import (
	"maps"

	"github.com/sanadhq/sanad/examples/internal/docgen"
)

// Files returns the generated documents by their path under
// examples/deals-heldout-2, as 01-wrenfield-veterinary/deck.pdf.
func Files() map[string][]byte {
	out := map[string][]byte{}
	for _, deal := range []func() map[string][]byte{
		wrenfield, kadewerk, sprocketline, marramba, kvarnby, valdarno,
	} {
		maps.Copy(out, deal())
	}
	return out
}

// producer is the Producer of every generated PDF.
const producer = "sanad sample data room"

// slide is one page of a presentation: a title, bullet points, an
// optional table (its first row the caption, its second the header) and
// a closing note.
type slide struct {
	title  string
	points []string
	table  [][]string
	widths []float64
	note   string
}

// deck writes a presentation dated date (20250630): a cover, then one
// section per slide.
func deck(company, title, date string, slides ...slide) []byte {
	w := docgen.NewPDF(company+": "+title, company+"  |  "+title+"  |  Confidential")
	w.Producer = producer
	w.Created = "D:" + date + "090000Z"
	w.Heading(company, 24, 0)
	w.Heading(title, 15, 0)
	w.Paragraph("Strictly private and confidential. " + dateText(date) + ".")
	for _, s := range slides {
		w.Heading(s.title, 15, 16)
		for _, p := range s.points {
			w.Item(p)
		}
		if s.table != nil {
			w.Table(s.table[0][0], s.widths, s.table[1:])
		}
		if s.note != "" {
			w.Paragraph(s.note)
		}
	}
	return w.Bytes()
}

var months = [...]string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}

// dateText writes 20250630 as 30 June 2025.
func dateText(d string) string {
	day := d[6:8]
	if day[0] == '0' {
		day = day[1:]
	}
	m := int(d[4]-'0')*10 + int(d[5]-'0')
	return day + " " + months[m-1] + " " + d[:4]
}

// pdf starts a PDF document other than a presentation, dated date
// (20250630).
func pdf(title, footer, date string) *docgen.PDF {
	w := docgen.NewPDF(title, footer)
	w.Producer = producer
	w.Created = "D:" + date + "090000Z"
	return w
}

// docx starts a DOCX document.
func docx(title, author string) *docgen.DOCX { return docgen.NewDOCX(title, author) }

// xlsx starts a workbook.
func xlsx(title, author, created string) *docgen.XLSX { return docgen.NewXLSX(title, author, created) }

type pct = docgen.Pct
