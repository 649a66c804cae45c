// Command generate writes the PDF, DOCX and XLSX documents of the
// held-out deal set (examples/deals-heldout). The output depends only on
// the program, so running it again gives the same bytes.
//
//	go run ./examples/deals-heldout/internal/generate -dir examples/deals-heldout
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sanadhq/sanad/examples/deals-heldout/internal/roomdocs"
)

func main() {
	dir := flag.String("dir", filepath.Join("examples", "deals-heldout"), "the folder of the deal set")
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
