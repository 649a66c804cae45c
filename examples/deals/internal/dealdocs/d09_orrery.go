package dealdocs

// orrery: the deck's FY2024 revenue is 31% above the audited revenue.
func orrery() map[string][]byte {
	const dir = "09-orrery-health/"
	return map[string][]byte{
		dir + "deck.pdf":                 orreryDeck(),
		dir + "audited-statements.pdf":   orreryAudited(),
		dir + "management-accounts.xlsx": orreryAccounts(),
	}
}

func orreryDeck() []byte {
	return deck("Orrery Health Ltd", "Growth capital presentation", "20250616",
		slide{Title: "Scheduling for outpatient clinics", Points: []string{
			"Orrery schedules clinicians, rooms and patients for private hospitals and NHS outpatient departments.",
			"Founded in Cambridge in 2017; 118 employees.",
			"74 hospital and clinic customers at 31 December 2024.",
		}},
		slide{Title: "Growth", Table: [][]string{
			{"Years ended 31 December"},
			{"£m", "FY2023", "FY2024"},
			{"Revenue", "11.9", "18.6"},
			{"Gross margin", "70%", "72%"},
		}, Widths: []float64{227, 120, 120}, Note: "Revenue grew 56% in FY2024."},
		slide{Title: "The round", Points: []string{
			"Raising £30m at a pre-money valuation of £150m, about eight times FY2024 revenue.",
		}},
	)
}

func orreryAccounts() []byte {
	x := xlsx("Orrery Health Ltd management accounts FY2024", "Naomi Fisher", "2025-01-31T09:00:00Z")
	x.Sheet("P&L FY2024", [][]any{
		{"£", "Q1", "Q2", "Q3", "Q4", "FY2024"},
		{"Revenue", 3302000, 3451000, 3618000, 3833000, 14204000},
		{"Gross profit", 2311000, 2450000, 2605000, 2861000, 10227000},
		{"Gross margin", pct(0.7), pct(0.71), pct(0.72), pct(0.746), pct(0.72)},
		{"EBITDA", -210000, -150000, -60000, 40000, -380000},
	})
	x.Sheet("KPIs", [][]any{
		{"Measure", "31 Dec 2024"},
		{"Customers", 74},
		{"Headcount", 112},
		{"Cash (£)", 4120000},
	})
	return x.Bytes()
}

func orreryAudited() []byte {
	w := pdf("Orrery Health Ltd Financial Statements 2024", "Orrery Health Ltd  |  Financial Statements 2024", "20250430")
	w.Heading("Orrery Health Ltd", 22, 0)
	w.Heading("Report and financial statements for the year ended 31 December 2024", 13, 0)
	w.Paragraph("Registered in England and Wales, company number 10733219. Registered office: 20 Station Road, Cambridge CB1 2JD.")
	w.Heading("Strategic report", 15, 14)
	w.Paragraph("Revenue for the year was £14,204,000 (2023: £11,870,000), an increase of 19.7%. Gross margin was 72.0%. The company made an EBITDA loss of £380,000 (2023: loss of £1,210,000) and a loss for the year of £1,020,000. Cash at 31 December 2024 was £4,120,000.")
	w.Table("Statement of comprehensive income, year ended 31 December", []float64{227, 120, 120}, [][]string{
		{"£", "2024", "2023"},
		{"Revenue", "14,204,000", "11,870,000"},
		{"Cost of sales", "(3,977,000)", "(3,561,000)"},
		{"Gross profit", "10,227,000", "8,309,000"},
		{"Operating expenses", "(10,607,000)", "(9,519,000)"},
		{"EBITDA", "(380,000)", "(1,210,000)"},
		{"Depreciation and amortisation", "(640,000)", "(590,000)"},
		{"Loss for the year", "(1,020,000)", "(1,800,000)"},
	})
	w.Heading("Revenue recognition", 12, 8)
	w.Paragraph("Licence and support fees under multi-year contracts are recognised over the term of each contract. Contracts signed in 2024 with a total value of £9.1 million, of which £4.4 million was invoiced in advance, are recognised over terms of three to five years; amounts invoiced but not yet earned are held as deferred income of £6,310,000 (2023: £3,980,000).")
	w.Heading("Independent auditor's report to the members of Orrery Health Ltd", 13, 14)
	w.Paragraph("In our opinion the financial statements give a true and fair view of the state of the company's affairs as at 31 December 2024 and of its loss for the year then ended, and have been properly prepared in accordance with FRS 102.")
	w.Paragraph("Key audit matter: revenue from multi-year contracts. We tested the recognition of revenue over the contract term for all contracts above £250,000 signed in the year.")
	w.Paragraph("Imogen Saxby (Senior Statutory Auditor), for and on behalf of Fenwick Hale LLP, Statutory Auditor, Cambridge, 30 April 2025")
	return w.Bytes()
}
