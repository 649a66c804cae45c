package claim_test

import (
	"fmt"

	"github.com/sanadhq/sanad/claim"
	"github.com/sanadhq/sanad/document"
)

func Example() {
	report := &document.Document{Format: "md", Blocks: []document.Block{
		{Kind: document.Header, Level: 1, Text: "Tessaro Systems Ltd: Annual Report for the year ended 31 December 2024"},
		{Kind: document.Text, Text: "Revenue for the year was £48.2 million (2023: £40.7 million)."},
	}}
	deck := &document.Document{Format: "md", Blocks: []document.Block{
		{Kind: document.Header, Level: 1, Text: "Tessaro Systems Ltd investor presentation"},
		{Kind: document.Text, Text: "FY2024 revenue: £52m."},
	}}
	claims := append(claim.Extract(report, "report", "v1"), claim.Extract(deck, "deck", "v1")...)
	audited, _ := claim.Declare("report", "audited statements", "auditor")
	facts := claim.Chain(claims, map[string]claim.Source{
		"report": audited,
		"deck":   claim.InferSource(deck, "deck"),
	})
	for _, f := range facts {
		fmt.Printf("%s %s: £%.1fm grade %s %s, %d contradiction(s)\n", f.Metric, f.Period, f.Value.Value/1e6, f.Grade, f.Verdict, len(f.Contradictions))
		for _, c := range f.Claims {
			fmt.Printf("  %s says £%.1fm: %s\n", c.Span.Document, c.Value.Value/1e6, c.Verdict)
		}
	}
	// Output:
	// revenue FY2023: £40.7m grade A VERIFIED, 0 contradiction(s)
	//   report says £40.7m: VERIFIED
	// revenue FY2024: £48.2m grade A VERIFIED, 1 contradiction(s)
	//   report says £48.2m: VERIFIED
	//   deck says £52.0m: REFUTED
}
