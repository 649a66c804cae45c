package main

import "github.com/sanadhq/sanad/examples/internal/docgen"

// annualReport is Tessaro Systems Ltd's annual report for 2024: the
// audited figures of the corpus.
func annualReport() []byte {
	w := docgen.NewPDF("Tessaro Systems Ltd Annual Report and Financial Statements 2024", "Tessaro Systems Ltd  |  Annual Report and Financial Statements 2024")
	w.Heading("Tessaro Systems Ltd", 22, 0)
	w.Heading("Annual Report and Financial Statements for the year ended 31 December 2024", 14, 0)
	w.Paragraph("Registered in England and Wales, company number 08417352. Registered office: Calder House, 21 Park Row, Leeds LS1 5JF.")

	w.Heading("Chair's statement", 15, 14)
	w.Paragraph("2024 was Tessaro's thirteenth year of trading and its strongest to date. Revenue grew by 18.4% to £48.2 million, recurring subscription revenue reached 84% of the total, and adjusted EBITDA rose to £8.9 million. We ended the year with 1,140 customers in 11 countries, up from 1,010 customers a year earlier.")
	w.Paragraph("The Board was strengthened in May 2024 by the appointment of Sunil Varma as an independent non-executive director and chair of the Audit and Risk Committee. Mr Varma was for eleven years the chief financial officer of a listed logistics group.")
	w.Paragraph("Our largest customer, Brightwater Retail Group plc, completed the roll-out of Tessaro WMS to all 38 of its distribution centres in September 2024. Brightwater accounted for 14% of revenue in 2024, and our ten largest customers together for 38%.")
	w.Paragraph("On behalf of the Board I thank our 412 colleagues for their work this year.")
	w.Paragraph("Margaret Lindqvist, Non-executive Chair, 11 April 2025")

	w.Heading("Strategic report", 15, 14)
	w.Heading("Our business", 12, 8)
	w.Paragraph("Tessaro develops and sells Tessaro WMS, a cloud warehouse management system for retailers, distributors and third-party logistics providers, and Tessaro Dock, a yard and dock scheduling module launched in March 2023. Customers subscribe per warehouse site; implementation services are sold separately.")
	w.Paragraph("The company was founded in Leeds in 2011 by Amara Okafor and Rhys Pennock. It has offices in Leeds, Manchester and Rotterdam, where its subsidiary Tessaro B.V. serves customers in the Netherlands and Belgium. The platform is hosted in data centres in Manchester and Amsterdam operated by CloudHarbor Hosting Ltd.")

	w.Heading("Financial review", 12, 8)
	w.Paragraph("Revenue for the year was £48.2 million (2023: £40.7 million), an increase of 18.4%. Subscription revenue grew by 23% to £40.5 million; implementation services revenue was £6.2 million and hardware and other revenue £1.5 million.")
	w.Paragraph("Gross margin improved to 73.4% (2023: 72.5%) as hosting costs fell as a share of revenue. Adjusted EBITDA, which excludes share-based payment charges of £0.6 million and exceptional costs of £0.4 million, was £8.9 million (2023: £6.8 million), a margin of 18.5%. Operating profit was £5.3 million and profit before tax £4.9 million.")
	w.Table("Table 1: Key figures, years ended 31 December", []float64{215, 84, 84, 84}, [][]string{
		{"Measure", "2022", "2023", "2024"},
		{"Revenue (£m)", "33.5", "40.7", "48.2"},
		{"Subscription revenue (£m)", "26.1", "33.0", "40.5"},
		{"Gross margin", "71.0%", "72.5%", "73.4%"},
		{"Adjusted EBITDA (£m)", "4.9", "6.8", "8.9"},
		{"Operating profit (£m)", "2.1", "3.6", "5.3"},
		{"Profit before tax (£m)", "1.8", "3.2", "4.9"},
		{"Employees at 31 December", "301", "356", "412"},
		{"Customers at 31 December", "870", "1,010", "1,140"},
		{"Net revenue retention", "108%", "111%", "112%"},
	})
	w.Paragraph("Cash at 31 December 2024 was £11.6 million (2023: £8.3 million). The company has a £7.5 million revolving credit facility with Yorkshire Commercial Bank plc, of which £4.0 million was drawn at the year end; the facility expires on 30 September 2026.")
	w.Paragraph("About a quarter of revenue is earned outside the United Kingdom, mostly in euros. Table 2 analyses revenue by the location of the customer.")
	w.Table("Table 2: Revenue by geography, year ended 31 December 2024", []float64{215, 126, 126}, [][]string{
		{"Region", "Revenue (£m)", "Share of revenue"},
		{"United Kingdom", "36.1", "74.9%"},
		{"Netherlands and Belgium", "7.4", "15.4%"},
		{"Rest of Europe", "4.7", "9.8%"},
		{"Total", "48.2", "100.0%"},
	})

	w.Heading("Principal risks and uncertainties", 12, 8)
	w.Paragraph("The Board considers the following to be the principal risks facing the company.")
	w.Item("Customer concentration: Brightwater Retail Group plc accounted for 14% of revenue in 2024. Its agreement runs until 30 June 2026.")
	w.Item("Cyber security: a breach of the hosted platform could disrupt customers' warehouse operations. The company holds ISO/IEC 27001:2022 certification and tests its defences regularly.")
	w.Item("Hosting supplier dependence: the platform is hosted by a single supplier, CloudHarbor Hosting Ltd, under an agreement that expires on 31 May 2025.")
	w.Item("People: voluntary employee attrition was 14.2% in 2024 (2023: 16.8%).")
	w.Item("Foreign exchange: 25% of revenue is earned in euros, while most costs are incurred in sterling.")

	w.Heading("Employees", 12, 8)
	w.Paragraph("At 31 December 2024 the company employed 412 people (2023: 356), of whom 171 worked in engineering and product, 98 in implementation and customer support, 84 in sales and marketing and 59 in general and administrative roles.")
	w.Paragraph("The company operates an Enterprise Management Incentive share option scheme. Options over 12% of the ordinary share capital were outstanding at 31 December 2024.")

	w.Heading("Directors' report", 15, 14)
	w.Paragraph("The directors who served during the year were Margaret Lindqvist (Chair), Amara Okafor (Chief Executive Officer), Daniel Whitcombe (Chief Financial Officer), Rhys Pennock (Chief Technology Officer), Claire Doherty (nominated by Fellside Growth Equity) and Sunil Varma (appointed 14 May 2024).")
	w.Paragraph("Fellside Growth Equity Fund II LP holds 41% of the ordinary shares, Amara Okafor 22% and Rhys Pennock 17%. No dividend is proposed for 2024 (2023: nil).")
	w.Heading("Going concern", 12, 8)
	w.Paragraph("The directors have reviewed forecasts to June 2026, including a downside case in which Brightwater Retail Group plc ceases to be a customer. They are satisfied that the company has adequate resources to continue in operation for at least twelve months from the date of approval of these financial statements.")
	w.Heading("Events after the reporting period", 12, 8)
	w.Paragraph("On 27 January 2025 the company detected unauthorised access to the account of one support engineer following a phishing email. The access was contained within four hours, and an investigation found no evidence that customer data was extracted.")
	w.Paragraph("In March 2025 the shareholders granted a prospective acquirer of the company a period of exclusivity for due diligence. No agreement had been reached at the date of this report.")
	w.Paragraph("The financial statements were approved by the Board on 11 April 2025 and signed on its behalf by Daniel Whitcombe, Director.")

	w.Heading("Independent auditor's report to the members of Tessaro Systems Ltd", 15, 14)
	w.Paragraph("We have audited the financial statements of Tessaro Systems Ltd for the year ended 31 December 2024. In our opinion the financial statements give a true and fair view of the state of the company's affairs as at 31 December 2024 and of its profit for the year then ended, and have been properly prepared in accordance with United Kingdom Generally Accepted Accounting Practice, including FRS 102.")
	w.Paragraph("Key audit matter: the recognition of revenue from implementation services, which is recognised as contractual milestones are accepted by the customer. We tested a sample of 40 implementation contracts against signed milestone acceptances and found that revenue of £1.4 million recorded in the management accounts for 2024 related to milestones accepted in 2025. The financial statements have been adjusted accordingly.")
	w.Paragraph("Helen Marsh (Senior Statutory Auditor), for and on behalf of Pennant & Rowe LLP, Chartered Accountants and Statutory Auditor, Leeds, 11 April 2025")
	return w.Bytes()
}
