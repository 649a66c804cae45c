package dealdocs

// larkfield is the clean deal: every document agrees with every other.
func larkfield() map[string][]byte {
	const dir = "01-larkfield-analytics/"
	return map[string][]byte{
		dir + "deck.pdf":                 larkfieldDeck(),
		dir + "management-accounts.xlsx": larkfieldAccounts(),
		dir + "audited-statements.pdf":   larkfieldAudited(),
	}
}

func larkfieldDeck() []byte {
	return deck("Larkfield Analytics Ltd", "Growth equity presentation", "20250715",
		slide{Title: "Who we are", Points: []string{
			"Footfall and dwell-time analytics for shopping centres, retail parks and high-street retailers, sold as an annual subscription per site.",
			"Founded in Bristol in 2016 by Eleanor Marsh (CEO) and Tobias Reid (CTO); 104 employees at 30 June 2025.",
			"231 customers at 30 June 2025, up from 212 at 31 December 2024.",
		}},
		slide{Title: "Financial track record", Table: [][]string{
			{"Audited results, years ended 31 December"},
			{"£m", "FY2023", "FY2024"},
			{"Revenue", "10.1", "12.4"},
			{"Gross profit", "7.8", "9.7"},
			{"Gross margin", "77.2%", "78.2%"},
			{"EBITDA", "1.1", "1.6"},
			{"EBITDA margin", "10.9%", "12.9%"},
			{"Net income", "0.5", "0.9"},
		}, Widths: []float64{227, 120, 120}, Note: "Revenue grew by 22.8% in FY2024. Figures are taken from the audited financial statements."},
		slide{Title: "Trading to 30 June 2025", Points: []string{
			"Annual recurring revenue of £14.1m at 30 June 2025 (monthly recurring revenue £1.175m).",
			"Cash of £6.2m at 30 June 2025 and no borrowings.",
			"No customer accounts for more than 9% of revenue; the ten largest account for 40%.",
		}},
		slide{Title: "The round", Points: []string{
			"Raising £15m of growth equity to open offices in Dublin and Amsterdam.",
			"Use of funds: 55% sales and marketing, 30% product, 15% working capital.",
		}},
	)
}

func larkfieldAccounts() []byte {
	x := xlsx("Larkfield Analytics Ltd management accounts", "Priya Desai", "2025-07-10T09:00:00Z")
	x.Sheet("P&L FY2024", [][]any{
		{"Profit and loss, year ended 31 December 2024 (£)", "Q1", "Q2", "Q3", "Q4", "FY2024"},
		{"Revenue", 2812000, 3018000, 3171000, 3405000, 12406000},
		{"Cost of sales", 620000, 667000, 682000, 735000, 2704000},
		{"Gross profit", 2192000, 2351000, 2489000, 2670000, 9702000},
		{"Gross margin", pct(0.78), pct(0.779), pct(0.785), pct(0.784), pct(0.782)},
		{"Operating expenses", 1881000, 1969000, 2068000, 2180000, 8098000},
		{"EBITDA", 311000, 382000, 421000, 490000, 1604000},
		{"EBITDA margin", pct(0.111), pct(0.127), pct(0.133), pct(0.144), pct(0.129)},
		{"Net income", nil, nil, nil, nil, 912000},
	})
	x.Sheet("KPIs 2025", [][]any{
		{"Month", "MRR (£)", "ARR (£)", "Customers", "Headcount", "Cash at month end (£)"},
		{"2025-01", 1060000, 12720000, 215, 97, 5902000},
		{"2025-02", 1081000, 12972000, 218, 98, 5951000},
		{"2025-03", 1104000, 13248000, 222, 100, 6013000},
		{"2025-04", 1127000, 13524000, 225, 101, 6068000},
		{"2025-05", 1150000, 13800000, 228, 103, 6131000},
		{"2025-06", 1175000, 14100000, 231, 104, 6204000},
	})
	return x.Bytes()
}

func larkfieldAudited() []byte {
	w := pdf("Larkfield Analytics Ltd Financial Statements 2024", "Larkfield Analytics Ltd  |  Annual Report and Financial Statements 2024", "20250328")
	w.Heading("Larkfield Analytics Ltd", 22, 0)
	w.Heading("Annual Report and Financial Statements for the year ended 31 December 2024", 13, 0)
	w.Paragraph("Registered in England and Wales, company number 10218834. Registered office: 4 Temple Quay, Bristol BS1 6DZ.")
	w.Heading("Strategic report", 15, 14)
	w.Paragraph("Revenue for the year was £12,406,000 (2023: £10,105,000), an increase of 22.8%. Gross margin was 78.2% (2023: 77.2%) and EBITDA was £1,604,000 (2023: £1,101,000). The company had 212 customers and 96 employees at 31 December 2024.")
	w.Paragraph("The largest customer accounted for 8.1% of revenue. The company has no borrowings.")
	w.Table("Statement of comprehensive income, year ended 31 December", []float64{227, 120, 120}, [][]string{
		{"£", "2024", "2023"},
		{"Revenue", "12,406,000", "10,105,000"},
		{"Cost of sales", "(2,704,000)", "(2,304,000)"},
		{"Gross profit", "9,702,000", "7,801,000"},
		{"Administrative expenses", "(8,098,000)", "(6,700,000)"},
		{"EBITDA", "1,604,000", "1,101,000"},
		{"Depreciation and amortisation", "(476,000)", "(431,000)"},
		{"Operating profit", "1,128,000", "670,000"},
		{"Taxation", "(216,000)", "(131,000)"},
		{"Profit for the year", "912,000", "539,000"},
	})
	w.Table("Balance sheet at 31 December (extract)", []float64{227, 120, 120}, [][]string{
		{"£", "2024", "2023"},
		{"Cash at bank", "5,814,000", "4,702,000"},
		{"Trade receivables", "1,944,000", "1,620,000"},
		{"Deferred income", "(4,118,000)", "(3,390,000)"},
		{"Net assets", "6,215,000", "5,303,000"},
	})
	w.Heading("Independent auditor's report to the members of Larkfield Analytics Ltd", 13, 14)
	w.Paragraph("In our opinion the financial statements give a true and fair view of the state of the company's affairs as at 31 December 2024 and of its profit for the year then ended, and have been properly prepared in accordance with FRS 102. We have nothing to report in respect of going concern.")
	w.Paragraph("Owen Hartley (Senior Statutory Auditor), for and on behalf of Clifton Moore LLP, Statutory Auditor, Bristol, 28 March 2025")
	return w.Bytes()
}
