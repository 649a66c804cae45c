package coa_test

import (
	"testing"

	"github.com/sanadhq/sanad/casework/coa"
)

func BenchmarkMapFacts(b *testing.B) {
	var sources []coa.Source
	for _, m := range matters(b) {
		sources = append(sources, m.sources...)
	}
	facts := coa.ExtractFacts(sources)
	tax := coa.Default()
	b.ResetTimer()
	for b.Loop() {
		coa.MapFacts(tax, facts, coa.Options{})
	}
}
