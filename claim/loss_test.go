package claim

import (
	"testing"
)

func TestALossIsANegativeProfit(t *testing.T) {
	text := "The company made an EBITDA loss of £380,000 (2023: loss of £1,210,000) and a loss for the year of £1,020,000. EBITDA was £2.1m in FY2024."
	doc := textDoc(para(text))
	got := map[float64]bool{}
	for _, c := range Extract(doc, "d", "v1") {
		if c.Value.Metric == "ebitda" || c.Value.Metric == "net_income" {
			got[c.Value.Value] = true
		}
	}
	for _, want := range []float64{-380000, -1210000, 2.1e6} {
		if !got[want] {
			t.Errorf("no profit figure %v among %v", want, got)
		}
	}
}

func TestPartOfYearColumns(t *testing.T) {
	for _, c := range []struct{ h, p, want string }{
		{"Q1", "FY2024", "Q1-2024"}, {"Second quarter", "FY2024", "Q2-2024"}, {"H2", "FY2025", "H2-2025"},
		{"March", "FY2024", "2024-03"}, {"Q1", "", ""}, {"Total", "FY2024", ""},
	} {
		if got := partOfYear(c.h, c.p); got != c.want {
			t.Errorf("partOfYear(%q, %q) = %q, want %q", c.h, c.p, got, c.want)
		}
	}
}
