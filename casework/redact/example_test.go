package redact_test

import (
	"fmt"

	"github.com/sanadhq/sanad/casework/redact"
)

func ExampleRedactor_Redact() {
	r := &redact.Redactor{Profile: redact.Profiles()[redact.ProfileDiscovery], Parties: []string{"Maria Delgado"}}
	out, counts := r.Redact("Ms. Delgado (maria@example.com) paid $1,450.00 rent.")
	fmt.Println(out)
	fmt.Println(counts)
	// Output:
	// Ms. [REDACTED:PARTY] ([REDACTED:EMAIL_ADDRESS]) paid $1,450.00 rent.
	// map[EMAIL_ADDRESS:1 PARTY:1]
}
