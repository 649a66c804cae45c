package heldout

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

	"github.com/goccy/go-yaml"

	"github.com/sanadhq/sanad/examples/deals-heldout/internal/roomdocs"
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
			t.Errorf("%v: run go generate ./examples/deals-heldout", err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from what the generator writes (%d bytes, want %d): run go generate ./examples/deals-heldout", name, len(got), len(want))
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
