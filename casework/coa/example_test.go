package coa_test

import (
	"fmt"

	"github.com/sanadhq/sanad/casework/coa"
)

func ExampleMapFacts() {
	sources := []coa.Source{{ID: "interview", Kind: coa.KindTranscript, Text: `ATTORNEY: What happened?
CLIENT: I paid a security deposit of $1,800 on June 1, 2022. I moved out on April 30, 2024 and returned the keys.
CLIENT: The landlord never returned my deposit and never sent me an itemized statement.`}}
	tax := coa.Default()
	m := coa.MapFacts(tax, coa.ExtractFacts(sources), coa.Options{})
	if err := m.Check(tax, sources); err != nil {
		fmt.Println(err)
	}
	top := m.Causes[0]
	fmt.Println(m.COAVersion, len(m.Facts), "facts")
	fmt.Println(top.ID, top.Status)
	for _, e := range top.Elements {
		fmt.Println(" ", e.ElementID, e.Supported, len(e.FactIDs))
	}
	// Output:
	// 1.1.0 3 facts
	// security_deposit_withholding supported
	//   deposit_paid true 1
	//   tenancy_ended true 1
	//   deposit_withheld true 1
	//   no_itemized_statement true 1
}
