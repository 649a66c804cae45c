package dealdocs

// sable: the only source of an ARR figure is a press interview.
func sable() map[string][]byte {
	const dir = "05-sable-security/"
	return map[string][]byte{
		dir + "deck.pdf":                 sableDeck(),
		dir + "management-accounts.xlsx": sableAccounts(),
	}
}

func sableDeck() []byte {
	return deck("Sable Security Inc.", "Company overview for investors", "20250610",
		slide{Title: "Email security for mid-market companies", Points: []string{
			"Sable detects business email compromise and invoice fraud with models trained on each customer's own mail flow.",
			"Headquartered in Austin, Texas; 162 employees.",
			"410 customers at 31 December 2024, none above 5% of revenue.",
		}},
		slide{Title: "Financial performance", Table: [][]string{
			{"Years ended 31 December (US$m)"},
			{"US$m", "FY2023", "FY2024"},
			{"Revenue", "11.0", "17.2"},
			{"Gross margin", "79%", "81%"},
			{"EBITDA", "(1.4)", "0.9"},
		}, Widths: []float64{227, 120, 120}, Note: "Revenue grew 56% in FY2024."},
		slide{Title: "Funding", Points: []string{
			"Series C of $45m closed in March 2025 at a post-money valuation of $240m, led by Lonestar Growth Partners.",
		}},
	)
}

func sableAccounts() []byte {
	x := xlsx("Sable Security Inc. FY2024 management accounts", "Ravi Menon", "2025-02-20T09:00:00Z")
	x.Sheet("Income statement FY2024", [][]any{
		{"US$, unaudited", "Q1", "Q2", "Q3", "Q4", "FY2024"},
		{"Subscription revenue", 3820000, 4110000, 4460000, 4810000, 17200000},
		{"Cost of revenue", 726000, 781000, 847000, 914000, 3268000},
		{"Gross profit", 3094000, 3329000, 3613000, 3896000, 13932000},
		{"Gross margin", pct(0.81), pct(0.81), pct(0.81), pct(0.81), pct(0.81)},
		{"Operating expenses", 2944000, 3119000, 3363000, 3606000, 13032000},
		{"EBITDA", 150000, 210000, 250000, 290000, 900000},
	})
	x.Sheet("Headcount", [][]any{
		{"Function", "31 Dec 2024"},
		{"Engineering and research", 68},
		{"Sales and marketing", 52},
		{"Customer success", 21},
		{"General and administrative", 15},
		{"Total", 156},
	})
	return x.Bytes()
}
