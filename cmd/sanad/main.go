// Command sanad is the command-line interface of the sanad runtime: it records
// governed runs in a signed Merkle ledger, exports traces as bundles, and
// verifies them offline.
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
