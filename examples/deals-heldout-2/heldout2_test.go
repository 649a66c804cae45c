package heldout2

import (
	"context"
	"github.com/sanadhq/sanad/examples/internal/dealset"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sanadhq/sanad/examples/deals-heldout-2/internal/roomdocs"
	"github.com/sanadhq/sanad/parse"
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
		"contradiction:revenue", "contradiction:gross_margin",
		"defect:INCONSISTENT_ARITHMETIC", "defect:SINGLE_SOURCE", "defect:WEAK_GRADE", "defect:STALE_PERIOD",
		"risk:RUNWAY", "risk:CUSTOMER_CONCENTRATION", "risk:KEY_PERSON", "risk:NEGATIVE_MARGIN",
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
	dealset.CheckGenerated(t, ".", "./examples/deals-heldout-2", roomdocs.Files)
}

// markdown parses a deal's document and returns its Markdown with the
// thousands separators taken out, so that 12,347,000 reads 12347000.
func markdown(t *testing.T, file string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.FromSlash(file))
	if err != nil {
		t.Fatal(err)
	}
	res, err := parse.Bytes(context.Background(), path.Base(file), data, parse.Options{})
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	md := res.Markdown
	for thousands.MatchString(md) {
		md = thousands.ReplaceAllString(md, "$1$2")
	}
	return md
}

var (
	thousands = regexp.MustCompile(`(\d),(\d{3})`)
	count2400 = regexp.MustCompile(`(^|[^\d.])2400(\D|$)`)
)

// TestTraps checks that each deal's documents carry the figures its
// expected.json is about, and that those figures are what the README
// says they are.
func TestTraps(t *testing.T) {
	for _, c := range []struct {
		file string
		want []string
	}{
		// 01: the same revenue rounded four ways.
		{"01-wrenfield-veterinary/deck.pdf", []string{"£12.35m", "£2.09m", "71.0%"}},
		{"01-wrenfield-veterinary/audited-statements.pdf", []string{"12347000", "8766000", "2094000", "3412000"}},
		{"01-wrenfield-veterinary/management-accounts.xlsx", []string{"12347", "8766", "2094"}},
		{"01-wrenfield-veterinary/press.md", []string{"£12.3m", "1200 practices"}},
		// 02: 71% in the deck; 11,784 over 18,412 in the audited statements.
		{"02-kadewerk-planning/deck.pdf", []string{"Gross margin of 71%"}},
		{"02-kadewerk-planning/audited-statements.docx", []string{"18412", "11784"}},
		{"02-kadewerk-planning/board-minutes-2025-04-09.md", []string{"maintained by him alone", "no key-person insurance"}},
		// 03: the customer count in the press article.
		{"03-sprocketline/press.html", []string{"2400"}},
		{"03-sprocketline/bank-statements.csv", []string{"2941350.00"}},
		// 04: Q2 2024 times four.
		{"04-marramba-solar/deck.pdf", []string{"A$26.1m", "Q2 2024"}},
		{"04-marramba-solar/audited-statements.pdf", []string{"19904362"}},
		// 05: quarters that do not add up; a customer at 45.2%.
		{"05-kvarnby-precision/management-accounts.xlsx", []string{"19305", "86130"}},
		{"05-kvarnby-precision/customers.csv", []string{"Nordvik Trucks AB", "45.2%"}},
		// 06: nothing after 2022.
		{"06-ceramiche-valdarno/audited-statements-2022.docx", []string{"31 December 2022", "(2140)"}},
		{"06-ceramiche-valdarno/management-accounts-2022.xlsx", []string{"Dec 2022", "48620"}},
	} {
		md := markdown(t, c.file)
		for _, w := range c.want {
			if !strings.Contains(md, w) {
				t.Errorf("%s does not say %q", c.file, w)
			}
		}
	}

	// 01: every rounding is within half a unit of its last digit.
	for _, r := range []float64{12.35e6, 12.3e6, 12347e3} {
		if d := r - 12347000; d > 50000 || d < -50000 {
			t.Errorf("Wrenfield revenue %v is not a rounding of £12,347,000", r)
		}
	}
	// 02: gross profit over revenue is 64.0%, not 71%.
	if gm := 11784.0 / 18412; gm < 0.6395 || gm >= 0.6405 {
		t.Errorf("Kadewerk audited gross margin %.4f, want 64.0%%", gm)
	}
	// 03: runway about seven months; no company document counts customers.
	if m := 2941350.0 / ((418200 + 431700 + 409900 + 440600 + 425300 + 428100) / 6.0); m < 6.5 || m > 7.5 {
		t.Errorf("Sprocketline runway %.1f months, want about 7", m)
	}
	for _, f := range []string{"deck.pdf", "management-accounts.xlsx", "bank-statements.csv", "board-minutes-2025-06-12.docx"} {
		if md := markdown(t, "03-sprocketline/"+f); count2400.MatchString(md) || strings.Contains(md, "contractors use") {
			t.Errorf("03-sprocketline/%s gives the customer count, which only the press should", f)
		}
	}
	// 04: the deck overstates audited revenue by more than 25%.
	if q2x4 := 6518.0 * 4; q2x4/19904.362-1 <= 0.25 || q2x4/19904.362-1 > 0.35 {
		t.Errorf("Marramba deck revenue %v against audited 19,904: want an overstatement of about 30%%", q2x4)
	}
	// 05: the quarters miss the full year by SEK 2.0m; Nordvik is 45%.
	if sum := 21460 + 22815 + 19305 + 20550; sum != 86130-2000 {
		t.Errorf("Kvarnby quarters add up to %d", sum)
	}
	if s := 38920.0 / 86130; s < 0.44 || s > 0.46 {
		t.Errorf("Kvarnby's largest customer is %.3f of net sales, want about 45%%", s)
	}
	// 06: the latest period ends more than 18 months before as_of.
	if end, asOf := time.Date(2022, 12, 31, 0, 0, 0, 0, time.UTC), time.Date(2025, 6, 30, 0, 0, 0, 0, time.UTC); !end.AddDate(0, 18, 0).Before(asOf) {
		t.Error("Valdarno's figures are not stale")
	}
}

// TestDatedFiles checks that no document's file name bears a date after
// its deal's as_of date, which would leave it out of the analysis.
func TestDatedFiles(t *testing.T) {
	date := regexp.MustCompile(`\d{4}-\d{2}-\d{2}`)
	for _, d := range dealset.Read(t, ".", 3) {
		for _, doc := range d.File.Documents {
			if m := date.FindString(doc.File); m != "" && m > d.File.AsOf {
				t.Errorf("%s/%s is dated %s, after as_of %s", d.Dir, doc.File, m, d.File.AsOf)
			}
		}
	}
}
