package claim

import (
	"sort"
	"strings"
)

// Metric is a measure claims can state, with the unit its values take and
// the phrases documents name it by.
type Metric struct {
	Name  string
	Class Class
	Unit  string
	// Phrases name the metric, lower case. A phrase that implies a
	// qualifier ("adjusted ebitda") is in Qualified instead.
	Phrases []string
	// Qualified maps a phrase to the qualifier it adds.
	Qualified map[string]string
}

// Metrics is the vocabulary of [Extract].
var Metrics = []Metric{
	{Name: "revenue", Class: Financial, Unit: Currency, Phrases: []string{"revenue", "revenues", "turnover", "net turnover", "sales", "total sales", "net sales", "total revenue", "total revenues", "net revenue", "net revenues"}},
	{Name: "arr", Class: Financial, Unit: Currency, Phrases: []string{"arr", "annual recurring revenue", "annualised recurring revenue", "annualized recurring revenue"}},
	{Name: "mrr", Class: Financial, Unit: Currency, Phrases: []string{"mrr", "monthly recurring revenue"}},
	{Name: "gross_profit", Class: Financial, Unit: Currency, Phrases: []string{"gross profit"}},
	{Name: "gross_margin", Class: Financial, Unit: Percent, Phrases: []string{"gross margin", "gross profit margin"}},
	{Name: "ebitda", Class: Financial, Unit: Currency, Phrases: []string{"ebitda"},
		Qualified: map[string]string{"adjusted ebitda": "adjusted", "underlying ebitda": "adjusted"}},
	{Name: "ebitda_margin", Class: Financial, Unit: Percent, Phrases: []string{"ebitda margin"},
		Qualified: map[string]string{"adjusted ebitda margin": "adjusted"}},
	{Name: "operating_profit", Class: Financial, Unit: Currency, Phrases: []string{"operating profit", "operating income", "income from operations"}},
	{Name: "profit_before_tax", Class: Financial, Unit: Currency, Phrases: []string{"profit before tax", "income before income taxes", "pre-tax profit"}},
	{Name: "net_income", Class: Financial, Unit: Currency, Phrases: []string{"net income", "net profit", "profit for the year", "profit for the financial year", "profit after tax", "net earnings"}},
	{Name: "cash", Class: Financial, Unit: Currency, Phrases: []string{"cash", "cash and cash equivalents", "cash balance", "cash at bank"}},
	{Name: "monthly_burn", Class: Financial, Unit: Currency, Phrases: []string{"monthly burn", "burn rate", "cash burn", "net burn", "monthly cash burn"}},
	{Name: "runway_months", Class: Financial, Unit: Months, Phrases: []string{"runway", "cash runway"}},
	{Name: "bookings", Class: Financial, Unit: Currency, Phrases: []string{"bookings", "total bookings"}},
	// Net debt (after cash) is its own metric, not the debt drawn.
	{Name: "debt", Class: Financial, Unit: Currency, Phrases: []string{"debt", "borrowings", "total debt", "drawn"}},
	{Name: "net_debt", Class: Financial, Unit: Currency, Phrases: []string{"net debt"}},
	{Name: "capex", Class: Financial, Unit: Currency, Phrases: []string{"capital expenditure", "capex"}},
	// Named so that "cost of sales" is not read as sales.
	{Name: "cost_of_sales", Class: Financial, Unit: Currency, Phrases: []string{"cost of sales", "cost of revenue", "cost of revenues", "cost of goods sold", "cogs"}},
	{Name: "customers", Class: Operational, Unit: Count, Phrases: []string{"customers", "clients", "customer count", "number of customers", "paying customers"}},
	{Name: "churn_rate", Class: Operational, Unit: Percent, Phrases: []string{"churn", "churn rate", "customer churn", "logo churn", "revenue churn"}},
	{Name: "net_revenue_retention", Class: Operational, Unit: Percent, Phrases: []string{"net revenue retention", "net dollar retention", "net retention", "nrr", "ndr"}},
	{Name: "headcount", Class: Team, Unit: Count, Phrases: []string{"headcount", "employees", "staff", "people", "colleagues", "ftes", "fte", "full-time employees", "number of employees"}},
	{Name: "attrition_rate", Class: Team, Unit: Percent, Phrases: []string{"attrition", "employee attrition", "staff attrition", "staff turnover", "employee turnover"}},
	{Name: "valuation", Class: Market, Unit: Currency, Phrases: []string{"valuation", "enterprise value", "equity value", "pre-money valuation", "post-money valuation"}},
	{Name: "market_size", Class: Market, Unit: Currency, Phrases: []string{"market size", "total addressable market", "tam"}},
	{Name: "contract_value", Class: Legal, Unit: Currency, Phrases: []string{"contract value", "subscription fee", "annual fee", "total contract value"}},
}

// phrase is one entry of the phrase index.
type phrase struct {
	words     []string
	metric    *Metric
	qualifier string
}

// phraseIndex holds every phrase, longest first, so that "staff turnover"
// is read before "turnover" and "net revenue retention" before "revenue".
var phraseIndex = func() []phrase {
	var out []phrase
	for i := range Metrics {
		m := &Metrics[i]
		for _, p := range m.Phrases {
			out = append(out, phrase{strings.Fields(p), m, ""})
		}
		for p, q := range m.Qualified {
			out = append(out, phrase{strings.Fields(p), m, q})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if len(out[i].words) != len(out[j].words) {
			return len(out[i].words) > len(out[j].words)
		}
		return strings.Join(out[i].words, " ") < strings.Join(out[j].words, " ")
	})
	return out
}()

// MetricNamed returns the metric of the vocabulary with that name.
func MetricNamed(name string) (Metric, bool) {
	for _, m := range Metrics {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}
