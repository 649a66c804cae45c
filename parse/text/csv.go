package text

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/sanadhq/sanad/document"
)

// maxCSVCells bounds the cells of the table a CSV file becomes.
const maxCSVCells = 4 << 20

// delimiters are the separators sniffed, in order of preference.
var delimiters = []rune{',', ';', '\t', '|'}

// sniffDelimiter finds the separator that splits the first lines into the
// same number of fields (at least two), the way a spreadsheet's import
// guesses it: quotes are respected, the most consistent count wins and
// ties go to the larger count.
func sniffDelimiter(s string) (rune, bool) {
	sample := lines(s)
	if len(sample) > 50 {
		sample = sample[:50]
	}
	var kept []string
	for _, l := range sample {
		if strings.TrimSpace(l) != "" {
			kept = append(kept, l)
		}
	}
	if len(kept) < 2 {
		return ',', false
	}
	best, bestScore, bestCount := ',', 0.0, 0
	for _, d := range delimiters {
		counts := map[int]int{}
		for _, l := range kept {
			counts[fieldCount(l, d)]++
		}
		mode, freq := 0, 0
		for c, f := range counts {
			if f > freq || (f == freq && c > mode) {
				mode, freq = c, f
			}
		}
		if mode < 2 {
			continue
		}
		score := float64(freq) / float64(len(kept))
		if score > bestScore || (score == bestScore && mode > bestCount) {
			best, bestScore, bestCount = d, score, mode
		}
	}
	return best, bestScore >= 0.8
}

// fieldCount counts the fields of one line, quotes respected.
func fieldCount(l string, d rune) int {
	n, inQuote := 1, false
	for _, r := range l {
		switch {
		case r == '"':
			inQuote = !inQuote
		case r == d && !inQuote:
			n++
		}
	}
	return n
}

// parseCSV reads delimited text into one table, its first row the header;
// short rows are padded.
func parseCSV(ctx context.Context, s string, maxRows int) (*document.Document, error) {
	d, _ := sniffDelimiter(s)
	r := csv.NewReader(strings.NewReader(s))
	r.Comma = d
	r.LazyQuotes = true
	r.FieldsPerRecord = -1
	var rows [][]string
	width, cells := 0, 0
	doc := &document.Document{Pages: 1, Metadata: map[string]any{"delimiter": string(d)}}
	for {
		if len(rows)&0x3ff == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, unsupported("malformed CSV at line %d: %v", pe.Line, pe.Err)
			}
			return nil, unsupported("malformed CSV: %v", err)
		}
		if len(rows) >= maxRows || cells+len(rec) > maxCSVCells {
			doc.Notes = append(doc.Notes, document.Note{Code: "truncated", Text: fmt.Sprintf("only the first %d rows were read", len(rows))})
			break
		}
		rows = append(rows, rec)
		cells += len(rec)
		width = max(width, len(rec))
	}
	if len(rows) == 0 {
		return nil, unsupported("no rows in CSV")
	}
	// Padding short rows must not blow up: a table stays within 4×the
	// cells read.
	if keep := 4 * maxCSVCells / width; len(rows) > keep {
		rows = rows[:keep]
		doc.Notes = append(doc.Notes, document.Note{Code: "truncated", Text: fmt.Sprintf("only the first %d rows were read", keep)})
	}
	t := &document.TableData{HeaderRows: 1, Rows: make([][]document.Cell, len(rows))}
	for i, rec := range rows {
		row := make([]document.Cell, width)
		for j, v := range rec {
			row[j].Text = strings.TrimSpace(v)
		}
		t.Rows[i] = row
	}
	doc.Blocks = []document.Block{{Kind: document.Table, Table: t}}
	return doc, nil
}
