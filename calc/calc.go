package calc

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/canon"
)

// CodeVersion is the version of this package's arithmetic, recorded in every
// [Result]. It changes whenever any formula's evaluation changes.
const CodeVersion = "1.0.0"

// Units of results that are not money.
const (
	UnitRatio  = "ratio"  // a fraction: 0.25 is 25%
	UnitMonths = "months" // a duration in months
	UnitCount  = "count"  // a number of things, such as customers
	UnitYears  = "years"  // a duration in years
)

// ErrNoSolution is wrapped by the error of [IRR] when no rate sets the net
// present value of the cash flows to zero.
var ErrNoSolution = errors.New("calc: no solution")

// Input is one value a calculation uses, taken from a claim. Name is the
// formula parameter it binds and is set by the formula. Grade is the claim's
// sanad grade, A (strongest) to D.
type Input struct {
	Name     string  `json:"name"`
	ClaimID  string  `json:"claim_id"`
	Value    float64 `json:"value"`
	Unit     string  `json:"unit,omitempty"`
	Currency string  `json:"currency,omitempty"`
	Period   string  `json:"period,omitempty"`
	Grade    string  `json:"grade"`
}

// Result is a calculation as lookup_calc returns it. Inputs are in the order
// of the formula's input names. Value is always finite. Roots, set only by
// [IRR], lists every rate found when there is more than one; Value is then
// the lowest and Notes says so.
type Result struct {
	CalcID      string    `json:"calc_id"`
	Name        string    `json:"calc_type"`
	Formula     string    `json:"formula"`
	FormulaHash string    `json:"formula_hash"`
	CodeVersion string    `json:"code_version"`
	Inputs      []Input   `json:"inputs"`
	Value       float64   `json:"value"`
	Unit        string    `json:"unit"`
	Currency    string    `json:"currency,omitempty"`
	Roots       []float64 `json:"roots,omitempty"`
	CalcSanad   string    `json:"calc_sanad"`
	Notes       []string  `json:"notes,omitempty"`
}

// Formula is the canonical definition of a calculation. An input name ending
// in "[]" stands for a series of inputs (cash flows), in order.
type Formula struct {
	Name       string   `json:"name"`
	Version    string   `json:"version"`
	Expression string   `json:"expression"`
	Inputs     []string `json:"inputs"`
}

// Hash returns "sha256:" and the hex SHA-256 of the RFC 8785 JSON of f.
func (f Formula) Hash() string {
	d, err := canon.Hash(f)
	if err != nil {
		// A struct of strings always encodes; reaching this is a bug.
		return ""
	}
	return d.String()
}

// The registered formulas. Changing an expression or its evaluation means a
// new Version.
var formulas = []Formula{
	{Name: "growth", Version: "1", Expression: "(current - previous) / previous", Inputs: []string{"previous", "current"}},
	{Name: "cagr", Version: "1", Expression: "(end / begin) ^ (1 / years) - 1", Inputs: []string{"begin", "end", "years"}},
	{Name: "gross_margin", Version: "1", Expression: "gross_profit / revenue", Inputs: []string{"gross_profit", "revenue"}},
	{Name: "ebitda_margin", Version: "1", Expression: "ebitda / revenue", Inputs: []string{"ebitda", "revenue"}},
	{Name: "net_margin", Version: "1", Expression: "net_income / revenue", Inputs: []string{"net_income", "revenue"}},
	{Name: "burn_multiple", Version: "1", Expression: "net_burn / net_new_arr", Inputs: []string{"net_burn", "net_new_arr"}},
	{Name: "runway", Version: "1", Expression: "cash / monthly_burn", Inputs: []string{"cash", "monthly_burn"}},
	{Name: "ltv", Version: "1", Expression: "arpa * gross_margin / churn", Inputs: []string{"arpa", "gross_margin", "churn"}},
	{Name: "cac", Version: "1", Expression: "sales_marketing / new_customers", Inputs: []string{"sales_marketing", "new_customers"}},
	{Name: "ltv_cac", Version: "1", Expression: "ltv / cac", Inputs: []string{"ltv", "cac"}},
	{Name: "payback_months", Version: "1", Expression: "cac / (arpa * gross_margin)", Inputs: []string{"cac", "arpa", "gross_margin"}},
	{Name: "npv", Version: "1", Expression: "sum(cash_flow[t] / (1 + rate) ^ t, t = 0 .. n-1)", Inputs: []string{"rate", "cash_flow[]"}},
	{Name: "irr", Version: "1", Expression: "rate such that sum(cash_flow[t] / (1 + rate) ^ t, t = 0 .. n-1) = 0, rate in (-0.999, 100]", Inputs: []string{"cash_flow[]"}},
}

// Formulas returns the registered formulas, sorted by name.
func Formulas() []Formula {
	out := make([]Formula, len(formulas))
	for i, f := range formulas {
		out[i] = f
		out[i].Inputs = slices.Clone(f.Inputs)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup returns the registered formula called name.
func Lookup(name string) (Formula, bool) {
	for _, f := range formulas {
		if f.Name == name {
			f.Inputs = slices.Clone(f.Inputs)
			return f, true
		}
	}
	return Formula{}, false
}

func mustFormula(name string) Formula {
	f, ok := Lookup(name)
	if !ok {
		panic("calc: formula " + name + " is not registered")
	}
	return f
}

var gradeRank = map[string]int{"D": 0, "C": 1, "B": 2, "A": 3}

// WeakestGrade returns the weakest of grades (D < C < B < A). It refuses an
// empty list and any grade outside A–D.
func WeakestGrade(grades ...string) (string, error) {
	const op = "calc.WeakestGrade"
	if len(grades) == 0 {
		return "", sanad.Errorf(sanad.CodeInvalidInput, op, "no grades")
	}
	weakest := ""
	for _, g := range grades {
		r, ok := gradeRank[g]
		if !ok {
			return "", sanad.Errorf(sanad.CodeInvalidInput, op, "grade %q is not one of A, B, C, D", g)
		}
		if weakest == "" || r < gradeRank[weakest] {
			weakest = g
		}
	}
	return weakest, nil
}

// bind names the inputs after the formula's parameters and checks each is
// finite and graded. A formula with a series parameter names its inputs
// "cash_flow[0]", "cash_flow[1]", ….
func bind(op string, f Formula, in []Input) ([]Input, error) {
	out := make([]Input, len(in))
	series := len(f.Inputs) > 0 && isSeries(f.Inputs[len(f.Inputs)-1])
	fixed := len(f.Inputs)
	if series {
		fixed--
	}
	if (!series && len(in) != fixed) || (series && len(in) < fixed) {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "%s takes %d inputs, got %d", f.Name, len(f.Inputs), len(in))
	}
	for i, x := range in {
		if i < fixed {
			x.Name = f.Inputs[i]
		} else {
			base := f.Inputs[len(f.Inputs)-1]
			x.Name = fmt.Sprintf("%s%d]", base[:len(base)-1], i-fixed)
		}
		if math.IsNaN(x.Value) || math.IsInf(x.Value, 0) {
			return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "input %s is not a finite number", x.Name)
		}
		if _, ok := gradeRank[x.Grade]; !ok {
			return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "input %s has grade %q, not one of A, B, C, D", x.Name, x.Grade)
		}
		out[i] = x
	}
	return out, nil
}

func isSeries(name string) bool { return len(name) > 2 && name[len(name)-2:] == "[]" }

// finish fills in the result's provenance: hash, code version, sanad and id.
// It refuses a value that is not finite.
func finish(op string, f Formula, in []Input, v float64, unit, currency string, notes []string) (*Result, error) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "%s of these inputs is not a finite number", f.Name)
	}
	if v == 0 {
		v = 0 // no negative zero in a result
	}
	grades := make([]string, len(in))
	for i, x := range in {
		grades[i] = x.Grade
	}
	weakest, err := WeakestGrade(grades...)
	if err != nil {
		return nil, err
	}
	r := &Result{
		Name:        f.Name,
		Formula:     f.Expression,
		FormulaHash: f.Hash(),
		CodeVersion: CodeVersion,
		Inputs:      in,
		Value:       v,
		Unit:        unit,
		Currency:    currency,
		CalcSanad:   weakest,
		Notes:       notes,
	}
	id, err := CalcID(r.FormulaHash, in)
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInternal, op, "calc id")
	}
	r.CalcID = id
	return r, nil
}

// CalcID returns the id of the calculation of the formula with formulaHash
// over in: a UUID (version 8, RFC 9562) made of the first bytes of the
// SHA-256 of the canonical JSON of the hash and the inputs. The code version
// is not part of it, so a calculation keeps its id across releases that do
// not change its formula.
func CalcID(formulaHash string, in []Input) (string, error) {
	d, err := canon.Hash(struct {
		FormulaHash string  `json:"formula_hash"`
		Inputs      []Input `json:"inputs"`
	}{formulaHash, in})
	if err != nil {
		return "", err
	}
	b := d[:16]
	b[6] = b[6]&0x0f | 0x80
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]), nil
}

// sameMoney refuses two inputs whose currency or unit differ.
func sameMoney(op string, a, b Input) error {
	if a.Currency != b.Currency {
		return sanad.Errorf(sanad.CodeInvalidInput, op, "%s is in %q but %s is in %q", a.Name, a.Currency, b.Name, b.Currency)
	}
	if a.Unit != b.Unit {
		return sanad.Errorf(sanad.CodeInvalidInput, op, "%s is in unit %q but %s is in unit %q", a.Name, a.Unit, b.Name, b.Unit)
	}
	return nil
}

// ratioInput refuses an input that should be a fraction but carries a
// currency or another unit.
func ratioInput(op string, x Input) error {
	if x.Currency != "" || (x.Unit != "" && x.Unit != UnitRatio) {
		return sanad.Errorf(sanad.CodeInvalidInput, op, "%s must be a ratio (unit %q, no currency), got unit %q currency %q", x.Name, UnitRatio, x.Unit, x.Currency)
	}
	return nil
}

func divide(op string, num, den Input) (float64, error) {
	if den.Value == 0 {
		return 0, sanad.Errorf(sanad.CodeInvalidInput, op, "%s is zero: division by zero", den.Name)
	}
	return num.Value / den.Value, nil
}
