package roomdocs

// marramba: the deck's FY2024 revenue of A$26.1m is the second quarter of
// 2024, the quarter of a one-off 4.1 MW project, multiplied by four. The
// audited revenue for the year is A$19.9m, so the deck overstates it by
// 31%.
func marramba() map[string][]byte {
	const dir = "04-marramba-solar/"
	return map[string][]byte{
		dir + "deck.pdf":                 marrambaDeck(),
		dir + "audited-statements.pdf":   marrambaAudited(),
		dir + "management-accounts.xlsx": marrambaAccounts(),
	}
}

func marrambaDeck() []byte {
	return deck("Marramba Solar Pty Ltd", "Investment opportunity", "20250519",
		slide{Title: "Overview", Points: []string{
			"Design, installation and maintenance of rooftop solar and battery systems for farms, cold stores, warehouses and light industry in south-east Queensland and northern New South Wales.",
			"41 MW installed across 312 commercial sites since 2014; 89 staff, including 52 licensed electricians and installers, at depots in Brisbane, Toowoomba and Lismore.",
			"Clean Energy Council accredited; approved installer for the Queensland Government's battery rebate for business.",
		}},
		slide{Title: "Financial highlights", Table: [][]string{
			{"Years ended 31 December"},
			{"A$", "FY2023", "FY2024"},
			{"Revenue", "A$15.1m", "A$26.1m"},
			{"Revenue growth", "", "72%"},
			{"Gross margin", "26.0%", "27.0%"},
			{"EBITDA margin", "6.1%", "8.5%"},
		}, Widths: []float64{227, 120, 120}, Note: "Note: FY2024 revenue is annualised on Q2 2024 revenue of A$6.52m, reflecting the installation capacity the business has reached."},
		slide{Title: "Growth drivers", Points: []string{
			"Pipeline of A$38m of quoted commercial projects at 30 April 2025, of which A$11m is at final negotiation.",
			"Network tariffs for large users in Queensland rose 14% on 1 July 2024, shortening payback on a typical 250 kW system to under five years.",
			"Recurring operations and maintenance contracts on 188 sites.",
		}},
		slide{Title: "The opportunity", Points: []string{
			"The founders, Cal Nguyen and Bree Maddox, are seeking a partner to acquire 60% of the company and fund expansion into the Darling Downs and Wide Bay regions.",
		}},
	)
}

func marrambaAudited() []byte {
	w := pdf("Marramba Solar Pty Ltd Financial Report 2024", "Marramba Solar Pty Ltd  |  ABN 61 148 392 705  |  Financial report for the year ended 31 December 2024", "20250321")
	w.Heading("Marramba Solar Pty Ltd", 22, 0)
	w.Heading("ABN 61 148 392 705. Financial report for the year ended 31 December 2024", 13, 0)
	w.Heading("Directors' report (extract)", 15, 14)
	w.Paragraph("The principal activity of the company during the year was the design, installation and maintenance of commercial solar photovoltaic and battery storage systems. Revenue for the year was $19,904,362 (2023: $15,122,480), an increase of 31.6%, which included the 4.1 MW Darling Downs Cold Storage project completed in the June quarter. The profit of the company after income tax was $733,963 (2023: $248,607).")
	w.Table("Statement of profit or loss for the year ended 31 December 2024", []float64{247, 110, 110}, [][]string{
		{"$", "2024", "2023"},
		{"Revenue from contracts with customers", "19,904,362", "15,122,480"},
		{"Cost of sales", "(14,530,184)", "(11,190,635)"},
		{"Gross profit", "5,374,178", "3,931,845"},
		{"Employee benefits and administrative expenses", "(3,682,040)", "(3,010,292)"},
		{"Earnings before interest, tax, depreciation and amortisation", "1,692,138", "921,553"},
		{"Depreciation and amortisation", "(512,400)", "(448,000)"},
		{"Finance costs", "(131,220)", "(118,400)"},
		{"Profit before income tax", "1,048,518", "355,153"},
		{"Income tax expense", "(314,555)", "(106,546)"},
		{"Profit for the year", "733,963", "248,607"},
	})
	w.Table("Statement of financial position at 31 December 2024 (extract)", []float64{247, 110, 110}, [][]string{
		{"$", "2024", "2023"},
		{"Cash and cash equivalents", "2,316,090", "1,487,220"},
		{"Trade and other receivables", "3,104,550", "2,268,900"},
		{"Contract assets", "1,212,300", "846,100"},
		{"Equipment finance liabilities", "(1,450,000)", "(1,380,000)"},
		{"Net assets", "6,214,870", "5,480,907"},
	})
	w.Heading("Notes to the financial statements (extracts)", 15, 14)
	w.Paragraph("2. Revenue. Revenue from installation contracts is recognised over time by reference to the costs incurred on each contract. Revenue by quarter (unaudited): March $4,212,000, June $6,518,000, September $4,467,000, December $4,707,000. The June quarter included $2,310,000 from the Darling Downs Cold Storage project, a single contract that is not expected to recur at that scale. No customer other than Darling Downs Cold Storage Pty Ltd (11.6% of revenue) accounted for more than 10% of revenue.")
	w.Paragraph("12. Equipment finance. Vehicles and lifting equipment are financed through chattel mortgages with Moreton Equipment Finance, repayable over four to five years at fixed rates between 6.9% and 8.4%.")
	w.Paragraph("19. Employees. The company employed 84 people at 31 December 2024 (2023: 71).")
	w.Heading("Independent auditor's report to the members of Marramba Solar Pty Ltd", 13, 14)
	w.Paragraph("Opinion. We have audited the financial report of Marramba Solar Pty Ltd, which comprises the statement of financial position as at 31 December 2024, the statement of profit or loss, the statement of changes in equity and the statement of cash flows for the year then ended, and notes to the financial statements. In our opinion the accompanying financial report presents fairly, in all material respects, the financial position of the company as at 31 December 2024 and its financial performance for the year then ended in accordance with Australian Accounting Standards - Simplified Disclosures and the Corporations Act 2001.")
	w.Paragraph("Brisbane River Assurance, Chartered Accountants. Siobhan Tierney, Partner. Brisbane, 21 March 2025.")
	return w.Bytes()
}

func marrambaAccounts() []byte {
	x := xlsx("Marramba Solar quarterly management accounts", "Jess Kowalczyk", "2025-07-10T00:30:00Z")
	x.Sheet("Quarterly P&L", [][]any{
		{"A$000", "Q1 2024", "Q2 2024", "Q3 2024", "Q4 2024", "FY2024", "Q1 2025", "Q2 2025", "H1 2025"},
		{"Revenue", 4212, 6518, 4467, 4707, 19904, 4388, 4951, 9339},
		{"Gross profit", 1095, 1825, 1197, 1257, 5374, 1163, 1337, 2500},
		{"Gross margin", pct(0.26), pct(0.28), pct(0.268), pct(0.267), pct(0.27), pct(0.265), pct(0.27), pct(0.268)},
		{"Overheads", -883, -924, -921, -954, -3682, -915, -976, -1891},
		{"EBITDA", 212, 901, 276, 303, 1692, 248, 361, 609},
		{"EBITDA margin", pct(0.05), pct(0.138), pct(0.062), pct(0.064), pct(0.085), pct(0.057), pct(0.073), pct(0.065)},
	})
	x.Sheet("Balance sheet KPIs", [][]any{
		{"A$000", "31 Dec 2024", "31 Mar 2025", "30 Jun 2025"},
		{"Cash at bank", 2316, 2041, 2288},
		{"Equipment finance", 1450, 1392, 1336},
		{"Headcount", 84, 86, 89},
		{"MW installed in the quarter", 3.4, 2.6, 3.1},
	})
	return x.Bytes()
}
