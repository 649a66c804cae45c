package dealdocs

// brindle: seven months of cash at the current burn, and a negative
// margin; the accounts in thousands agree with the bank data in pounds.
func brindle() map[string][]byte {
	const dir = "06-brindle-robotics/"
	return map[string][]byte{
		dir + "deck.pdf":                 brindleDeck(),
		dir + "management-accounts.xlsx": brindleAccounts(),
	}
}

func brindleDeck() []byte {
	return deck("Brindle Robotics Ltd", "Series A investor presentation", "20250714",
		slide{Title: "Picking robots for small warehouses", Points: []string{
			"Brindle builds autonomous mobile picking robots leased to warehouses of 2,000 to 10,000 square metres, for a monthly fee per robot.",
			"Founded in Sheffield in 2021 by Dr Owen Price and Leah Brindle; 64 employees.",
			"212 robots deployed at 19 customer sites at 30 June 2025.",
		}},
		slide{Title: "Financials", Table: [][]string{
			{"Unaudited management accounts"},
			{"£m", "FY2024", "H1 2025"},
			{"Revenue", "2.31", "1.38"},
			{"Gross margin", "21%", "24%"},
			{"EBITDA", "(4.61)", "(2.24)"},
		}, Widths: []float64{227, 120, 120}},
		slide{Title: "Cash", Points: []string{
			"Cash of £3.1m at 30 June 2025.",
			"Average net cash burn of £0.42m a month in the first half of 2025.",
			"Runway of seven months at the current burn.",
		}},
		slide{Title: "The round", Points: []string{
			"Raising £8m Series A to fund 300 more robots and reach EBITDA break-even in 2027.",
		}},
	)
}

func brindleAccounts() []byte {
	x := xlsx("Brindle Robotics Ltd management accounts", "Leah Brindle", "2025-07-09T09:00:00Z")
	x.Sheet("P&L", [][]any{
		{"£'000", "FY2024", "H1 2025"},
		{"Revenue", 2310, 1380},
		{"Cost of sales", 1825, 1049},
		{"Gross profit", 485, 331},
		{"Gross margin", pct(0.21), pct(0.24)},
		{"Operating expenses", 5095, 2571},
		{"EBITDA", -4610, -2240},
	})
	x.Sheet("Cash", [][]any{
		{"£'000", "Jan 2025", "Feb 2025", "Mar 2025", "Apr 2025", "May 2025", "Jun 2025"},
		{"Opening cash", 5624, 5223, 4789, 4370, 3943, 3533},
		{"Net cash outflow", -401, -434, -419, -427, -410, -429},
		{"Closing cash", 5223, 4789, 4370, 3943, 3533, 3104},
	})
	return x.Bytes()
}
