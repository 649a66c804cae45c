// Package heldout2 is a second held-out deal set: six fictional
// companies' data rooms, each in its own folder (NN-name/) with a
// deal.yaml listing its documents and an expected.json giving what a
// due-diligence analysis of them should find (contradictions, defects,
// risks and the reason it stops) and what it should not. The set was
// written from what an analyst would receive and flag, without reference
// to how the analysis works, so that its score measures the analysis on
// data it was not tuned on. README.md describes each deal.
package heldout2

//go:generate go run ./internal/generate -dir .
