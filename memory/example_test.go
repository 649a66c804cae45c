package memory_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/chunk"
	"github.com/sanadhq/sanad/document"
	"github.com/sanadhq/sanad/memory"
	"github.com/sanadhq/sanad/sqlite"
)

func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "memory-example-")
	defer os.RemoveAll(dir)
	db, err := sqlite.Open(ctx, sqlite.Config{Path: filepath.Join(dir, "sanad.db")})
	if err != nil {
		panic(err)
	}
	defer db.Close()
	x := &memory.Index{Store: db}
	scope := sanad.Scope{Tenant: "firm", Case: "smith-v-jones"}

	// A parsed document, cut into chunks.
	parsed := document.Document{Format: "txt", Blocks: []document.Block{
		{Kind: document.Header, Level: 1, Text: "Termination"},
		{Kind: document.Text, Text: "Either party may terminate the lease with ninety days written notice."},
		{Kind: document.Header, Level: 1, Text: "Rent"},
		{Kind: document.Text, Text: "The tenant pays the rent on the first day of each month."},
	}}
	md, spans := parsed.MarkdownSpans()
	chunks := chunk.Split(&parsed, md, spans, "sha256:9f2c", chunk.Options{Size: 100})
	doc := memory.Document{
		ID: memory.DocumentID(memory.SourceLocal, "/cases/smith/lease.txt"), Version: "sha256:9f2c",
		Source: "/cases/smith/lease.txt", SourceType: memory.SourceLocal, Title: "Lease", Format: "txt",
	}
	if _, err := x.Add(ctx, scope, doc, chunks); err != nil {
		panic(err)
	}

	out, err := x.Search(ctx, scope, memory.Query{QueryText: "how much notice to end the lease?", TopK: 1})
	if err != nil {
		panic(err)
	}
	r := out.Results[0]
	fmt.Println(r.Content)
	fmt.Println(r.Metadata["headings"], r.Metadata["start"], r.Metadata["end"])
	// Output:
	// # Termination
	//
	// Either party may terminate the lease with ninety days written notice.
	// [Termination] 0 84
}
