package dealdocs

// corvid: the deck's FY2024 revenue is higher than the management
// accounts', and no audited statements exist yet to settle it.
func corvid() map[string][]byte {
	const dir = "02-corvid-freight/"
	return map[string][]byte{
		dir + "deck.pdf":                      corvidDeck(),
		dir + "management-accounts.xlsx":      corvidAccounts(),
		dir + "board-minutes-2025-05-22.docx": corvidMinutes(),
	}
}

func corvidDeck() []byte {
	return deck("Corvid Freight Technologies B.V.", "Series B investor presentation", "20250602",
		slide{Title: "Freight audit and payment, automated", Points: []string{
			"Corvid checks carrier invoices against contracted rates and shipment events, and pays carriers on behalf of shippers.",
			"Headquartered in Rotterdam, with offices in Hamburg and Antwerp; 131 employees.",
			"148 shipper customers at 31 December 2024, across 22 countries.",
		}},
		slide{Title: "FY2024 at a glance", Points: []string{
			"Revenue of €21.8m in FY2024, up 31% on €16.6m in FY2023.",
			"Gross margin of 64%.",
			"EBITDA of €2.4m, our second profitable year.",
			"Cash of €7.9m at 30 June 2025; no bank debt.",
		}},
		slide{Title: "Why now", Points: []string{
			"EU carriers move to electronic invoicing under ViDA from 2028, which makes automated audit the default.",
			"Pipeline of €6.3m of annual contract value at 31 May 2025.",
		}},
		slide{Title: "The round", Points: []string{
			"Raising €25m Series B to expand into Poland and the Nordics.",
		}},
	)
}

func corvidAccounts() []byte {
	x := xlsx("Corvid Freight Technologies management accounts FY2024", "Sanne de Vries", "2025-02-14T09:00:00Z")
	x.Sheet("P&L FY2024", [][]any{
		{"EUR, unaudited", "Q1 2024", "Q2 2024", "Q3 2024", "Q4 2024", "FY2024"},
		{"Revenue", 4780000, 5020000, 5110000, 5390000, 20300000},
		{"Cost of sales", 1721000, 1807000, 1840000, 1942000, 7310000},
		{"Gross profit", 3059000, 3213000, 3270000, 3448000, 12990000},
		{"Gross margin", pct(0.64), pct(0.64), pct(0.64), pct(0.64), pct(0.64)},
		{"Operating expenses", 2539000, 2623000, 2660000, 2768000, 10590000},
		{"EBITDA", 520000, 590000, 610000, 680000, 2400000},
	})
	x.Sheet("KPIs", [][]any{
		{"Measure", "31 Dec 2024", "30 Jun 2025"},
		{"Customers", 148, 156},
		{"Headcount", 124, 131},
		{"Cash (EUR)", 9120000, 7940000},
	})
	return x.Bytes()
}

func corvidMinutes() []byte {
	d := docx("Minutes of the Supervisory and Management Board, 22 May 2025", "Femke Janssen")
	d.Title("Corvid Freight Technologies B.V.: Minutes of a joint meeting of the Supervisory and Management Boards")
	d.P("Held at Wilhelminakade 91, Rotterdam on Thursday 22 May 2025 at 14:00.")
	d.P("Present: Pieter Baas (Chair of the Supervisory Board), Lotte Hermans (CEO), Sanne de Vries (CFO), Jonas Keller (Supervisory Board). In attendance: Femke Janssen (secretary).")
	d.H1("1. Audit of the 2024 accounts")
	d.P("Sanne de Vries reported that the audit of the 2024 financial statements by Van Dijk & Partners Accountants had not been completed. The auditors have asked for the signed contracts and proof of delivery behind revenue recognised in the fourth quarter, and have not yet completed their testing. Completion is now expected in September 2025, after the statutory deadline; the board approved an extension request to the Chamber of Commerce.")
	d.P("Jonas Keller asked which revenue figure had been given to prospective investors. Ms de Vries said she would check and report to the board; no figure was agreed at the meeting.")
	d.H1("2. Trading")
	d.P("The CFO reported 156 customers at 30 April 2025 and cash of €8.3 million. Trading in the first four months was in line with the budget.")
	d.H1("3. Series B")
	d.P("Lotte Hermans reported that the data room would open on 2 June 2025 to three prospective lead investors.")
	d.H1("Actions")
	d.List(true, "Sanne de Vries to report the revenue figure given to investors and its basis by 13 June 2025.", "Sanne de Vries to circulate the auditors' list of open items.")
	d.P("Signed: Pieter Baas, Chair")
	return d.Bytes("2025-05-26T09:00:00Z")
}
