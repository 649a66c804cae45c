// Command sanad is the command-line interface of the sanad runtime: it records
// governed runs in a signed Merkle ledger, exports traces as bundles, and
// verifies them offline.
package main

import (
	"os"
	"runtime/debug"
)

// defaultGCPercent is the garbage collector's target when GOGC is not set.
// sanad's live heap is small and its hot paths (sealing, decoding and
// verifying events) allocate short-lived trees: collecting less often costs
// a few megabytes and saves a tenth or more of the CPU. GOGC overrides it.
const defaultGCPercent = 400

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(defaultGCPercent)
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
