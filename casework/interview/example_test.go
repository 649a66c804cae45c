package interview_test

import (
	"fmt"

	"github.com/sanadhq/sanad/casework/interview"
)

func Example() {
	tr, _ := interview.ParseTranscript("call.txt", []byte(
		"Attorney: Who is your landlord?\nClient: Hillcrest Property Management. I paid a $1,800 deposit on June 1, 2023.\n"))
	notes := interview.ExtractNotes(tr)
	for _, n := range notes.Items {
		if n.Normalized != "" {
			fmt.Printf("%s %s: %s\n", n.Kind, n.Value, n.Normalized)
		}
	}
	packs, _ := interview.LoadPacks()
	q, _ := interview.Next(packs["housing"], interview.Covered(notes))
	fmt.Println("next:", q.Text)
	// Output:
	// who Hillcrest Property Management: Hillcrest Property Management
	// amount $1,800: 1800.00 USD
	// when June 1, 2023: 2023-06-01
	// next: What is the address of the home you rent, including the unit number?
}
