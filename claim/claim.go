package claim

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
)

// Class is a claim's claim_class.
type Class string

// Claim classes.
const (
	Financial   Class = "FINANCIAL"
	Operational Class = "OPERATIONAL"
	Market      Class = "MARKET"
	Legal       Class = "LEGAL"
	Team        Class = "TEAM"
)

// Grade is the reliability of a source or a claim, from A (audited
// statements, bank data) to D (web pages, enrichment).
type Grade string

// Grades, best first.
const (
	GradeA Grade = "A"
	GradeB Grade = "B"
	GradeC Grade = "C"
	GradeD Grade = "D"
)

// rank orders grades: A is 0; an unknown grade ranks below D.
func (g Grade) rank() int {
	switch g {
	case GradeA:
		return 0
	case GradeB:
		return 1
	case GradeC:
		return 2
	case GradeD:
		return 3
	}
	return 4
}

// Better reports whether g is a better grade than h.
func (g Grade) Better(h Grade) bool { return g.rank() < h.rank() }

// Up returns the grade one step better than g; A stays A and an unknown
// grade becomes D.
func (g Grade) Up() Grade {
	switch g {
	case GradeA, GradeB:
		return GradeA
	case GradeC:
		return GradeB
	case GradeD:
		return GradeC
	}
	return GradeD
}

// Verdict is what the evidence says of a claim (claim_verdict).
type Verdict string

// Verdicts.
const (
	// Verified: stated by a grade A source, or corroborated up to A, and
	// not disputed by a source as good.
	Verified Verdict = "VERIFIED"
	// Corroborated: stated by two or more independent sources that agree.
	Corroborated Verdict = "CORROBORATED"
	// Unverified: stated by one source below grade A (Āḥād).
	Unverified Verdict = "UNVERIFIED"
	// Contradicted: a source of the same grade states a different value.
	Contradicted Verdict = "CONTRADICTED"
	// Refuted: a source of a better grade states a different value.
	Refuted Verdict = "REFUTED"
)

// Units of a [Value].
const (
	Currency = "currency"
	Percent  = "percent"
	Count    = "count"
	Months   = "months"
)

// Value is a claim's structured value (value_struct). Value is the amount
// in its unit: a currency amount in whole units (48.2e6 for £48.2 million),
// a percentage as written (18.4 for 18.4%).
type Value struct {
	Metric string  `json:"metric"`
	Value  float64 `json:"value"`
	// Unit is "currency", "percent", "count" or "months".
	Unit string `json:"unit"`
	// Currency is "GBP", "USD" or "EUR" for a currency amount, when known.
	Currency string `json:"currency,omitempty"`
	// Period is "FY2024", "Q3-2025", "H1-2025", "2025-06" (a month) or
	// "LTM-2025-06"; empty when the document does not say.
	Period string `json:"period,omitempty"`
	Entity string `json:"entity,omitempty"`
	// Qualifiers narrow the metric: "adjusted", "budget", "subscription",
	// "segment:United Kingdom"; "part" (or "part:term loan") marks a
	// component of a total stated with it, which is not the total.
	Qualifiers []string `json:"qualifiers,omitempty"`
	// Precision is half the unit of the last digit written (0.05e6 for
	// "£48.2m"): the rounding the figure carries. Zero means unknown, and
	// [Compare] infers it from the value.
	Precision float64 `json:"precision,omitempty"`
}

// Cell is the table cell a claim was read from, with the headers that gave
// its metric and period.
type Cell struct {
	Row       int    `json:"row"`
	Col       int    `json:"col"`
	RowHeader string `json:"row_header,omitempty"`
	ColHeader string `json:"col_header,omitempty"`
}

// Span is where a claim was read: bytes [Start, End) of the Markdown of a
// version of a document (document.Document.MarkdownSpans), the page when the
// format has pages, and the table cell when it came from a table.
type Span struct {
	Document string `json:"document"`
	Version  string `json:"version"`
	Page     int    `json:"page,omitempty"`
	Start    int    `json:"start"`
	End      int    `json:"end"`
	Table    *Cell  `json:"table,omitempty"`
}

// Claim is one factual statement of a document.
type Claim struct {
	ID    string `json:"claim_id"`
	Text  string `json:"claim_text"`
	Class Class  `json:"claim_class"`
	Value Value  `json:"value_struct"`
	// Grade and Verdict are set by [Chain]; [Extract] leaves them empty.
	Grade   Grade   `json:"claim_grade,omitempty"`
	Verdict Verdict `json:"claim_verdict,omitempty"`
	Span    Span    `json:"span"`
	// CitedSource is what the document says the figure rests on: "audited",
	// "management accounts", "management estimate", "unaudited", "budget".
	CitedSource string `json:"cited_source,omitempty"`
}

// ID derives a claim id from the document version, the span and the value,
// so that reading the same version again gives the same ids. It has the
// form of a UUID (version 8, name-based).
func ID(version string, s Span, v Value) string {
	h := sha256.New()
	for _, part := range []string{s.Document, version, strconv.Itoa(s.Start), strconv.Itoa(s.End),
		v.Metric, strconv.FormatFloat(v.Value, 'g', -1, 64), v.Unit, v.Currency, v.Period, v.Entity} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	for _, q := range v.Qualifiers {
		h.Write([]byte(q))
		h.Write([]byte{0})
	}
	sum := h.Sum(nil)[:16]
	sum[6] = sum[6]&0x0f | 0x80
	sum[8] = sum[8]&0x3f | 0x80
	x := hex.EncodeToString(sum)
	return x[:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:]
}
