// Package parse turns a file into a structured document and its chunks (seed
// 004's Parser agent: ParserInput in, ParserOutput out). It decides the
// format from the file's bytes, hands it to the reader of that format
// (parse/pdf, parse/office, parse/web, parse/text), bounds the time and
// memory each document may take, and splits the result with package chunk.
package parse

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/chunk"
	"github.com/sanadhq/sanad/document"
)

// Limits of one document.
const (
	// MaxFileBytes is the largest file Parse reads.
	MaxFileBytes = 512 << 20
	// DefaultTimeout bounds the parsing of one document.
	DefaultTimeout = 5 * time.Minute
)

// Options are how a file is parsed (seed 004 ParserInput, less the path).
type Options struct {
	// FileType names the format; empty means sniff it from the bytes.
	FileType string `json:"file_type,omitempty"`
	// IngestionSource is where the file came from: local, gdrive or
	// web_scrape. It is kept in the output's metadata.
	IngestionSource string `json:"ingestion_source,omitempty"`
	// ForceOCR reads every page of a PDF by OCR, text layer or not.
	ForceOCR bool `json:"force_ocr,omitempty"`
	// DocumentID names the document in the output and seeds its chunk ids;
	// empty means derive it from the content.
	DocumentID string `json:"document_id,omitempty"`
	// Chunking sizes the chunks.
	Chunking chunk.Options `json:"-"`
	// Timeout bounds the parse (DefaultTimeout when zero).
	Timeout time.Duration `json:"-"`
}

// Output is a parsed file (seed 004 ParserOutput), with the structured
// document its chunks were cut from.
type Output struct {
	DocumentID       string         `json:"document_id"`
	Metadata         map[string]any `json:"metadata"`
	Chunks           []chunk.Chunk  `json:"chunks"`
	TotalPages       int            `json:"total_pages"`
	ProcessingTimeMS float64        `json:"processing_time_ms"`
	// Markdown is the document as Markdown; each chunk's Start and End are
	// bytes of it.
	Markdown string `json:"markdown"`
	// Document is the structured form.
	Document *document.Document `json:"-"`
}

// reader parses data of one format.
type reader func(ctx context.Context, data []byte, opt Options) (*document.Document, error)

// File parses the file at path.
func File(ctx context.Context, path string, opt Options) (*Output, error) {
	const op = "parse.file"
	f, err := os.Open(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, sanad.Errorf(sanad.CodeNotFound, op, "no file %s", path)
		}
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, "cannot open "+path)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, "cannot read "+path)
	}
	if len(data) > MaxFileBytes {
		return nil, sanad.Errorf(sanad.CodeParserUnsupported, op, "%s is larger than %d MiB", path, MaxFileBytes>>20)
	}
	return Bytes(ctx, filepath.Base(path), data, opt)
}

// Bytes parses data, the content of a file named name (its extension helps
// tell text formats apart).
func Bytes(ctx context.Context, name string, data []byte, opt Options) (out *Output, err error) {
	const op = "parse"
	start := time.Now()
	format := opt.FileType
	if format == "" {
		var encrypted bool
		var reason string
		format, encrypted, reason = Sniff(name, data)
		switch {
		case encrypted:
			return nil, sanad.Errorf(sanad.CodeParserEncrypted, op, "%s: %s", name, reason)
		case format == "":
			return nil, sanad.Errorf(sanad.CodeParserUnsupported, op, "%s: %s", name, reason)
		}
	}
	read, ok := readers[format]
	if !ok {
		return nil, sanad.Errorf(sanad.CodeParserUnsupported, op, "%s: no reader for format %q (formats: %v)", name, format, Formats)
	}
	timeout := opt.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, sanad.Errorf(sanad.CodeInternal, op, "%s: the %s reader failed: %v\n%s", name, format, p, debug.Stack())
		}
	}()
	doc, err := read(ctx, data, opt)
	if err != nil {
		if ctx.Err() != nil && sanad.ErrorCode(err) != sanad.CodeParserEncrypted && sanad.ErrorCode(err) != sanad.CodeParserUnsupported {
			return nil, sanad.Wrap(err, sanad.CodeTimeout, op, fmt.Sprintf("%s: parsing took longer than %v", name, timeout))
		}
		return nil, err
	}
	sum := sha256.Sum256(data)
	checksum := "sha256:" + hex.EncodeToString(sum[:])
	id := opt.DocumentID
	if id == "" {
		id = "doc_" + hex.EncodeToString(sum[:16])
	}
	md, spans := doc.MarkdownSpans()
	meta := map[string]any{"format": doc.Format, "file_name": name, "checksum": checksum, "size_bytes": len(data)}
	for k, v := range doc.Metadata {
		meta[k] = v
	}
	if doc.Title != "" {
		meta["title"] = doc.Title
	}
	if opt.IngestionSource != "" {
		meta["ingestion_source"] = opt.IngestionSource
	}
	if len(doc.Notes) > 0 {
		meta["notes"] = doc.Notes
	}
	return &Output{
		DocumentID:       id,
		Metadata:         meta,
		Chunks:           chunk.Split(doc, md, spans, id+"@"+checksum, opt.Chunking),
		TotalPages:       max(doc.Pages, 1),
		ProcessingTimeMS: float64(time.Since(start).Microseconds()) / 1000,
		Markdown:         md,
		Document:         doc,
	}, nil
}
