package claim

import (
	"slices"
	"strings"
	"testing"

	"github.com/sanadhq/sanad/document"
)

func textDoc(blocks ...document.Block) *document.Document {
	return &document.Document{Format: "md", Pages: 1, Blocks: blocks}
}

func para(s string) document.Block { return document.Block{Kind: document.Text, Text: s} }

func find(cs []Claim, metric, period string) []Claim {
	var out []Claim
	for _, c := range cs {
		if c.Value.Metric == metric && c.Value.Period == period {
			out = append(out, c)
		}
	}
	return out
}

func TestExtractReadsFiguresWithScaleWordsAndSymbols(t *testing.T) {
	tests := []struct {
		text     string
		metric   string
		value    float64
		unit     string
		currency string
	}{
		{"In FY2024 ARR reached $4.2m.", "arr", 4.2e6, Currency, "USD"},
		{"Revenue for FY2024 was £48.2 million.", "revenue", 48.2e6, Currency, "GBP"},
		{"In FY2024 turnover was €1.1bn.", "revenue", 1.1e9, Currency, "EUR"},
		{"In FY2024 sales were 4,200 (in thousands).", "revenue", 4.2e6, Currency, ""},
		{"In FY2024 gross margin was 73.4%.", "gross_margin", 73.4, Percent, ""},
		{"In FY2024 EBITDA was £(1,234).", "ebitda", -1234, Currency, "GBP"},
		{"In FY2024 EBITDA was (£1.2m).", "ebitda", -1.2e6, Currency, "GBP"},
		{"In FY2024 EBITDA was $(2.45)m.", "ebitda", -2.45e6, Currency, "USD"},
		{"In FY2024 EBITDA was €(310)k.", "ebitda", -310e3, Currency, "EUR"},
		{"At 31 December 2024 the company employed 412 people.", "headcount", 412, Count, ""},
		{"We ended FY2024 with 1,140 customers.", "customers", 1140, Count, ""},
		{"In FY2024 annual recurring revenue was £12.0m.", "arr", 12e6, Currency, "GBP"},
		{"In FY2024 the company had 58 staff.", "headcount", 58, Count, ""},
		{"The cash runway at June 2025 was 18 months.", "runway_months", 18, Months, ""},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			cs := Extract(textDoc(para(tt.text)), "d", "v1")
			if len(cs) != 1 {
				t.Fatalf("got %d claims %+v, want 1", len(cs), cs)
			}
			v := cs[0].Value
			if v.Metric != tt.metric || v.Value != tt.value || v.Unit != tt.unit || v.Currency != tt.currency {
				t.Errorf("got %s %g %s %s, want %s %g %s %s", v.Metric, v.Value, v.Unit, v.Currency, tt.metric, tt.value, tt.unit, tt.currency)
			}
		})
	}
}

func TestExtractMapsSynonymsAndQualifiers(t *testing.T) {
	cs := Extract(textDoc(para("In FY2024 adjusted EBITDA was £9.1 million and the company had 412 employees.")), "d", "v1")
	if len(cs) != 2 {
		t.Fatalf("got %d claims, want 2: %+v", len(cs), cs)
	}
	if cs[0].Value.Metric != "ebitda" || !slices.Equal(cs[0].Value.Qualifiers, []string{"adjusted"}) {
		t.Errorf("got %s %v, want ebitda [adjusted]", cs[0].Value.Metric, cs[0].Value.Qualifiers)
	}
	if cs[1].Value.Metric != "headcount" || cs[1].Class != Team {
		t.Errorf("got %s %s, want headcount TEAM", cs[1].Value.Metric, cs[1].Class)
	}
}

func TestNormalizePeriodReadsEachForm(t *testing.T) {
	tests := map[string]string{
		"FY2024":                              "FY2024",
		"FY24":                                "FY2024",
		"2024":                                "FY2024",
		"for the year ended 31 December 2024": "FY2024",
		"Q3 2025":                             "Q3-2025",
		"June 2025":                           "2025-06",
		"last twelve months to June 2025":     "LTM-2025-06",
		"LTM June 2025":                       "LTM-2025-06",
		"Years Ended September 30, 2019":      "FY2019",
		"31 December 2024":                    "FY2024",
		"28 February 2025":                    "2025-02",
		"no period here":                      "",
	}
	for in, want := range tests {
		if got := NormalizePeriod(in); got != want {
			t.Errorf("NormalizePeriod(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestExtractGivesComparativeFiguresTheirOwnPeriod(t *testing.T) {
	cs := Extract(textDoc(para("Revenue for the year ended 31 December 2024 was £48.2 million (2023: £40.7 million), an increase of 18.4%.")), "d", "v1")
	if len(cs) != 2 {
		t.Fatalf("got %d claims, want 2: %+v", len(cs), cs)
	}
	if got := find(cs, "revenue", "FY2024"); len(got) != 1 || got[0].Value.Value != 48.2e6 {
		t.Errorf("FY2024: got %+v, want 48.2e6", got)
	}
	if got := find(cs, "revenue", "FY2023"); len(got) != 1 || got[0].Value.Value != 40.7e6 {
		t.Errorf("FY2023: got %+v, want 40.7e6", got)
	}
}

func TestExtractTakesThePeriodFromHeadingOrTitle(t *testing.T) {
	doc := textDoc(
		document.Block{Kind: document.Header, Level: 1, Text: "Annual report for the year ended 31 December 2024"},
		para("Revenue grew to £48.2 million."),
		document.Block{Kind: document.Header, Level: 2, Text: "Q3 2025 trading update"},
		para("Revenue was £13.1 million, up from £12.0 million a year earlier."),
	)
	cs := Extract(doc, "d", "v1")
	for _, want := range []struct {
		period string
		value  float64
	}{{"FY2024", 48.2e6}, {"Q3-2025", 13.1e6}, {"Q3-2024", 12e6}} {
		ok := false
		for _, c := range find(cs, "revenue", want.period) {
			ok = ok || c.Value.Value == want.value
		}
		if !ok {
			t.Errorf("no revenue %g in %s among %+v", want.value, want.period, cs)
		}
	}
}

func TestExtractReadsTableCellsWithRowAndColumnHeaders(t *testing.T) {
	tbl := &document.TableData{HeaderRows: 1, Rows: [][]document.Cell{
		{{Text: ""}, {Text: "2023"}, {Text: "2024"}},
		{{Text: "Revenue (£m)"}, {Text: "40.7"}, {Text: "48.2"}},
		{{Text: "Employees"}, {Text: "356"}, {Text: "412"}},
		{{Text: "Gross margin"}, {Text: "72.5%"}, {Text: "73.4%"}},
	}}
	doc := textDoc(document.Block{Kind: document.Table, Table: tbl, Page: 3})
	md, _ := doc.MarkdownSpans()
	cs := Extract(doc, "ar", "v1")
	if len(cs) != 6 {
		t.Fatalf("got %d claims, want 6: %+v", len(cs), cs)
	}
	r := find(cs, "revenue", "FY2024")
	if len(r) != 1 || r[0].Value.Value != 48.2e6 || r[0].Value.Currency != "GBP" {
		t.Fatalf("got %+v, want revenue 48.2m GBP FY2024", r)
	}
	c := r[0]
	if c.Span.Table == nil || c.Span.Table.Row != 1 || c.Span.Table.Col != 2 || c.Span.Table.RowHeader != "Revenue (£m)" || c.Span.Table.ColHeader != "2024" {
		t.Errorf("got cell %+v, want row 1 col 2 under Revenue (£m) and 2024", c.Span.Table)
	}
	if got := md[c.Span.Start:c.Span.End]; got != "48.2" || c.Span.Page != 3 {
		t.Errorf("got span %q on page %d, want 48.2 on page 3", got, c.Span.Page)
	}
	if r := find(cs, "revenue", "FY2023"); len(r) != 1 || r[0].Value.Value != 40.7e6 {
		t.Errorf("got %+v, want revenue 40.7m FY2023", r)
	}
	if h := find(cs, "headcount", "FY2024"); len(h) != 1 || h[0].Value.Value != 412 || h[0].Value.Unit != Count {
		t.Errorf("got %+v, want headcount 412", h)
	}
}

func TestExtractScalesAWholeTableByItsNote(t *testing.T) {
	for _, note := range []string{"All amounts are in £000.", "Figures in thousands of pounds."} {
		t.Run(note, func(t *testing.T) {
			tbl := &document.TableData{HeaderRows: 1, Rows: [][]document.Cell{
				{{Text: ""}, {Text: "FY2024"}},
				{{Text: "Revenue"}, {Text: "48,213"}},
			}}
			cs := Extract(textDoc(para(note), document.Block{Kind: document.Table, Table: tbl}), "d", "v1")
			if len(cs) != 1 || cs[0].Value.Value != 48_213_000 || cs[0].Value.Currency != "GBP" || cs[0].Value.Precision != 500 {
				t.Fatalf("got %+v, want revenue £48,213,000 ±500", cs)
			}
		})
	}
}

func TestExtractKeepsSegmentsApartFromTotals(t *testing.T) {
	tbl := &document.TableData{HeaderRows: 1, Rows: [][]document.Cell{
		{{Text: "Region"}, {Text: "Revenue (£m)"}},
		{{Text: "United Kingdom"}, {Text: "36.1"}},
		{{Text: "Total"}, {Text: "48.2"}},
	}}
	cs := Extract(textDoc(document.Block{Kind: document.Table, Table: tbl, Text: ""}), "d", "v1")
	if len(cs) != 2 {
		t.Fatalf("got %d claims, want 2", len(cs))
	}
	if !slices.Equal(cs[0].Value.Qualifiers, []string{"segment:United Kingdom"}) || len(cs[1].Value.Qualifiers) != 0 {
		t.Errorf("got qualifiers %v and %v, want the segment and none", cs[0].Value.Qualifiers, cs[1].Value.Qualifiers)
	}
}

func TestExtractIgnoresDatesYearsAndUncountedNumbers(t *testing.T) {
	cs := Extract(textDoc(para("The meeting on 18 March 2025 at 10:00 noted ISO 27001:2022 and 11 countries."), para("We have 1,140 customers in 11 countries.")), "d", "v1")
	if len(cs) != 1 || cs[0].Value.Metric != "customers" || cs[0].Value.Value != 1140 {
		t.Errorf("got %+v, want only customers 1,140", cs)
	}
}

func TestClaimIDsAreStableAndDependOnVersion(t *testing.T) {
	doc := textDoc(para("Revenue for FY2024 was £48.2 million."))
	a, b := Extract(doc, "d", "v1"), Extract(doc, "d", "v1")
	c := Extract(doc, "d", "v2")
	if a[0].ID != b[0].ID {
		t.Errorf("got ids %s and %s for the same version, want equal", a[0].ID, b[0].ID)
	}
	if a[0].ID == c[0].ID {
		t.Errorf("got id %s for two versions, want different", a[0].ID)
	}
	if len(a[0].ID) != 36 {
		t.Errorf("got id %q, want a UUID", a[0].ID)
	}
}

func TestExtractRecordsTheCitedSource(t *testing.T) {
	cs := Extract(textDoc(para("Per the unaudited management accounts, revenue for FY2024 was £49.6 million.")), "d", "v1")
	if len(cs) != 1 || cs[0].CitedSource != "unaudited" {
		t.Errorf("got %+v, want one claim citing unaudited", cs)
	}
}

func TestExtractOfNilDocumentIsEmpty(t *testing.T) {
	if cs := Extract(nil, "d", "v1"); cs != nil {
		t.Errorf("got %v, want nil", cs)
	}
}

func TestExtractReadsAMarginOfTheSentencesMetric(t *testing.T) {
	cs := Extract(textDoc(para("In FY2024 adjusted EBITDA was £8.9 million, a margin of 18.5%.")), "d", "v1")
	m := find(cs, "ebitda_margin", "FY2024")
	if len(m) != 1 || m[0].Value.Value != 18.5 || !slices.Equal(m[0].Value.Qualifiers, []string{"adjusted"}) {
		t.Errorf("got %+v, want adjusted ebitda_margin 18.5", cs)
	}
}

func TestExtractReadsPeriodScaleAndCurrencyOfSnakeCaseHeaders(t *testing.T) {
	tbl := &document.TableData{HeaderRows: 1, Rows: [][]document.Cell{
		{{Text: "client"}, {Text: "fy2023_sales_gbp_thousands"}},
		{{Text: "Alder Ltd"}, {Text: "412"}},
	}}
	cs := Extract(textDoc(document.Block{Kind: document.Table, Table: tbl}), "d", "v1")
	if len(cs) != 1 {
		t.Fatalf("got %d claims %+v, want 1", len(cs), cs)
	}
	if v := cs[0].Value; v.Period != "FY2023" || v.Value != 412_000 || v.Currency != "GBP" {
		t.Errorf("got %s %g %s, want FY2023 412000 GBP", v.Period, v.Value, v.Currency)
	}
}

func TestNormalizePeriodKeepsSeveralMonthsApartFromTheirLastMonth(t *testing.T) {
	tests := map[string]string{
		"three months to 30 September 2025":  "Q3-2025",
		"6 months ended June 30, 2025":       "H1-2025",
		"one month to 31 August 2025":        "2025-08",
		"seven months to 31 July 2025":       "",
		"four months ended 30 April 2025":    "",
		"year to date to 31 July 2025":       "",
		"YTD Jul 2025":                       "",
		"Jul 2025 YTD":                       "",
		"three months to 31 August 2025":     "",
		"Revenue for the year to date (YTD)": "",
	}
	for in, want := range tests {
		if got := NormalizePeriod(in); got != want {
			t.Errorf("NormalizePeriod(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestExtractGivesAYearToDateFigureNoSingleMonth(t *testing.T) {
	doc := textDoc(
		document.Block{Kind: document.Header, Level: 1, Text: "Trading update 2025"},
		para("Sales of £3.2m for the seven months to 31 July 2025."),
		para("Sales in July 2025 were £0.5m."),
		document.Block{Kind: document.Table, Table: &document.TableData{HeaderRows: 1, Rows: [][]document.Cell{
			{{Text: "£'000"}, {Text: "Jul 2025"}, {Text: "YTD Jul 2025"}},
			{{Text: "Sales"}, {Text: "500"}, {Text: "3,200"}},
		}}},
	)
	cs := Extract(doc, "d", "v1")
	if got := find(cs, "revenue", "2025-07"); len(got) != 2 || got[0].Value.Value != 0.5e6 || got[1].Value.Value != 0.5e6 {
		t.Errorf("got %+v for July 2025, want the month's £0.5m in the sentence and the table only", got)
	}
	if got := find(cs, "revenue", ""); len(got) != 2 {
		t.Errorf("got %+v without a period, want the two seven-month figures", got)
	}
}

func TestExtractMarksTheComponentsOfATotalAsParts(t *testing.T) {
	tests := []struct {
		text  string
		parts map[float64]bool // value to whether it is a part
	}{
		{"Borrowings were £9.0m at 30 April 2025 (term loan £7.0m, revolving credit £2.0m).", map[float64]bool{9e6: false, 7e6: true, 2e6: true}},
		{"Total debt of £9.0m at 30 April 2025, of which term loan borrowings £7.0m.", map[float64]bool{9e6: false, 7e6: true}},
		{"Borrowings were £9.0m at 30 April 2025, of which borrowings of £2.0m fall due within a year.", map[float64]bool{9e6: false, 2e6: true}},
		{"Term loan borrowings of £7.0m at 30 April 2025.", map[float64]bool{7e6: true}},
		{"A £5.0m revolving credit facility, of which £2.0m was drawn at 30 April 2025.", map[float64]bool{2e6: false}},
		{"Revenue was £5.0m in FY2024 (up from £4.1m in FY2023).", map[float64]bool{5e6: false, 4.1e6: false}},
		{"Net debt was £3.5m at 30 April 2025 (total debt £9.0m less cash £5.5m).", map[float64]bool{3.5e6: false}},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			got := map[float64]bool{}
			for _, c := range Extract(textDoc(para(tt.text)), "d", "v1") {
				if c.Value.Metric == "debt" || c.Value.Metric == "revenue" || c.Value.Metric == "net_debt" {
					got[c.Value.Value] = isPart(c.Value)
				}
			}
			for v, want := range tt.parts {
				if part, ok := got[v]; !ok || part != want {
					t.Errorf("%g: got part %v (found %v), want part %v; all %v", v, part, ok, want, got)
				}
			}
		})
	}
}

func TestExtractReadsAPercentageOfRevenueAfterAProfitAsItsMargin(t *testing.T) {
	cs := Extract(textDoc(para("In FY2024 operating profit was £1.8m, or 9.0% of sales (FY2023: 7.5%).")), "d", "v1")
	if m := find(cs, "operating_profit_margin", "FY2024"); len(m) != 0 {
		t.Fatalf("got %+v, want no operating_profit_margin: the vocabulary has none", m)
	}
	cs = Extract(textDoc(para("In FY2024 EBITDA was £1.8m, or 9.0% of sales (FY2023: 7.5%).")), "d", "v1")
	if m := find(cs, "ebitda_margin", "FY2024"); len(m) != 1 || m[0].Value.Value != 9.0 {
		t.Errorf("got %+v, want ebitda_margin 9.0 for FY2024", cs)
	}
	if m := find(cs, "ebitda_margin", "FY2023"); len(m) != 1 || m[0].Value.Value != 7.5 {
		t.Errorf("got %+v, want ebitda_margin 7.5 for FY2023", cs)
	}
	cs = Extract(textDoc(para("In FY2024 our largest customer was 9.0% of sales.")), "d", "v1")
	for _, c := range cs {
		if strings.HasSuffix(c.Value.Metric, "_margin") {
			t.Errorf("got %+v, want no margin without a profit", c)
		}
	}
}

func TestExtractReadsNetTurnoverAsRevenueItself(t *testing.T) {
	cs := Extract(textDoc(para("Net turnover for 2024 was £6,100,000.")), "d", "v1")
	if r := find(cs, "revenue", "FY2024"); len(r) != 1 || len(r[0].Value.Qualifiers) != 0 {
		t.Errorf("got %+v, want revenue with no qualifier", cs)
	}
}

func TestExtractReadsCurrencyCodesAndTheirThousandsPrefix(t *testing.T) {
	tests := []struct {
		text     string
		value    float64
		currency string
	}{
		{"In FY2024 revenue was A$14.6m.", 14.6e6, "AUD"},
		{"In FY2024 revenue was SEK 52.3m.", 52.3e6, "SEK"},
		{"In FY2024 revenue was TEUR 9,120.", 9_120_000, "EUR"},
		{"In FY2024 revenue was kSEK 9,120.", 9_120_000, "SEK"},
		{"In FY2024 revenue was MSEK 52.3.", 52.3e6, "SEK"},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			cs := find(Extract(textDoc(para(tt.text)), "d", "v1"), "revenue", "FY2024")
			if len(cs) != 1 || cs[0].Value.Value != tt.value || cs[0].Value.Currency != tt.currency {
				t.Fatalf("got %+v, want revenue %g %s", cs, tt.value, tt.currency)
			}
		})
	}
}

func TestExtractScalesATableByTheCurrencyCodeOfItsHeaders(t *testing.T) {
	for _, head := range []string{"TEUR", "SEK m", "net_sales_sek_000"} {
		t.Run(head, func(t *testing.T) {
			tbl := &document.TableData{HeaderRows: 1, Rows: [][]document.Cell{
				{{Text: head}, {Text: "FY2024"}},
				{{Text: "Revenue"}, {Text: "48"}},
			}}
			cs := Extract(textDoc(document.Block{Kind: document.Table, Table: tbl}), "d", "v1")
			want, _ := tableScale(head)
			if len(cs) != 1 || want < 1e3 || cs[0].Value.Value != 48*want {
				t.Fatalf("got %+v, want revenue 48 × %g", cs, want)
			}
		})
	}
}

func TestExtractMarksTheDeductedColumnOfABridgeAsLess(t *testing.T) {
	tbl := &document.TableData{HeaderRows: 1, Rows: [][]document.Cell{
		{{Text: "£000"}, {Text: "FY2024"}, {Text: "less H1 2024"}, {Text: "add H1 2025"}, {Text: "LTM Jun 2025"}},
		{{Text: "Revenue"}, {Text: "9,000"}, {Text: "(4,300)"}, {Text: "4,800"}, {Text: "9,500"}},
	}}
	cs := Extract(textDoc(document.Block{Kind: document.Table, Table: tbl}), "d", "v1")
	h1 := find(cs, "revenue", "H1-2024")
	if len(h1) != 1 || !slices.Contains(h1[0].Value.Qualifiers, "less") {
		t.Fatalf("got %+v, want one H1-2024 revenue marked less", h1)
	}
	for _, p := range []string{"FY2024", "H1-2025", "LTM-2025-06"} {
		for _, c := range find(cs, "revenue", p) {
			if slices.Contains(c.Value.Qualifiers, "less") {
				t.Errorf("got %s marked less, want only the deducted column", p)
			}
		}
	}
}

func TestExtractReadsQuartersAndHalvesWrittenInWords(t *testing.T) {
	tests := []struct {
		text, period string
	}{
		{"In the third quarter of 2024 revenue was £3.1m.", "Q3-2024"},
		{"In the September quarter 2024 revenue was £3.1m.", "Q3-2024"},
		{"In the first half of 2025 revenue was £6.4m.", "H1-2025"},
		{"Report for FY2025. In the second quarter revenue was £3.3m.", ""},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			var got []string
			for _, c := range Extract(textDoc(para(tt.text)), "d", "v1") {
				if c.Value.Metric == "revenue" {
					got = append(got, c.Value.Period)
				}
			}
			if len(got) != 1 || got[0] != tt.period {
				t.Fatalf("got periods %q, want [%q]", got, tt.period)
			}
		})
	}
}

func TestExtractReadsBracketedBorrowingsAsTheAmountOwed(t *testing.T) {
	tbl := &document.TableData{HeaderRows: 1, Rows: [][]document.Cell{
		{{Text: "€000"}, {Text: "FY2024"}},
		{{Text: "Bank borrowings"}, {Text: "(12,300)"}},
		{{Text: "Net debt"}, {Text: "(1,500)"}},
	}}
	cs := Extract(textDoc(document.Block{Kind: document.Table, Table: tbl}), "d", "v1")
	debt, net := find(cs, "debt", "FY2024"), find(cs, "net_debt", "FY2024")
	if len(debt) != 1 || debt[0].Value.Value != 12_300_000 {
		t.Errorf("got debt %+v, want 12,300,000", debt)
	}
	if len(net) != 1 || net[0].Value.Value != -1_500_000 {
		t.Errorf("got net debt %+v, want -1,500,000 (net cash)", net)
	}
}

func TestExtractMarksAveragesAndFiguresUnderABudgetLabel(t *testing.T) {
	tests := []struct {
		text, metric, qualifier string
	}{
		{"In FY2024 the group employed an average of 212 people.", "headcount", "average"},
		{"Plan for 2026 agreed by the board in March 2025: revenue of £31.0m.", "revenue", "budget"},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			var got []Claim
			for _, c := range Extract(textDoc(para(tt.text)), "d", "v1") {
				if c.Value.Metric == tt.metric {
					got = append(got, c)
				}
			}
			if len(got) != 1 || !slices.Contains(got[0].Value.Qualifiers, tt.qualifier) {
				t.Fatalf("got %+v, want one %s marked %s", got, tt.metric, tt.qualifier)
			}
		})
	}
}

func TestExtractDatesAPriorYearLabelAndNotItsClause(t *testing.T) {
	cs := Extract(textDoc(para("Revenue for FY2024 rose to EUR 7.3m (prior year: EUR 6.1m).")), "d", "v1")
	if got := find(cs, "revenue", "FY2024"); len(got) != 1 || got[0].Value.Value != 7.3e6 {
		t.Errorf("FY2024: got %+v, want 7.3e6", got)
	}
	if got := find(cs, "revenue", "FY2023"); len(got) != 1 || got[0].Value.Value != 6.1e6 {
		t.Errorf("FY2023: got %+v, want 6.1e6", got)
	}
}

func TestExtractDatesMidMonthMinutesByTheMonthClosedBeforeThem(t *testing.T) {
	doc := textDoc(
		document.Block{Kind: document.Header, Level: 1, Text: "Minutes of the board meeting of 14 March 2025"},
		para("Cash at 28 February was £1,204,000."),
		para("Net revenue retention reached 104% and cash at 31 December was £1,530,000."),
		para("ARR reached £3.2m."),
	)
	cs := Extract(doc, "d", "v1")
	if got := find(cs, "cash", "2025-02"); len(got) != 1 || got[0].Value.Value != 1_204_000 {
		t.Errorf("got cash for 2025-02 %+v, want 1,204,000", got)
	}
	if got := find(cs, "cash", "FY2024"); len(got) != 1 || got[0].Value.Value != 1_530_000 {
		t.Errorf("got cash for FY2024 %+v, want 1,530,000", got)
	}
	if got := find(cs, "arr", "2025-02"); len(got) != 1 {
		t.Errorf("got ARR for 2025-02 %+v, want the undated figure in the month closed", got)
	}
	if got := find(cs, "cash", "2025-03"); len(got) != 0 {
		t.Errorf("got cash for 2025-03 %+v, want none: the meeting is before the month's end", got)
	}
}

func TestExtractMarksTheBoundsOfARange(t *testing.T) {
	cs := find(Extract(textDoc(para("In FY2024 quarterly revenue was between £2.1 million and £2.6 million.")), "d", "v1"), "revenue", "FY2024")
	if len(cs) != 2 {
		t.Fatalf("got %+v, want two bounds", cs)
	}
	for _, c := range cs {
		if !slices.Contains(c.Value.Qualifiers, "range") {
			t.Errorf("got %g with qualifiers %q, want it marked range", c.Value.Value, c.Value.Qualifiers)
		}
	}
}

func TestExtractReadsTheStatutoryProfitLineAsNetIncome(t *testing.T) {
	tbl := &document.TableData{HeaderRows: 1, Rows: [][]document.Cell{
		{{Text: "£"}, {Text: "2024"}},
		{{Text: "Profit for the financial year"}, {Text: "812,000"}},
	}}
	cs := find(Extract(textDoc(document.Block{Kind: document.Table, Table: tbl}), "d", "v1"), "net_income", "FY2024")
	if len(cs) != 1 || cs[0].Value.Value != 812_000 {
		t.Fatalf("got %+v, want net income 812,000", cs)
	}
}

func TestExtractReadsALabelExplainedByAFormulaInBrackets(t *testing.T) {
	tbl := &document.TableData{HeaderRows: 1, Rows: [][]document.Cell{
		{{Text: "$"}, {Text: "Mar 2025"}},
		{{Text: "ARR (MRR x 12)"}, {Text: "1,406,400"}},
	}}
	cs := find(Extract(textDoc(document.Block{Kind: document.Table, Table: tbl}), "d", "v1"), "arr", "2025-03")
	if len(cs) != 1 || cs[0].Value.Value != 1_406_400 {
		t.Fatalf("got %+v, want ARR 1,406,400", cs)
	}
}
