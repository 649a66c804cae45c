// Package docgen writes the PDF, DOCX and XLSX documents of the sample
// data rooms (examples/corpus, examples/deals) by hand, with no
// compression and fixed dates, so that the same content always gives the
// same bytes.
package docgen
