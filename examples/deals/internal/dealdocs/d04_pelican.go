package dealdocs

// pelican: the deck's ARR growth rate does not follow from its own two
// ARR figures; monthly customer churn is high.
func pelican() map[string][]byte {
	const dir = "04-pelican-payroll/"
	return map[string][]byte{
		dir + "deck.pdf":                 pelicanDeck(),
		dir + "management-accounts.xlsx": pelicanAccounts(),
	}
}

func pelicanDeck() []byte {
	return deck("Pelican Payroll Ltd", "Series A investor presentation", "20250708",
		slide{Title: "Payroll for the smallest employers", Points: []string{
			"Pelican runs payroll, pensions auto-enrolment and HMRC filings for UK employers with 1 to 50 staff, for a monthly subscription.",
			"3,420 paying customers at 30 June 2025.",
			"Founded in Norwich in 2020 by Hannah Cole and Marcus Bell; 47 employees.",
		}},
		slide{Title: "Traction", Points: []string{
			"ARR grew 64% year on year, from £5.0m at 30 June 2024 to £7.1m at 30 June 2025.",
			"Monthly recurring revenue of £592k in June 2025.",
			"Net revenue retention of 104%, as customers add employees.",
		}},
		slide{Title: "The round", Points: []string{
			"Raising £12m to add time-and-attendance and expand partnerships with accountancy practices.",
		}},
	)
}

func pelicanAccounts() []byte {
	mrr := []int{417500, 430000, 444000, 457500, 471500, 486500, 501000, 516000, 531000, 546000, 561500, 576500, 592000}
	customers := []int{2610, 2670, 2730, 2790, 2850, 2920, 2990, 3050, 3120, 3190, 3260, 3340, 3420}
	churn := []pct{0.031, 0.033, 0.03, 0.032, 0.031, 0.029, 0.034, 0.031, 0.03, 0.032, 0.031, 0.029, 0.031}
	rows := [][]any{{"Month", "MRR (£)", "ARR (£)", "Paying customers", "Customers lost", "Monthly logo churn"}}
	for i := range mrr {
		m := 6 + i
		y := 2024
		if m > 12 {
			m, y = m-12, 2025
		}
		lost := int(float64(churn[i])*float64(customers[max(i-1, 0)]) + 0.5)
		rows = append(rows, []any{monthID(y, m), mrr[i], 12 * mrr[i], customers[i], lost, churn[i]})
	}
	x := xlsx("Pelican Payroll Ltd SaaS metrics", "Marcus Bell", "2025-07-04T09:00:00Z")
	x.Sheet("SaaS metrics", rows)
	x.Sheet("P&L FY2024", [][]any{
		{"£, year ended 31 December 2024", "FY2024"},
		{"Revenue", 6310000},
		{"Gross profit", 4670000},
		{"Gross margin", pct(0.74)},
		{"EBITDA", -1420000},
		{"Cash at 31 December 2024", 9850000},
	})
	return x.Bytes()
}

// monthID writes a month as 2025-06.
func monthID(y, m int) string {
	return string(rune('0'+y/1000)) + string(rune('0'+y/100%10)) + string(rune('0'+y/10%10)) + string(rune('0'+y%10)) + "-" + string(rune('0'+m/10)) + string(rune('0'+m%10))
}
