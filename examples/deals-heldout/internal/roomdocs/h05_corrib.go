package roomdocs

// corrib: the presentation gives the pre-audit FY2024 EBITDA, 36% above
// the audited figure after the audit adjustments.
func corrib() map[string][]byte {
	const dir = "05-corrib-valley-foods/"
	return map[string][]byte{
		dir + "deck.pdf":                 corribDeck(),
		dir + "audited-statements.docx":  corribAudited(),
		dir + "management-accounts.xlsx": corribAccounts(),
	}
}

func corribDeck() []byte {
	return deck("Corrib Valley Foods DAC", "Investment opportunity", "20250616",
		slide{Title: "Business overview", Points: []string{
			"Corrib Valley makes cultured dairy products (natural and Greek-style yoghurt, kefir and soured cream) for Irish and UK supermarkets, under its own Corrib Valley brand (58% of revenue) and retailers' own labels.",
			"One production site at Claregalway, Co. Galway, processing 31 million litres of milk a year from 140 farms within 40 km.",
			"Founded in 1996 by the Fahy family; 212 employees.",
		}},
		slide{Title: "Financial performance", Table: [][]string{
			{"Years ended 31 December, EUR millions"},
			{"EUR m", "FY2023", "FY2024"},
			{"Revenue", "25.1", "27.5"},
			{"Revenue growth", "", "9.6%"},
			{"EBITDA", "2.4", "3.9"},
			{"EBITDA margin", "9.4%", "14.2%"},
		}, Widths: []float64{227, 120, 120}, Note: "Margin expansion in FY2024 came from the shift to branded product, a lower milk price in the first half and the new kefir line running at full capacity."},
		slide{Title: "Current trading", Points: []string{
			"Revenue of EUR 11.4m for the five months to 31 May 2025, up 8% on the same period of 2024.",
			"EBITDA of EUR 1.15m for the five months to 31 May 2025.",
			"Bank debt of EUR 5.4m (term loan with Atlantic Provincial Bank, amortising to 2029).",
		}},
		slide{Title: "The opportunity", Points: []string{
			"The Fahy family is selling a 60% stake to a financial investor to fund a EUR 9m second yoghurt line and to provide liquidity to the second generation.",
			"Management, led by Siobhan Fahy (CEO) and Declan Mulkerrin (CFO), will remain and reinvest.",
		}},
	)
}

func corribAccounts() []byte {
	x := xlsx("Corrib Valley Foods DAC management accounts", "Declan Mulkerrin", "2025-07-04T09:00:00Z")
	x.Sheet("FY2024 bridge", [][]any{
		{"Year ended 31 December 2024 (EUR '000)", "Pre-audit management accounts (January 2025)", "Audit adjustments", "Audited financial statements"},
		{"Revenue", 27514, 0, 27514},
		{"Cost of sales", 19881, 1030, 20911},
		{"Gross profit", 7633, -1030, 6603},
		{"Distribution and administrative costs before depreciation", 3733, 0, 3733},
		{"EBITDA", 3900, -1030, 2870},
		{"EBITDA margin", pct(0.142), nil, pct(0.104)},
		{"Adjustments: reversal of supplier volume rebate accrued but not earned (610); provision against obsolete packaging stock after the rebrand (420)", nil, nil, nil},
	})
	x.Sheet("Monthly 2025", [][]any{
		{"EUR '000", "Jan 2025", "Feb 2025", "Mar 2025", "Apr 2025", "May 2025", "Jun 2025", "H1 2025"},
		{"Revenue", 2198, 2154, 2301, 2342, 2415, 2389, 13799},
		{"EBITDA", 214, 198, 236, 241, 259, 247, 1395},
		{"EBITDA margin", pct(0.097), pct(0.092), pct(0.103), pct(0.103), pct(0.107), pct(0.103), pct(0.101)},
		{"Cash at month end", 3102, 2988, 3140, 3275, 3391, 3462, 3462},
		{"Term loan outstanding", 5600, 5600, 5500, 5500, 5500, 5400, 5400},
	})
	return x.Bytes()
}

func corribAudited() []byte {
	d := docx("Corrib Valley Foods DAC Directors' Report and Financial Statements 2024", "Corrib Valley Foods DAC")
	d.Title("Corrib Valley Foods DAC: Directors' report and financial statements for the year ended 31 December 2024")
	d.P("Registered in Ireland, company number 248913. Registered office: Claregalway Business Park, Claregalway, Co. Galway, H91 X2C4. Prepared in accordance with FRS 102 and the Companies Act 2014.")
	d.H1("Directors' report")
	d.P("Turnover increased by 9.6% to €27,514,000 (2023: €25,102,000), with branded sales growing faster than own-label. EBITDA was €2,870,000 (2023: €2,372,000), or 10.4% of turnover (2023: 9.4%). The result for the year reflects a charge of €420,000 against packaging stock made obsolete by the rebrand and the reversal of €610,000 of supplier rebates that had been accrued in the management accounts but whose volume conditions were not met.")
	d.P("The company employed an average of 205 people during the year.")
	d.H1("Profit and loss account")
	d.Table([]int{5000, 2000, 2000}, [][]string{
		{"€", "2024", "2023"},
		{"Turnover", "27,514,000", "25,102,000"},
		{"Cost of sales", "(20,911,000)", "(19,333,000)"},
		{"Gross profit", "6,603,000", "5,769,000"},
		{"Distribution and administrative expenses before depreciation", "(3,733,000)", "(3,397,000)"},
		{"EBITDA", "2,870,000", "2,372,000"},
		{"Depreciation", "(1,140,000)", "(1,060,000)"},
		{"Operating profit", "1,730,000", "1,312,000"},
		{"Interest payable", "(410,000)", "(380,000)"},
		{"Profit before tax", "1,320,000", "932,000"},
		{"Tax on profit", "(165,000)", "(117,000)"},
		{"Profit for the financial year", "1,155,000", "815,000"},
	})
	d.H1("Balance sheet at 31 December (extract)")
	d.Table([]int{5000, 2000, 2000}, [][]string{
		{"€", "2024", "2023"},
		{"Cash at bank and in hand", "3,214,000", "2,806,000"},
		{"Stocks", "2,118,000", "2,264,000"},
		{"Bank loans", "(5,600,000)", "(6,000,000)"},
		{"Net assets", "9,846,000", "8,691,000"},
	})
	d.H1("Notes")
	d.P("Bank loans: a term loan from Atlantic Provincial Bank DAC, secured on the Claregalway site, repayable in quarterly instalments of €100,000 to 2029, bearing interest at EURIBOR plus 3.25%. The facility requires net debt of no more than 2.5 times EBITDA; at 31 December 2024 the ratio was 0.8 times.")
	d.P("Customers: the company's largest customer, a supermarket group, accounted for 13.8% of turnover (2023: 14.5%).")
	d.H1("Independent auditor's report to the members of Corrib Valley Foods DAC")
	d.P("Opinion: we have audited the financial statements of Corrib Valley Foods DAC for the year ended 31 December 2024. In our opinion the financial statements give a true and fair view of the assets, liabilities and financial position of the company as at 31 December 2024 and of its profit for the year then ended, and have been properly prepared in accordance with FRS 102.")
	d.P("Conclusions relating to going concern: we have nothing to report in this respect.")
	d.P("Eimear Costello, for and on behalf of Quincentennial Bridge Audit, Chartered Accountants and Statutory Audit Firm, Galway, 29 April 2025")
	return d.Bytes("2025-04-29T09:00:00Z")
}
