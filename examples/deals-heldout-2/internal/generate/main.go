// Command generate writes the PDF, DOCX and XLSX documents of the second
// held-out deal set (examples/deals-heldout-2). The output depends only
// on the program, so running it again gives the same bytes.
//
//	go run ./examples/deals-heldout-2/internal/generate -dir examples/deals-heldout-2
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sanadhq/sanad/examples/deals-heldout-2/internal/roomdocs"
)

func main() {
	dir := flag.String("dir", filepath.Join("examples", "deals-heldout-2"), "the folder of the deal set")
	flag.Parse()
	for name, data := range roomdocs.Files() {
		p := filepath.Join(*dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
