// Package text reads plain-text formats into a [document.Document]: TXT
// (paragraphs split on blank lines), Markdown (a CommonMark-like block
// parser: headings, lists, pipe tables, code, embedded HTML), CSV (one
// table, its delimiter sniffed), JSON and JSONL (pretty-printed records),
// and WebVTT and SRT transcripts (one block per speaker turn, starting
// "[hh:mm:ss] Speaker: ").
//
// Input is UTF-8, UTF-16 with a byte-order mark, or, when it is not valid
// UTF-8, Windows-1252 (a superset of Latin-1).
//
// Parsing keeps no state between calls: Parse is safe for concurrent use.
package text

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/document"
	"github.com/sanadhq/sanad/parse/internal/textcheck"
)

// Format names a text format.
type Format string

// Formats. Auto tells the format from the content.
const (
	Auto     Format = ""
	TXT      Format = "txt"
	Markdown Format = "md"
	CSV      Format = "csv"
	JSON     Format = "json"
	JSONL    Format = "jsonl"
	VTT      Format = "vtt"
	SRT      Format = "srt"
)

// Default bounds of [Config].
const (
	DefaultMaxBytes   = 64 << 20
	DefaultMaxRecords = 100000 // JSONL records, JSON array elements, CSV rows
)

// Config configures parsing. The zero value sniffs the format and uses the
// default bounds.
type Config struct {
	Format Format
	// MaxBytes bounds the input; 0 means DefaultMaxBytes.
	MaxBytes int
	// MaxRecords bounds the records (JSONL lines, JSON array elements,
	// CSV rows) read; the rest are left out with a note. 0 means
	// DefaultMaxRecords.
	MaxRecords int
}

// Validate reports an unknown format or a negative bound.
func (c Config) Validate() error {
	switch c.Format {
	case Auto, TXT, Markdown, CSV, JSON, JSONL, VTT, SRT:
	default:
		return sanad.Errorf(sanad.CodeInvalidInput, "parse.text", "unknown text format %q", c.Format)
	}
	if c.MaxBytes < 0 || c.MaxRecords < 0 {
		return sanad.Errorf(sanad.CodeInvalidInput, "parse.text", "negative bound in config")
	}
	return nil
}

// Parse reads a text file, telling its format from its content.
func Parse(ctx context.Context, data []byte) (*document.Document, error) {
	return Config{}.Parse(ctx, data)
}

// Parse reads a text file in c.Format (sniffed when Auto). Errors are
// *sanad.Error: CodeParserUnsupported for empty, oversized, binary or
// malformed input (with the reason), CodeTimeout or CodeCancelled when ctx
// ends.
func (c Config) Parse(ctx context.Context, data []byte) (doc *document.Document, err error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	defer func() {
		// A bug in a reader must not take the caller down with it.
		if r := recover(); r != nil {
			doc, err = nil, sanad.Wrap(sanad.NewPanicError(r), sanad.CodeInternal, "parse.text", "the text reader failed on this file")
		}
	}()
	if c.MaxBytes == 0 {
		c.MaxBytes = DefaultMaxBytes
	}
	if c.MaxRecords == 0 {
		c.MaxRecords = DefaultMaxRecords
	}
	op := "parse." + string(c.Format)
	if c.Format == Auto {
		op = "parse.text"
	}
	if len(data) > c.MaxBytes {
		return nil, sanad.Errorf(sanad.CodeParserUnsupported, op, "too large: %d bytes, more than %d", len(data), c.MaxBytes)
	}
	s, enc := decode(data)
	if strings.TrimSpace(s) == "" {
		return nil, sanad.Errorf(sanad.CodeParserUnsupported, op, "empty file")
	}
	if textcheck.Binary(s) {
		return nil, sanad.Errorf(sanad.CodeParserUnsupported, op, "not text: the file holds binary data")
	}
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	f := c.Format
	if f == Auto {
		f = sniff(s)
		op = "parse." + string(f)
	}
	switch f {
	case TXT:
		doc, err = parseTXT(ctx, s)
	case Markdown:
		doc, err = parseMarkdown(ctx, s)
	case CSV:
		doc, err = parseCSV(ctx, s, c.MaxRecords)
	case JSON:
		doc, err = parseJSON(ctx, s, c.MaxRecords)
	case JSONL:
		doc, err = parseJSONL(ctx, s, c.MaxRecords)
	case VTT:
		doc, err = parseVTT(ctx, s)
	case SRT:
		doc, err = parseSRT(ctx, s)
	}
	if err != nil {
		var se *sanad.Error
		switch {
		case errors.As(err, &se):
			if se.Op == "" {
				se.Op = op
			}
			return nil, se
		case errors.Is(err, context.DeadlineExceeded):
			return nil, sanad.Wrap(err, sanad.CodeTimeout, op, "parsing took longer than allowed")
		case errors.Is(err, context.Canceled):
			return nil, sanad.Wrap(err, sanad.CodeCancelled, op, "parsing was cancelled")
		}
		return nil, sanad.Wrap(err, sanad.CodeParserUnsupported, op, err.Error())
	}
	doc.Format = string(f)
	if doc.Pages == 0 {
		doc.Pages = 1
	}
	if enc != "utf-8" {
		if doc.Metadata == nil {
			doc.Metadata = map[string]any{}
		}
		doc.Metadata["encoding"] = enc
	}
	return doc, nil
}

// unsupported is a refusal whose Op Parse fills in.
func unsupported(format string, args ...any) error {
	return sanad.Errorf(sanad.CodeParserUnsupported, "", format, args...)
}

// decode returns the text as UTF-8 and the encoding it was read in.
func decode(data []byte) (string, string) {
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		data = data[3:]
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		return utf16String(data[2:], false), "utf-16le"
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		return utf16String(data[2:], true), "utf-16be"
	}
	if utf8.Valid(data) {
		return string(data), "utf-8"
	}
	out, err := charmap.Windows1252.NewDecoder().Bytes(data)
	if err != nil {
		return strings.ToValidUTF8(string(data), "\uFFFD"), "utf-8"
	}
	return string(out), "windows-1252"
}

func utf16String(b []byte, bigEndian bool) string {
	u := make([]uint16, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		if bigEndian {
			u = append(u, uint16(b[i])<<8|uint16(b[i+1]))
		} else {
			u = append(u, uint16(b[i+1])<<8|uint16(b[i]))
		}
	}
	return string(utf16.Decode(u))
}

// sniff tells a format from content.
func sniff(s string) Format {
	t := strings.TrimLeftFunc(s, unicode.IsSpace)
	switch {
	case strings.HasPrefix(t, "WEBVTT"):
		return VTT
	case looksSRT(t):
		return SRT
	case strings.HasPrefix(t, "{") || strings.HasPrefix(t, "["):
		if validJSON(t) {
			return JSON
		}
		if looksJSONL(t) {
			return JSONL
		}
	}
	if _, ok := sniffDelimiter(s); ok {
		return CSV
	}
	if looksMarkdown(s) {
		return Markdown
	}
	return TXT
}

// lines splits text into lines, without the final empty one.
func lines(s string) []string {
	ls := strings.Split(s, "\n")
	if len(ls) > 0 && ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	return ls
}

// parseTXT reads paragraphs split on blank lines; a form feed starts a new
// page.
func parseTXT(ctx context.Context, s string) (*document.Document, error) {
	doc := &document.Document{Pages: 1}
	for i, page := range strings.Split(s, "\f") {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if i > 0 {
			doc.Pages++
		}
		var para []string
		flush := func() {
			if len(para) > 0 {
				b := document.Block{Kind: document.Text, Text: strings.Join(para, "\n")}
				if strings.Contains(s, "\f") {
					b.Page = doc.Pages
				}
				doc.Blocks = append(doc.Blocks, b)
				para = para[:0]
			}
		}
		for _, l := range lines(page) {
			if strings.TrimSpace(l) == "" {
				flush()
				continue
			}
			para = append(para, strings.TrimRightFunc(l, unicode.IsSpace))
		}
		flush()
	}
	return doc, nil
}
