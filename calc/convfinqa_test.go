package calc_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/sanadhq/sanad/calc"
	"github.com/sanadhq/sanad/internal/sharedtest"
)

// Shares of gold answers the engine matches; the tests fail below them.
// The printed-precision share counts a match within relative 1e-4 or after
// rounding to the gold's printed decimals; the exact share only the first.
const (
	convFinQAFloor      = 1490.0 / 1490
	convFinQAExactFloor = 1459.0 / 1490
	tatqaDevFloor       = 714.0 / 718
	tatqaDevExactFloor  = 583.0 / 718
	tatqaTestFloor      = 694.0 / 699
	tatqaTestExactFloor = 563.0 / 699
)

type convFinQAFile struct {
	Dev []struct {
		ID       string `json:"id"`
		Dialogue struct {
			Programs []string          `json:"turn_program"`
			Answers  []json.RawMessage `json:"executed_answers"`
		} `json:"dialogue"`
	} `json:"dev"`
}

// goldMatch reports whether got matches a gold number: within a relative
// 1e-4, or equal once got is rounded to the decimals gold is printed with
// (ConvFinQA prints executed answers to five decimals). Rounding to a gold
// printed without decimals is not a match here; exact says which rule held.
func goldMatch(got float64, gold json.Number) (match, exact bool) {
	g, err := gold.Float64()
	if err != nil {
		return false, false
	}
	if math.Abs(got-g) <= 1e-4*math.Abs(g) || got == g {
		return true, true
	}
	d := decimals(string(gold))
	if d == 0 {
		return false, false
	}
	p := math.Pow(10, float64(d))
	return math.Round(got*p)/p == g || math.Abs(math.Round(got*p)-g*p) < 0.5, false
}

// decimals returns how many digits follow the decimal point of a JSON number.
func decimals(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == 'e' || s[i] == 'E' {
			return 0
		}
		if s[i] == '.' {
			j := i + 1
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			return j - i - 1
		}
	}
	return 0
}

// missCategory names why got does not match gold: the sign alone, a power of
// a thousand or of a hundred, or a coarser rounding in the gold.
func missCategory(got, gold float64) string {
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-4*math.Max(math.Abs(a), math.Abs(b)) }
	switch {
	case near(-got, gold):
		return "sign differs"
	case near(got/100, gold) || near(got*100, gold):
		return "off by a factor of 100 (percent not applied or applied twice)"
	case near(got/1e3, gold) || near(got*1e3, gold) || near(got/1e6, gold) || near(got*1e6, gold):
		return "off by a power of 1,000 (scale)"
	case math.Abs(got-gold) <= 0.01*math.Abs(gold) || math.Abs(got-gold) < 0.5:
		return "gold rounded more coarsely than printed"
	}
	return "different value"
}

type misses map[string][]string

func (m misses) add(cat, example string) { m[cat] = append(m[cat], example) }

func (m misses) log(t *testing.T, name string) {
	t.Helper()
	cats := make([]string, 0, len(m))
	for c := range m {
		cats = append(cats, c)
	}
	sort.Strings(cats)
	for _, c := range cats {
		ex := m[c]
		t.Logf("%s miss: %s: %d", name, c, len(ex))
		for i, e := range ex {
			if i == 3 {
				break
			}
			t.Logf("    %s", e)
		}
	}
}

func TestConvFinQAProgramsMatchExecutedAnswers(t *testing.T) {
	dir := sharedtest.Dir(t, "finance", "convfinqa")
	raw, err := os.ReadFile(filepath.Join(dir, "convfinqa_dev_421.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f convFinQAFile
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	total, matched, exact := 0, 0, 0
	miss := misses{}
	for _, conv := range f.Dev {
		d := conv.Dialogue
		if len(d.Programs) != len(d.Answers) {
			t.Fatalf("%s: %d programs, %d answers", conv.ID, len(d.Programs), len(d.Answers))
		}
		for i, src := range d.Programs {
			total++
			ex := fmt.Sprintf("%s turn %d: %s = %s", conv.ID, i, src, d.Answers[i])
			p, err := calc.ParseProgram(src)
			if err != nil {
				miss.add("program does not parse", ex+": "+err.Error())
				continue
			}
			v, err := p.Eval(nil)
			if err != nil {
				miss.add("program does not evaluate", ex+": "+err.Error())
				continue
			}
			var gold any
			dec := json.NewDecoder(bytes.NewReader(d.Answers[i]))
			dec.UseNumber()
			if err := dec.Decode(&gold); err != nil {
				t.Fatalf("%s: %v", ex, err)
			}
			switch g := gold.(type) {
			case string:
				if v.IsBool && (g == "yes") == v.Bool && (g == "yes" || g == "no") {
					matched++
					exact++
				} else {
					miss.add("yes/no answer differs", ex)
				}
			case json.Number:
				if v.IsBool {
					miss.add("yes/no result for a numeric answer", ex)
					continue
				}
				ok, ex1 := goldMatch(v.Num, g)
				if ok {
					matched++
					if ex1 {
						exact++
					}
					continue
				}
				gf, _ := g.Float64()
				miss.add(missCategory(v.Num, gf), fmt.Sprintf("%s (got %g)", ex, v.Num))
			default:
				miss.add("answer is neither a number nor yes/no", ex)
			}
		}
	}
	share := float64(matched) / float64(total)
	t.Logf("ConvFinQA dev: %d/%d turns matched (%.2f%%); %d within relative 1e-4, %d only at the gold's printed precision",
		matched, total, 100*share, exact, matched-exact)
	miss.log(t, "ConvFinQA")
	if total != 1490 {
		t.Errorf("got %d turns, want 1490", total)
	}
	if share < convFinQAFloor {
		t.Errorf("matched share %.4f, want at least %.4f", share, convFinQAFloor)
	}
	if s := float64(exact) / float64(total); s < convFinQAExactFloor {
		t.Errorf("share within 1e-4 %.4f, want at least %.4f", s, convFinQAExactFloor)
	}
}
