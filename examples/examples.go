// Package examples holds the example agents, abilities, policies and
// workflows of sanad, and builds them into the binary, so that
// `sanad run due-diligence` and `sanad agents list` work on a machine with
// nothing but the binary.
package examples

import "embed"

// FS holds the example agents, abilities, policies and workflows built into
// the binary: agents/*.yaml, agents/abilities/*.yaml, policies/ and
// workflows/*.yaml, at those paths.
//
//go:embed agents/*.yaml agents/abilities/*.yaml policies workflows/*.yaml
var FS embed.FS
