// Package coa maps the facts of a case to the elements of civil causes of
// action and says which elements have evidence and which are gaps.
//
// [ExtractFacts] cuts a matter's documents and interview transcripts into
// sentences that state something, each a [Fact] that keeps the byte span it
// came from. [MapFacts] matches facts to the elements of a versioned
// [Taxonomy] offline, by stemmed words and phrases with negation handled;
// [MapWithModel] asks a model to do the same under a JSON Schema that admits
// only the taxonomy's ids and the given facts. Both return a [Map]: the
// facts, the evidence map (fact to element) and the cause-of-action map,
// pinned to the taxonomy's version and hash, which [Map.Check] verifies.
// [Summary] renders it for an attorney.
//
// The result is a screening aid for an attorney, not legal advice.
package coa
