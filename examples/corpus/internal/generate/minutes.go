package main

import "github.com/sanadhq/sanad/examples/internal/docgen"

// boardMinutes is the minutes of Tessaro's board meeting of 18 March 2025:
// the management's figures and statements of the corpus.
func boardMinutes() []byte {
	d := docgen.NewDOCX("Minutes of the Board of Directors, 18 March 2025", "Joanna Reeve")
	d.Title("Tessaro Systems Ltd: Minutes of a meeting of the Board of Directors")
	d.P("Held at Calder House, 21 Park Row, Leeds LS1 5JF on Tuesday 18 March 2025 at 10:00.")

	d.H1("Attendance")
	d.P("Present: Margaret Lindqvist (Chair), Amara Okafor (Chief Executive Officer), Daniel Whitcombe (Chief Financial Officer), Rhys Pennock (Chief Technology Officer), Claire Doherty (Fellside Growth Equity) and Sunil Varma (independent non-executive director).")
	d.P("In attendance: Joanna Reeve (Company Secretary); Priya Raman (Chief Information Security Officer) for item 5 only.")
	d.P("The Chair confirmed that a quorum was present. Claire Doherty declared an interest in item 4 as the representative of Fellside Growth Equity, the largest shareholder; the board noted the declaration.")

	d.H1("1. Minutes of the previous meeting")
	d.P("The minutes of the meeting held on 11 December 2024 were approved as a true record and signed by the Chair.")

	d.H1("2. FY2024 results (management accounts)")
	d.P("Daniel Whitcombe presented the unaudited management accounts for the year ended 31 December 2024. Revenue was £49.6 million against a budget of £47.0 million, and adjusted EBITDA was £9.1 million. Cash at 31 December 2024 was £11.6 million, with £4.0 million drawn on the revolving credit facility.")
	d.P("Mr Whitcombe reported that audit fieldwork by Pennant & Rowe LLP had begun on 3 March 2025 and was expected to finish by mid-April. The auditors were reviewing the timing of revenue on implementation milestones; he did not expect material adjustments.")
	d.P("Sunil Varma, as chair of the Audit and Risk Committee, asked that any audit adjustment above £250,000 be reported to the committee before the accounts are approved.")

	d.H1("3. FY2025 budget")
	d.P("The board reviewed the FY2025 budget prepared by management, summarised below.")
	d.Table([]int{3400, 2800, 2800}, [][]string{
		{"Measure", "FY2024 (management accounts)", "FY2025 budget"},
		{"Revenue", "£49.6m", "£56.0m"},
		{"Gross margin", "73.8%", "74.5%"},
		{"Adjusted EBITDA", "£9.1m", "£11.2m"},
		{"Headcount at 31 December", "412", "455"},
		{"Capital expenditure", "£2.3m", "£2.9m"},
	})
	d.P("The budget assumes that Brightwater Retail Group plc continues on its current terms and that hosting costs rise by no more than 5% when the CloudHarbor agreement is renewed from 1 June 2025.")
	d.P("Resolved: the FY2025 budget was approved.")

	d.H1("4. Project Heron")
	d.P("Amara Okafor updated the board on Project Heron, the proposed sale of the company. Northgate Capital Partners LLP submitted an indicative offer on 21 February 2025 at an enterprise value of £212 million on a cash-free, debt-free basis.")
	d.P("Fellside Growth Equity and the founders granted Northgate exclusivity until 30 June 2025, and the virtual data room opened on 3 March 2025. Kestrel Corporate Finance is advising the company.")
	d.P("Claire Doherty asked whether any material customer contract could be affected by a change of control. Ms Okafor confirmed that the Brightwater agreement contains no change of control provision and cannot be terminated by Brightwater before 30 June 2026 other than for cause.")
	d.P("The board asked Joanna Reeve to prepare a schedule of the change of control provisions in the twenty largest customer contracts for the data room.")

	d.H1("5. Information security")
	d.H2("Incident of 27 January 2025")
	d.P("Priya Raman joined the meeting. She reported that on 27 January 2025 an attacker obtained the credentials of a support engineer through a phishing email and used them to sign in to the customer support platform.")
	d.P("The account was disabled within four hours. The investigation found no evidence that customer data was extracted, and the incident was assessed as not reportable to the Information Commissioner's Office. Since the incident the company has taken the following steps:")
	d.List(false,
		"passwords were reset for all 58 customer support staff;",
		"sign-in to the support platform is now restricted to company-managed devices;",
		"customer support staff completed additional phishing training in February 2025.")
	d.H2("Controls")
	d.P("Ms Raman reported that multi-factor authentication now covers 96% of accounts. The remainder are service accounts used by legacy support tooling in Rotterdam, which she expects to migrate by 30 June 2025.")
	d.P("The last external penetration test was carried out in October 2023. The 2024 test was deferred for budget reasons and is now scheduled for May 2025 with Ashdown Security Ltd.")
	d.P("Sunil Varma noted that the deferral was inconsistent with the information security policy approved by the board in September 2024, and asked for the test to be brought forward if possible. Ms Raman left the meeting.")

	d.H1("6. People")
	d.P("Headcount at 28 February 2025 was 419. Voluntary attrition in 2024 was 14.2%. Fatima Noor will join as Head of People on 1 April 2025.")

	d.H1("7. Any other business")
	d.P("Mr Whitcombe reported that CloudHarbor Hosting Ltd had proposed a 9% price increase on the renewal of the hosting agreement from 1 June 2025, and that two CloudHarbor invoices were in dispute. The board did not approve the renewal and asked Mr Whitcombe to negotiate better terms.")

	d.H1("Actions")
	d.List(true,
		"Joanna Reeve to prepare the schedule of change of control provisions by 4 April 2025.",
		"Priya Raman to confirm the date of the 2025 penetration test by 31 March 2025.",
		"Daniel Whitcombe to report any audit adjustment above £250,000 to the Audit and Risk Committee.",
		"Daniel Whitcombe to negotiate the CloudHarbor renewal and report to the board by 30 April 2025.")
	d.P("The next meeting will be held on 17 June 2025. There being no further business, the meeting closed at 12:40.")
	d.P("Signed: Margaret Lindqvist, Chair")
	return d.Bytes("2025-03-20T09:00:00Z")
}
