package promote_test

import (
	"fmt"

	"github.com/sanadhq/sanad/casework/promote"
)

func ExampleCheck() {
	cc := promote.CaseContext{
		Texts:   []promote.SourceText{{ID: "t-1", Text: "The landlord, he never fixed the heater; not once in three months."}},
		Parties: []string{"Maria Delgado"},
	}
	for _, text := range []string{
		"Ask for the repair request log first.",
		"Delgado's landlord never fixed the heater, not once in three months.",
	} {
		r := promote.Check(promote.Candidate{ID: "c-1", Kind: promote.KindHeuristic, Text: text}, cc, promote.Options{})
		fmt.Println(r.Allowed)
		for _, f := range r.Findings {
			fmt.Println(" ", f.Check, f.Where)
		}
	}
	// Output:
	// true
	// false
	//   raw_case_text candidate text chars 19-67 quotes t-1 chars 17-65
	//   client_identity candidate text chars 0-7
}
