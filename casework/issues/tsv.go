package issues

import (
	"encoding/csv"
	"errors"
	"io"
	"strings"

	"github.com/sanadhq/sanad"
)

// Example is one labelled text: whether it raises the area its file is for.
type Example struct {
	Text  string
	Label bool
}

// MaxRecordBytes bounds one row of a TSV file.
const MaxRecordBytes = 1 << 20

// ReadTSV reads labelled examples from tab-separated values with a header
// row naming a "text" column and a "label" (or "answer") column of Yes or
// No; other columns are ignored. Fields may be double-quoted, with "" for a
// quote. A missing column, a label other than Yes or No and a row over
// MaxRecordBytes are CodeInvalidInput.
func ReadTSV(r io.Reader) ([]Example, error) {
	const op = "issues.ReadTSV"
	cr := csv.NewReader(r)
	cr.Comma = '\t'
	cr.LazyQuotes = true
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	head, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "empty file: want a header row with text and label columns")
		}
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, "cannot read the header row")
	}
	textCol, labelCol := -1, -1
	for i, h := range head {
		switch strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))) {
		case "text":
			textCol = i
		case "label", "answer":
			labelCol = i
		}
	}
	if textCol < 0 || labelCol < 0 {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "header %q: want a text column and a label (or answer) column", strings.Join(head, "\t"))
	}
	var out []Example
	for row := 2; ; row++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, "malformed row")
		}
		if len(rec) <= textCol || len(rec) <= labelCol {
			return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "row %d has %d fields, want at least %d", row, len(rec), max(textCol, labelCol)+1)
		}
		n := 0
		for _, f := range rec {
			n += len(f)
		}
		if n > MaxRecordBytes {
			return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "row %d is over %d bytes", row, MaxRecordBytes)
		}
		var label bool
		switch strings.ToLower(strings.TrimSpace(rec[labelCol])) {
		case "yes":
			label = true
		case "no":
		default:
			return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "row %d: label %.40q is not Yes or No", row, rec[labelCol])
		}
		out = append(out, Example{Text: rec[textCol], Label: label})
	}
}
