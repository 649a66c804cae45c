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

// slide is one page of a presentation (see docgen.Slide).
type slide = docgen.Slide

// deck writes a presentation dated date (20250630).
func deck(company, title, date string, slides ...slide) []byte {
	return docgen.Deck(company, title, date, slides...)
}

// pdf starts a PDF document other than a presentation, dated date
// (20250630).
func pdf(title, footer, date string) *docgen.PDF { return docgen.DatedPDF(title, footer, date) }

// docx starts a DOCX document.
func docx(title, author string) *docgen.DOCX { return docgen.NewDOCX(title, author) }

// xlsx starts a workbook.
func xlsx(title, author, created string) *docgen.XLSX { return docgen.NewXLSX(title, author, created) }

type pct = docgen.Pct
