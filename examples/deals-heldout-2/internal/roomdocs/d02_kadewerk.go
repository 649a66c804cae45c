package roomdocs

// kadewerk: the deck's headline gross margin of 71% is the margin on
// subscriptions alone; gross profit over revenue in the audited
// statements is 64.0%. The minutes record that the scheduling engine
// depends on one co-founder.
func kadewerk() map[string][]byte {
	const dir = "02-kadewerk-planning/"
	return map[string][]byte{
		dir + "deck.pdf":                 kadewerkDeck(),
		dir + "audited-statements.docx":  kadewerkAudited(),
		dir + "management-accounts.xlsx": kadewerkAccounts(),
	}
}

func kadewerkDeck() []byte {
	return deck("Kadewerk Planning GmbH", "Investor presentation", "20250612",
		slide{Title: "Kadewerk at a glance", Points: []string{
			"Cloud scheduling and site-coordination software for building contractors: takt plans, crew and plant allocation, subcontractor hand-overs and daily site reports, on the web and on a rugged tablet app.",
			"Headquartered in Hamburg with offices in Munich and Vienna; 142 employees.",
			"1,463 construction companies use Kadewerk, from 20-person carpentry firms to three of Germany's twenty largest contractors.",
			"A €1.1bn addressable market for construction scheduling and field software in Germany, Austria and Switzerland, less than 15% of it served by cloud software today.",
		}},
		slide{Title: "Key figures", Points: []string{
			"ARR of €17.1m at 30 June 2025, up 24% year on year.",
			"Gross margin of 71% in FY2024.",
			"Cash of €7.5m at 30 June 2025 and no financial debt.",
		}},
		slide{Title: "Financial development", Table: [][]string{
			{"Years ended 31 December (€m)"},
			{"€m", "FY2023", "FY2024"},
			{"Revenue", "14.96", "18.41"},
			{"Revenue growth", "27%", "23%"},
			{"EBITDA", "1.20", "2.21"},
			{"EBITDA margin", "8.0%", "12.0%"},
		}, Widths: []float64{227, 120, 120}, Note: "FY2023 and FY2024 audited by Elbufer Treuhand GmbH (HGB)."},
		slide{Title: "Use of proceeds", Points: []string{
			"Raising €25m of growth equity to expand into Switzerland and the Netherlands and to build an estimating module.",
		}},
	)
}

func kadewerkAudited() []byte {
	d := docx("Kadewerk Planning GmbH Jahresabschluss 2024 (convenience translation)", "Elbufer Treuhand GmbH")
	d.Title("Kadewerk Planning GmbH, Hamburg: annual financial statements for the financial year from 1 January to 31 December 2024")
	d.P("Convenience translation of the German-language annual financial statements and management report. Only the German version is authoritative.")
	d.H1("Management report (extract)")
	d.P("Revenue rose by 23.1% to TEUR 18,412 (prior year: TEUR 14,960), of which TEUR 15,240 was subscription revenue and TEUR 3,172 revenue from implementation, training and other services. Gross profit on sales increased to TEUR 11,784 (prior year: TEUR 9,425). The result from ordinary activities improved to TEUR 1,382 (prior year: TEUR 500) and the company closed the year with net income of TEUR 983 (prior year: TEUR 342).")
	d.P("At the end of the year the company employed 131 people (prior year: 109). Cash and cash equivalents amounted to TEUR 6,912 (prior year: TEUR 5,840); the company has no liabilities to banks.")
	d.H1("Income statement for 2024 (cost of sales method, § 275(3) HGB)")
	d.Table([]int{5200, 1900, 1900}, [][]string{
		{"in thousands of euros (TEUR)", "2024", "2023"},
		{"1. Revenue", "18,412", "14,960"},
		{"2. Cost of sales", "(6,628)", "(5,535)"},
		{"3. Gross profit on sales", "11,784", "9,425"},
		{"4. Selling expenses", "(5,482)", "(4,610)"},
		{"5. General administrative expenses", "(2,126)", "(1,872)"},
		{"6. Research and development expenses", "(2,936)", "(2,540)"},
		{"7. Other operating income", "206", "148"},
		{"8. Other operating expenses", "(64)", "(51)"},
		{"9. Operating result", "1,382", "500"},
		{"10. Interest and similar income", "41", "18"},
		{"11. Interest and similar expenses", "(12)", "(15)"},
		{"12. Taxes on income", "(428)", "(161)"},
		{"13. Net income for the year", "983", "342"},
	})
	d.H1("Balance sheet at 31 December 2024 (extract)")
	d.Table([]int{5200, 1900, 1900}, [][]string{
		{"TEUR", "31 Dec 2024", "31 Dec 2023"},
		{"Intangible assets", "1,864", "1,522"},
		{"Trade receivables", "2,417", "1,980"},
		{"Cash on hand and bank balances", "6,912", "5,840"},
		{"Deferred income", "(4,730)", "(3,805)"},
		{"Equity", "5,987", "5,004"},
	})
	d.H1("Notes (extracts)")
	d.P("Depreciation and amortisation of TEUR 832 (prior year: TEUR 701) are included in the functional costs. Cost of sales comprises hosting, third-party software licences, customer support and the personnel costs of the implementation and training teams.")
	d.P("Revenue by activity: subscriptions TEUR 15,240 (prior year: TEUR 12,115); services TEUR 3,172 (prior year: TEUR 2,845). Revenue by region: Germany 81%, Austria 14%, Switzerland 5%.")
	d.P("Managing directors: Dr. Ansgar Behrendt (Chief Technology Officer), Henrike Lüdemann (Chief Executive Officer), Malte Christiansen (Chief Financial Officer).")
	d.H1("Independent auditor's report")
	d.P("In our opinion, on the basis of the knowledge obtained in the audit, the accompanying annual financial statements comply, in all material respects, with the requirements of German commercial law applicable to corporations and give a true and fair view of the assets, liabilities and financial position of the company as at 31 December 2024 and of its financial performance for the financial year from 1 January to 31 December 2024. The management report as a whole provides an appropriate view of the company's position.")
	d.P("Hamburg, 14 March 2025. Elbufer Treuhand GmbH Wirtschaftsprüfungsgesellschaft. Jens Ohlsen, Wirtschaftsprüfer; Katrin Voss, Wirtschaftsprüferin.")
	return d.Bytes("2025-03-14T10:00:00Z")
}

func kadewerkAccounts() []byte {
	x := xlsx("Kadewerk Planning GmbH Monatsbericht Juni 2025", "Malte Christiansen", "2025-07-08T07:45:00Z")
	x.Sheet("P&L", [][]any{
		{"TEUR", "H1 2024", "H2 2024", "FY2024", "Q1 2025", "Q2 2025", "H1 2025"},
		{"Subscription revenue", 7180, 8060, 15240, 4118, 4297, 8415},
		{"Services revenue", 1516, 1656, 3172, 794, 809, 1603},
		{"Total revenue", 8696, 9716, 18412, 4912, 5106, 10018},
		{"Cost of subscription", -2110, -2310, -4420, -1178, -1226, -2404},
		{"Cost of services", -1062, -1146, -2208, -566, -571, -1137},
		{"Gross profit", 5524, 6260, 11784, 3168, 3309, 6477},
		{"Gross margin", pct(0.635), pct(0.644), pct(0.64), pct(0.645), pct(0.648), pct(0.647)},
		{"Subscription gross margin", pct(0.706), pct(0.713), pct(0.71), pct(0.714), pct(0.715), pct(0.714)},
		{"Operating expenses before D&A", -4562, -5008, -9570, -2656, -2735, -5391},
		{"EBITDA", 962, 1252, 2214, 512, 574, 1086},
	})
	x.Sheet("KPIs", [][]any{
		{"", "31 Dec 2024", "31 Mar 2025", "30 Jun 2025"},
		{"ARR (TEUR)", 15820, 16410, 17080},
		{"Customers", 1391, 1428, 1463},
		{"Headcount", 131, 137, 142},
		{"Cash (TEUR)", 6912, 7208, 7455},
	})
	return x.Bytes()
}
