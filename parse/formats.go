package parse

import (
	"context"

	"github.com/sanadhq/sanad/document"
	"github.com/sanadhq/sanad/parse/office"
	"github.com/sanadhq/sanad/parse/pdf"
	"github.com/sanadhq/sanad/parse/text"
	"github.com/sanadhq/sanad/parse/web"
)

// readers are the readers of each format.
var readers = map[string]reader{
	PDF:  pdfReader,
	DOCX: officeReader,
	PPTX: officeReader,
	XLSX: officeReader,
	HTML: func(ctx context.Context, data []byte, _ Options) (*document.Document, error) {
		return web.Parse(ctx, data)
	},
	TXT:   textReader(text.TXT),
	MD:    textReader(text.Markdown),
	CSV:   textReader(text.CSV),
	JSON:  textReader(text.JSON),
	JSONL: textReader(text.JSONL),
	VTT:   textReader(text.VTT),
	SRT:   textReader(text.SRT),
}

func officeReader(ctx context.Context, data []byte, _ Options) (*document.Document, error) {
	return office.Parse(ctx, data)
}

func textReader(f text.Format) reader {
	return func(ctx context.Context, data []byte, _ Options) (*document.Document, error) {
		return text.Config{Format: f}.Parse(ctx, data)
	}
}

func pdfReader(ctx context.Context, data []byte, opt Options) (*document.Document, error) {
	return pdf.Parse(ctx, data, pdf.Options{ForceOCR: opt.ForceOCR, Timeout: opt.Timeout})
}
