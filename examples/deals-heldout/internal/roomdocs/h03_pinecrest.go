package roomdocs

// pinecrest: the management accounts are in thousands of dollars, the
// bank data in dollars and cents and the presentation in millions, and
// they agree; cash lasts about nine months at the current burn.
func pinecrest() map[string][]byte {
	const dir = "03-pinecrest-grid/"
	return map[string][]byte{
		dir + "deck.pdf":                      pinecrestDeck(),
		dir + "management-accounts.xlsx":      pinecrestAccounts(),
		dir + "board-minutes-2025-06-18.docx": pinecrestMinutes(),
	}
}

func pinecrestDeck() []byte {
	return deck("Pinecrest Grid, Inc.", "Series B presentation", "20250710",
		slide{Title: "Company", Points: []string{
			"Pinecrest makes distribution-transformer monitors and the analytics software that lets rural electric cooperatives and municipal utilities find overloaded transformers before they fail.",
			"Incorporated in Delaware, headquartered in Denver, Colorado; founded in 2019 by Maya Lindgren (CEO) and Carlos Ybarra (CTO). 61 employees.",
			"Monitors installed at 74 utilities in 11 states.",
		}},
		slide{Title: "Financials", Table: [][]string{
			{"Unaudited management figures, US$ millions"},
			{"$m", "FY2024", "H1 2025"},
			{"Revenue", "6.4", "4.2"},
			{"Gross margin", "35.0%", "36.3%"},
			{"EBITDA", "(5.9)", "(2.9)"},
		}, Widths: []float64{227, 120, 120}, Note: "FY2024 is the year ended December 31, 2024; the FY2024 audit by our auditors is in progress."},
		slide{Title: "Cash", Points: []string{
			"Cash of $4.1m at June 30, 2025.",
			"Average net burn of $0.45m a month over the first half of 2025.",
			"Runway of about 9 months at the current burn, to the end of March 2026.",
		}},
		slide{Title: "The raise", Points: []string{
			"Raising a $18m Series B to fund the hardware inventory for signed utility programs and to reach EBITDA breakeven in the second half of 2027.",
			"Existing investors Foothill Energy Ventures and Carbon Lane Capital intend to take up their pro rata share.",
		}},
	)
}

func pinecrestAccounts() []byte {
	x := xlsx("Pinecrest Grid, Inc. management accounts", "Dana Whitcomb", "2025-07-08T09:00:00Z")
	x.Sheet("P&L", [][]any{
		{"Income statement (US$ in thousands)", "Q1 2024", "Q2 2024", "Q3 2024", "Q4 2024", "FY2024", "Q1 2025", "Q2 2025", "H1 2025"},
		{"Revenue", 1302, 1487, 1654, 1941, 6384, 2016, 2188, 4204},
		{"Cost of revenue", 862, 968, 1071, 1249, 4150, 1290, 1389, 2679},
		{"Gross profit", 440, 519, 583, 692, 2234, 726, 799, 1525},
		{"Gross margin", pct(0.338), pct(0.349), pct(0.352), pct(0.357), pct(0.35), pct(0.36), pct(0.365), pct(0.363)},
		{"Operating expenses", 1938, 2004, 2061, 2143, 8146, 2198, 2254, 4452},
		{"EBITDA", -1498, -1485, -1478, -1451, -5912, -1472, -1455, -2927},
	})
	x.Sheet("Cash 2025", [][]any{
		{"US$ in thousands", "Jan 2025", "Feb 2025", "Mar 2025", "Apr 2025", "May 2025", "Jun 2025"},
		{"Opening cash", 6830, 6371, 5934, 5462, 5015, 4561},
		{"Net cash burn", -459, -437, -472, -447, -454, -443},
		{"Closing cash", 6371, 5934, 5462, 5015, 4561, 4118},
		{"Headcount", 57, 58, 58, 60, 61, 61},
	})
	x.Sheet("Runway", [][]any{
		{"Runway at June 30, 2025", "US$ in thousands"},
		{"Cash at June 30, 2025", 4118},
		{"Average monthly net burn, January to June 2025", 452},
		{"Months of runway", 9.1},
	})
	return x.Bytes()
}

func pinecrestMinutes() []byte {
	d := docx("Pinecrest Grid, Inc. Minutes of the Board of Directors, June 18, 2025", "Dana Whitcomb")
	d.Title("Pinecrest Grid, Inc. — Minutes of a Meeting of the Board of Directors")
	d.P("A regular meeting of the Board of Directors of Pinecrest Grid, Inc. was held by video conference on June 18, 2025 at 9:00 a.m. Mountain Time.")
	d.P("**Present:** Maya Lindgren (CEO), Carlos Ybarra (CTO), Howard Bell (Foothill Energy Ventures), Priya Raman (Carbon Lane Capital), Thomas Greer (independent). **Also present:** Dana Whitcomb (CFO), secretary to the meeting.")
	d.H1("1. Financial update")
	d.P("The CFO reported that cash at May 31, 2025 was $4.56 million and that net burn had held between $437,000 and $472,000 a month since January, an average of about $454,000. At that rate the company has cash to about the end of March 2026.")
	d.P("Revenue for the first quarter of 2025 was $2.02 million, with a gross margin of 36.0%. The CFO expects second-quarter revenue of about $2.2 million.")
	d.H1("2. Series B")
	d.P("The CEO reported that two firms have asked for data-room access and that she expects term sheets in August. Mr. Bell said that the company should not let cash fall below six months of burn before a round is signed.")
	d.P("After discussion, the Board RESOLVED that, if no term sheet for the Series B is signed by October 15, 2025, management shall present a plan to reduce monthly burn to below $300,000, and the existing investors will consider a bridge of up to $3 million in convertible notes.")
	d.H1("3. Hiring")
	d.P("The Board approved the CEO's proposal to pause hiring other than the two field engineers already offered, keeping headcount at 61.")
	d.P("There being no further business, the meeting was adjourned at 10:40 a.m.")
	return d.Bytes("2025-06-18T17:00:00Z")
}
