package calc_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"regexp"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/calc"
)

func usd(claim string, v float64, grade string) calc.Input {
	return calc.Input{ClaimID: claim, Value: v, Unit: "thousand", Currency: "USD", Period: "FY2024", Grade: grade}
}

func ratio(claim string, v float64, grade string) calc.Input {
	return calc.Input{ClaimID: claim, Value: v, Unit: calc.UnitRatio, Grade: grade}
}

func near(t *testing.T, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("got %.12g, want %.12g (±%g)", got, want, tol)
	}
}

func wantCode(t *testing.T, err error, code sanad.Code) {
	t.Helper()
	if got := sanad.ErrorCode(err); got != code {
		t.Errorf("got error %v (code %q), want code %q", err, got, code)
	}
}

var uuidV8 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestD06FormulaHashIsCanonicalAndStable(t *testing.T) {
	f, ok := calc.Lookup("growth")
	if !ok {
		t.Fatal("growth is not registered")
	}
	// The RFC 8785 JSON of the definition, written out by hand.
	const def = `{"expression":"(current - previous) / previous","inputs":["previous","current"],"name":"growth","version":"1"}`
	want := "sha256:" + sha256Hex(def)
	if got := f.Hash(); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	r, err := calc.Growth(usd("c1", 100, "A"), usd("c2", 120, "B"))
	if err != nil {
		t.Fatal(err)
	}
	if r.FormulaHash != want || r.CodeVersion != calc.CodeVersion || r.Formula != f.Expression {
		t.Errorf("got hash %s version %s formula %q, want %s %s %q", r.FormulaHash, r.CodeVersion, r.Formula, want, calc.CodeVersion, f.Expression)
	}
}

func TestD06EveryFormulaIsRegisteredWithADistinctHash(t *testing.T) {
	seen := map[string]string{}
	for _, f := range calc.Formulas() {
		h := f.Hash()
		if len(h) != len("sha256:")+64 {
			t.Errorf("%s: hash %q", f.Name, h)
		}
		if other, dup := seen[h]; dup {
			t.Errorf("%s and %s share hash %s", f.Name, other, h)
		}
		seen[h] = f.Name
	}
	for _, name := range []string{"growth", "cagr", "gross_margin", "ebitda_margin", "net_margin", "burn_multiple",
		"runway", "ltv", "cac", "ltv_cac", "payback_months", "npv", "irr"} {
		if _, ok := calc.Lookup(name); !ok {
			t.Errorf("%s is not registered", name)
		}
	}
}

func TestD06SameInputsGiveSameCalcID(t *testing.T) {
	a, err := calc.Runway(usd("cash", 1200, "A"), usd("burn", 100, "B"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := calc.Runway(usd("cash", 1200, "A"), usd("burn", 100, "B"))
	if err != nil {
		t.Fatal(err)
	}
	if a.CalcID != b.CalcID || !uuidV8.MatchString(a.CalcID) {
		t.Errorf("got ids %s and %s, want one UUIDv8", a.CalcID, b.CalcID)
	}
	// Another claim, value or grade, or the inputs swapped, is another calc.
	for name, in := range map[string][2]calc.Input{
		"claim":   {usd("cash2", 1200, "A"), usd("burn", 100, "B")},
		"value":   {usd("cash", 1201, "A"), usd("burn", 100, "B")},
		"grade":   {usd("cash", 1200, "C"), usd("burn", 100, "B")},
		"swapped": {usd("burn", 100, "B"), usd("cash", 1200, "A")},
	} {
		c, err := calc.Runway(in[0], in[1])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if c.CalcID == a.CalcID {
			t.Errorf("%s: got the same id %s, want another", name, c.CalcID)
		}
	}
}

func TestD06InputsKeepTheFormulasOrderAndNames(t *testing.T) {
	r, err := calc.LTV(usd("arpa", 2, "A"), ratio("gm", 0.8, "B"), ratio("churn", 0.02, "C"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, in := range r.Inputs {
		names = append(names, in.Name)
	}
	if got, want := names, []string{"arpa", "gross_margin", "churn"}; !equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	near(t, r.Value, 80, 1e-9)
	if r.Unit != "thousand" || r.Currency != "USD" {
		t.Errorf("got unit %q currency %q, want thousand USD", r.Unit, r.Currency)
	}
}

func TestD06CalcSanadIsTheWeakestGrade(t *testing.T) {
	for _, tc := range []struct {
		grades [3]string
		want   string
	}{
		{[3]string{"A", "A", "A"}, "A"},
		{[3]string{"A", "B", "A"}, "B"},
		{[3]string{"C", "A", "B"}, "C"},
		{[3]string{"B", "D", "A"}, "D"},
	} {
		r, err := calc.PaybackMonths(usd("cac", 12, tc.grades[0]), usd("arpa", 1, tc.grades[1]), ratio("gm", 0.75, tc.grades[2]))
		if err != nil {
			t.Fatal(err)
		}
		if r.CalcSanad != tc.want {
			t.Errorf("grades %v: got %s, want %s", tc.grades, r.CalcSanad, tc.want)
		}
		near(t, r.Value, 16, 1e-9)
	}
	_, err := calc.Growth(usd("a", 1, "A"), usd("b", 2, "E"))
	wantCode(t, err, sanad.CodeInvalidInput)
	_, err = calc.Growth(usd("a", 1, "A"), usd("b", 2, ""))
	wantCode(t, err, sanad.CodeInvalidInput)
}

func TestD06ResultJSONIsSnakeCase(t *testing.T) {
	r, err := calc.NetMargin(usd("ni", 10, "B"), usd("rev", 100, "A"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"calc_id", "calc_type", "formula", "formula_hash", "code_version", "inputs", "value", "unit", "calc_sanad"} {
		if _, ok := m[k]; !ok {
			t.Errorf("result JSON lacks %q: %s", k, b)
		}
	}
	in := m["inputs"].([]any)[0].(map[string]any)
	for _, k := range []string{"name", "claim_id", "value", "unit", "currency", "period", "grade"} {
		if _, ok := in[k]; !ok {
			t.Errorf("input JSON lacks %q: %s", k, b)
		}
	}
}

func TestD06Margins(t *testing.T) {
	for _, tc := range []struct {
		name string
		fn   func(a, b calc.Input) (*calc.Result, error)
		num  float64
		want float64
	}{
		{"gross", calc.GrossMargin, 620, 0.62},
		{"ebitda", calc.EBITDAMargin, -150, -0.15},
		{"net", calc.NetMargin, 85, 0.085},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := tc.fn(usd("p", tc.num, "A"), usd("rev", 1000, "A"))
			if err != nil {
				t.Fatal(err)
			}
			near(t, r.Value, tc.want, 1e-12)
			if r.Unit != calc.UnitRatio {
				t.Errorf("got unit %q, want %q", r.Unit, calc.UnitRatio)
			}
			_, err = tc.fn(usd("p", tc.num, "A"), usd("rev", 0, "A"))
			wantCode(t, err, sanad.CodeInvalidInput)
			eur := usd("rev", 1000, "A")
			eur.Currency = "EUR"
			_, err = tc.fn(usd("p", tc.num, "A"), eur)
			wantCode(t, err, sanad.CodeInvalidInput)
			millions := usd("rev", 1, "A")
			millions.Unit = "million"
			_, err = tc.fn(usd("p", tc.num, "A"), millions)
			wantCode(t, err, sanad.CodeInvalidInput)
		})
	}
}

func TestD06Runway(t *testing.T) {
	r, err := calc.Runway(usd("cash", 4500, "A"), usd("burn", 300, "B"))
	if err != nil {
		t.Fatal(err)
	}
	near(t, r.Value, 15, 1e-12)
	if r.Unit != calc.UnitMonths || r.CalcSanad != "B" {
		t.Errorf("got unit %q sanad %s, want months B", r.Unit, r.CalcSanad)
	}
	for name, in := range map[string][2]calc.Input{
		"zero burn":     {usd("cash", 4500, "A"), usd("burn", 0, "B")},
		"negative burn": {usd("cash", 4500, "A"), usd("burn", -10, "B")},
		"negative cash": {usd("cash", -1, "A"), usd("burn", 10, "B")},
		"NaN cash":      {usd("cash", math.NaN(), "A"), usd("burn", 10, "B")},
		"Inf burn":      {usd("cash", 1, "A"), usd("burn", math.Inf(1), "B")},
	} {
		_, err := calc.Runway(in[0], in[1])
		if sanad.ErrorCode(err) != sanad.CodeInvalidInput {
			t.Errorf("%s: got %v, want INVALID_INPUT", name, err)
		}
	}
}

func TestD06GrowthCAGRAndUnitEconomics(t *testing.T) {
	g, err := calc.Growth(usd("y1", 181001, "A"), usd("y2", 206588, "A"))
	if err != nil {
		t.Fatal(err)
	}
	near(t, g.Value, (206588.0-181001)/181001, 1e-15)

	years := calc.Input{ClaimID: "n", Value: 3, Unit: calc.UnitYears, Grade: "A"}
	c, err := calc.CAGR(usd("b", 100, "A"), usd("e", 133.1, "B"), years)
	if err != nil {
		t.Fatal(err)
	}
	near(t, c.Value, 0.1, 1e-12)
	_, err = calc.CAGR(usd("b", 0, "A"), usd("e", 133.1, "B"), years)
	wantCode(t, err, sanad.CodeInvalidInput)

	bm, err := calc.BurnMultiple(usd("burn", 3000, "A"), usd("arr", 2000, "A"))
	if err != nil {
		t.Fatal(err)
	}
	near(t, bm.Value, 1.5, 1e-12)
	_, err = calc.BurnMultiple(usd("burn", 3000, "A"), usd("arr", 0, "A"))
	wantCode(t, err, sanad.CodeInvalidInput)

	customers := calc.Input{ClaimID: "n", Value: 40, Unit: calc.UnitCount, Grade: "B"}
	cac, err := calc.CAC(usd("sm", 600, "A"), customers)
	if err != nil {
		t.Fatal(err)
	}
	near(t, cac.Value, 15, 1e-12)
	ratioRes, err := calc.LTVToCAC(usd("ltv", 45, "A"), usd("cac", 15, "B"))
	if err != nil {
		t.Fatal(err)
	}
	near(t, ratioRes.Value, 3, 1e-12)
	_, err = calc.LTV(usd("arpa", 2, "A"), ratio("gm", 0.8, "B"), ratio("churn", 0, "C"))
	wantCode(t, err, sanad.CodeInvalidInput)
	_, err = calc.LTV(usd("arpa", 2, "A"), usd("gm", 0.8, "B"), ratio("churn", 0.1, "C"))
	wantCode(t, err, sanad.CodeInvalidInput)
}

func TestD06NPV(t *testing.T) {
	r, err := calc.NPV(ratio("r", 0.1, "A"), usd("c0", -1000, "A"), usd("c1", 500, "B"), usd("c2", 500, "A"), usd("c3", 500, "C"))
	if err != nil {
		t.Fatal(err)
	}
	want := -1000 + 500/1.1 + 500/1.21 + 500/1.331
	near(t, r.Value, want, 1e-9)
	if r.CalcSanad != "C" || r.Inputs[0].Name != "rate" || r.Inputs[3].Name != "cash_flow[2]" {
		t.Errorf("got sanad %s, names %s %s, want C rate cash_flow[2]", r.CalcSanad, r.Inputs[0].Name, r.Inputs[3].Name)
	}
	_, err = calc.NPV(ratio("r", -1, "A"), usd("c0", -1000, "A"))
	wantCode(t, err, sanad.CodeInvalidInput)
	eur := usd("c1", 500, "A")
	eur.Currency = "EUR"
	_, err = calc.NPV(ratio("r", 0.1, "A"), usd("c0", -1000, "A"), eur)
	wantCode(t, err, sanad.CodeInvalidInput)
}

func flows(vs ...float64) []calc.Input {
	out := make([]calc.Input, len(vs))
	for i, v := range vs {
		out[i] = usd("cf", v, "A")
	}
	return out
}

func TestD06IRRClassicCashFlow(t *testing.T) {
	// -100, 60, 60: 60x² + 60x - 100 = 0 in x = 1/(1+r).
	x := (-60 + math.Sqrt(60*60+4*60*100)) / 120
	r, err := calc.IRR(flows(-100, 60, 60)...)
	if err != nil {
		t.Fatal(err)
	}
	near(t, r.Value, 1/x-1, 1e-10)
	// 1.2³ = 1.728: IRR 0.2 exactly.
	r, err = calc.IRR(flows(-1000, 0, 0, 1728)...)
	if err != nil {
		t.Fatal(err)
	}
	near(t, r.Value, 0.2, 1e-12)
	// numpy-financial's documented example: irr([-100, 39, 59, 55, 20]).
	cf := flows(-100, 39, 59, 55, 20)
	r, err = calc.IRR(cf...)
	if err != nil {
		t.Fatal(err)
	}
	near(t, r.Value, 0.28094842115996066, 1e-12)
	if len(r.Roots) != 0 || len(r.Notes) != 0 {
		t.Errorf("got roots %v notes %q for one sign change", r.Roots, r.Notes)
	}
	// And the NPV at the IRR is zero.
	n, err := calc.NPV(ratio("r", r.Value, "A"), cf...)
	if err != nil {
		t.Fatal(err)
	}
	near(t, n.Value, 0, 1e-9)
}

func TestD06IRRWithoutSignChangeHasNoSolution(t *testing.T) {
	for name, cf := range map[string][]float64{
		"all positive": {100, 50, 50},
		"all negative": {-100, -50},
		"zeros":        {0, 0, 0},
	} {
		r, err := calc.IRR(flows(cf...)...)
		if !errors.Is(err, calc.ErrNoSolution) || sanad.ErrorCode(err) != sanad.CodeInvalidInput || r != nil {
			t.Errorf("%s: got %v, %v, want ErrNoSolution as INVALID_INPUT", name, r, err)
		}
	}
	// A sign change whose root lies outside the searched range.
	_, err := calc.IRR(flows(-1, 1e6)...)
	if !errors.Is(err, calc.ErrNoSolution) {
		t.Errorf("got %v, want ErrNoSolution", err)
	}
}

func TestD06IRRWithTwoSignChangesReportsBothRoots(t *testing.T) {
	// -100 + 230x - 132x² = 0: x = 1/1.1 and x = 1/1.2, so IRR 10% and 20%.
	r, err := calc.IRR(flows(-100, 230, -132)...)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Roots) != 2 {
		t.Fatalf("got roots %v, want two", r.Roots)
	}
	near(t, r.Roots[0], 0.1, 1e-10)
	near(t, r.Roots[1], 0.2, 1e-10)
	near(t, r.Value, 0.1, 1e-10)
	if len(r.Notes) < 2 {
		t.Errorf("got notes %q, want the sign changes and the roots", r.Notes)
	}
}

func TestD06ResultsAreNeverNaNOrInf(t *testing.T) {
	huge := usd("h", math.MaxFloat64, "A")
	if r, err := calc.Growth(usd("p", 1e-300, "A"), huge); err == nil {
		t.Errorf("got %v, want an error for an infinite growth", r.Value)
	}
	if r, err := calc.NPV(ratio("r", -0.999999, "A"), flows(1, 1, 1, 1, 1, 1e300, 1e300, 1e300)...); err == nil {
		t.Errorf("got %v, want an error for an infinite NPV", r.Value)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
