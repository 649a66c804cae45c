package deals

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/sanadhq/sanad/examples/deals/internal/dealdocs"
	"github.com/sanadhq/sanad/examples/internal/dealset"
)

// TestDeals checks the shape of every deal and that the set covers the
// traps it is meant to.
func TestDeals(t *testing.T) {
	deals := dealset.Read(t, ".", 4)
	if len(deals) < 10 {
		t.Errorf("%d deals, want at least 10", len(deals))
	}
	seen := dealset.Covered(deals)
	for _, want := range []string{
		"clean",
		"contradiction:revenue",
		"not_expected:contradiction in a deal with traps",
		"defect:INCONSISTENT_ARITHMETIC", "defect:SINGLE_SOURCE", "defect:WEAK_GRADE", "defect:STALE_PERIOD",
		"risk:RUNWAY", "risk:CUSTOMER_CONCENTRATION", "risk:LITIGATION", "risk:RELATED_PARTY",
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
	dealset.CheckDocuments(t, dealset.Read(t, ".", 4))
}

// TestGenerated checks that the PDF, DOCX and XLSX documents on disk are
// what the generator writes, that two runs of it agree, and that no such
// document comes from elsewhere.
func TestGenerated(t *testing.T) {
	dealset.CheckGenerated(t, ".", "./examples/deals", dealdocs.Files)
}

// TestEmbedded checks that Larkfield holds the whole clean deal.
func TestEmbedded(t *testing.T) {
	entries, err := os.ReadDir("01-larkfield-analytics")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		want, _ := os.ReadFile(filepath.Join("01-larkfield-analytics", e.Name()))
		got, err := fs.ReadFile(Larkfield, "01-larkfield-analytics/"+e.Name())
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: not embedded as on disk", e.Name())
		}
	}
}
