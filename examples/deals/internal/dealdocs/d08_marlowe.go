package dealdocs

// marlowe: the deck's EBITDA adds back payments to the chief executive's
// own property company, which the minutes show the board disputing; the
// same company has lent to Marlowe.
func marlowe() map[string][]byte {
	const dir = "08-marlowe-kitchens/"
	return map[string][]byte{
		dir + "deck.pdf":                      marloweDeck(),
		dir + "management-accounts.xlsx":      marloweAccounts(),
		dir + "board-minutes-2025-05-14.docx": marloweMinutes(),
	}
}

func marloweDeck() []byte {
	return deck("Marlowe Kitchens Ltd", "Information memorandum summary", "20250602",
		slide{Title: "Fitted kitchens for housebuilders", Points: []string{
			"Marlowe designs, makes and installs fitted kitchens for regional housebuilders from its factory in Telford.",
			"Founded in 1998 by Graham Marlowe, who remains Chief Executive and owns 78% of the shares; 212 employees.",
			"6,900 kitchens installed in 2024 for 31 housebuilders.",
		}},
		slide{Title: "FY2024 results", Points: []string{
			"Revenue of £18.4m (FY2023: £17.1m).",
			"Gross margin of 35%.",
			"EBITDA of £2.1m*, an EBITDA margin of 11.4%.",
		}, Note: "* Before non-recurring items."},
		slide{Title: "Transaction", Points: []string{
			"Graham Marlowe seeks to sell a majority stake and step back from day-to-day management within two years.",
		}},
	)
}

func marloweAccounts() []byte {
	x := xlsx("Marlowe Kitchens Ltd management accounts FY2024", "Colin Ashworth", "2025-02-21T09:00:00Z")
	x.Sheet("P&L FY2024", [][]any{
		{"£, year ended 31 December 2024", "FY2024", "FY2023"},
		{"Revenue", 18400000, 17100000},
		{"Cost of sales", 11960000, 11200000},
		{"Gross profit", 6440000, 5900000},
		{"Gross margin", pct(0.35), pct(0.345)},
		{"Wages and salaries (overheads)", 2890000, 2760000},
		{"Property rent: Marlowe Property Holdings Ltd", 780000, 760000},
		{"Other overheads", 1370000, 1290000},
		{"EBITDA", 1400000, 1090000},
		{"Interest: Marlowe Property Holdings Ltd loan", 108000, 108000},
	})
	x.Sheet("Balance sheet 31 Dec 2024", [][]any{
		{"£", "31 Dec 2024"},
		{"Cash", 1260000},
		{"Loan from Marlowe Property Holdings Ltd", 1200000},
		{"Invoice finance facility drawn", 850000},
	})
	return x.Bytes()
}

func marloweMinutes() []byte {
	d := docx("Minutes of the Board of Directors, 14 May 2025", "Colin Ashworth")
	d.Title("Marlowe Kitchens Ltd: Minutes of a meeting of the Board of Directors")
	d.P("Held at the Halesfield factory, Telford TF7 4QR on Wednesday 14 May 2025 at 10:00.")
	d.P("Present: Graham Marlowe (Chief Executive), Colin Ashworth (Finance Director), Alison Tate (independent non-executive director, chair of the meeting). Graham Marlowe declared an interest in items 2 and 3 as the owner of Marlowe Property Holdings Ltd.")
	d.H1("1. Information memorandum")
	d.P("Colin Ashworth presented the reconciliation of the EBITDA shown to prospective buyers with the management accounts:")
	d.Table([]int{6000, 3000}, [][]string{
		{"FY2024", "£"},
		{"EBITDA per management accounts", "1,400,000"},
		{"Rent paid to Marlowe Property Holdings Ltd above the market rent", "450,000"},
		{"Chief Executive's remuneration above a market salary", "250,000"},
		{"EBITDA before non-recurring items, as in the presentation", "2,100,000"},
	})
	d.P("Alison Tate said that neither add-back was non-recurring: the lease of the Halesfield factory from Marlowe Property Holdings Ltd runs until 2034 at the current rent, and the Chief Executive's service agreement has no end date. She did not support presenting £2.1 million as EBITDA. Graham Marlowe said both costs would end on completion of a sale, when the lease would be renegotiated and he would step back. The board did not reach agreement and asked that both views be recorded.")
	d.H1("2. Loan from Marlowe Property Holdings Ltd")
	d.P("The board noted the loan of £1,200,000 from Marlowe Property Holdings Ltd, made in 2021, which bears interest at 9% a year and is repayable on demand. Alison Tate noted that the rate is above the company's invoice finance rate and that the loan was not approved by a board resolution at the time. The board resolved to obtain an independent valuation of the market rent of the factory.")
	d.H1("3. Succession")
	d.P("Alison Tate noted that Graham Marlowe personally holds the relationships with the five largest housebuilder customers, and asked for a succession plan for the sales director role.")
	d.P("Signed: Alison Tate, Chair of the meeting")
	return d.Bytes("2025-05-16T09:00:00Z")
}
