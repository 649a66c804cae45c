package roomdocs

// ottersley is the clean deal: the presentation rounds what the audited
// statements and the management accounts give to the pound, and nothing
// else is wrong.
func ottersley() map[string][]byte {
	const dir = "01-ottersley-learning/"
	return map[string][]byte{
		dir + "deck.pdf":                 ottersleyDeck(),
		dir + "management-accounts.xlsx": ottersleyAccounts(),
		dir + "audited-statements.docx":  ottersleyAudited(),
	}
}

func ottersleyDeck() []byte {
	return deck("Ottersley Learning Ltd", "Series B investor presentation", "20250708",
		slide{Title: "What we do", Points: []string{
			"Ottersley sells timetabling, cover management and attendance software to secondary schools and multi-academy trusts in England and Wales, on three-year subscriptions priced per pupil.",
			"Founded in Leeds in 2015 by Ruth Okonjo (CEO) and Daniel Pryce (CTO). 88 employees at 30 June 2025.",
			"412 customers at 30 June 2025 (a trust counts once, whatever the number of its schools), up from 384 at 31 December 2024.",
		}},
		slide{Title: "Audited track record", Table: [][]string{
			{"Years ended 31 December, audited"},
			{"£m", "FY2023", "FY2024"},
			{"Revenue", "6.4", "7.8"},
			{"Gross profit", "4.5", "5.6"},
			{"Gross margin", "70.6%", "71.4%"},
			{"EBITDA", "0.62", "0.94"},
			{"EBITDA margin", "9.7%", "12.0%"},
			{"Profit after tax", "0.32", "0.54"},
		}, Widths: []float64{227, 120, 120}, Note: "Revenue grew 22% in FY2024. Figures from the audited financial statements signed on 11 April 2025."},
		slide{Title: "Recurring revenue at 30 June 2025", Points: []string{
			"Annual recurring revenue (ARR) of £9.3m, twelve times June monthly recurring revenue of £775k.",
			"Six customers left in the first half of 2025, 1.6% of the 384 we had at the start of the year; all six were schools that joined a trust using a competitor.",
			"The largest customer, Aldwyn Multi-Academy Trust, is 5.3% of FY2024 revenue; the ten largest are 29%.",
		}},
		slide{Title: "Balance sheet", Points: []string{
			"Cash of £4.6m at 30 June 2025; no borrowings and no invoice finance.",
			"Cash generative since 2022: every year's growth has been funded from operations.",
		}},
		slide{Title: "The round", Points: []string{
			"Raising £12m of Series B equity to enter the Scottish and Irish markets and to build a parent app.",
			"Use of funds: 50% product and engineering, 35% sales and marketing, 15% working capital.",
		}},
	)
}

func ottersleyAccounts() []byte {
	x := xlsx("Ottersley Learning Ltd management accounts", "Imogen Hale", "2025-07-09T09:00:00Z")
	x.Sheet("P&L FY2024", [][]any{
		{"Profit and loss, year ended 31 December 2024 (£)", "Q1", "Q2", "Q3", "Q4", "FY2024", "FY2023"},
		{"Revenue", 1812000, 1901000, 1998000, 2125000, 7836000, 6412000},
		{"Cost of sales", 524000, 545000, 571000, 601000, 2241000, 1886000},
		{"Gross profit", 1288000, 1356000, 1427000, 1524000, 5595000, 4526000},
		{"Gross margin", pct(0.711), pct(0.713), pct(0.714), pct(0.717), pct(0.714), pct(0.706)},
		{"Operating expenses (before depreciation)", 1108000, 1142000, 1176000, 1228000, 4654000, 3905000},
		{"EBITDA", 180000, 214000, 251000, 296000, 941000, 621000},
		{"EBITDA margin", pct(0.099), pct(0.113), pct(0.126), pct(0.139), pct(0.12), pct(0.097)},
		{"Profit after tax", nil, nil, nil, nil, 540000, 324000},
	})
	x.Sheet("KPIs H1 2025", [][]any{
		{"Month", "MRR (£)", "ARR (£)", "Customers", "Customers lost", "Headcount", "Cash at month end (£)"},
		{"2025-01", 712000, 8544000, 389, 1, 83, 4102000},
		{"2025-02", 724000, 8688000, 393, 1, 84, 4188000},
		{"2025-03", 737000, 8844000, 398, 0, 85, 4251000},
		{"2025-04", 749000, 8988000, 402, 2, 86, 4356000},
		{"2025-05", 762000, 9144000, 407, 1, 87, 4471000},
		{"2025-06", 775000, 9300000, 412, 1, 88, 4612000},
	})
	return x.Bytes()
}

func ottersleyAudited() []byte {
	d := docx("Ottersley Learning Ltd Annual Report and Financial Statements 2024", "Ottersley Learning Ltd")
	d.Title("Ottersley Learning Ltd: Annual report and financial statements for the year ended 31 December 2024")
	d.P("Registered in England and Wales, company number 09671245. Registered office: 3 Wellington Place, Leeds LS1 4AP.")
	d.H1("Strategic report")
	d.P("Revenue for the year was £7,836,000 (2023: £6,412,000), an increase of 22.2%, driven by 61 new customers and price increases of 4% on renewal. Gross margin improved to 71.4% (2023: 70.6%). EBITDA was £941,000 (2023: £621,000) and profit after tax £540,000 (2023: £324,000).")
	d.P("At 31 December 2024 the company had 384 customers and 81 employees. No customer accounted for more than 6% of revenue. The company has no borrowings.")
	d.H1("Statement of comprehensive income")
	d.Table([]int{5000, 2000, 2000}, [][]string{
		{"£", "2024", "2023"},
		{"Revenue", "7,836,000", "6,412,000"},
		{"Cost of sales", "(2,241,000)", "(1,886,000)"},
		{"Gross profit", "5,595,000", "4,526,000"},
		{"Administrative expenses before depreciation and amortisation", "(4,654,000)", "(3,905,000)"},
		{"EBITDA", "941,000", "621,000"},
		{"Depreciation and amortisation", "(262,000)", "(231,000)"},
		{"Operating profit", "679,000", "390,000"},
		{"Interest receivable", "41,000", "18,000"},
		{"Profit before tax", "720,000", "408,000"},
		{"Tax on profit", "(180,000)", "(84,000)"},
		{"Profit for the financial year", "540,000", "324,000"},
	})
	d.H1("Balance sheet at 31 December (extract)")
	d.Table([]int{5000, 2000, 2000}, [][]string{
		{"£", "2024", "2023"},
		{"Cash at bank and in hand", "3,986,000", "3,311,000"},
		{"Trade debtors", "1,212,000", "1,034,000"},
		{"Deferred income", "(3,418,000)", "(2,877,000)"},
		{"Net assets", "3,742,000", "3,202,000"},
	})
	d.H1("Notes")
	d.P("Revenue recognition: subscription fees are invoiced annually in advance and recognised evenly over the period of the subscription; the unrecognised part is shown as deferred income.")
	d.P("Related parties: there were no transactions with directors or their connected parties other than remuneration, disclosed in note 6.")
	d.P("Average number of employees: 77 (2023: 66).")
	d.H1("Independent auditor's report to the members of Ottersley Learning Ltd")
	d.P("In our opinion the financial statements give a true and fair view of the state of the company's affairs as at 31 December 2024 and of its profit for the year then ended, and have been properly prepared in accordance with United Kingdom Generally Accepted Accounting Practice (FRS 102). In auditing the financial statements we have concluded that the directors' use of the going concern basis of accounting is appropriate.")
	d.P("Harriet Lomax (Senior Statutory Auditor), for and on behalf of Aire Street Audit LLP, Statutory Auditor, Leeds, 11 April 2025")
	return d.Bytes("2025-04-11T09:00:00Z")
}
