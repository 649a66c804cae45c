package dealdocs

// ferncliff: the deck's and accounts' latest figures are to June 2024, a
// year before the as-of date; the minutes disclose a claim in the High
// Court.
func ferncliff() map[string][]byte {
	const dir = "07-ferncliff-dental/"
	return map[string][]byte{
		dir + "deck.pdf":                      ferncliffDeck(),
		dir + "management-accounts.xlsx":      ferncliffAccounts(),
		dir + "board-minutes-2025-04-09.docx": ferncliffMinutes(),
	}
}

var ferncliffRevenue = []int{741000, 752000, 761000, 770000, 748000, 702000, 771000, 779000, 790000, 782000, 797000, 807000}

func ferncliffDeck() []byte {
	return deck("Ferncliff Dental Labs Ltd", "Investor presentation", "20240916",
		slide{Title: "The UK's independent dental laboratory group", Points: []string{
			"Ferncliff makes crowns, bridges, dentures and clear aligners for dental practices from four laboratories in Leeds, Derby, Swindon and Exeter.",
			"1,140 dental practices ordered from us in the twelve months to 30 June 2024.",
			"186 employees, of whom 142 are dental technicians.",
		}},
		slide{Title: "Financial performance", Table: [][]string{
			{"Management accounts (£m)"},
			{"£m", "FY2023", "LTM June 2024"},
			{"Revenue", "8.6", "9.2"},
			{"EBITDA", "1.3", "1.5"},
			{"EBITDA margin", "15.1%", "16.3%"},
		}, Widths: []float64{227, 120, 120}, Note: "The latest figures are for the twelve months to 30 June 2024."},
		slide{Title: "Opportunity", Points: []string{
			"Consolidate the fragmented UK laboratory market: about 900 laboratories, most with fewer than ten staff.",
			"Seeking £10m to fund the acquisition of three laboratories identified in the North West.",
		}},
	)
}

func ferncliffAccounts() []byte {
	rows := [][]any{{"Month", "Revenue (£)"}}
	total := 0
	for i, r := range ferncliffRevenue {
		m, y := 7+i, 2023
		if m > 12 {
			m, y = m-12, 2024
		}
		rows = append(rows, []any{monthID(y, m), r})
		total += r
	}
	rows = append(rows, []any{"LTM to June 2024", total})
	x := xlsx("Ferncliff Dental Labs Ltd management accounts to June 2024", "Ruth Okonjo", "2024-07-15T09:00:00Z")
	x.Sheet("Revenue LTM Jun 2024", rows)
	x.Sheet("Summary LTM Jun 2024", [][]any{
		{"£, twelve months to 30 June 2024", "Amount"},
		{"Revenue", total},
		{"Gross profit", 4232000},
		{"EBITDA", 1500000},
		{"EBITDA margin", pct(0.163)},
		{"Cash at 30 June 2024", 1840000},
		{"Headcount at 30 June 2024", 186},
	})
	return x.Bytes()
}

func ferncliffMinutes() []byte {
	d := docx("Minutes of the Board of Directors, 9 April 2025", "Ruth Okonjo")
	d.Title("Ferncliff Dental Labs Ltd: Minutes of a meeting of the Board of Directors")
	d.P("Held at Unit 4, Kirkstall Forge, Leeds LS5 3BF on Wednesday 9 April 2025 at 09:30.")
	d.P("Present: Andrew Kerr (Chair), Sophie Lund (Chief Executive), Ruth Okonjo (Finance Director), David Mensah (non-executive director).")
	d.H1("1. Trading")
	d.P("Ruth Okonjo reported that trading since the year end was in line with the prior year. The management accounts for the year ended 31 December 2024 have not been finalised; she expects to circulate them, and the audit to be completed, by the end of August 2025.")
	d.H1("2. Claim by Dentek Supplies Ltd")
	d.P("Sophie Lund reported that on 3 March 2025 Dentek Supplies Ltd issued a claim in the High Court (Business and Property Courts in Leeds) for £1.6 million, alleging that the company breached the exclusive purchasing agreement of 2019 by buying zirconia blanks from other suppliers from 2022.")
	d.P("The company's solicitors, Hallam Price LLP, have filed a defence. They advise that the company has a reasonable defence but that the outcome cannot yet be predicted; no provision has been made. Legal costs to trial are estimated at £220,000.")
	d.P("David Mensah asked that the claim be disclosed to any prospective investor. The board agreed.")
	d.H1("3. Fundraising")
	d.P("The Chair reported that the investor presentation of September 2024 would be used for the next round of meetings, and that no updated figures would be prepared until the 2024 accounts are final.")
	d.H1("Actions")
	d.List(true, "Ruth Okonjo to circulate the 2024 management accounts when final.", "Sophie Lund to report on the Dentek claim at each meeting.")
	d.P("Signed: Andrew Kerr, Chair")
	return d.Bytes("2025-04-11T09:00:00Z")
}
