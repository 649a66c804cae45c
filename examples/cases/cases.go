// Package cases holds the example legal matters: each folder an intake
// form, an interview transcript, documents (and privileged notes), a
// promotion ticket and the expected.json a run of the matter is checked
// against. README.md describes them.
//
// The tenant matter is built into the binary as Tenant, for the
// quickstart; the others are read from disk.
package cases

import "embed"

// Tenant holds the matter at tenant-retaliation/: a tenant evicted after
// asking for repairs, her deposit kept without an itemised statement.
//
//go:embed tenant-retaliation
var Tenant embed.FS
