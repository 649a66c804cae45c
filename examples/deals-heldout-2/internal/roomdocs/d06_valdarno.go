package roomdocs

// valdarno: a tile maker offered for sale in 2025 on its 2022 figures,
// the latest the data room holds: the audited statements for 2022, the
// monthly management accounts for 2022 and an information memorandum of
// May 2023. EBITDA for 2022 was negative, after the gas-price spike.
func valdarno() map[string][]byte {
	const dir = "06-ceramiche-valdarno/"
	return map[string][]byte{
		dir + "information-memorandum.pdf":    valdarnoMemorandum(),
		dir + "audited-statements-2022.docx":  valdarnoAudited(),
		dir + "management-accounts-2022.xlsx": valdarnoAccounts(),
	}
}

func valdarnoMemorandum() []byte {
	return deck("Ceramiche Valdarno S.p.A.", "Information memorandum", "20230522",
		slide{Title: "The company", Points: []string{
			"Producer of porcelain stoneware floor and wall tiles for residential and hospitality projects, founded in 1961 in Montevarchi (Arezzo), Tuscany, and owned by the third generation of the Bartolini family.",
			"Two kilns and a digital glazing line with a capacity of 4.2 million m2 a year; 206 employees on average in 2022.",
			"Sales in 40 countries; 58% of revenue outside Italy, led by France, Germany and the United States.",
		}},
		slide{Title: "Financial results", Table: [][]string{
			{"Audited, years ended 31 December (EUR 000)"},
			{"EUR 000", "FY2021", "FY2022"},
			{"Revenue", "41,380", "48,620"},
			{"Energy costs", "(4,930)", "(15,800)"},
			{"EBITDA", "5,910", "(2,140)"},
			{"EBITDA margin", "14.3%", "(4.4%)"},
			{"Net result", "1,640", "(5,870)"},
			{"Cash", "6,480", "3,110"},
			{"Bank borrowings", "(16,900)", "(21,400)"},
		}, Widths: []float64{227, 120, 120}, Note: "2022 was the year of the European gas-price spike: the company's energy bill rose from EUR 4.9m to EUR 15.8m while price increases to customers lagged by two to three quarters."},
		slide{Title: "Normalised view", Points: []string{
			"Adjusted for energy costs above their 2021 level, 2022 EBITDA would have been EUR 8.7m. This is a pro forma measure and not a forecast.",
			"Budget 2023 approved by the board in January 2023: revenue of EUR 52.0m and EBITDA of EUR 4.5m, assuming a gas price of EUR 60 per MWh.",
		}},
		slide{Title: "The process", Points: []string{
			"The Bartolini family is inviting offers for up to 100% of the company. Indicative offers are due on 30 June 2023.",
		}},
	)
}

func valdarnoAudited() []byte {
	d := docx("Ceramiche Valdarno S.p.A. Bilancio d'esercizio 2022 (English translation)", "Revisori Associati Arno S.p.A.")
	d.Title("Ceramiche Valdarno S.p.A.: financial statements for the year ended 31 December 2022")
	d.P("Registered office: Via dell'Ambra 112, 52025 Montevarchi (AR), Italy. Share capital EUR 5,200,000 fully paid. Tax code and Arezzo companies register number 00318760514. Translation from the Italian original; in case of doubt the Italian version prevails.")
	d.H1("Directors' report (extract)")
	d.P("In 2022 revenue from sales grew by 17.5% to EUR 48,620 thousand (2021: EUR 41,380 thousand), mainly through price increases. The cost of gas and electricity rose to EUR 15,800 thousand (2021: EUR 4,930 thousand), and EBITDA was negative at EUR (2,140) thousand (2021: positive EUR 5,910 thousand). The company closed the year with a net loss of EUR (5,870) thousand (2021: net profit of EUR 1,640 thousand).")
	d.P("Going concern. Gas prices fell in the first quarter of 2023 and the company has fixed the price of 70% of its expected gas consumption for 2023 at EUR 58 per MWh. In March 2023 the company obtained a six-year loan of EUR 6,000 thousand guaranteed by SACE S.p.A. under the Garanzia Italia scheme. On this basis the directors have prepared the financial statements on a going concern basis.")
	d.H1("Income statement (extract)")
	d.Table([]int{5200, 1900, 1900}, [][]string{
		{"EUR thousand", "2022", "2021"},
		{"Revenue from sales and services", "48,620", "41,380"},
		{"Change in inventories of finished goods", "1,240", "310"},
		{"Raw materials and consumables", "(17,930)", "(14,220)"},
		{"Energy (gas and electricity)", "(15,800)", "(4,930)"},
		{"Services", "(5,410)", "(4,610)"},
		{"Personnel costs", "(11,920)", "(11,240)"},
		{"Other operating costs", "(940)", "(780)"},
		{"EBITDA", "(2,140)", "5,910"},
		{"Depreciation and amortisation", "(3,260)", "(3,120)"},
		{"Operating result (EBIT)", "(5,400)", "2,790"},
		{"Net financial charges", "(720)", "(610)"},
		{"Result before taxes", "(6,120)", "2,180"},
		{"Income taxes (current and deferred)", "250", "(540)"},
		{"Net result for the year", "(5,870)", "1,640"},
	})
	d.H1("Balance sheet (extract)")
	d.Table([]int{5200, 1900, 1900}, [][]string{
		{"EUR thousand", "31 Dec 2022", "31 Dec 2021"},
		{"Property, plant and equipment", "31,460", "32,380"},
		{"Inventories", "14,870", "13,210"},
		{"Cash and cash equivalents", "3,110", "6,480"},
		{"Bank borrowings", "(21,400)", "(16,900)"},
		{"Shareholders' equity", "24,830", "30,700"},
	})
	d.H1("Notes (extracts)")
	d.P("Employees. The average number of employees in 2022 was 206 (2021: 201).")
	d.P("Bank borrowings of EUR 21,400 thousand comprise medium-term loans of EUR 15,900 thousand and short-term advances on receivables of EUR 5,500 thousand. The loans carry no financial covenants.")
	d.H1("Independent auditor's report pursuant to article 14 of Legislative Decree no. 39 of 27 January 2010")
	d.P("Opinion. We have audited the financial statements of Ceramiche Valdarno S.p.A., which comprise the balance sheet as at 31 December 2022, the income statement and the cash flow statement for the year then ended, and the notes. In our opinion, the financial statements give a true and fair view of the financial position of the company as at 31 December 2022 and of its results and cash flows for the year then ended in accordance with the Italian regulations governing financial statements.")
	d.P("Going concern. We have evaluated the directors' assessment of the company's ability to continue as a going concern, including the fixed-price gas contracts and the SACE-guaranteed loan obtained in March 2023, and we have not identified a material uncertainty.")
	d.P("Florence, 12 April 2023. Revisori Associati Arno S.p.A., Lorenzo Guidi, partner.")
	return d.Bytes("2023-04-12T10:00:00Z")
}

func valdarnoAccounts() []byte {
	x := xlsx("Ceramiche Valdarno conto economico mensile 2022", "Chiara Bartolini", "2023-02-20T09:00:00Z")
	x.Sheet("2022 mensile", [][]any{
		{"EUR 000", "Jan 2022", "Feb 2022", "Mar 2022", "Apr 2022", "May 2022", "Jun 2022", "Jul 2022", "Aug 2022", "Sep 2022", "Oct 2022", "Nov 2022", "Dec 2022", "FY2022"},
		{"Revenue", 3620, 3910, 4480, 4210, 4560, 4390, 3870, 2150, 4620, 4480, 4370, 3960, 48620},
		{"Energy costs", -920, -980, -1410, -1180, -1240, -1330, -1520, -1060, -1910, -1690, -1420, -1140, -15800},
		{"EBITDA", 310, 290, 120, 80, 140, -60, -390, -710, -640, -520, -380, -380, -2140},
		{"EBITDA margin", pct(0.086), pct(0.074), pct(0.027), pct(0.019), pct(0.031), pct(-0.014), pct(-0.101), pct(-0.33), pct(-0.139), pct(-0.116), pct(-0.087), pct(-0.096), pct(-0.044)},
		{"Gas price paid (EUR/MWh)", 84, 81, 128, 104, 95, 112, 168, 214, 196, 131, 104, 98, 126},
		{"Cash at month end", 5920, 5610, 5140, 4980, 4870, 4420, 4010, 3260, 2840, 2970, 3020, 3110, 3110},
	})
	return x.Bytes()
}
