package examples_test

import (
	"fmt"
	"io/fs"

	"github.com/sanadhq/sanad/examples"
)

// The workflows built into the binary, which `sanad run NAME` runs.
func ExampleFS() {
	files, _ := fs.Glob(examples.FS, "workflows/*.yaml")
	for _, f := range files {
		fmt.Println(f)
	}
	// Output:
	// workflows/due-diligence.yaml
	// workflows/kyc-screening.yaml
	// workflows/red-flags.yaml
}
