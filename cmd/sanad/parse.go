package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/parse"
)

func (a *app) parseCommand() *cobra.Command {
	var opt parse.Options
	c := a.jsonFlag(&cobra.Command{
		Use:   "parse FILE",
		Short: "Read a document (PDF, DOCX, PPTX, XLSX, HTML, Markdown, text, CSV, JSON, VTT, SRT) and print it as Markdown",
		Long: `Reads FILE as the format its bytes show, and prints it as Markdown: headings, lists, and
tables (a table whose cells span rows or columns repeats the spanning text; in --json, the
chunk carries it as HTML). Pages with no usable text layer are read by OCR when tesseract is
installed; when it is not, the output says which pages could not be read.

--json prints the ParserOutput: document_id, metadata, the chunks (chunk_id, content,
chunk_index, page_number, layout_type, bbox, and the bytes of the Markdown each came from),
total_pages and processing_time_ms.

An encrypted file fails with ERR_PARSER_ENCRYPTED, an unknown or broken one with
ERR_PARSER_UNSUPPORTED and the reason (exit 1).`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opt.FileType != "" && !slices.Contains(parse.Formats, opt.FileType) {
				return usagef("--type must be one of %s", strings.Join(parse.Formats, ", "))
			}
			out, err := parse.File(cmd.Context(), args[0], opt)
			if err != nil {
				if sanad.ErrorCode(err) == sanad.CodeNotFound {
					return usageError{err}
				}
				return failure{err}
			}
			if a.jsonOut {
				return a.printJSON(out)
			}
			fmt.Fprintln(a.stdout, out.Markdown)
			for _, n := range out.Document.Notes {
				fmt.Fprintf(a.stderr, "note: page %d: %s\n", n.Page, n.Text)
			}
			return nil
		},
	})
	c.Flags().StringVar(&opt.FileType, "type", "", "read the file as this format instead of sniffing it ("+strings.Join(parse.Formats, ", ")+")")
	c.Flags().BoolVar(&opt.ForceOCR, "force-ocr", false, "read every PDF page by OCR (needs tesseract)")
	return c
}
