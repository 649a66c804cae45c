package heldout2

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/sanadhq/sanad/examples/deals-heldout-2/internal/roomdocs"
	"github.com/sanadhq/sanad/parse"
)

type dealFile struct {
	Name      string `yaml:"name"`
	Company   string `yaml:"company"`
	AsOf      string `yaml:"as_of"`
	Documents []struct {
		File string `yaml:"file"`
		Kind string `yaml:"kind"`
	} `yaml:"documents"`
}

type expected struct {
	StopReason     string `json:"stop_reason"`
	Contradictions []struct {
		Metric    string   `json:"metric"`
		Period    string   `json:"period"`
		Documents []string `json:"documents"`
	} `json:"contradictions"`
	Defects []struct {
		Type   string `json:"type"`
		Metric string `json:"metric"`
		Period string `json:"period"`
	} `json:"defects"`
	Risks []struct {
		Type string `json:"type"`
	} `json:"risks"`
	NotExpected []struct {
		Kind   string `json:"kind"`
		Metric string `json:"metric,omitempty"`
		Type   string `json:"type,omitempty"`
		Period string `json:"period,omitempty"`
	} `json:"not_expected"`
}

var (
	kinds       = []string{"audited_statements", "bank_data", "management_accounts", "deck", "press", "web", "enrichment", "contract", "customer_list", "cap_table", "minutes"}
	metrics     = []string{"revenue", "arr", "mrr", "gross_profit", "gross_margin", "ebitda", "ebitda_margin", "net_income", "cash", "monthly_burn", "runway_months", "customers", "churn_rate", "headcount", "bookings", "valuation", "debt"}
	defectTypes = []string{"SINGLE_SOURCE", "WEAK_GRADE", "MISSING_SOURCE", "STALE_PERIOD", "INCONSISTENT_ARITHMETIC"}
	riskTypes   = []string{"RUNWAY", "CUSTOMER_CONCENTRATION", "CHURN", "NEGATIVE_MARGIN", "LITIGATION", "RELATED_PARTY", "KEY_PERSON", "COVENANT"}
	stops       = []string{"CONSENSUS", "STABLE_DISSENT", "EVIDENCE_EXHAUSTED", "MAX_ROUNDS", "CRITICAL_DEFECT"}
	periodRE    = regexp.MustCompile(`^(FY20\d\d|Q[1-4]-20\d\d|20\d\d-(0[1-9]|1[0-2])|LTM-20\d\d-(0[1-9]|1[0-2]))$`)
	dealDirRE   = regexp.MustCompile(`^\d\d-[a-z0-9-]+$`)
)

type deal struct {
	dir  string
	file dealFile
	exp  expected
}

// readDeals reads every deal folder's deal.yaml and expected.json and
// checks them against their shapes and vocabularies.
func readDeals(t *testing.T) []deal {
	t.Helper()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var out []deal
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "internal" {
			continue
		}
		dir := e.Name()
		if !dealDirRE.MatchString(dir) {
			t.Errorf("%s: a deal folder is named NN-name", dir)
			continue
		}
		d := deal{dir: dir}
		y, err := os.ReadFile(filepath.Join(dir, "deal.yaml"))
		if err != nil {
			t.Error(err)
			continue
		}
		if err := yaml.UnmarshalWithOptions(y, &d.file, yaml.Strict()); err != nil {
			t.Errorf("%s/deal.yaml: %v", dir, err)
			continue
		}
		j, err := os.ReadFile(filepath.Join(dir, "expected.json"))
		if err != nil {
			t.Error(err)
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(j))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&d.exp); err != nil {
			t.Errorf("%s/expected.json: %v", dir, err)
			continue
		}
		checkDeal(t, d)
		out = append(out, d)
	}
	return out
}

func checkDeal(t *testing.T, d deal) {
	t.Helper()
	f, x := d.file, d.exp
	if f.Name == "" || f.Company == "" {
		t.Errorf("%s: deal.yaml needs name and company", d.dir)
	}
	if f.AsOf != "2025-06-30" {
		t.Errorf("%s: as_of is %q, want 2025-06-30", d.dir, f.AsOf)
	}
	if n := len(f.Documents); n < 3 || n > 6 {
		t.Errorf("%s: %d documents, want 3 to 6", d.dir, n)
	}
	files := map[string]bool{}
	exts := map[string]bool{}
	for _, doc := range f.Documents {
		if files[doc.File] {
			t.Errorf("%s: %s listed twice", d.dir, doc.File)
		}
		files[doc.File] = true
		exts[path.Ext(doc.File)] = true
		if !slices.Contains(kinds, doc.Kind) {
			t.Errorf("%s: %s has kind %q, want one of %v", d.dir, doc.File, doc.Kind, kinds)
		}
	}
	if len(exts) < 3 {
		t.Errorf("%s: documents in %d formats, want at least 3", d.dir, len(exts))
	}
	if !slices.Contains(stops, x.StopReason) {
		t.Errorf("%s: stop_reason %q, want one of %v", d.dir, x.StopReason, stops)
	}
	metric := func(what, m string) {
		if !slices.Contains(metrics, m) {
			t.Errorf("%s: %s metric %q, want one of %v", d.dir, what, m, metrics)
		}
	}
	period := func(what, p string) {
		if !periodRE.MatchString(p) {
			t.Errorf("%s: %s period %q is not FY2024, Q3-2025, 2025-06 or LTM-2025-06", d.dir, what, p)
		}
	}
	for _, c := range x.Contradictions {
		metric("contradiction", c.Metric)
		period("contradiction", c.Period)
		if len(c.Documents) < 2 {
			t.Errorf("%s: contradiction on %s names %d documents, want at least 2", d.dir, c.Metric, len(c.Documents))
		}
		for _, doc := range c.Documents {
			if !files[doc] {
				t.Errorf("%s: contradiction on %s names %s, which is not in deal.yaml", d.dir, c.Metric, doc)
			}
		}
	}
	for _, df := range x.Defects {
		if !slices.Contains(defectTypes, df.Type) {
			t.Errorf("%s: defect type %q, want one of %v", d.dir, df.Type, defectTypes)
		}
		metric("defect", df.Metric)
		period("defect", df.Period)
	}
	for _, r := range x.Risks {
		if !slices.Contains(riskTypes, r.Type) {
			t.Errorf("%s: risk type %q, want one of %v", d.dir, r.Type, riskTypes)
		}
	}
	for _, n := range x.NotExpected {
		switch n.Kind {
		case "contradiction":
			metric("not_expected", n.Metric)
			for _, c := range x.Contradictions {
				if c.Metric == n.Metric && (n.Period == "" || n.Period == c.Period) {
					t.Errorf("%s: contradiction on %s both expected and not", d.dir, n.Metric)
				}
			}
		case "defect":
			if !slices.Contains(defectTypes, n.Type) {
				t.Errorf("%s: not_expected defect type %q", d.dir, n.Type)
			}
			if n.Metric != "" {
				metric("not_expected", n.Metric)
			}
		case "risk":
			if !slices.Contains(riskTypes, n.Type) {
				t.Errorf("%s: not_expected risk type %q", d.dir, n.Type)
			}
			for _, r := range x.Risks {
				if r.Type == n.Type {
					t.Errorf("%s: risk %s both expected and not", d.dir, n.Type)
				}
			}
		default:
			t.Errorf("%s: not_expected kind %q, want contradiction, defect or risk", d.dir, n.Kind)
		}
		if n.Period != "" {
			period("not_expected", n.Period)
		}
	}
}

// TestDeals checks the shape of every deal and that the set holds the six
// cases it is meant to.
func TestDeals(t *testing.T) {
	deals := readDeals(t)
	if len(deals) != 6 {
		t.Errorf("%d deals, want 6", len(deals))
	}
	seen := map[string]bool{}
	for _, d := range deals {
		x := d.exp
		seen["stop:"+x.StopReason] = true
		for _, c := range x.Contradictions {
			seen["contradiction:"+c.Metric] = true
		}
		for _, df := range x.Defects {
			seen["defect:"+df.Type] = true
		}
		for _, r := range x.Risks {
			seen["risk:"+r.Type] = true
		}
		if len(x.Contradictions) == 0 && len(x.Defects) == 0 && len(x.Risks) == 0 && x.StopReason == "CONSENSUS" {
			seen["clean"] = true
		}
	}
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
	for _, d := range readDeals(t) {
		listed := map[string]bool{"deal.yaml": true, "expected.json": true}
		for _, doc := range d.file.Documents {
			listed[doc.File] = true
			t.Run(d.dir+"/"+doc.File, func(t *testing.T) {
				data, err := os.ReadFile(filepath.Join(d.dir, doc.File))
				if err != nil {
					t.Fatal(err)
				}
				res, err := parse.Bytes(context.Background(), doc.File, data, parse.Options{})
				if err != nil {
					t.Fatalf("parse: %v", err)
				}
				for _, n := range res.Document.Notes {
					if n.Code == "unreadable" || n.Code == "truncated" || strings.Contains(n.Text, "could not be read") {
						t.Errorf("note: page %d: %s", n.Page, n.Text)
					}
				}
				if len(strings.Fields(res.Markdown)) < 30 {
					t.Errorf("parsed to %d words, want at least 30", len(strings.Fields(res.Markdown)))
				}
			})
		}
		entries, err := os.ReadDir(d.dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if !listed[e.Name()] {
				t.Errorf("%s/%s is not listed in deal.yaml", d.dir, e.Name())
			}
		}
	}
}

// TestGenerated checks that the PDF, DOCX and XLSX documents on disk are
// what the generator writes, and that two runs of it agree.
func TestGenerated(t *testing.T) {
	a, b := roomdocs.Files(), roomdocs.Files()
	for name, want := range a {
		if !bytes.Equal(want, b[name]) {
			t.Errorf("%s: two runs of the generator give different bytes", name)
		}
		got, err := os.ReadFile(filepath.FromSlash(name))
		if err != nil {
			t.Errorf("%v: run go generate ./examples/deals-heldout-2", err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from what the generator writes (%d bytes, want %d): run go generate ./examples/deals-heldout-2", name, len(got), len(want))
		}
	}
	for _, ext := range []string{"pdf", "docx", "xlsx"} {
		m, _ := filepath.Glob(filepath.Join("*", "*."+ext))
		for _, p := range m {
			if _, ok := a[filepath.ToSlash(p)]; !ok {
				t.Errorf("%s is not written by the generator", p)
			}
		}
	}
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
	for _, d := range readDeals(t) {
		for _, doc := range d.file.Documents {
			if m := date.FindString(doc.File); m != "" && m > d.file.AsOf {
				t.Errorf("%s/%s is dated %s, after as_of %s", d.dir, doc.File, m, d.file.AsOf)
			}
		}
	}
}
