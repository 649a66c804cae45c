package text

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sanadhq/sanad/document"
)

// maxRecordBytes bounds one pretty-printed record.
const maxRecordBytes = 1 << 20

func validJSON(s string) bool { return json.Valid([]byte(s)) }

// looksJSONL reports whether the first lines are each a JSON value.
func looksJSONL(s string) bool {
	n := 0
	for _, l := range lines(s) {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if !json.Valid([]byte(l)) {
			return false
		}
		if n++; n >= 20 {
			break
		}
	}
	return n > 0
}

// pretty indents a JSON value, bounded.
func pretty(raw []byte) string {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return string(raw)
	}
	if b.Len() > maxRecordBytes {
		return b.String()[:maxRecordBytes] + "\n…"
	}
	return b.String()
}

// parseJSON reads a JSON document: an array is one code block per element
// (bounded), anything else one block.
func parseJSON(ctx context.Context, s string, maxRecords int) (*document.Document, error) {
	data := []byte(strings.TrimSpace(s))
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		if se, ok := err.(*json.SyntaxError); ok {
			return nil, unsupported("invalid JSON at byte %d: %v", se.Offset, se)
		}
		return nil, unsupported("invalid JSON: %v", err)
	}
	doc := &document.Document{Pages: 1}
	if data[0] != '[' {
		doc.Blocks = []document.Block{{Kind: document.Code, Text: pretty(data)}}
		return doc, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // [
		return nil, unsupported("invalid JSON: %v", err)
	}
	for dec.More() {
		if len(doc.Blocks)&0xff == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if len(doc.Blocks) >= maxRecords {
			doc.Notes = append(doc.Notes, document.Note{Code: "truncated", Text: fmt.Sprintf("only the first %d elements were read", maxRecords)})
			break
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, unsupported("invalid JSON: %v", err)
		}
		doc.Blocks = append(doc.Blocks, document.Block{Kind: document.Code, Text: pretty(raw)})
	}
	doc.Metadata = map[string]any{"records": len(doc.Blocks)}
	return doc, nil
}

// parseJSONL reads one record per line. A line that is not JSON is left
// out with a note; a file with no valid line is refused.
func parseJSONL(ctx context.Context, s string, maxRecords int) (*document.Document, error) {
	doc := &document.Document{Pages: 1}
	var bad []int
	for i, l := range lines(s) {
		if i&0xff == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if len(doc.Blocks) >= maxRecords {
			doc.Notes = append(doc.Notes, document.Note{Code: "truncated", Text: fmt.Sprintf("only the first %d records were read", maxRecords)})
			break
		}
		if !json.Valid([]byte(l)) {
			bad = append(bad, i+1)
			continue
		}
		doc.Blocks = append(doc.Blocks, document.Block{Kind: document.Code, Text: pretty([]byte(l))})
	}
	if len(doc.Blocks) == 0 {
		return nil, unsupported("no valid JSON line (first bad line %d)", firstOr(bad, 1))
	}
	if len(bad) > 0 {
		doc.Notes = append(doc.Notes, document.Note{Code: "skipped", Text: fmt.Sprintf("%d lines are not valid JSON and were left out (first: line %d)", len(bad), bad[0])})
	}
	doc.Metadata = map[string]any{"records": len(doc.Blocks)}
	return doc, nil
}

func firstOr(xs []int, def int) int {
	if len(xs) > 0 {
		return xs[0]
	}
	return def
}
