package roomdocs

// quayside: the presentation's FY2024 revenue is 8% above what the
// audited statements and the management accounts give; about 3% of the
// customers leave every month.
func quayside() map[string][]byte {
	const dir = "02-quayside-fleet/"
	return map[string][]byte{
		dir + "deck.pdf":                 quaysideDeck(),
		dir + "audited-statements.pdf":   quaysideAudited(),
		dir + "management-accounts.xlsx": quaysideAccounts(),
	}
}

func quaysideDeck() []byte {
	return deck("Quayside Fleet Telematics B.V.", "Growth round: management presentation", "20250612",
		slide{Title: "Quayside at a glance", Points: []string{
			"Vehicle trackers, tachograph download and driver-behaviour scoring for small and mid-sized van and truck fleets in the Benelux, Germany and the Nordics.",
			"Headquartered in Rotterdam with offices in Antwerp and Hamburg; founded in 2017 by Joost van der Meulen and Sanne Kuipers.",
			"1,046 fleet customers and 38,900 connected vehicles at 31 May 2025.",
		}},
		slide{Title: "Financial highlights", Table: [][]string{
			{"Financial highlights, years ended 31 December"},
			{"EUR m", "FY2023", "FY2024"},
			{"Revenue", "10.9", "14.6"},
			{"Revenue growth", "", "+34%"},
			{"Gross margin", "57.8%", "58.0%"},
			{"EBITDA", "0.6", "1.1"},
		}, Widths: []float64{227, 120, 120}, Note: "EBITDA positive for the second year running."},
		slide{Title: "Customers and retention", Points: []string{
			"Average contract of 36 months, billed monthly per connected vehicle.",
			"Monthly logo churn averaged 2.9% from January to May 2025, mostly fleets of fewer than ten vehicles; churn among fleets of 50 vehicles or more was below 0.5% a month.",
			"Net revenue retention of 88% over the twelve months to May 2025.",
			"No customer is more than 4% of revenue.",
		}},
		slide{Title: "Balance sheet", Points: []string{
			"Cash of EUR 4.5m at 31 May 2025.",
			"Lease financing of devices installed at customers: EUR 0.9m.",
		}},
		slide{Title: "The round", Points: []string{
			"Raising EUR 20m to launch an electric-van charging module and to build a self-serve sales channel for small fleets.",
		}},
	)
}

func quaysideAccounts() []byte {
	x := xlsx("Quayside Fleet Telematics B.V. management accounts", "Mireille de Groot", "2025-07-07T09:00:00Z")
	x.Sheet("P&L FY2024", [][]any{
		{"Profit and loss 2024 (EUR)", "Q1 2024", "Q2 2024", "Q3 2024", "Q4 2024", "FY2024"},
		{"Subscription and hardware revenue", 3096000, 3288000, 3471000, 3657000, 13512000},
		{"Cost of sales", 1301000, 1381000, 1458000, 1535000, 5675000},
		{"Gross profit", 1795000, 1907000, 2013000, 2122000, 7837000},
		{"Gross margin", pct(0.58), pct(0.58), pct(0.58), pct(0.58), pct(0.58)},
		{"Operating expenses excluding depreciation", 1590000, 1648000, 1716000, 1779000, 6733000},
		{"EBITDA", 205000, 259000, 297000, 343000, 1104000},
	})
	x.Sheet("Monthly 2025", [][]any{
		{"Month", "Revenue (EUR)", "Customers at start", "New customers", "Customers lost", "Customers at end", "Monthly logo churn", "Cash at month end (EUR)"},
		{"2025-01", 1262000, 1012, 41, 27, 1026, pct(0.027), 5090000},
		{"2025-02", 1271000, 1026, 39, 32, 1033, pct(0.031), 4960000},
		{"2025-03", 1298000, 1033, 44, 30, 1047, pct(0.029), 4850000},
		{"2025-04", 1305000, 1047, 36, 29, 1054, pct(0.028), 4700000},
		{"2025-05", 1311000, 1054, 26, 34, 1046, pct(0.032), 4530000},
		{"2025-06", 1322000, 1046, 37, 31, 1052, pct(0.03), 4410000},
	})
	return x.Bytes()
}

func quaysideAudited() []byte {
	w := pdf("Quayside Fleet Telematics B.V. Financial Statements 2024", "Quayside Fleet Telematics B.V.  |  Financial statements 2024", "20250425")
	w.Heading("Quayside Fleet Telematics B.V.", 22, 0)
	w.Heading("Financial statements for the year ended 31 December 2024", 13, 0)
	w.Paragraph("Statutory seat Rotterdam, the Netherlands; Chamber of Commerce number 69012457. Prepared under Title 9 Book 2 of the Dutch Civil Code. Amounts in euros.")
	w.Heading("Directors' report", 15, 14)
	w.Paragraph("Net turnover for 2024 was EUR 13,512,000 (2023: EUR 10,880,000), an increase of 24.2%. Gross margin was 58.0% (2023: 57.8%) and EBITDA was EUR 1,104,000 (2023: EUR 577,000). The company ended the year with 1,012 fleet customers and 112 employees.")
	w.Paragraph("Customer attrition remained high among fleets of fewer than ten vehicles; the directors have introduced annual pre-payment discounts for this segment from January 2025.")
	w.Table("Profit and loss account", []float64{247, 110, 110}, [][]string{
		{"EUR", "2024", "2023"},
		{"Net turnover", "13,512,000", "10,880,000"},
		{"Cost of sales", "(5,675,000)", "(4,591,000)"},
		{"Gross profit", "7,837,000", "6,289,000"},
		{"Operating expenses excluding depreciation", "(6,733,000)", "(5,712,000)"},
		{"EBITDA", "1,104,000", "577,000"},
		{"Depreciation of devices and equipment", "(612,000)", "(540,000)"},
		{"Operating result", "492,000", "37,000"},
		{"Financial expenses", "(88,000)", "(95,000)"},
		{"Corporate income tax", "(101,000)", "-"},
		{"Net result", "303,000", "(58,000)"},
	})
	w.Table("Balance sheet at 31 December (extract)", []float64{247, 110, 110}, [][]string{
		{"EUR", "2024", "2023"},
		{"Cash and cash equivalents", "5,260,000", "6,115,000"},
		{"Trade receivables", "1,488,000", "1,201,000"},
		{"Lease liabilities (devices)", "(912,000)", "(1,040,000)"},
		{"Equity", "6,904,000", "6,601,000"},
	})
	w.Heading("Notes", 15, 14)
	w.Paragraph("Revenue recognition. Subscription fees are recognised over the contract period. Hardware supplied under a subscription is not a separate performance obligation and is recognised with the subscription over the contract term; hardware sold outright is recognised on installation.")
	w.Paragraph("Segment information. All revenue arises from fleet telematics: Netherlands 46%, Belgium 21%, Germany 24%, Nordics 9%.")
	w.Heading("Independent auditor's report", 13, 14)
	w.Paragraph("To the shareholders and supervisory board of Quayside Fleet Telematics B.V. Our opinion: in our opinion the financial statements give a true and fair view of the financial position of Quayside Fleet Telematics B.V. as at 31 December 2024 and of its result for 2024 in accordance with Part 9 of Book 2 of the Dutch Civil Code.")
	w.Paragraph("Rotterdam, 25 April 2025. Maasoever Accountants N.V., drs. P.J. Verbeek RA")
	return w.Bytes()
}
