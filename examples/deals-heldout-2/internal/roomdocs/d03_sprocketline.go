package roomdocs

// sprocketline: the number of contractors using the app appears only in
// a local news article; no company document gives it. Cash of $2.94m at
// 30 June 2025 against a net burn of about $426,000 a month leaves about
// seven months of runway.
func sprocketline() map[string][]byte {
	const dir = "03-sprocketline/"
	return map[string][]byte{
		dir + "deck.pdf":                      sprocketlineDeck(),
		dir + "management-accounts.xlsx":      sprocketlineAccounts(),
		dir + "board-minutes-2025-06-12.docx": sprocketlineMinutes(),
	}
}

func sprocketlineDeck() []byte {
	return deck("Sprocketline, Inc.", "Series A", "20250702",
		slide{Title: "The problem", Points: []string{
			"Residential HVAC, plumbing and electrical contractors in the US still run dispatch from whiteboards, group texts and spreadsheets. A typical 8-truck shop loses two billable hours per technician per week to bad routing and missed parts.",
		}},
		slide{Title: "Sprocketline", Points: []string{
			"A mobile-first dispatch, quoting and invoicing app for trade contractors with 2 to 40 technicians, sold by monthly subscription per technician seat.",
			"Used by contractors in 31 states; integrates with QuickBooks, the two largest HVAC parts distributors and Stripe payments.",
			"38 employees in Austin, Texas.",
		}},
		slide{Title: "Traction", Table: [][]string{
			{"Unaudited management accounts, US$"},
			{"US$", "Mar 2025", "Jun 2025"},
			{"MRR", "$214.0k", "$232.4k"},
			{"ARR (MRR x 12)", "$2.57m", "$2.79m"},
			{"Gross margin", "78%", "78%"},
		}, Widths: []float64{227, 120, 120}, Note: "Revenue of $1.28m in H1 2025, with an EBITDA loss of $(2.55)m."},
		slide{Title: "Financial position", Points: []string{
			"Cash of $2.94m at 30 June 2025 (Lone Star Commerce Bank operating account).",
			"Average net burn of $426k a month in H1 2025, giving about 7 months of runway at the current rate.",
			"Seed round of $4.5m closed in September 2023; a $1.5m SAFE in July 2024.",
		}},
		slide{Title: "The raise", Points: []string{
			"Raising an $8m Series A to fund 18 months of growth: 12 account executives, a Phoenix office and a parts-ordering marketplace.",
		}},
	)
}

func sprocketlineAccounts() []byte {
	x := xlsx("Sprocketline monthly financials June 2025", "Dana Whitfield", "2025-07-07T15:00:00Z")
	x.Sheet("P&L", [][]any{
		{"US$", "Jan 2025", "Feb 2025", "Mar 2025", "Apr 2025", "May 2025", "Jun 2025", "H1 2025"},
		{"Subscription revenue", 198400, 204100, 211800, 216300, 222900, 229600, 1283100},
		{"Cost of revenue", -43600, -44900, -46600, -47600, -49000, -50500, -282200},
		{"Gross profit", 154800, 159200, 165200, 168700, 173900, 179100, 1000900},
		{"Gross margin", pct(0.78), pct(0.78), pct(0.78), pct(0.78), pct(0.78), pct(0.78), pct(0.78)},
		{"Research and development", -236400, -238100, -239500, -247800, -248200, -249900, -1459900},
		{"Sales and marketing", -221300, -238600, -233900, -241700, -231800, -239400, -1406700},
		{"General and administrative", -109400, -111400, -113400, -116400, -113700, -116300, -680600},
		{"EBITDA", -412300, -428900, -421600, -437200, -419800, -426500, -2546300},
		{"EBITDA margin", pct(-2.078), pct(-2.101), pct(-1.991), pct(-2.021), pct(-1.883), pct(-1.858), pct(-1.984)},
	})
	x.Sheet("Cash", [][]any{
		{"US$", "Jan 2025", "Feb 2025", "Mar 2025", "Apr 2025", "May 2025", "Jun 2025", "H1 2025"},
		{"Opening cash", 5495150, 5076950, 4645250, 4235350, 3794750, 3369450, 5495150},
		{"Net cash burn", -418200, -431700, -409900, -440600, -425300, -428100, -2553800},
		{"Closing cash", 5076950, 4645250, 4235350, 3794750, 3369450, 2941350, 2941350},
		{"Average monthly net burn, H1 2025", nil, nil, nil, nil, nil, nil, 425633},
		{"Runway at average H1 burn (months)", nil, nil, nil, nil, nil, nil, 6.9},
	})
	x.Sheet("SaaS metrics", [][]any{
		{"US$", "Jan 2025", "Feb 2025", "Mar 2025", "Apr 2025", "May 2025", "Jun 2025"},
		{"MRR at month end", 201500, 207200, 214000, 219100, 225800, 232400},
		{"ARR (MRR x 12)", 2418000, 2486400, 2568000, 2629200, 2709600, 2788800},
		{"Headcount at month end", 34, 35, 36, 37, 38, 38},
	})
	return x.Bytes()
}

func sprocketlineMinutes() []byte {
	d := docx("Sprocketline, Inc. board minutes 12 June 2025", "Dana Whitfield")
	d.Title("Sprocketline, Inc.: minutes of a meeting of the board of directors held by video conference on 12 June 2025")
	d.P("**Directors present:** Marcus Oyelaran (chief executive officer, chair), Priya Venkataraman (Pecan Street Capital), Tom Kessler (independent). **In attendance:** Dana Whitfield (head of finance).")
	d.H1("1. Financial update")
	d.P("Ms Whitfield presented the May financials. MRR reached $225,800 and cash at 31 May was $3,369,450. Net burn was $425,300 in May and has averaged about $426,000 a month this year. At that rate the company's cash lasts until about the end of January 2026.")
	d.P("Mr Kessler noted that a Series A typically takes four to six months from first meetings to money in the bank and that the company would therefore be raising with less than six months of cash by the time terms were agreed. He asked management to prepare a plan that would reduce net burn to about $300,000 a month from September if no term sheet had been signed by 31 August.")
	d.H1("2. Series A")
	d.P("Mr Oyelaran reported that the deck had been sent to eleven funds and that four had asked for the data room. Ms Venkataraman confirmed that Pecan Street Capital would take up its pro rata share of the round but could not lead it, and would not provide a bridge loan on its own.")
	d.H1("3. Resolutions")
	d.List(true,
		"The board approved the opening of the data room to the four funds.",
		"Management is to present a reduced-burn plan at the July meeting, including the hiring freeze and the deferral of the Phoenix office.",
		"The board approved the grant of 120,000 options to the new head of sales.",
	)
	d.P("There being no further business, the meeting closed at 11:40 Central Time.")
	return d.Bytes("2025-06-13T16:00:00Z")
}
