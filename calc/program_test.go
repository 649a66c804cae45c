package calc_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/calc"
	"github.com/sanadhq/sanad/internal/sharedtest"
)

func TestProgramEvaluatesFinQAOperations(t *testing.T) {
	table := calc.Table{"net sales": {10, 20, 30}, "Cost (in millions)": {4, -2}}
	for _, tc := range []struct {
		src  string
		want float64
	}{
		{"subtract(206588, 181001), divide(#0, 181001)", (206588.0 - 181001) / 181001},
		{"60.94", 60.94},
		{"13.4%", 0.134},
		{"divide(932, 13.4%), divide(#0, const_1000)", 932 / 0.134 / 1000},
		{"multiply(const_m1, 5)", -5},
		{"exp(1.1, const_2)", 1.1 * 1.1},
		{"add(-3, 2)", -1},
		{"table_sum(net sales, none)", 60},
		{"table_average(NET SALES , none)", 20},
		{"table_max(cost (in millions), none)", 4},
		{"table_min(Cost (in millions), none), multiply(#0, const_100)", -200},
	} {
		p, err := calc.ParseProgram(tc.src)
		if err != nil {
			t.Errorf("%s: %v", tc.src, err)
			continue
		}
		v, err := p.Eval(table)
		if err != nil || v.IsBool || math.Abs(v.Num-tc.want) > 1e-9 {
			t.Errorf("%s: got %+v, %v, want %g", tc.src, v, err, tc.want)
		}
	}
	p, err := calc.ParseProgram("subtract(17.84, 4.11), subtract(60.15, 41.30), greater(#0, #1)")
	if err != nil {
		t.Fatal(err)
	}
	if v, err := p.Eval(nil); err != nil || !v.IsBool || v.Bool {
		t.Errorf("got %+v, %v, want no", v, err)
	}
}

func TestProgramRefusesBadPrograms(t *testing.T) {
	for _, src := range []string{
		"", "abc", "add(1)", "add(1, 2, 3)", "frobnicate(1, 2)", "add(1, #0)", "add(1, 2), add(#1, 2)",
		"add(1, 2),", "add(1, 2) add(3, 4)", "add(1, 2", "add(x, 2)", "add(1e5, 2)", "add(inf, 1)",
		"add(NaN, 1)", "const_1x", "add(const_, 1)", "add(#-1, 1)", "table_sum(, none)", "table_sum(a, b)",
		strings.Repeat("add(1, 2), ", calc.MaxSteps+1) + "add(1, 2)",
		strings.Repeat("1", calc.MaxTextBytes+1),
	} {
		if _, err := calc.ParseProgram(src); sanad.ErrorCode(err) != sanad.CodeInvalidInput {
			t.Errorf("%.60q: got %v, want INVALID_INPUT", src, err)
		}
	}
	for _, src := range []string{"divide(1, 0)", "exp(10, 400)", "greater(1, 2), add(#0, 1)", "table_sum(missing, none)"} {
		p, err := calc.ParseProgram(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if _, err := p.Eval(calc.Table{"x": {1}}); sanad.ErrorCode(err) != sanad.CodeInvalidInput {
			t.Errorf("%s: got %v, want INVALID_INPUT", src, err)
		}
	}
}

func TestExprParsesTATQADerivations(t *testing.T) {
	for _, tc := range []struct {
		src, scale string
		want       float64
	}{
		{"(206588-181001)/181001", "", (206588.0 - 181001) / 181001},
		{"(44.1-56.7)/56.7", "percent", (44.1 - 56.7) / 56.7 * 100},
		{"((49.3-43.2)/43.2) * 100", "percent", (49.3 - 43.2) / 43.2 * 100},
		{"[(4,411+4,044)/2] -[(4,044+3,316)/2]", "million", 547.5},
		{"$5,121 +$(-5,946) + $17,592 ", "thousand", 16767},
		{"(1-15%)*($2.2/15%) ", "billion", 0.85 * 2.2 / 0.15},
		{"60.3 million + 32,137 thousand ", "thousand", 92437},
		{"32.0 - 31.8", "percent", 0.2},
		{"(32.0% - 31.8% ) * 100", "percent", 0.2},
		{"(17-8)/8", "percent", 112.5},
		{"(1.06+0.91+4.04)/3", "percent", (1.06 + 0.91 + 4.04) / 3},
		{"-2 * -3", "", 6},
	} {
		e, err := calc.ParseExpr(tc.src)
		if err != nil {
			t.Errorf("%s: %v", tc.src, err)
			continue
		}
		v, err := e.ValueIn(tc.scale)
		if err != nil || math.Abs(v-tc.want) > 1e-9*math.Max(1, math.Abs(tc.want)) {
			t.Errorf("%s (%s): got %g, %v, want %g", tc.src, tc.scale, v, err, tc.want)
		}
	}
}

func TestExprRefusesWhatIsNotArithmetic(t *testing.T) {
	for _, src := range []string{"", "1 +", "(1", "1)", "2 apples", "1,2", "1..2", "1 % 2", "[1)",
		strings.Repeat("(", calc.MaxDepth+1) + "1" + strings.Repeat(")", calc.MaxDepth+1),
		strings.Repeat("-", 10000) + "1"} {
		if _, err := calc.ParseExpr(src); sanad.ErrorCode(err) != sanad.CodeInvalidInput {
			t.Errorf("%.60q: got %v, want INVALID_INPUT", src, err)
		}
	}
	e, err := calc.ParseExpr("1/(2-2)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Eval(); sanad.ErrorCode(err) != sanad.CodeInvalidInput {
		t.Errorf("got %v, want INVALID_INPUT for division by zero", err)
	}
}

// seedPrograms adds the ConvFinQA programs to f's corpus.
func seedPrograms(f *testing.F) {
	dir := sharedtest.Dir(f, "finance", "convfinqa")
	raw, err := os.ReadFile(filepath.Join(dir, "convfinqa_dev_421.json"))
	if err != nil {
		f.Fatal(err)
	}
	var d convFinQAFile
	if err := json.Unmarshal(raw, &d); err != nil {
		f.Fatal(err)
	}
	for _, c := range d.Dev {
		for _, p := range c.Dialogue.Programs {
			f.Add(p)
		}
	}
}

func FuzzParseProgram(f *testing.F) {
	seedPrograms(f)
	f.Add("table_sum(net sales (in millions), none), divide(#0, const_3)")
	f.Fuzz(func(t *testing.T, src string) {
		p, err := calc.ParseProgram(src)
		if err != nil {
			if sanad.ErrorCode(err) != sanad.CodeInvalidInput {
				t.Fatalf("got code %s, want INVALID_INPUT", sanad.ErrorCode(err))
			}
			return
		}
		if len(p.Steps) == 0 || len(p.Steps) > calc.MaxSteps {
			t.Fatalf("got %d steps", len(p.Steps))
		}
		v, err := p.Eval(calc.Table{"net sales (in millions)": {1, 2}})
		if err == nil && !v.IsBool && (math.IsNaN(v.Num) || math.IsInf(v.Num, 0)) {
			t.Fatalf("got %g from %q", v.Num, src)
		}
	})
}

func FuzzParseExpr(f *testing.F) {
	dir := sharedtest.Dir(f, "finance", "tatqa")
	for _, name := range []string{"tatqa_dataset_dev.json", "tatqa_dataset_test_gold.json"} {
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			f.Fatal(err)
		}
		var ctxs []tatqaContext
		if err := json.Unmarshal(raw, &ctxs); err != nil {
			f.Fatal(err)
		}
		for _, c := range ctxs {
			for _, q := range c.Questions {
				if q.Derivation != "" {
					f.Add(q.Derivation, q.Scale)
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, src, scale string) {
		e, err := calc.ParseExpr(src)
		if err != nil {
			if sanad.ErrorCode(err) != sanad.CodeInvalidInput {
				t.Fatalf("got code %s, want INVALID_INPUT", sanad.ErrorCode(err))
			}
			return
		}
		v, err := e.ValueIn(scale)
		if err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
			t.Fatalf("got %g from %q", v, src)
		}
	})
}
