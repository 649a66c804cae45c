package diligence

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/sanadhq/sanad/claim"
	"github.com/sanadhq/sanad/playbook/debate"
)

// flows are the metrics of a period whose parts add up to the whole: a
// balance (cash, debt) or a count (headcount) at the end of each quarter
// does not.
var flows = []string{"revenue", "gross_profit", "ebitda", "operating_profit", "profit_before_tax", "net_income", "cost_of_sales", "capex", "bookings"}

var (
	// fiscalPartRE is a quarter or half named as one of a financial year:
	// "Q1 FY2024", "H2 FY24".
	fiscalPartRE = regexp.MustCompile(`(?i)\b(Q[1-4]|H[12])\s*-?\s*FY\s*'?((?:19|20)?\d{2})\b`)
	// offsetYearRE is a financial year said to end in a month other than
	// December, whose quarters are not the calendar's.
	offsetYearRE = regexp.MustCompile(`(?i)\b(?:year|FY|period)\s+(?:ended|ending|to)\s+(?:\d{1,2}(?:st|nd|rd|th)?\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov)[a-z]*\b`)
	numberRE     = regexp.MustCompile(`\d[\d,]*(?:\.\d+)?`)
)

// share is where a claim stands among the parts of a larger period: the
// index-th of count parts of whole.
type share struct {
	whole        string
	index, count int
}

// partOf is the larger period a claim's period is one part of: a quarter
// or half of its year, a month of its quarter. A document whose financial
// year ends in another month than December (offset) has only the quarters
// and halves it names as the year's ("Q1 FY2024"); the figure then counts
// towards that year whatever period it was read with.
func partOf(c claim.Claim, offset bool) (share, bool) {
	label := c.Text
	if t := c.Span.Table; t != nil {
		label = t.ColHeader + " " + t.RowHeader
	}
	if m := fiscalPartRE.FindStringSubmatch(label); m != nil {
		year := m[2]
		if len(year) == 2 {
			year = "20" + year
		}
		n, _ := strconv.Atoi(m[1][1:])
		count := 4
		if strings.EqualFold(m[1][:1], "H") {
			count = 2
		}
		return share{"FY" + year, n, count}, true
	}
	if offset {
		return share{}, false
	}
	p := c.Value.Period
	switch {
	case len(p) == 7 && (p[0] == 'Q' || p[0] == 'H') && p[2] == '-':
		n, _ := strconv.Atoi(p[1:2])
		count := 4
		if p[0] == 'H' {
			count = 2
		}
		return share{"FY" + p[3:], n, count}, true
	case len(p) == 7 && p[4] == '-':
		m, err := strconv.Atoi(p[5:])
		if err != nil || m < 1 || m > 12 {
			return share{}, false
		}
		return share{fmt.Sprintf("Q%d-%s", (m-1)/3+1, p[:4]), (m-1)%3 + 1, 3}, true
	}
	return share{}, false
}

// addable says whether a claim is a figure that may be one of the parts
// or the total of a sum: a flow in currency, not a component of something
// else, a deduction, a movement, an average, a range or a balance.
func addable(c claim.Claim) bool {
	if c.Value.Unit != claim.Currency || !slices.Contains(flows, c.Value.Metric) {
		return false
	}
	for _, q := range c.Value.Qualifiers {
		switch {
		case q == "part", strings.HasPrefix(q, "part:"), q == "less", q == "more", q == "net", q == "average", q == "range", q == "opening":
			return false
		}
	}
	return true
}

// block is where a claim stands in its document: the byte offset of the
// table (the run of non-blank lines) its cell is in, or -1 for a figure of
// the text.
func block(md string, c claim.Claim) int {
	if c.Span.Table == nil || c.Span.Start < 0 || c.Span.Start > len(md) {
		return -1
	}
	if i := strings.LastIndex(md[:c.Span.Start], "\n\n"); i >= 0 {
		return i + 2
	}
	return 0
}

// scaleOf is the power of ten a table cell's figure was multiplied by (1e6
// for a cell of 5.4 in a £m table), or 0 when it is not a cell.
func scaleOf(md string, c claim.Claim) float64 {
	if c.Span.Table == nil || c.Span.Start < 0 || c.Span.End > len(md) || c.Span.Start > c.Span.End {
		return 0
	}
	n, err := strconv.ParseFloat(strings.ReplaceAll(numberRE.FindString(md[c.Span.Start:c.Span.End]), ",", ""), 64)
	if err != nil || n == 0 {
		return 0
	}
	return math.Pow(10, math.Round(math.Log10(math.Abs(c.Value.Value/n))))
}

// sumGroup is the claims that can add up: one table (or a document's
// text), one metric, currency, scale and set of qualifiers.
type sumGroup struct {
	table            int
	metric, currency string
	scale            float64
	qualifiers       string
}

// sums is the contradiction finder's check that parts add up to their
// whole within a document: the four quarters (or two halves) of a year to
// the year, the three months of a quarter to the quarter, and the segments
// of a table to the total row of the same period. A sum is inconsistent
// when it differs from the total by more than the rounding of the figures
// (each figure's precision, as claim.Compare reads it, so k rounded parts
// may miss by k half-units). Nothing is checked when a part is missing,
// when the parts are components or deductions of something else, or in a
// customer list, whose rows need not be every customer.
func (a *analysis) sums() {
	for i := range a.deal.Docs {
		d := &a.deal.Docs[i]
		if d.Kind == "customer_list" {
			continue
		}
		offset := offsetYearRE.MatchString(d.Markdown)
		byPeriod := map[sumGroup][]claim.Claim{}
		bySegment := map[sumGroup][]claim.Claim{}
		var periodKeys, segmentKeys []sumGroup
		for _, c := range d.Claims {
			if !addable(c) {
				continue
			}
			k := sumGroup{table: block(d.Markdown, c), metric: c.Value.Metric, currency: c.Value.Currency, scale: scaleOf(d.Markdown, c)}
			var others []string
			for _, q := range c.Value.Qualifiers {
				if !strings.HasPrefix(q, "segment:") {
					others = append(others, q)
				}
			}
			slices.Sort(others)
			k.qualifiers = strings.Join(others, ",")
			if k.table >= 0 {
				if _, ok := bySegment[k]; !ok {
					segmentKeys = append(segmentKeys, k)
				}
				bySegment[k] = append(bySegment[k], c)
			}
			k.qualifiers = strings.Join(c.Value.Qualifiers, ",")
			if _, ok := byPeriod[k]; !ok {
				periodKeys = append(periodKeys, k)
			}
			byPeriod[k] = append(byPeriod[k], c)
		}
		raised := map[string]bool{}
		for _, k := range periodKeys {
			a.periodSums(d, byPeriod[k], offset, raised)
		}
		for _, k := range segmentKeys {
			a.segmentSums(d, bySegment[k], raised)
		}
	}
}

// periodSums checks the parts of each larger period the group states
// against the group's figure for that period.
func (a *analysis) periodSums(d *Document, cs []claim.Claim, offset bool, raised map[string]bool) {
	parts := map[share][]claim.Claim{}
	wholes := map[string]bool{}
	var order []string
	for _, c := range cs {
		if s, ok := partOf(c, offset); ok {
			parts[s] = append(parts[s], c)
			if !wholes[s.whole] {
				wholes[s.whole] = true
				order = append(order, s.whole)
			}
		}
	}
	for _, whole := range order {
		var totals []claim.Claim
		for _, c := range cs {
			if s, isPart := partOf(c, offset); c.Value.Period == whole && (!isPart || s.whole != whole) {
				totals = append(totals, c)
			}
		}
		total, ok := single(totals)
		if !ok {
			continue
		}
		for _, count := range []int{2, 3, 4} {
			var used []claim.Claim
			for n := 1; n <= count; n++ {
				p, ok := single(parts[share{whole, n, count}])
				if !ok {
					used = nil
					break
				}
				used = append(used, p)
			}
			if used != nil {
				a.checkSum(d, total, used, "periods", raised)
			}
		}
	}
}

// segmentSums checks the segments a table states for a period against
// the table's total row for that period, below them.
func (a *analysis) segmentSums(d *Document, cs []claim.Claim, raised map[string]bool) {
	var periods []string
	for _, c := range cs {
		if segmentOf(c) != "" && !slices.Contains(periods, c.Value.Period) {
			periods = append(periods, c.Value.Period)
		}
	}
	for _, period := range periods {
		var segs, totals []claim.Claim
		for _, c := range cs {
			switch {
			case c.Value.Period != period:
			case segmentOf(c) != "":
				segs = append(segs, c)
			case c.Span.Table != nil && strings.HasPrefix(strings.ToLower(strings.TrimSpace(c.Span.Table.RowHeader)), "total"):
				totals = append(totals, c)
			}
		}
		total, ok := single(totals)
		if !ok || len(segs) < 2 {
			continue
		}
		names := map[string]bool{}
		below := true
		for _, s := range segs {
			names[segmentOf(s)] = true
			below = below && s.Span.Table.Row < total.Span.Table.Row
		}
		if len(names) != len(segs) || !below {
			continue
		}
		a.checkSum(d, total, segs, "segments", raised)
	}
}

// single is the one figure claims state: their first when they all state
// the same amount, none when they differ or there are none.
func single(cs []claim.Claim) (claim.Claim, bool) {
	if len(cs) == 0 {
		return claim.Claim{}, false
	}
	for _, c := range cs[1:] {
		if same, _ := claim.Compare(c.Value, cs[0].Value); !same || c.Value.Value != cs[0].Value.Value {
			return claim.Claim{}, false
		}
	}
	return cs[0], true
}

// checkSum raises INCONSISTENT_ARITHMETIC on the total when the parts do
// not add up to it within their rounding, once per metric and period of a
// document.
func (a *analysis) checkSum(d *Document, total claim.Claim, parts []claim.Claim, what string, raised map[string]bool) {
	sum := claim.Value{Metric: total.Value.Metric, Unit: total.Value.Unit, Currency: total.Value.Currency, Period: total.Value.Period}
	var figures []string
	for _, p := range parts {
		sum.Value += p.Value.Value
		sum.Precision += prec(p.Value)
		figures = append(figures, figure(p.Value))
	}
	if same, _ := claim.Compare(sum, total.Value); same {
		return
	}
	key := total.Value.Metric + " " + total.Value.Period
	if raised[key] {
		return
	}
	raised[key] = true
	ids := []string{total.ID}
	for _, p := range parts {
		ids = append(ids, p.ID)
	}
	a.f.Defects = append(a.f.Defects, Item{
		Kind: KindDefect, Type: TypeInconsistentArithmetic, Metric: total.Value.Metric, Period: total.Value.Period,
		Documents: []string{d.File}, Claims: ids, Severity: debate.SeverityMajor,
		Text: fmt.Sprintf("%s states %s %s of %s, but its %s add up to %s (%s)", d.File, total.Value.Metric, total.Value.Period,
			figure(total.Value), what, strconv.FormatFloat(sum.Value, 'f', -1, 64), strings.Join(figures, " + ")),
	})
}
