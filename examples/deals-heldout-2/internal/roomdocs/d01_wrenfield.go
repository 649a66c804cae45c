package roomdocs

// wrenfield: a clean deal. The deck, the audited statements, the
// management accounts (in £ thousands) and a trade-press article give the
// same figures, each rounded its own way: £12.35m, £12,347,000, 12,347
// and £12.3m.
func wrenfield() map[string][]byte {
	const dir = "01-wrenfield-veterinary/"
	return map[string][]byte{
		dir + "deck.pdf":                 wrenfieldDeck(),
		dir + "audited-statements.pdf":   wrenfieldAudited(),
		dir + "management-accounts.xlsx": wrenfieldAccounts(),
	}
}

func wrenfieldDeck() []byte {
	return deck("Wrenfield Veterinary Systems Ltd", "Management presentation", "20250707",
		slide{Title: "Who we are", Points: []string{
			"Practice management software for independent and group veterinary practices in the UK and Ireland: appointments, clinical records, stock, billing and client reminders, sold by subscription per practice.",
			"Founded in 2011 in Shrewsbury by two vets; 1,231 practices on the platform at 30 June 2025, from single-vet surgeries to groups of 60 sites.",
			"103 employees at 30 June 2025, of whom 41 in product and engineering and 22 in customer support.",
		}},
		slide{Title: "Financial track record", Table: [][]string{
			{"Audited, years ended 31 December"},
			{"", "FY2023", "FY2024"},
			{"Revenue", "£10.90m", "£12.35m"},
			{"Revenue growth", "11.8%", "13.3%"},
			{"Gross profit", "£7.68m", "£8.77m"},
			{"Gross margin", "70.4%", "71.0%"},
			{"EBITDA", "£1.71m", "£2.09m"},
			{"EBITDA margin", "15.7%", "17.0%"},
			{"Profit after tax", "£1.05m", "£1.32m"},
		}, Widths: []float64{207, 130, 130}, Note: "Cash of £3.4m at 31 December 2024 and no borrowings."},
		slide{Title: "Current trading", Table: [][]string{
			{"Unaudited management accounts"},
			{"", "H1 2024", "H1 2025", "LTM Jun 2025"},
			{"Revenue", "£5.96m", "£6.78m", "£13.16m"},
			{"EBITDA", "£0.98m", "£1.14m", "£2.25m"},
		}, Widths: []float64{187, 93, 93, 94}, Points: []string{
			"Cash of £3.8m at 30 June 2025.",
			"Recurring subscription revenue is 92% of the total; the rest is onboarding, data migration and training.",
		}},
		slide{Title: "Customers", Points: []string{
			"No customer group accounts for more than 5% of revenue; the ten largest groups together account for 26.8% (customer list in the data room).",
		}},
	)
}

func wrenfieldAudited() []byte {
	w := pdf("Wrenfield Veterinary Systems Ltd Annual Report 2024", "Wrenfield Veterinary Systems Ltd  |  Annual report and financial statements 2024", "20250328")
	w.Heading("Wrenfield Veterinary Systems Ltd", 22, 0)
	w.Heading("Annual report and financial statements for the year ended 31 December 2024", 13, 0)
	w.Paragraph("Registered in England and Wales, company number 07612094. Registered office: Unit 4, Battlefield Enterprise Park, Shrewsbury SY1 3AF.")
	w.Heading("Strategic report", 15, 14)
	w.Paragraph("Turnover increased by 13.3% to £12,347,000 (2023: £10,902,000), driven by 142 net new practices and a price increase of 4% in April 2024. Gross profit was £8,766,000 (2023: £7,675,000). EBITDA, which the directors use to measure the performance of the business, was £2,094,000 (2023: £1,710,000). The company had 1,183 practices under contract at the year end and employed an average of 94 people (2023: 86).")
	w.Table("Statement of comprehensive income for the year ended 31 December 2024", []float64{247, 110, 110}, [][]string{
		{"£", "2024", "2023"},
		{"Turnover", "12,347,000", "10,902,000"},
		{"Cost of sales", "(3,581,000)", "(3,227,000)"},
		{"Gross profit", "8,766,000", "7,675,000"},
		{"Administrative expenses before depreciation and amortisation", "(6,672,000)", "(5,965,000)"},
		{"EBITDA", "2,094,000", "1,710,000"},
		{"Depreciation and amortisation", "(412,000)", "(389,000)"},
		{"Operating profit", "1,682,000", "1,321,000"},
		{"Interest receivable", "38,000", "21,000"},
		{"Profit before taxation", "1,720,000", "1,342,000"},
		{"Tax on profit", "(396,000)", "(292,000)"},
		{"Profit for the financial year", "1,324,000", "1,050,000"},
	})
	w.Table("Statement of financial position at 31 December 2024 (extract)", []float64{247, 110, 110}, [][]string{
		{"£", "2024", "2023"},
		{"Intangible assets: capitalised development", "1,208,000", "1,011,000"},
		{"Trade and other receivables", "1,487,000", "1,302,000"},
		{"Cash at bank and in hand", "3,412,000", "2,618,000"},
		{"Deferred income", "(2,164,000)", "(1,890,000)"},
		{"Net assets", "4,402,000", "3,478,000"},
	})
	w.Heading("Notes to the financial statements (extracts)", 15, 14)
	w.Paragraph("3. Turnover. Turnover is recognised over the subscription term; onboarding and training fees are recognised when the service is delivered. All turnover arises in the United Kingdom and the Republic of Ireland. No customer accounted for more than 10% of turnover.")
	w.Paragraph("9. Dividends. A dividend of £400,000 (2023: £300,000) was paid in the year.")
	w.Paragraph("17. Borrowings. The company has no bank borrowings. An overdraft facility of £500,000 with Marches Bank plc was undrawn throughout the year.")
	w.Heading("Independent auditor's report to the members of Wrenfield Veterinary Systems Ltd", 13, 14)
	w.Paragraph("In our opinion the financial statements give a true and fair view of the state of the company's affairs as at 31 December 2024 and of its profit for the year then ended, and have been properly prepared in accordance with United Kingdom Generally Accepted Accounting Practice, including FRS 102. We have concluded that the directors' use of the going concern basis of accounting in the preparation of the financial statements is appropriate.")
	w.Paragraph("Bethan Lloyd-Parry FCA (Senior Statutory Auditor), for and on behalf of Severn Gorge Audit LLP, Chartered Accountants and Statutory Auditor, Telford, 28 March 2025")
	return w.Bytes()
}

func wrenfieldAccounts() []byte {
	x := xlsx("Wrenfield Veterinary Systems management accounts June 2025", "Owain Bright", "2025-07-09T08:30:00Z")
	x.Sheet("FY2024 by quarter", [][]any{
		{"£000", "Q1 2024", "Q2 2024", "Q3 2024", "Q4 2024", "FY2024"},
		{"Revenue", 2918, 3041, 3122, 3266, 12347},
		{"Cost of sales", -852, -881, -903, -945, -3581},
		{"Gross profit", 2066, 2160, 2219, 2321, 8766},
		{"Gross margin", pct(0.708), pct(0.71), pct(0.711), pct(0.711), pct(0.71)},
		{"Overheads before D&A", -1598, -1648, -1685, -1741, -6672},
		{"EBITDA", 468, 512, 534, 580, 2094},
		{"EBITDA margin", pct(0.16), pct(0.168), pct(0.171), pct(0.178), pct(0.17)},
		{"Cash at quarter end", 2795, 2884, 3107, 3412, 3412},
		{"Practices at quarter end", 1078, 1112, 1149, 1183, 1183},
		{"Headcount at quarter end", 88, 91, 94, 96, 96},
	})
	x.Sheet("2025 by month", [][]any{
		{"£000", "Jan 2025", "Feb 2025", "Mar 2025", "Apr 2025", "May 2025", "Jun 2025", "H1 2025"},
		{"Revenue", 1092, 1071, 1138, 1124, 1163, 1187, 6775},
		{"Gross profit", 781, 765, 815, 805, 834, 851, 4851},
		{"Gross margin", pct(0.715), pct(0.714), pct(0.716), pct(0.716), pct(0.717), pct(0.717), pct(0.716)},
		{"EBITDA", 171, 158, 196, 188, 207, 215, 1135},
		{"Cash at month end", 3488, 3541, 3602, 3655, 3731, 3806, 3806},
		{"Practices at month end", 1191, 1198, 1207, 1214, 1222, 1231, 1231},
		{"Headcount at month end", 97, 97, 99, 100, 101, 103, 103},
	})
	x.Sheet("LTM", [][]any{
		{"£000", "FY2024", "less H1 2024", "add H1 2025", "LTM Jun 2025"},
		{"Revenue", 12347, -5959, 6775, 13163},
		{"EBITDA", 2094, -980, 1135, 2249},
	})
	return x.Bytes()
}
