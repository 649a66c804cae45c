package dealdocs

// tidewell: the auditor reports a material uncertainty about going
// concern; the bank's minimum cash covenant is breached and cash lasts
// under three months.
func tidewell() map[string][]byte {
	const dir = "10-tidewell-storage/"
	return map[string][]byte{
		dir + "deck.pdf":                 tidewellDeck(),
		dir + "audited-statements.docx":  tidewellAudited(),
		dir + "management-accounts.xlsx": tidewellAccounts(),
	}
}

func tidewellDeck() []byte {
	return deck("Tidewell Energy Storage Ltd", "Investor presentation", "20250623",
		slide{Title: "Battery storage for commercial sites", Points: []string{
			"Tidewell designs and installs battery energy storage systems of 100 kWh to 5 MWh for factories, farms and depots, and operates them under ten-year service contracts.",
			"Based in Southampton; 73 employees.",
		}},
		slide{Title: "Momentum", Points: []string{
			"Revenue of £6.8m in FY2024, up from £4.1m in FY2023.",
			"Order book of £14.2m at 31 May 2025.",
			"Term loan of £4.0m from Solent Commercial Bank plc.",
		}},
		slide{Title: "The round", Points: []string{
			"Raising £12m of equity to fund working capital for the order book.",
		}},
	)
}

func tidewellAccounts() []byte {
	x := xlsx("Tidewell Energy Storage Ltd management accounts H1 2025", "Fiona Grant", "2025-07-08T09:00:00Z")
	x.Sheet("Cash 2025", [][]any{
		{"£", "Jan", "Feb", "Mar", "Apr", "May", "Jun"},
		{"Opening cash", 2810000, 2472000, 2160000, 1811000, 1490000, 1158000},
		{"Net cash outflow", -338000, -312000, -349000, -321000, -332000, -338000},
		{"Closing cash", 2472000, 2160000, 1811000, 1490000, 1158000, 820000},
	})
	x.Sheet("P&L H1 2025", [][]any{
		{"£", "H1 2025"},
		{"Revenue", 3240000},
		{"Gross profit", 580000},
		{"EBITDA", -1610000},
		{"Term loan outstanding at 30 June 2025", 4000000},
	})
	return x.Bytes()
}

func tidewellAudited() []byte {
	d := docx("Tidewell Energy Storage Ltd Financial Statements 2024", "Tidewell Energy Storage Ltd")
	d.Title("Tidewell Energy Storage Ltd: Report and financial statements for the year ended 31 December 2024")
	d.P("Registered in England and Wales, company number 11902466.")
	d.H1("Income statement")
	d.Table([]int{5000, 2000, 2000}, [][]string{
		{"£", "2024", "2023"},
		{"Revenue", "6,812,000", "4,096,000"},
		{"Gross profit", "1,226,000", "903,000"},
		{"EBITDA", "(2,904,000)", "(2,210,000)"},
		{"Loss for the year", "(3,611,000)", "(2,745,000)"},
	})
	d.H1("Balance sheet at 31 December (extract)")
	d.Table([]int{5000, 2000, 2000}, [][]string{
		{"£", "2024", "2023"},
		{"Cash at bank", "2,810,000", "5,940,000"},
		{"Term loan, Solent Commercial Bank plc", "(4,000,000)", "(4,000,000)"},
		{"Net assets / (liabilities)", "(1,140,000)", "2,471,000"},
	})
	d.H1("Borrowings")
	d.P("The term loan of £4,000,000 from Solent Commercial Bank plc is repayable in 2028. Its covenants require cash of at least £2,000,000 at each month end and, from 31 December 2024, EBITDA of at least nil for each rolling twelve months. The EBITDA covenant was breached at 31 December 2024; the bank has waived the breach until 30 September 2025, after which the loan becomes repayable on demand if the breach continues.")
	d.H1("Going concern")
	d.P("The directors' forecasts show that the company needs new equity funding of at least £8 million by September 2025 to meet its obligations and the covenants of its term loan. Discussions with investors are in progress, but no funding is committed.")
	d.H1("Independent auditor's report to the members of Tidewell Energy Storage Ltd")
	d.P("Opinion: in our opinion the financial statements give a true and fair view of the state of the company's affairs as at 31 December 2024 and of its loss for the year then ended.")
	d.P("**Material uncertainty related to going concern.** We draw attention to the going concern note, which indicates that the company needs new equity funding by September 2025 that is not committed, and that its term loan covenant has been breached and waived only until 30 September 2025. These events or conditions indicate that a material uncertainty exists that may cast significant doubt on the company's ability to continue as a going concern. Our opinion is not modified in respect of this matter.")
	d.P("Rachel Onslow (Senior Statutory Auditor), for and on behalf of Itchen Lane LLP, Statutory Auditor, Southampton, 16 May 2025")
	return d.Bytes("2025-05-16T09:00:00Z")
}
