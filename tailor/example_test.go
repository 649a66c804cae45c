package tailor_test

import (
	"fmt"

	"github.com/sanadhq/sanad/memory"
	"github.com/sanadhq/sanad/tailor"
)

func ExampleCompose() {
	out, _ := tailor.Compose(tailor.Input{
		UserQuery: "What was revenue in 2023?",
		Persona:   tailor.Executive,
		ContextChunks: []memory.Result{{
			ChunkID: "acme-3", SourceID: "acme-report", RelevanceScore: 0.6,
			Content: "| Metric | 2022 | 2023 |\n|---|---|---|\n| Revenue | $4.1M | $5.2M |\n| Net income | $0.6M | $0.9M |",
		}},
	})
	fmt.Println(out.Content)
	fmt.Println(out.Citations[0].ChunkID, out.Refused)
	// Output:
	// Revenue — 2023: $5.2M. [1]
	// acme-3 false
}
