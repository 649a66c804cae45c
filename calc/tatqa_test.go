package calc_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sanadhq/sanad/calc"
	"github.com/sanadhq/sanad/internal/sharedtest"
)

type tatqaContext struct {
	Questions []struct {
		UID        string          `json:"uid"`
		Answer     json.RawMessage `json:"answer"`
		Derivation string          `json:"derivation"`
		AnswerType string          `json:"answer_type"`
		Scale      string          `json:"scale"`
	} `json:"questions"`
}

// lonePar is a number alone in parentheses, which accounting tables use for
// a negative amount.
var lonePar = regexp.MustCompile(`\(\s*\$?\s*([0-9][0-9,.]*)\s*\)`)

// tatqaMissCategory names why a derivation's value v misses the gold answer.
func tatqaMissCategory(derivation, scale string, v, g float64, gold json.Number) string {
	if scale == "percent" {
		if ok, _ := goldMatch(v/100, gold); ok {
			return "gold under scale percent is the fraction, not multiplied by 100"
		}
	}
	if lonePar.MatchString(derivation) {
		neg := lonePar.ReplaceAllString(derivation, "(-$1)")
		if e, err := calc.ParseExpr(neg); err == nil {
			if w, err := e.ValueIn(scale); err == nil {
				if ok, _ := goldMatch(w, gold); ok {
					return "gold reads a number in parentheses as negative (accounting notation)"
				}
			}
		}
	}
	return missCategory(v, g)
}

func TestTATQAArithmeticDerivationsMatchAnswers(t *testing.T) {
	dir := sharedtest.Dir(t, "finance", "tatqa")
	for _, tc := range []struct {
		file                string
		exactFloor, printed float64
	}{
		{"tatqa_dataset_dev.json", tatqaDevExactFloor, tatqaDevFloor},
		{"tatqa_dataset_test_gold.json", tatqaTestExactFloor, tatqaTestFloor},
	} {
		t.Run(tc.file, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(dir, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			var ctxs []tatqaContext
			if err := json.Unmarshal(raw, &ctxs); err != nil {
				t.Fatal(err)
			}
			total, matched, exact := 0, 0, 0
			miss := misses{}
			for _, c := range ctxs {
				for _, q := range c.Questions {
					if q.AnswerType != "arithmetic" {
						continue
					}
					total++
					ex := fmt.Sprintf("%s: %q = %s %s", q.UID, q.Derivation, q.Answer, q.Scale)
					var gold json.Number
					if err := json.Unmarshal(q.Answer, &gold); err != nil {
						miss.add("gold answer is not a number", ex)
						continue
					}
					if strings.TrimSpace(q.Derivation) == "" {
						miss.add("no derivation", ex)
						continue
					}
					e, err := calc.ParseExpr(q.Derivation)
					if err != nil {
						miss.add("derivation is not arithmetic text", ex+": "+err.Error())
						continue
					}
					v, err := e.ValueIn(q.Scale)
					if err != nil {
						miss.add("derivation does not evaluate", ex+": "+err.Error())
						continue
					}
					ok, ex1 := goldMatch(v, gold)
					if ok {
						matched++
						if ex1 {
							exact++
						}
						continue
					}
					g, _ := gold.Float64()
					miss.add(tatqaMissCategory(q.Derivation, q.Scale, v, g, gold), fmt.Sprintf("%s (got %g)", ex, v))
				}
			}
			share := float64(matched) / float64(total)
			exactShare := float64(exact) / float64(total)
			t.Logf("TAT-QA %s: %d/%d arithmetic questions matched (%.2f%%); %d (%.2f%%) within relative 1e-4, %d more at the gold's printed precision",
				tc.file, matched, total, 100*share, exact, 100*exactShare, matched-exact)
			miss.log(t, "TAT-QA")
			if share < tc.printed {
				t.Errorf("matched share %.4f, want at least %.4f", share, tc.printed)
			}
			if exactShare < tc.exactFloor {
				t.Errorf("share within 1e-4 %.4f, want at least %.4f", exactShare, tc.exactFloor)
			}
		})
	}
}
