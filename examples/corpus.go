package examples

import "embed"

// Corpus holds the sample data room built into the binary, at corpus/: the
// documents of a due-diligence review of Tessaro Systems Ltd, a fictional
// warehouse software company. There are an audited annual report (PDF),
// board minutes (DOCX), a customer contract and a security policy
// (Markdown), a pricing web page (HTML), a list of the largest customers
// (CSV) and a supplier's email (text) carrying an indirect prompt
// injection. The documents disagree in places, as a data room's do: the
// management accounts and the audited report give different revenue, and
// the minutes misstate the customer contract. answers.jsonl, beside it, is
// the question set evaluated over it; the generator of the PDF and DOCX,
// in corpus/internal, is left out.
//
//go:generate go run ./corpus/internal/generate -dir corpus
//go:embed corpus/*.pdf corpus/*.docx corpus/*.html corpus/*.md corpus/*.txt corpus/*.csv
var Corpus embed.FS
