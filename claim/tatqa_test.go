package claim

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/sanadhq/sanad/document"
)

const tatqaPath = "../../shared/testdata/finance/tatqa/tatqa_dataset_dev.json"

type tatqaItem struct {
	Table struct {
		UID   string     `json:"uid"`
		Table [][]string `json:"table"`
	} `json:"table"`
	Paragraphs []struct {
		Text string `json:"text"`
	} `json:"paragraphs"`
	Questions []struct {
		Answer     json.RawMessage `json:"answer"`
		AnswerType string          `json:"answer_type"`
		Scale      string          `json:"scale"`
	} `json:"questions"`
}

// tatqaDocument is a TAT-QA item as a parsed document: its table, then its
// paragraphs.
func tatqaDocument(it tatqaItem) *document.Document {
	t := &document.TableData{HeaderRows: 1}
	for _, row := range it.Table.Table {
		var cells []document.Cell
		for _, s := range row {
			cells = append(cells, document.Cell{Text: s})
		}
		t.Rows = append(t.Rows, cells)
	}
	doc := &document.Document{Format: "json", Pages: 1, Blocks: []document.Block{{Kind: document.Table, Table: t}}}
	for _, p := range it.Paragraphs {
		doc.Blocks = append(doc.Blocks, document.Block{Kind: document.Text, Text: p.Text})
	}
	return doc
}

// goldValue is the number a span answer states, scaled as the question
// says, with the rounding it was written with.
func goldValue(answer, scale string) (float64, float64, bool) {
	as := amounts(answer)
	if len(as) != 1 || as[0].scaled {
		return 0, 0, false
	}
	a := as[0]
	s := 1.0
	switch scale {
	case "thousand":
		s = 1e3
	case "million":
		s = 1e6
	case "billion":
		s = 1e9
	}
	return scaled(a.value, s), scaled(a.precision, s), true
}

// TestTATQASpanAnswersAmongClaimValues measures, over the TAT-QA dev set,
// how often the number a "span" question's gold answer states is the value
// of one of the claims read from the question's table and paragraphs: a
// proxy of recall. Claims are only read for the metrics of the vocabulary,
// which most TAT-QA rows (cost lines, tax items, share counts) are not.
func TestTATQASpanAnswersAmongClaimValues(t *testing.T) {
	data, err := os.ReadFile(tatqaPath)
	if err != nil {
		t.Fatalf("TAT-QA dev set: %v", err)
	}
	var items []tatqaItem
	if err := json.Unmarshal(data, &items); err != nil {
		t.Fatal(err)
	}
	var asked, hit, written, claims int
	for _, it := range items {
		cs := Extract(tatqaDocument(it), it.Table.UID, "dev")
		claims += len(cs)
		for _, q := range it.Questions {
			if q.AnswerType != "span" {
				continue
			}
			var ans []string
			if json.Unmarshal(q.Answer, &ans) != nil || len(ans) != 1 {
				continue
			}
			gold, prec, ok := goldValue(ans[0], q.Scale)
			if !ok {
				continue
			}
			asked++
			scaledHit, writtenHit := false, false
			for _, c := range cs {
				if near(c.Value.Value, gold, prec+precision(c.Value)) {
					scaledHit = true
				}
				for _, s := range []float64{1, 1e3, 1e6, 1e9} {
					if near(c.Value.Value/s, gold/goldScale(q.Scale), (prec+precision(c.Value))/goldScale(q.Scale)) {
						writtenHit = true
					}
				}
			}
			if scaledHit {
				hit++
			}
			if scaledHit || writtenHit {
				written++
			}
		}
	}
	r, w := float64(hit)/float64(asked), float64(written)/float64(asked)
	t.Logf("TAT-QA dev: %d items, %d claims; numeric span answers among claim values: %d/%d = %.3f with the scale, %d/%d = %.3f as written", len(items), claims, hit, asked, r, written, asked, w)
	if r < minTATQAScaled || w < minTATQAWritten {
		t.Errorf("recall proxy %.3f with the scale, %.3f as written: want at least %.2f and %.2f", r, w, minTATQAScaled, minTATQAWritten)
	}
}

// Measured: 42/368 = 0.114 with the scale, 116/368 = 0.315 as written.
// Most TAT-QA tables state their scale nowhere in the item, so their claims
// keep the number unscaled, and most rows are metrics outside [Metrics].
const (
	minTATQAScaled  = 0.11
	minTATQAWritten = 0.31
)

func near(a, b, tol float64) bool {
	return math.Abs(math.Abs(a)-math.Abs(b)) <= tol+1e-9*math.Abs(b)
}

func goldScale(scale string) float64 {
	switch scale {
	case "thousand":
		return 1e3
	case "million":
		return 1e6
	case "billion":
		return 1e9
	}
	return 1
}
