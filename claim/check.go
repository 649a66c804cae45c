package claim

import (
	"context"
	"strings"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/document"
)

// Verdicts of Check.
const (
	Supports       = "SUPPORTS"
	Contradicts    = "CONTRADICTS"
	Mixed          = "MIXED"
	DoesNotAddress = "DOES_NOT_ADDRESS"
)

// Passage is a piece of a document that may bear on a claim: a retrieved
// chunk, already read into claims.
type Passage struct {
	Document string  `json:"document"`
	ChunkID  string  `json:"chunk_id,omitempty"`
	Text     string  `json:"text"`
	Claims   []Claim `json:"-"`
}

// Finding is what one passage says of a claim's fact.
type Finding struct {
	Document string  `json:"document"`
	ChunkID  string  `json:"chunk_id,omitempty"`
	Stated   Value   `json:"stated"`
	Quote    string  `json:"quote"`
	Agrees   bool    `json:"agrees"`
	RelDiff  float64 `json:"rel_diff"`
	ClaimID  string  `json:"claim_id"`
}

// CheckResult is the verdict on each figure of a claim text.
type CheckResult struct {
	Text    string        `json:"text"`
	Verdict string        `json:"verdict"`
	Figures []FigureCheck `json:"figures"`
}

// FigureCheck is the verdict on one figure of the claim.
type FigureCheck struct {
	Value    Value     `json:"value"`
	Verdict  string    `json:"verdict"`
	Findings []Finding `json:"findings"`
}

// ReadText reads the figures of a claim written as a sentence ("Tessaro's
// revenue in 2024 was £49.6m").
func ReadText(text string) []Claim {
	doc := &document.Document{Format: "md", Pages: 1, Blocks: []document.Block{{Kind: document.Text, Text: text}}}
	return Extract(doc, "claim", "v0")
}

// Check says whether passages support, contradict or do not address each
// figure of text: a passage's claim of the same metric (and period, when
// both give one) agrees when Compare finds the values the same. A claim
// text with no figure the vocabulary knows is INVALID_INPUT.
func Check(_ context.Context, text string, passages []Passage) (CheckResult, error) {
	res := CheckResult{Text: text, Verdict: DoesNotAddress, Figures: []FigureCheck{}}
	wanted := ReadText(text)
	if len(wanted) == 0 {
		return res, sanad.Errorf(sanad.CodeInvalidInput, "claim.check", "no figure sanad can check in %q: name a metric and a value (\"revenue in FY2024 was £48.2m\")", text)
	}
	supported, contradicted := 0, 0
	for _, w := range wanted {
		fc := FigureCheck{Value: w.Value, Verdict: DoesNotAddress, Findings: []Finding{}}
		for _, p := range passages {
			for _, c := range p.Claims {
				if c.Value.Metric != w.Value.Metric || !sameQualifiers(c.Value, w.Value) {
					continue
				}
				if w.Value.Period != "" && c.Value.Period != "" && c.Value.Period != w.Value.Period {
					continue
				}
				same, diff := Compare(w.Value, c.Value)
				if c.Value.Unit != w.Value.Unit {
					continue
				}
				fc.Findings = append(fc.Findings, Finding{Document: p.Document, ChunkID: p.ChunkID, Stated: c.Value,
					Quote: quote(c.Text), Agrees: same, RelDiff: diff, ClaimID: c.ID})
			}
		}
		agree, disagree := 0, 0
		for _, f := range fc.Findings {
			if f.Agrees {
				agree++
			} else {
				disagree++
			}
		}
		switch {
		case agree > 0 && disagree > 0:
			fc.Verdict = Mixed
		case agree > 0:
			fc.Verdict = Supports
			supported++
		case disagree > 0:
			fc.Verdict = Contradicts
			contradicted++
		}
		if fc.Verdict == Mixed {
			supported++
			contradicted++
		}
		res.Figures = append(res.Figures, fc)
	}
	switch {
	case supported > 0 && contradicted > 0:
		res.Verdict = Mixed
	case contradicted > 0:
		res.Verdict = Contradicts
	case supported > 0:
		res.Verdict = Supports
	}
	return res, nil
}

func sameQualifiers(a, b Value) bool {
	if len(a.Qualifiers) != len(b.Qualifiers) {
		return false
	}
	for i := range a.Qualifiers {
		if a.Qualifiers[i] != b.Qualifiers[i] {
			return false
		}
	}
	return true
}

func quote(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		cut := 300
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
