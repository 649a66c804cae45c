package diligence

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/playbook/debate"
)

// TestMemoFiguresTraceToClaimsOrCalcs builds the memo of every golden deal
// and walks its figures: each statement's numbers are in the spans of the
// claims it cites or are the values of its calcs, every citation's quote is
// the document's own text around the span, and the recommendation follows
// from the stop reason.
func TestMemoFiguresTraceToClaimsOrCalcs(t *testing.T) {
	want := map[string][]string{
		debate.StopCriticalDefect:    {Decline},
		debate.StopEvidenceExhausted: {Escalate},
		debate.StopStableDissent:     {Escalate},
		debate.StopConsensus:         {Proceed, ProceedWithConditions},
	}
	dirs, _ := filepath.Glob(filepath.Join("..", "examples", "deals", "[0-9]*"))
	if len(dirs) < 10 {
		t.Fatalf("%d golden deals", len(dirs))
	}
	for _, dir := range dirs {
		d, err := Load(context.Background(), dir)
		if err != nil {
			t.Fatal(err)
		}
		f := Analyze(d)
		m, err := BuildMemo(d, f)
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(dir), err)
			continue
		}
		ok := false
		for _, r := range want[m.StopReason] {
			ok = ok || r == m.Recommendation
		}
		if !ok {
			t.Errorf("%s: %s after %s", filepath.Base(dir), m.Recommendation, m.StopReason)
		}
		for _, c := range m.Citations {
			doc := d.Doc(c.Document)
			if doc == nil {
				continue // a claim read from a sentence the analysis quoted
			}
			if c.Quote == "" || !strings.Contains(strings.ReplaceAll(doc.Markdown, "…", ""), strings.Trim(c.Quote, "…")) {
				t.Errorf("%s: citation %s quotes %q, not the document's text", filepath.Base(dir), c.ClaimID, c.Quote)
			}
			if span := doc.Markdown[c.Start:c.End]; !strings.Contains(c.Quote, strings.TrimSpace(span)) {
				t.Errorf("%s: citation %s does not hold its span %q", filepath.Base(dir), c.ClaimID, span)
			}
		}
		md := m.Markdown()
		if !strings.Contains(md, "Recommendation: **"+m.Recommendation+"**") || !strings.Contains(md, "## Sources") {
			t.Errorf("%s: the Markdown lacks its recommendation or sources", filepath.Base(dir))
		}
		// A figure that traces to nothing blocks the memo.
		m.KeyMetrics = append(m.KeyMetrics, Statement{Text: "revenue will reach 99.9 million next year", Claims: m.KeyMetrics[0].Claims})
		if err := m.CheckFigures(); sanad.ErrorCode(err) != sanad.CodeMuhasabahGate {
			t.Errorf("%s: a free figure passed: %v", filepath.Base(dir), err)
		}
	}
}

// TestPointInTimeLeavesOutLaterEvidence: an as-of date before a document's
// date leaves it out, and the memo says so.
func TestPointInTimeLeavesOutLaterEvidence(t *testing.T) {
	dir := filepath.Join("..", "examples", "deals", "02-corvid-freight")
	d, err := LoadAsOf(context.Background(), dir, "2025-05-01")
	if err != nil {
		t.Fatal(err)
	}
	left := false
	for _, e := range d.Excluded {
		left = left || e.Document == "board-minutes-2025-05-22.docx"
	}
	if !left {
		t.Fatalf("minutes dated after the as-of date were used: %+v", d.Excluded)
	}
	m, err := BuildMemo(d, Analyze(d))
	if err != nil {
		t.Fatal(err)
	}
	if m.AsOf != "2025-05-01" || !strings.Contains(m.Markdown(), "left out") {
		t.Fatalf("the memo does not say what was left out:\n%s", m.Markdown())
	}
	if _, err := LoadAsOf(context.Background(), dir, "June"); err == nil {
		t.Fatal("a bad as-of date was accepted")
	}
}
