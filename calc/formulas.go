package calc

import (
	"math"

	"github.com/sanadhq/sanad"
)

// Growth returns the period-over-period growth (current - previous) /
// previous as a ratio. Both inputs must share currency and unit; a zero
// previous value is refused. A negative previous value is computed but
// noted, since the sign of such a growth is not meaningful.
func Growth(previous, current Input) (*Result, error) {
	const op = "calc.Growth"
	f := mustFormula("growth")
	in, err := bind(op, f, []Input{previous, current})
	if err != nil {
		return nil, err
	}
	if err := sameMoney(op, in[0], in[1]); err != nil {
		return nil, err
	}
	if in[0].Value == 0 {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "previous is zero: growth from zero is undefined")
	}
	v := (in[1].Value - in[0].Value) / in[0].Value
	var notes []string
	if in[0].Value < 0 {
		notes = append(notes, "previous is negative: the sign of the growth is not meaningful")
	}
	return finish(op, f, in, v, UnitRatio, "", notes)
}

// CAGR returns the compound annual growth rate (end / begin) ^ (1 / years) -
// 1 as a ratio. begin must be positive, end not negative and years (unit
// "years" or none) positive.
func CAGR(begin, end, years Input) (*Result, error) {
	const op = "calc.CAGR"
	f := mustFormula("cagr")
	in, err := bind(op, f, []Input{begin, end, years})
	if err != nil {
		return nil, err
	}
	if err := sameMoney(op, in[0], in[1]); err != nil {
		return nil, err
	}
	if in[2].Currency != "" || (in[2].Unit != "" && in[2].Unit != UnitYears) {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "years must be in unit %q, got %q", UnitYears, in[2].Unit)
	}
	switch {
	case in[0].Value <= 0:
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "begin must be positive, got %g", in[0].Value)
	case in[1].Value < 0:
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "end must not be negative, got %g", in[1].Value)
	case in[2].Value <= 0:
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "years must be positive, got %g", in[2].Value)
	}
	v := math.Pow(in[1].Value/in[0].Value, 1/in[2].Value) - 1
	return finish(op, f, in, v, UnitRatio, "", nil)
}

// GrossMargin returns gross profit / revenue as a ratio.
func GrossMargin(grossProfit, revenue Input) (*Result, error) {
	return margin("calc.GrossMargin", "gross_margin", grossProfit, revenue)
}

// EBITDAMargin returns EBITDA / revenue as a ratio.
func EBITDAMargin(ebitda, revenue Input) (*Result, error) {
	return margin("calc.EBITDAMargin", "ebitda_margin", ebitda, revenue)
}

// NetMargin returns net income / revenue as a ratio.
func NetMargin(netIncome, revenue Input) (*Result, error) {
	return margin("calc.NetMargin", "net_margin", netIncome, revenue)
}

// margin divides a profit line by revenue, which must be positive and in the
// same currency and unit.
func margin(op, name string, profit, revenue Input) (*Result, error) {
	f := mustFormula(name)
	in, err := bind(op, f, []Input{profit, revenue})
	if err != nil {
		return nil, err
	}
	if err := sameMoney(op, in[0], in[1]); err != nil {
		return nil, err
	}
	if in[1].Value < 0 {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "revenue is negative (%g)", in[1].Value)
	}
	v, err := divide(op, in[0], in[1])
	if err != nil {
		return nil, err
	}
	return finish(op, f, in, v, UnitRatio, "", nil)
}

// BurnMultiple returns net burn / net new ARR over the same period. Net burn
// must not be negative (a company that generates cash has no burn multiple)
// and net new ARR must be positive.
func BurnMultiple(netBurn, netNewARR Input) (*Result, error) {
	const op = "calc.BurnMultiple"
	f := mustFormula("burn_multiple")
	in, err := bind(op, f, []Input{netBurn, netNewARR})
	if err != nil {
		return nil, err
	}
	if err := sameMoney(op, in[0], in[1]); err != nil {
		return nil, err
	}
	if in[0].Value < 0 {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "net burn is negative (%g): the company is not burning cash", in[0].Value)
	}
	if in[1].Value < 0 {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "net new ARR is negative (%g): the burn multiple is undefined", in[1].Value)
	}
	v, err := divide(op, in[0], in[1])
	if err != nil {
		return nil, err
	}
	return finish(op, f, in, v, UnitRatio, "", nil)
}

// Runway returns the months of cash left, cash / monthly burn. Both must be
// in the same currency and unit; a negative cash or burn and a zero burn are
// refused.
func Runway(cash, monthlyBurn Input) (*Result, error) {
	const op = "calc.Runway"
	f := mustFormula("runway")
	in, err := bind(op, f, []Input{cash, monthlyBurn})
	if err != nil {
		return nil, err
	}
	if err := sameMoney(op, in[0], in[1]); err != nil {
		return nil, err
	}
	if in[0].Value < 0 {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "cash is negative (%g)", in[0].Value)
	}
	if in[1].Value < 0 {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "monthly burn is negative (%g): a company that gains cash has no runway", in[1].Value)
	}
	v, err := divide(op, in[0], in[1])
	if err != nil {
		return nil, err
	}
	return finish(op, f, in, v, UnitMonths, "", nil)
}

// LTV returns customer lifetime value: monthly revenue per account × gross
// margin / monthly churn, in the currency and unit of arpa. Gross margin and
// churn are ratios; churn must be positive.
func LTV(arpa, grossMargin, churn Input) (*Result, error) {
	const op = "calc.LTV"
	f := mustFormula("ltv")
	in, err := bind(op, f, []Input{arpa, grossMargin, churn})
	if err != nil {
		return nil, err
	}
	if err := ratioInput(op, in[1]); err != nil {
		return nil, err
	}
	if err := ratioInput(op, in[2]); err != nil {
		return nil, err
	}
	if in[2].Value < 0 {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "churn is negative (%g)", in[2].Value)
	}
	if in[2].Value == 0 {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "churn is zero: division by zero (lifetime is unbounded)")
	}
	v := in[0].Value * in[1].Value / in[2].Value
	return finish(op, f, in, v, in[0].Unit, in[0].Currency, nil)
}

// CAC returns customer acquisition cost: sales and marketing spend / new
// customers, in the spend's currency and unit. new customers (unit "count"
// or none) must be positive.
func CAC(salesMarketing, newCustomers Input) (*Result, error) {
	const op = "calc.CAC"
	f := mustFormula("cac")
	in, err := bind(op, f, []Input{salesMarketing, newCustomers})
	if err != nil {
		return nil, err
	}
	if in[1].Currency != "" || (in[1].Unit != "" && in[1].Unit != UnitCount) {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "new_customers must be a count, got unit %q currency %q", in[1].Unit, in[1].Currency)
	}
	if in[1].Value < 0 {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "new customers is negative (%g)", in[1].Value)
	}
	v, err := divide(op, in[0], in[1])
	if err != nil {
		return nil, err
	}
	return finish(op, f, in, v, in[0].Unit, in[0].Currency, nil)
}

// LTVToCAC returns LTV / CAC, which must share currency and unit.
func LTVToCAC(ltv, cac Input) (*Result, error) {
	const op = "calc.LTVToCAC"
	f := mustFormula("ltv_cac")
	in, err := bind(op, f, []Input{ltv, cac})
	if err != nil {
		return nil, err
	}
	if err := sameMoney(op, in[0], in[1]); err != nil {
		return nil, err
	}
	if in[1].Value < 0 {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "cac is negative (%g)", in[1].Value)
	}
	v, err := divide(op, in[0], in[1])
	if err != nil {
		return nil, err
	}
	return finish(op, f, in, v, UnitRatio, "", nil)
}

// PaybackMonths returns the months of gross profit that repay the cost of
// acquiring a customer: cac / (arpa × gross margin). cac and arpa (monthly)
// must share currency and unit; their gross profit must be positive.
func PaybackMonths(cac, arpa, grossMargin Input) (*Result, error) {
	const op = "calc.PaybackMonths"
	f := mustFormula("payback_months")
	in, err := bind(op, f, []Input{cac, arpa, grossMargin})
	if err != nil {
		return nil, err
	}
	if err := sameMoney(op, in[0], in[1]); err != nil {
		return nil, err
	}
	if err := ratioInput(op, in[2]); err != nil {
		return nil, err
	}
	if in[0].Value < 0 {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "cac is negative (%g)", in[0].Value)
	}
	gp := in[1].Value * in[2].Value
	if gp <= 0 {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "monthly gross profit per account is %g: the cost is never repaid", gp)
	}
	return finish(op, f, in, in[0].Value/gp, UnitMonths, "", nil)
}
