package claim

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sanadhq/sanad/document"
)

// fuzzDocument makes a document of every kind of block from text: its
// paragraphs as text, headings and list items, and its lines that start
// with "|" as a table.
func fuzzDocument(text string) *document.Document {
	doc := &document.Document{Format: "md", Pages: 1, Title: firstLine(text)}
	var table *document.TableData
	for i, p := range strings.Split(text, "\n\n") {
		for _, line := range strings.Split(p, "\n") {
			if strings.HasPrefix(line, "|") {
				if table == nil {
					table = &document.TableData{HeaderRows: 1, Caption: firstLine(p)}
					doc.Blocks = append(doc.Blocks, document.Block{Kind: document.Table, Table: table, Page: 1})
				}
				var row []document.Cell
				for _, c := range strings.Split(strings.Trim(line, "|"), "|") {
					row = append(row, document.Cell{Text: c})
				}
				table.Rows = append(table.Rows, row)
				continue
			}
			table = nil
			kinds := []document.Kind{document.Text, document.Header, document.List, document.Code, document.Image}
			doc.Blocks = append(doc.Blocks, document.Block{Kind: kinds[i%len(kinds)], Text: line, Level: i % 3, Marker: "(a)", Page: 1})
		}
	}
	return doc
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

const fuzzSeedBytes = 1500

func FuzzExtract(f *testing.F) {
	// Excerpts of real documents: whole files make each run slow enough
	// under coverage instrumentation that the fuzzer hardly mutates.
	for _, name := range []string{"brightwater-msa.md", "cloudharbor-renewal-email.txt", "information-security-policy.md"} {
		if b, err := os.ReadFile(filepath.Join(corpusDir, name)); err == nil {
			for len(b) > 0 {
				n := min(len(b), fuzzSeedBytes)
				f.Add(string(b[:n]))
				b = b[n:]
			}
		}
	}
	if data, err := os.ReadFile(tatqaPath); err == nil {
		var items []tatqaItem
		if json.Unmarshal(data, &items) == nil {
			for _, it := range items[:min(len(items), 5)] {
				var b strings.Builder
				for _, row := range it.Table.Table {
					b.WriteString("|" + strings.Join(row, "|") + "|\n")
				}
				for _, p := range it.Paragraphs {
					b.WriteString("\n" + p.Text + "\n")
				}
				f.Add(b.String())
			}
		}
	}
	f.Add("| Measure | 2023 | 2024 |\n| Revenue (£m) | 40.7 | 48.2 |\n| Employees | 356 | 412 |")
	f.Add("Revenue for the year was £48.2 million (2023: £40.7 million), an increase of 18.4%.")
	f.Add("Figures in £000.\n\n| | FY2024 |\n| Revenue | (1,234) |")
	f.Add("EBITDA was £(1,234)m (FY23: ( ) £ 1e400 99999999999999999999999999 million")
	f.Fuzz(func(t *testing.T, text string) {
		doc := fuzzDocument(text)
		md, _ := doc.MarkdownSpans()
		for _, c := range Extract(doc, "d", "v1") {
			if c.Span.Start < 0 || c.Span.End > len(md) || c.Span.Start >= c.Span.End {
				t.Fatalf("span %d-%d outside %d bytes", c.Span.Start, c.Span.End, len(md))
			}
			if !strings.ContainsAny(md[c.Span.Start:c.Span.End], "0123456789") {
				t.Fatalf("span %q holds no digit", md[c.Span.Start:c.Span.End])
			}
			if math.IsNaN(c.Value.Value) || math.IsInf(c.Value.Value, 0) {
				t.Fatalf("value %g", c.Value.Value)
			}
			if _, ok := MetricNamed(c.Value.Metric); !ok || c.ID == "" {
				t.Fatalf("claim %+v has no known metric or id", c)
			}
		}
		InferSource(doc, "d")
		NormalizePeriod(text)
	})
}

func FuzzCompare(f *testing.F) {
	f.Add(48.2e6, 0.05e6, 48_213_000.0, 500.0, "currency", "percent")
	f.Add(12.4, 0.0, 11.9, 0.0, "percent", "percent")
	f.Add(math.Inf(1), 0.0, math.NaN(), -1.0, "", "")
	f.Fuzz(func(t *testing.T, a, pa, b, pb float64, ua, ub string) {
		x := Value{Value: a, Precision: pa, Unit: ua}
		y := Value{Value: b, Precision: pb, Unit: ub}
		s1, d1 := Compare(x, y)
		s2, d2 := Compare(y, x)
		if s1 != s2 || !(d1 == d2 || math.IsNaN(d1) && math.IsNaN(d2)) {
			t.Fatalf("Compare is not symmetric: %v %g and %v %g", s1, d1, s2, d2)
		}
		Chain([]Claim{{Value: x}, {Value: y, Span: Span{Document: "b"}}}, nil)
	})
}
