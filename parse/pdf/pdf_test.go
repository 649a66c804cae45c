package pdf

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"image"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/sanadhq/sanad/document"
	"github.com/sanadhq/sanad/internal/sharedtest"
	"github.com/sanadhq/sanad/internal/textsim"
	"golang.org/x/text/unicode/norm"
)

// doclingFloor is the mean similarity TestPDFMatchesDoclingGroundTruth
// must keep: the measured mean (0.938 on the 11 files with ground truth)
// minus a margin of 0.01.
const doclingFloor = 0.928

// tableCellFloor is the share of expected table cells TestPDFTableCells
// must recover: the measured share (0.938 of 2,057 cells) minus a margin of
// 0.02.
const tableCellFloor = 0.92

func parseFile(tb testing.TB, path string) *document.Document {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	doc, err := Parse(context.Background(), data, Options{Pool: testPool, OCR: noOCR})
	if err != nil {
		tb.Fatalf("Parse(%s): %v", filepath.Base(path), err)
	}
	return doc
}

// noOCR stands for an OCR engine that is not installed, so that the
// quality tests measure the text layer alone on every machine.
var noOCR OCR = absentOCR{}

type absentOCR struct{}

func (absentOCR) Available() error { return ErrOCRUnavailable }

func (absentOCR) Recognize(context.Context, image.Image) ([]OCRWord, error) {
	return nil, ErrOCRUnavailable
}

func TestPDFMatchesDoclingGroundTruth(t *testing.T) {
	dir := sharedtest.Dir(t, "docparse", "docling", "tests", "data", "pdf")
	files, err := filepath.Glob(filepath.Join(dir, "sources", "*.pdf"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no PDFs in %s: %v", dir, err)
	}
	sum, n := 0.0, 0
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".pdf")
		doc := parseFile(t, f)
		want, err := os.ReadFile(filepath.Join(dir, "groundtruth", name+".md"))
		if err != nil {
			// Docling's tests keep no Markdown for these (they test page
			// skipping); they must still parse.
			t.Logf("%-32s parsed, %d pages, %d blocks (no ground truth)", name, doc.Pages, len(doc.Blocks))
			continue
		}
		s := textsim.Similarity(doc.Markdown(), string(want))
		t.Logf("%-32s %.3f", name, s)
		sum += s
		n++
	}
	mean := sum / float64(n)
	t.Logf("mean similarity over %d files: %.3f", n, mean)
	if mean < doclingFloor {
		t.Errorf("mean similarity %.3f, want at least %.3f", mean, doclingFloor)
	}
}

// expectedTable is one table of tabula's expected output.
type expectedTable struct {
	page  int // 0 when not known
	cells [][]string
}

func loadExpected(tb testing.TB, dir, name string) []expectedTable {
	tb.Helper()
	if b, err := os.ReadFile(filepath.Join(dir, "json", name+".json")); err == nil {
		type cell struct {
			Text string `json:"text"`
		}
		type table struct {
			Page int      `json:"page_number"`
			Data [][]cell `json:"data"`
		}
		var ts []table
		if err := json.Unmarshal(b, &ts); err != nil {
			var one table
			if err := json.Unmarshal(b, &one); err != nil {
				tb.Fatalf("%s.json: %v", name, err)
			}
			ts = []table{one}
		}
		var out []expectedTable
		for _, t := range ts {
			e := expectedTable{page: t.Page}
			for _, r := range t.Data {
				var row []string
				for _, c := range r {
					row = append(row, c.Text)
				}
				e.cells = append(e.cells, row)
			}
			out = append(out, e)
		}
		return out
	}
	f, err := os.Open(filepath.Join(dir, "csv", name+".csv"))
	if err != nil {
		return nil
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	rows, err := r.ReadAll()
	if err != nil {
		tb.Fatalf("%s.csv: %v", name, err)
	}
	return []expectedTable{{cells: rows}}
}

// cellKey normalises a cell's text for comparison: case, width and
// spacing aside.
func cellKey(s string) string {
	s = norm.NFKC.String(strings.ToLower(s))
	var b strings.Builder
	for _, r := range s {
		if !unicode.IsSpace(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// matchCells counts the expected non-empty cells found at the same row and
// column of got, at the best row and column offset.
func matchCells(want, got [][]string) int {
	best := 0
	for dr := -len(got) + 1; dr < len(want); dr++ {
		for dc := -8; dc <= 8; dc++ {
			n := 0
			for r, row := range want {
				gr := r - dr
				if gr < 0 || gr >= len(got) {
					continue
				}
				for c, w := range row {
					gc := c - dc
					if w == "" || gc < 0 || gc >= len(got[gr]) {
						continue
					}
					if got[gr][gc] == w {
						n++
					}
				}
			}
			best = max(best, n)
		}
	}
	return best
}

func keyGrid(rows [][]string) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = make([]string, len(r))
		for j, c := range r {
			out[i][j] = cellKey(c)
		}
	}
	return out
}

func TestPDFTableCells(t *testing.T) {
	dir := sharedtest.Dir(t, "docparse", "tabula")
	files, err := filepath.Glob(filepath.Join(dir, "*.pdf"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no PDFs in %s: %v", dir, err)
	}
	totalWant, totalGot := 0, 0
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".pdf")
		expected := loadExpected(t, dir, name)
		if len(expected) == 0 {
			continue
		}
		doc := parseFile(t, f)
		want, got := 0, 0
		for _, e := range expected {
			ek := keyGrid(e.cells)
			for _, r := range ek {
				for _, c := range r {
					if c != "" {
						want++
					}
				}
			}
			best := 0
			for _, b := range doc.Blocks {
				if b.Kind != document.Table || e.page != 0 && b.Page != e.page {
					continue
				}
				best = max(best, matchCells(ek, keyGrid(b.Table.Grid())))
			}
			got += best
		}
		t.Logf("%-70s %4d/%4d cells %.3f", name, got, want, float64(got)/float64(max(want, 1)))
		totalWant += want
		totalGot += got
	}
	share := float64(totalGot) / float64(max(totalWant, 1))
	t.Logf("overall: %d/%d expected cells recovered: %.3f", totalGot, totalWant, share)
	if share < tableCellFloor {
		t.Errorf("recovered %.3f of expected cells, want at least %.3f", share, tableCellFloor)
	}
}
