// Package claim reads the factual statements of a deal's documents as
// claims: a metric with a structured value (amount, unit, currency, period,
// entity), the exact bytes of the document's Markdown it was read from, and,
// once the claims of several documents are put side by side, its evidence
// chain (sanad): which sources state the same fact, whether independent
// sources agree, and where they contradict each other.
//
// Extraction is offline and deterministic: [Extract] reads a parsed
// [document.Document] with a fixed vocabulary of metrics ([Metrics]) and of
// period expressions, so that the same document version always yields the
// same claims with the same ids. [Chain] groups claims into facts, grades
// them from their sources' grades ([Source]) and gives each claim a
// [Verdict]. [Compare] decides whether two values state the same amount,
// allowing for the rounding with which each was written.
package claim
