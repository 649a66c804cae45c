package heldout

import (
	"testing"

	"github.com/sanadhq/sanad/examples/deals-heldout/internal/roomdocs"
	"github.com/sanadhq/sanad/examples/internal/dealset"
)

// TestDeals checks the shape of every deal and that the set holds the six
// cases it is meant to.
func TestDeals(t *testing.T) {
	deals := dealset.Read(t, ".", 3)
	if len(deals) != 6 {
		t.Errorf("%d deals, want 6", len(deals))
	}
	seen := dealset.Covered(deals)
	for _, want := range []string{
		"clean",
		"contradiction:revenue", "contradiction:ebitda",
		"defect:INCONSISTENT_ARITHMETIC", "defect:SINGLE_SOURCE", "defect:WEAK_GRADE",
		"risk:CHURN", "risk:RUNWAY", "risk:LITIGATION", "risk:RELATED_PARTY", "risk:COVENANT",
		"stop:CONSENSUS", "stop:EVIDENCE_EXHAUSTED", "stop:CRITICAL_DEFECT",
	} {
		if !seen[want] {
			t.Errorf("no deal covers %s", want)
		}
	}
}

// TestDocumentsParse checks that every document a deal lists exists and
// parses, and that every file in a deal folder is listed.
func TestDocumentsParse(t *testing.T) {
	dealset.CheckDocuments(t, dealset.Read(t, ".", 3))
}

// TestGenerated checks that the PDF, DOCX and XLSX documents on disk are
// what the generator writes, that two runs of it agree, and that no such
// document comes from elsewhere.
func TestGenerated(t *testing.T) {
	dealset.CheckGenerated(t, ".", "./examples/deals-heldout", roomdocs.Files)
}
