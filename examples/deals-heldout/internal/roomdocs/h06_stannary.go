package roomdocs

// stannary: a damages claim in the Technology and Construction Court, a
// yard leased from the founder's company above market rent, and net
// debt at 2.91 times EBITDA against a covenant of 3.00. The figures
// agree across the documents.
func stannary() map[string][]byte {
	const dir = "06-stannary-marine/"
	return map[string][]byte{
		dir + "deck.pdf":                      stannaryDeck(),
		dir + "audited-statements.pdf":        stannaryAudited(),
		dir + "management-accounts.xlsx":      stannaryAccounts(),
		dir + "board-minutes-2025-05-29.docx": stannaryMinutes(),
	}
}

func stannaryDeck() []byte {
	return deck("Stannary Marine Engineering Ltd", "Information memorandum summary", "20250714",
		slide{Title: "The business", Points: []string{
			"Fabrication, repair and refit of workboats, crew transfer vessels and pilot boats, and steelwork for offshore wind operators, from a 4.2-acre yard at Ponsharden, Falmouth, with two slipways and a 600-tonne shiplift.",
			"Founded in 1988 by Jory Tregarthen, managing director and 62% shareholder; 164 employees, 121 of them in the yard.",
			"Order book of £14.8m at 30 June 2025, of which £9.1m is for delivery in the next twelve months.",
		}},
		slide{Title: "Financial summary", Table: [][]string{
			{"Audited, years ended 31 December (£m)"},
			{"£m", "FY2023", "FY2024"},
			{"Revenue", "19.9", "21.6"},
			{"Gross margin", "25.0%", "24.0%"},
			{"EBITDA", "2.23", "2.05"},
			{"EBITDA margin", "11.2%", "9.5%"},
			{"Profit after tax", "0.82", "0.61"},
		}, Widths: []float64{227, 120, 120}, Note: "FY2024 margins were held back by fixed-price steelwork contracts priced before the 2023 steel-price rise; all such contracts were completed by March 2025."},
		slide{Title: "Trading to 30 June 2025", Points: []string{
			"Revenue of £10.4m in the first half of 2025 (H1 2024: £10.85m); EBITDA of £0.98m.",
			"Bank facilities with Westcountry Commercial Bank plc: £6.6m drawn at 30 June 2025 (term loan £5.4m, revolving credit £1.2m). Cash £0.9m.",
		}},
		slide{Title: "The transaction", Points: []string{
			"The founder is seeking a buyer for the whole company as part of his succession plan; the senior management team of four will stay.",
		}},
	)
}

func stannaryAccounts() []byte {
	x := xlsx("Stannary Marine Engineering Ltd management accounts June 2025", "Kerenza Pascoe", "2025-07-11T09:00:00Z")
	x.Sheet("Quarterly P&L", [][]any{
		{"£", "Q1 2024", "Q2 2024", "Q3 2024", "Q4 2024", "FY2024", "Q1 2025", "Q2 2025", "H1 2025"},
		{"Revenue", 5240000, 5610000, 5480000, 5310000, 21640000, 5020000, 5390000, 10410000},
		{"Gross profit", 1262000, 1351000, 1313000, 1268000, 5194000, 1180000, 1291000, 2471000},
		{"Gross margin", pct(0.241), pct(0.241), pct(0.24), pct(0.239), pct(0.24), pct(0.235), pct(0.24), pct(0.237)},
		{"Overheads before depreciation", 742000, 806000, 815000, 781000, 3144000, 720000, 776000, 1496000},
		{"EBITDA", 520000, 545000, 498000, 487000, 2050000, 460000, 515000, 975000},
		{"Headcount at quarter end", 151, 155, 158, 160, 160, 162, 164, 164},
	})
	x.Sheet("Covenants", [][]any{
		{"Covenant test (£)", "31 Dec 2024", "31 Mar 2025", "30 Jun 2025"},
		{"EBITDA, last twelve months", 2050000, 1990000, 1960000},
		{"Term loan", 5700000, 5550000, 5400000},
		{"Revolving credit facility drawn", 1200000, 1200000, 1200000},
		{"Cash at bank", 1310000, 1080000, 900000},
		{"Net debt", 5590000, 5670000, 5700000},
		{"Net debt / EBITDA (maximum 3.00x)", 2.73, 2.85, 2.91},
		{"Finance costs, last twelve months", 512000, 520000, 526000},
		{"EBITDA / finance costs (minimum 3.50x)", 4.0, 3.83, 3.73},
		{"Fall in EBITDA that would breach leverage", pct(0.091), pct(0.05), pct(0.031)},
	})
	return x.Bytes()
}

func stannaryAudited() []byte {
	w := pdf("Stannary Marine Engineering Ltd Financial Statements 2024", "Stannary Marine Engineering Ltd  |  Strategic report, directors' report and financial statements 2024", "20250417")
	w.Heading("Stannary Marine Engineering Ltd", 22, 0)
	w.Heading("Annual report and financial statements for the year ended 31 December 2024", 13, 0)
	w.Paragraph("Registered in England and Wales, company number 02287415. Registered office: Ponsharden Yard, North Parade, Falmouth TR11 2TJ.")
	w.Heading("Strategic report", 15, 14)
	w.Paragraph("Turnover rose 8.9% to £21,640,000 (2023: £19,870,000) on higher offshore wind steelwork. Gross margin fell to 24.0% (2023: 25.0%) and EBITDA to £2,050,000 (2023: £2,234,000) because of fixed-price contracts priced before steel costs rose. Profit for the year was £613,000 (2023: £819,000).")
	w.Paragraph("Principal risks: the company depends on a small number of offshore wind operators for steelwork, is exposed to fixed-price contract overruns, and must comply with the financial covenants of its bank facilities (note 14). The directors are defending a claim described in note 18.")
	w.Table("Profit and loss account", []float64{247, 110, 110}, [][]string{
		{"£", "2024", "2023"},
		{"Turnover", "21,640,000", "19,870,000"},
		{"Cost of sales", "(16,446,000)", "(14,902,000)"},
		{"Gross profit", "5,194,000", "4,968,000"},
		{"Administrative expenses before depreciation", "(3,144,000)", "(2,734,000)"},
		{"EBITDA", "2,050,000", "2,234,000"},
		{"Depreciation", "(720,000)", "(690,000)"},
		{"Operating profit", "1,330,000", "1,544,000"},
		{"Interest payable and similar charges", "(512,000)", "(470,000)"},
		{"Profit before taxation", "818,000", "1,074,000"},
		{"Tax on profit", "(205,000)", "(255,000)"},
		{"Profit for the financial year", "613,000", "819,000"},
	})
	w.Table("Balance sheet at 31 December (extract)", []float64{247, 110, 110}, [][]string{
		{"£", "2024", "2023"},
		{"Cash at bank and in hand", "1,310,000", "1,645,000"},
		{"Bank loans: term loan", "(5,700,000)", "(5,100,000)"},
		{"Bank loans: revolving credit facility", "(1,200,000)", "-"},
		{"Net assets", "5,212,000", "4,599,000"},
	})
	w.Heading("Notes to the financial statements (extracts)", 15, 14)
	w.Paragraph("14. Bank loans. On 28 June 2024 the company refinanced its borrowings with Westcountry Commercial Bank plc: a term loan of £6,000,000, repayable in quarterly instalments of £150,000 from 30 September 2024 with the balance due on 28 June 2029, and a revolving credit facility of £2,000,000, of which £1,200,000 was drawn at 31 December 2024. Both are secured by a debenture over the company's assets. The facilities require net debt of no more than 3.00 times EBITDA for the last twelve months and EBITDA of at least 3.50 times finance costs, tested quarterly. At 31 December 2024 net debt was 2.73 times EBITDA and EBITDA 4.00 times finance costs.")
	w.Paragraph("18. Contingent liabilities. In November 2024 Penwith Offshore Services Ltd issued proceedings in the Technology and Construction Court against the company claiming damages of £2,300,000 for alleged defects in welding on the hull of a crew transfer vessel refitted by the company in 2022, and for the vessel's loss of charter income while it was repaired. The company denies liability and is defending the claim. The directors, having taken legal advice, consider that it is not probable that the company will be found liable, and no provision has been made. The company's insurers have been notified.")
	w.Paragraph("21. Related party transactions. The company occupies Ponsharden Yard under a lease from Tregarthen Yard Properties Ltd, a company controlled by J. Tregarthen, a director and the majority shareholder of the company. The lease runs to 31 December 2037 with five-yearly upward-only rent reviews. Rent of £340,000 (2023: £330,000) was charged in the year; no amount was outstanding at the year end. The company also paid £48,000 (2023: £46,000) to J. Tregarthen personally for the use of a pontoon berth he owns.")
	w.Heading("Independent auditor's report to the members of Stannary Marine Engineering Ltd", 13, 14)
	w.Paragraph("In our opinion the financial statements give a true and fair view of the state of the company's affairs as at 31 December 2024 and of its profit for the year then ended, and have been properly prepared in accordance with FRS 102. In auditing the financial statements, we have concluded that the directors' use of the going concern basis of accounting is appropriate.")
	w.Paragraph("Morwenna Hicks FCA (Senior Statutory Auditor), for and on behalf of Carrick Roads Audit LLP, Statutory Auditor, Truro, 17 April 2025")
	return w.Bytes()
}

func stannaryMinutes() []byte {
	d := docx("Stannary Marine Engineering Ltd board minutes 29 May 2025", "Kerenza Pascoe")
	d.Title("Stannary Marine Engineering Ltd: minutes of a meeting of the board held at Ponsharden Yard on 29 May 2025")
	d.P("**Present:** Jory Tregarthen (managing director, in the chair), Kerenza Pascoe (finance director), Alun Pryor (operations director), Margaret Eddy (non-executive director).")
	d.H1("1. Declarations of interest")
	d.P("Mr Tregarthen declared his interest, as the controlling shareholder of Tregarthen Yard Properties Ltd, in item 4.")
	d.H1("2. Bank covenants")
	d.P("The finance director reported the covenant certificate for 31 March 2025: net debt of £5,670,000 was 2.85 times EBITDA of £1,990,000 for the last twelve months, against a maximum of 3.00 times; interest cover was 3.83 times against a minimum of 3.50 times. On the current forecast, leverage at 30 June 2025 will be about 2.9 times: a fall of about 3% (£60,000) in twelve-month EBITDA, or £180,000 more net debt, would breach the covenant. The last of the loss-making fixed-price steelwork contracts was completed in March, but the two refits booked for the third quarter will not be invoiced until October.")
	d.P("The board agreed that the finance director should ask Westcountry Commercial Bank for the leverage covenant to be reset to 3.50 times for the four tests to 31 March 2026, and should not draw further on the revolving credit facility without the board's approval.")
	d.H1("3. Penwith Offshore Services Ltd v Stannary Marine Engineering Ltd")
	d.P("The finance director reported that the Technology and Construction Court has listed the trial for March 2026. The company's solicitors, Roseland Legal LLP, consider the company has good prospects of defending the claim of £2,300,000 but estimate its own costs to trial at £180,000, of which about £65,000 has been incurred. The insurers have reserved their position on cover, citing the policy's exclusion for the cost of rectifying defective workmanship.")
	d.H1("4. Lease of Ponsharden Yard")
	d.P("Mrs Eddy noted that the independent valuation obtained at the 2022 rent review gave a market rent of £265,000 a year, against the £340,000 now paid, and that a buyer would expect the lease to be renegotiated before completion. Mr Tregarthen said he would consider a new lease at market rent as part of a sale. Mr Tregarthen did not vote on this item.")
	d.H1("5. Trading")
	d.P("April revenue was £1,740,000 and the order book stood at £15.2m. Headcount is 163.")
	return d.Bytes("2025-05-29T17:00:00Z")
}
