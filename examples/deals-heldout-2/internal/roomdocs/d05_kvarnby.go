package roomdocs

// kvarnby: in the management accounts the four quarters of 2024 add up to
// SEK 84,130 thousand against a stated full year of SEK 86,130 thousand
// (the third quarter was typed as 19,305 for 21,305); the full year agrees
// with the deck and the customer list. The largest customer took 45.2% of
// 2024 net sales.
func kvarnby() map[string][]byte {
	const dir = "05-kvarnby-precision/"
	return map[string][]byte{
		dir + "deck.pdf":                      kvarnbyDeck(),
		dir + "management-accounts.xlsx":      kvarnbyAccounts(),
		dir + "board-minutes-2025-04-24.docx": kvarnbyMinutes(),
	}
}

func kvarnbyDeck() []byte {
	return deck("Kvarnby Precision AB", "Company presentation", "20250603",
		slide{Title: "Kvarnby in brief", Points: []string{
			"Contract manufacturer of CNC-machined steel and aluminium components for heavy trucks, mining equipment, hydraulics and marine propulsion, from a 14,000 m2 plant in Eskilstuna, Sweden.",
			"Founded in 1974; owned since 2008 by the Lindgren family.",
			"121 employees; 46 machining centres, including nine five-axis cells with robot loading that run unmanned overnight.",
			"Certified to IATF 16949, ISO 9001 and ISO 14001.",
		}},
		slide{Title: "Financial summary", Table: [][]string{
			{"Years ended 31 December (SEK m)"},
			{"SEK m", "FY2023", "FY2024"},
			{"Net sales", "79.4", "86.1"},
			{"Gross profit", "20.2", "22.4"},
			{"Gross margin", "25.4%", "26.0%"},
			{"EBITDA", "9.6", "10.9"},
			{"EBITDA margin", "12.1%", "12.7%"},
		}, Widths: []float64{227, 120, 120}, Note: "First half of 2025: net sales of SEK 46.4m and EBITDA of SEK 5.4m (unaudited)."},
		slide{Title: "Customers", Points: []string{
			"Long-term relationships with Nordic OEMs: Nordvik Trucks (since 2009), Bergslag Mining Equipment (since 2014), Hallstavik Hydraulics and Lindo Marine Propulsion.",
			"Order backlog of SEK 41m at 31 May 2025.",
		}},
		slide{Title: "Investment case", Points: []string{
			"The owners are looking for a buyer who can take the company into the European defence and rail supply chains, where the plant's five-axis capacity is in short supply.",
		}},
	)
}

func kvarnbyAccounts() []byte {
	x := xlsx("Kvarnby Precision AB management accounts", "Elin Sjöberg", "2025-07-11T06:00:00Z")
	x.Sheet("Resultat per kvartal", [][]any{
		{"SEK 000", "FY2023", "Q1 2024", "Q2 2024", "Q3 2024", "Q4 2024", "FY2024", "Q1 2025", "Q2 2025", "H1 2025"},
		{"Net sales", 79420, 21460, 22815, 19305, 20550, 86130, 22940, 23480, 46420},
		{"Cost of goods sold", -59240, -15880, -16885, -15765, -15208, -63738, -17090, -17540, -34630},
		{"Gross profit", 20180, 5580, 5930, 5540, 5342, 22392, 5850, 5940, 11790},
		{"Gross margin", pct(0.254), pct(0.26), pct(0.26), pct(0.26), pct(0.26), pct(0.26), pct(0.255), pct(0.253), pct(0.254)},
		{"Overheads", -10570, -2790, -2920, -2880, -2892, -11482, -3140, -3250, -6390},
		{"EBITDA", 9610, 2790, 3010, 2660, 2450, 10910, 2710, 2690, 5400},
		{"EBITDA margin", pct(0.121), pct(0.13), pct(0.132), pct(0.125), pct(0.119), pct(0.127), pct(0.118), pct(0.115), pct(0.116)},
		{"Headcount at period end", 114, 115, 117, 118, 118, 118, 119, 121, 121},
	})
	x.Sheet("Balansräkning", [][]any{
		{"SEK 000", "31 Dec 2024", "31 Mar 2025", "30 Jun 2025"},
		{"Cash and bank", 6840, 7215, 7930},
		{"Bank loans", 24500, 23750, 23000},
		{"Order backlog", 38600, 40200, 41300},
	})
	return x.Bytes()
}

func kvarnbyMinutes() []byte {
	d := docx("Kvarnby Precision AB styrelseprotokoll 2025-04-24", "Elin Sjöberg")
	d.Title("Kvarnby Precision AB (556318-4472): minutes of the board meeting held in Eskilstuna on 24 April 2025")
	d.P("**Present:** Gunnar Lindgren (chair), Karin Lindgren Åberg, Mats Holmqvist (independent), Johan Eklöf (managing director). **Secretary:** Elin Sjöberg (CFO).")
	d.H1("§1 Opening and agenda")
	d.P("The chair opened the meeting. The agenda was approved. Mats Holmqvist was appointed to check the minutes together with the chair.")
	d.H1("§2 First quarter of 2025")
	d.P("The CFO presented the result for the first quarter: net sales of SEK 22.9m and EBITDA of SEK 2.7m, in line with budget. The increase in raw material costs for aluminium billet has been passed on to customers with a lag of one quarter.")
	d.H1("§3 Nordvik Trucks AB")
	d.P("The managing director reported on the negotiations with Nordvik Trucks AB. Nordvik accounted for SEK 38.9m, or 45% of net sales, in 2024 and for a similar share in the first quarter of 2025. The framework supply agreement expires on 31 December 2025 and Nordvik has proposed a new three-year agreement with annual price reductions of 3%.")
	d.P("Nordvik's purchasing director has told the managing director that Nordvik is qualifying a second supplier in Poland for the cab-mount brackets, which represent about SEK 12m of Kvarnby's annual sales to Nordvik, and expects to move up to half of those volumes in 2026. The loss of Nordvik as a customer, or a large reduction in its volumes, would leave the plant significantly under-used.")
	d.P("The board discussed whether to accept the price reductions in exchange for a volume commitment. Mats Holmqvist pointed out that no other customer accounts for more than 11% of net sales and that the company's sales effort should be directed at reducing its dependence on one customer.")
	d.H1("§4 Resolutions")
	d.List(true,
		"The managing director is authorised to negotiate a new agreement with Nordvik on the basis of price reductions of no more than 2% a year in exchange for a minimum annual volume.",
		"A sales plan for defence and rail customers is to be presented at the June meeting.",
		"The board approved the investment of SEK 6.8m in a second robot-loaded five-axis cell, subject to financing from the bank.",
	)
	d.H1("§5 Closing")
	d.P("The chair closed the meeting.")
	return d.Bytes("2025-04-25T12:00:00Z")
}
