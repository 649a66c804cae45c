package dealdocs

// halden: the audited statements are in thousands of euros and the deck
// in millions, and they agree; one customer buys 41% of revenue.
func halden() map[string][]byte {
	const dir = "03-halden-bioprocess/"
	return map[string][]byte{
		dir + "deck.pdf":                haldenDeck(),
		dir + "audited-statements.docx": haldenAudited(),
	}
}

func haldenDeck() []byte {
	return deck("Halden Bioprocess GmbH", "Management presentation", "20250620",
		slide{Title: "The company", Points: []string{
			"Halden makes single-use bioreactor bags and tubing assemblies for biopharmaceutical manufacturers, in a clean-room plant in Freiburg im Breisgau.",
			"Founded in 2009 by Dr. Katrin Halden; 58 employees.",
			"Rhenus Pharma AG, our largest customer, buys about 40% of our output under a supply agreement that runs to 31 December 2027.",
		}},
		slide{Title: "Financial summary", Table: [][]string{
			{"Audited, years ended 31 December (€m)"},
			{"€m", "2023", "2024"},
			{"Revenue", "7.21", "8.45"},
			{"EBITDA", "1.02", "1.27"},
			{"Net income", "0.41", "0.56"},
			{"Cash at year end", "3.12", "3.94"},
		}, Widths: []float64{227, 120, 120}, Note: "Revenue grew 17.2% in 2024. Bank debt at 31 December 2024 was €1.5m."},
		slide{Title: "Transaction", Points: []string{
			"The founder seeks a majority investor to fund a second clean-room line (capital expenditure of €4.0m).",
		}},
	)
}

func haldenAudited() []byte {
	d := docx("Halden Bioprocess GmbH Jahresabschluss 2024 (English translation)", "Breisgau Revision GmbH")
	d.Title("Halden Bioprocess GmbH: Financial statements for the year ended 31 December 2024")
	d.P("Convenience translation of the audited German financial statements (HGB). All amounts in thousands of euros (€'000) unless stated otherwise.")
	d.H1("Income statement")
	d.Table([]int{4200, 2400, 2400}, [][]string{
		{"€'000", "2024", "2023"},
		{"Revenue", "8,450", "7,210"},
		{"Cost of materials", "(4,563)", "(3,965)"},
		{"Gross profit", "3,887", "3,245"},
		{"Personnel and other operating expenses", "(2,617)", "(2,225)"},
		{"EBITDA", "1,270", "1,020"},
		{"Depreciation", "(410)", "(380)"},
		{"Interest", "(60)", "(70)"},
		{"Income taxes", "(240)", "(160)"},
		{"Net income", "560", "410"},
	})
	d.H1("Balance sheet at 31 December (extract)")
	d.Table([]int{4200, 2400, 2400}, [][]string{
		{"€'000", "2024", "2023"},
		{"Cash and bank balances", "3,940", "3,120"},
		{"Bank loans", "1,500", "1,900"},
		{"Equity", "5,210", "4,650"},
	})
	d.H1("Notes")
	d.P("Revenue by customer: one customer, Rhenus Pharma AG, accounted for €3,430 thousand or 41% of revenue (2023: €2,740 thousand, 38%). The supply agreement with Rhenus Pharma AG runs until 31 December 2027 and may be terminated by either party on twelve months' notice after 31 December 2026.")
	d.P("Employees: the company employed an average of 55 people in 2024.")
	d.H1("Independent auditor's report")
	d.P("We have audited the financial statements of Halden Bioprocess GmbH for the financial year from 1 January to 31 December 2024. In our opinion the financial statements comply in all material respects with German commercial law and give a true and fair view of the company's assets, liabilities, financial position and results of operations.")
	d.P("Freiburg im Breisgau, 14 April 2025. Breisgau Revision GmbH Wirtschaftsprüfungsgesellschaft, Markus Vogt, Wirtschaftsprüfer")
	return d.Bytes("2025-04-14T09:00:00Z")
}
