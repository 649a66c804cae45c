package roomdocs

// fallowfield: the presentation's revenue growth does not follow from
// its own two revenue figures, and the only annual recurring revenue in
// the room is what the chief executive told a newspaper.
func fallowfield() map[string][]byte {
	const dir = "04-fallowfield-compliance/"
	return map[string][]byte{
		dir + "deck.pdf":                 fallowfieldDeck(),
		dir + "management-accounts.xlsx": fallowfieldAccounts(),
	}
}

func fallowfieldDeck() []byte {
	return deck("Fallowfield Compliance Ltd", "Investor presentation", "20250703",
		slide{Title: "Fallowfield in one page", Points: []string{
			"Software that keeps small and mid-sized financial advisers, mortgage brokers and consumer-credit firms compliant with FCA rules: Consumer Duty monitoring, file checks, complaints handling and regulatory returns.",
			"Founded in Manchester in 2018 by Nadia Rahman (CEO), a former FCA supervisor, and Owen Clegg (CTO). 55 employees.",
			"194 regulated firms as customers at 30 June 2025, covering 6,800 advisers.",
		}},
		slide{Title: "Growth", Points: []string{
			"Revenue grew 48% to £4.2m in FY2024 (FY2023: £3.1m).",
			"Recurring subscriptions were 87% of FY2024 revenue; the rest is onboarding and file-review services.",
			"EBITDA positive in FY2024 for the first time: £0.16m.",
		}},
		slide{Title: "Financial summary", Table: [][]string{
			{"Management accounts, years ended 31 December"},
			{"£'000", "FY2023", "FY2024"},
			{"Revenue", "3,094", "4,187"},
			{"Gross profit", "2,469", "3,408"},
			{"Gross margin", "79.8%", "81.4%"},
			{"EBITDA", "(58)", "164"},
		}, Widths: []float64{227, 120, 120}, Note: "The FY2024 statutory accounts are small-company accounts filed without an audit."},
		slide{Title: "The round", Points: []string{
			"Raising £8m to open a US office serving state-registered investment advisers and to build an AI file-review product.",
		}},
	)
}

func fallowfieldAccounts() []byte {
	x := xlsx("Fallowfield Compliance Ltd management accounts", "Gareth Moss", "2025-07-10T09:00:00Z")
	x.Sheet("P&L FY2024", [][]any{
		{"Profit and loss (£)", "Q1 2024", "Q2 2024", "Q3 2024", "Q4 2024", "FY2024", "FY2023"},
		{"Subscription revenue", 812000, 879000, 931000, 1021000, 3643000, 2642000},
		{"Services revenue", 126000, 133000, 138000, 147000, 544000, 452000},
		{"Total revenue", 938000, 1012000, 1069000, 1168000, 4187000, 3094000},
		{"Cost of sales", 181000, 189000, 197000, 212000, 779000, 625000},
		{"Gross profit", 757000, 823000, 872000, 956000, 3408000, 2469000},
		{"Gross margin", pct(0.807), pct(0.813), pct(0.816), pct(0.818), pct(0.814), pct(0.798)},
		{"Overheads", 771000, 798000, 818000, 857000, 3244000, 2527000},
		{"EBITDA", -14000, 25000, 54000, 99000, 164000, -58000},
	})
	x.Sheet("Monthly 2025", [][]any{
		{"Month", "Subscription revenue (£)", "Services revenue (£)", "Total revenue (£)", "Customers", "Headcount", "Cash (£)"},
		{"2025-01", 352000, 50000, 402000, 176, 52, 2941000},
		{"2025-02", 357000, 51000, 408000, 179, 52, 2918000},
		{"2025-03", 366000, 53000, 419000, 183, 53, 2904000},
		{"2025-04", 372000, 54000, 426000, 186, 54, 2889000},
		{"2025-05", 377000, 54000, 431000, 190, 54, 2880000},
		{"2025-06", 385000, 55000, 440000, 194, 55, 2871000},
	})
	return x.Bytes()
}
