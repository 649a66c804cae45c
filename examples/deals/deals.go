// Package deals is the golden deal set: ten fictional companies' data
// rooms, each in its own folder (NN-name/) with a deal.yaml listing its
// documents and an expected.json giving what a due-diligence debate over
// them should find (contradictions, defects, risks and the reason it
// stops) and what it should not. README.md describes each deal and its
// traps.
//
// Two deals are built into the binary: the clean one, Larkfield
// Analytics, as Larkfield, and one whose deck overstates revenue by more
// than a quarter against its audited statements, Orrery Health, as
// Orrery; the others are read from disk.
package deals

import "embed"

//go:generate go run ./internal/generate -dir .

// Larkfield holds the clean deal at 01-larkfield-analytics/: five
// documents that agree with one another, a deal.yaml and an
// expected.json.
//
//go:embed 01-larkfield-analytics
var Larkfield embed.FS

// Orrery holds the deal at 09-orrery-health/, whose debate must stop on a
// critical defect.
//
//go:embed 09-orrery-health
var Orrery embed.FS
