// Package office reads Word (DOCX), PowerPoint (PPTX) and Excel (XLSX)
// files into a [document.Document], with only archive/zip and a streaming
// encoding/xml decoder.
//
// DOCX gives headings (from styles, resolved through basedOn, and outline
// levels), list items with the numbers Word shows them with, tables with
// merged cells, text boxes, equations as LaTeX, code blocks, checkboxes,
// images, and footnotes and endnotes appended at the end; page headers and
// footers are kept out of the body and reported as notes. PPTX gives one
// page per slide: the title as a heading, body text as paragraphs and list
// items, tables, pictures, charts as their data, comments, and speaker
// notes as a text block starting "Notes:". XLSX gives one table per sheet.
//
// Every part is read through a bound on its expanded size and on the
// package's total, so a zip bomb is refused as too large instead of
// filling memory. An encrypted file (an OLE container holding
// EncryptionInfo) is reported with [sanad.CodeParserEncrypted].
//
// Parsing keeps no state between calls: Parse is safe for concurrent use.
package office

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/document"
)

// Default bounds of [Config].
const (
	DefaultMaxTotalBytes = 256 << 20 // everything read from one package
	DefaultMaxPartBytes  = 64 << 20  // one part (document.xml, a sheet)
	DefaultMaxParts      = 20000     // entries in the zip directory
)

// Config bounds what a package may expand to. Zero fields take the
// defaults.
type Config struct {
	// MaxTotalBytes bounds the uncompressed bytes read from one package.
	MaxTotalBytes int64
	// MaxPartBytes bounds the uncompressed size of one part.
	MaxPartBytes int64
	// MaxParts bounds the number of entries in the zip directory.
	MaxParts int
}

// Validate reports a negative bound.
func (c Config) Validate() error {
	if c.MaxTotalBytes < 0 || c.MaxPartBytes < 0 || c.MaxParts < 0 {
		return sanad.Errorf(sanad.CodeInvalidInput, "parse.office", "negative size bound in config")
	}
	return nil
}

func (c Config) withDefaults() Config {
	if c.MaxTotalBytes == 0 {
		c.MaxTotalBytes = DefaultMaxTotalBytes
	}
	if c.MaxPartBytes == 0 {
		c.MaxPartBytes = DefaultMaxPartBytes
	}
	if c.MaxParts == 0 {
		c.MaxParts = DefaultMaxParts
	}
	return c
}

// Parse reads a DOCX, PPTX or XLSX file, telling which from its contents,
// with the default bounds.
func Parse(ctx context.Context, data []byte) (*document.Document, error) {
	return Config{}.Parse(ctx, data)
}

// Parse reads a DOCX, PPTX or XLSX file within c's bounds. Errors are
// *sanad.Error: CodeParserUnsupported for an empty, truncated, corrupt,
// legacy binary or too large file, CodeParserEncrypted for a
// password-protected one, CodeTimeout or CodeCancelled when ctx ends.
func (c Config) Parse(ctx context.Context, data []byte) (doc *document.Document, err error) {
	const op = "parse.office"
	if err := c.Validate(); err != nil {
		return nil, err
	}
	c = c.withDefaults()
	if len(data) == 0 {
		return nil, sanad.Errorf(sanad.CodeParserUnsupported, op, "empty file")
	}
	if bytes.HasPrefix(data, oleMagic) {
		if oleEncrypted(data) {
			return nil, sanad.Errorf(sanad.CodeParserEncrypted, op, "the file is encrypted (password-protected Office document)")
		}
		return nil, sanad.Errorf(sanad.CodeParserUnsupported, op, "legacy binary Office format (.doc, .xls, .ppt) is not supported; save it as .docx, .xlsx or .pptx")
	}
	if !bytes.HasPrefix(data, []byte("PK")) {
		return nil, sanad.Errorf(sanad.CodeParserUnsupported, op, "not an Office Open XML file (no zip signature)")
	}
	p, err := openPackage(data, c, op)
	if err != nil {
		return nil, err
	}
	defer func() {
		// A bug in a reader must not take the caller down with it.
		if r := recover(); r != nil {
			doc, err = nil, sanad.Wrap(sanad.NewPanicError(r), sanad.CodeInternal, op, "the Office reader failed on this file")
		}
	}()
	main := p.mainPart()
	switch {
	case main == "":
		return nil, sanad.Errorf(sanad.CodeParserUnsupported, op, "not a DOCX, PPTX or XLSX package: no main document part")
	case hasSuffixFold(main, "document.xml") || contains(p.contentType(main), "wordprocessingml"):
		p.op = "parse.docx"
		doc, err = readDOCX(ctx, p, main)
	case hasSuffixFold(main, "presentation.xml") || contains(p.contentType(main), "presentationml"):
		p.op = "parse.pptx"
		doc, err = readPPTX(ctx, p, main)
	case hasSuffixFold(main, "workbook.xml") || contains(p.contentType(main), "spreadsheetml"):
		p.op = "parse.xlsx"
		doc, err = readXLSX(ctx, p, main)
	default:
		return nil, sanad.Errorf(sanad.CodeParserUnsupported, op, "unsupported Office package (main part %s)", main)
	}
	if err != nil {
		return nil, p.classify(ctx, err)
	}
	if doc.Pages == 0 {
		doc.Pages = 1
	}
	return doc, nil
}

// classify turns a reading error into a *sanad.Error.
func (p *pkg) classify(ctx context.Context, err error) error {
	var se *sanad.Error
	switch {
	case errors.As(err, &se):
		return err
	case errors.Is(err, errTooLarge):
		return sanad.Wrap(err, sanad.CodeParserUnsupported, p.op, fmt.Sprintf("too large: a part expands past %d bytes or the package past %d bytes", p.cfg.MaxPartBytes, p.cfg.MaxTotalBytes))
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded):
		return sanad.Wrap(err, sanad.CodeTimeout, p.op, "parsing took longer than allowed")
	case errors.Is(err, context.Canceled) || ctx.Err() != nil:
		return sanad.Wrap(err, sanad.CodeCancelled, p.op, "parsing was cancelled")
	case errors.Is(err, errMissingPart):
		return sanad.Wrap(err, sanad.CodeParserUnsupported, p.op, "a required part of the package is missing")
	}
	return sanad.Wrap(err, sanad.CodeParserUnsupported, p.op, "malformed Office file: "+err.Error())
}

// oleMagic starts a Compound File Binary (OLE) container: legacy .doc,
// .xls and .ppt, and encrypted OOXML.
var oleMagic = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}

// oleEncrypted reports whether an OLE container holds an EncryptionInfo
// stream, which is how an encrypted DOCX, XLSX or PPTX is stored. Stream
// names are UTF-16LE in the directory sectors.
func oleEncrypted(data []byte) bool {
	name := []byte("EncryptionInfo")
	utf16 := make([]byte, 0, 2*len(name))
	for _, b := range name {
		utf16 = append(utf16, b, 0)
	}
	return bytes.Contains(data, utf16)
}
