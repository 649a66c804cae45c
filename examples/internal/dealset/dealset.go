// Package dealset reads and checks deal sets laid out like examples/deals
// (a folder per deal, NN-name, with deal.yaml, expected.json and the
// documents), for the tests of each set: the shape and vocabularies of the
// two files, documents that parse, and generated documents that match
// their generator.
package dealset

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

	"github.com/sanadhq/sanad/parse"
)

// File is a deal.yaml.
type File struct {
	Name      string `yaml:"name"`
	Company   string `yaml:"company"`
	AsOf      string `yaml:"as_of"`
	Documents []struct {
		File string `yaml:"file"`
		Kind string `yaml:"kind"`
	} `yaml:"documents"`
}

// Expected is an expected.json.
type Expected struct {
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

// Deal is one deal folder, read and checked.
type Deal struct {
	Dir  string
	File File
	Exp  Expected
}

// Read reads every deal folder under root (named NN-name) and checks its
// deal.yaml and expected.json against their shapes and vocabularies; a
// deal lists minDocs to 6 documents in at least 3 formats.
func Read(t testing.TB, root string, minDocs int) []Deal {
	t.Helper()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var out []Deal
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "internal" {
			continue
		}
		if !dealDirRE.MatchString(e.Name()) {
			t.Errorf("%s: a deal folder is named NN-name", e.Name())
			continue
		}
		dir := filepath.Join(root, e.Name())
		d := Deal{Dir: dir}
		y, err := os.ReadFile(filepath.Join(dir, "deal.yaml"))
		if err != nil {
			t.Error(err)
			continue
		}
		if err := yaml.UnmarshalWithOptions(y, &d.File, yaml.Strict()); err != nil {
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
		if err := dec.Decode(&d.Exp); err != nil {
			t.Errorf("%s/expected.json: %v", dir, err)
			continue
		}
		check(t, d, minDocs)
		out = append(out, d)
	}
	return out
}

func check(t testing.TB, d Deal, minDocs int) {
	t.Helper()
	f, x := d.File, d.Exp
	if f.Name == "" || f.Company == "" {
		t.Errorf("%s: deal.yaml needs name and company", d.Dir)
	}
	if f.AsOf != "2025-06-30" {
		t.Errorf("%s: as_of is %q, want 2025-06-30", d.Dir, f.AsOf)
	}
	if n := len(f.Documents); n < minDocs || n > 6 {
		t.Errorf("%s: %d documents, want %d to 6", d.Dir, n, minDocs)
	}
	files := map[string]bool{}
	exts := map[string]bool{}
	for _, doc := range f.Documents {
		if files[doc.File] {
			t.Errorf("%s: %s listed twice", d.Dir, doc.File)
		}
		files[doc.File] = true
		exts[path.Ext(doc.File)] = true
		if !slices.Contains(kinds, doc.Kind) {
			t.Errorf("%s: %s has kind %q, want one of %v", d.Dir, doc.File, doc.Kind, kinds)
		}
	}
	if len(exts) < 3 {
		t.Errorf("%s: documents in %d formats, want at least 3", d.Dir, len(exts))
	}
	if !slices.Contains(stops, x.StopReason) {
		t.Errorf("%s: stop_reason %q, want one of %v", d.Dir, x.StopReason, stops)
	}
	metric := func(what, m string) {
		if !slices.Contains(metrics, m) {
			t.Errorf("%s: %s metric %q, want one of %v", d.Dir, what, m, metrics)
		}
	}
	period := func(what, p string) {
		if !periodRE.MatchString(p) {
			t.Errorf("%s: %s period %q is not FY2024, Q3-2025, 2025-06 or LTM-2025-06", d.Dir, what, p)
		}
	}
	for _, c := range x.Contradictions {
		metric("contradiction", c.Metric)
		period("contradiction", c.Period)
		if len(c.Documents) < 2 {
			t.Errorf("%s: contradiction on %s names %d documents, want at least 2", d.Dir, c.Metric, len(c.Documents))
		}
		for _, doc := range c.Documents {
			if !files[doc] {
				t.Errorf("%s: contradiction on %s names %s, which is not in deal.yaml", d.Dir, c.Metric, doc)
			}
		}
	}
	for _, df := range x.Defects {
		if !slices.Contains(defectTypes, df.Type) {
			t.Errorf("%s: defect type %q, want one of %v", d.Dir, df.Type, defectTypes)
		}
		metric("defect", df.Metric)
		period("defect", df.Period)
	}
	for _, r := range x.Risks {
		if !slices.Contains(riskTypes, r.Type) {
			t.Errorf("%s: risk type %q, want one of %v", d.Dir, r.Type, riskTypes)
		}
	}
	for _, n := range x.NotExpected {
		switch n.Kind {
		case "contradiction":
			metric("not_expected", n.Metric)
			for _, c := range x.Contradictions {
				if c.Metric == n.Metric && (n.Period == "" || n.Period == c.Period) {
					t.Errorf("%s: contradiction on %s both expected and not", d.Dir, n.Metric)
				}
			}
		case "defect":
			if !slices.Contains(defectTypes, n.Type) {
				t.Errorf("%s: not_expected defect type %q", d.Dir, n.Type)
			}
			if n.Metric != "" {
				metric("not_expected", n.Metric)
			}
		case "risk":
			if !slices.Contains(riskTypes, n.Type) {
				t.Errorf("%s: not_expected risk type %q", d.Dir, n.Type)
			}
			for _, r := range x.Risks {
				if r.Type == n.Type {
					t.Errorf("%s: risk %s both expected and not", d.Dir, n.Type)
				}
			}
		default:
			t.Errorf("%s: not_expected kind %q, want contradiction, defect or risk", d.Dir, n.Kind)
		}
		if n.Period != "" {
			period("not_expected", n.Period)
		}
	}
}

// Covered returns what the deals of a set cover: "stop:REASON",
// "contradiction:METRIC", "defect:TYPE", "risk:TYPE", "clean" for a deal
// with nothing to find, and "not_expected:contradiction in a deal with
// traps".
func Covered(deals []Deal) map[string]bool {
	seen := map[string]bool{}
	for _, d := range deals {
		x := d.Exp
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
		for _, n := range x.NotExpected {
			if n.Kind == "contradiction" && (len(x.Contradictions) > 0 || len(x.Risks) > 0) {
				seen["not_expected:contradiction in a deal with traps"] = true
			}
		}
	}
	return seen
}

// CheckDocuments checks that every document a deal lists exists and
// parses to at least 30 words with no page or sheet unread, and that every
// file in a deal folder is listed.
func CheckDocuments(t *testing.T, deals []Deal) {
	for _, d := range deals {
		listed := map[string]bool{"deal.yaml": true, "expected.json": true}
		for _, doc := range d.File.Documents {
			listed[doc.File] = true
			t.Run(filepath.Base(d.Dir)+"/"+doc.File, func(t *testing.T) {
				data, err := os.ReadFile(filepath.Join(d.Dir, doc.File))
				if err != nil {
					t.Fatal(err)
				}
				res, err := parse.Bytes(context.Background(), doc.File, data, parse.Options{})
				if err != nil {
					t.Fatalf("parse: %v", err)
				}
				for _, n := range res.Document.Notes {
					// A running footer left out is expected; a page or
					// sheet not read, or cut, is not.
					if n.Code == "unreadable" || n.Code == "truncated" || strings.Contains(n.Text, "could not be read") {
						t.Errorf("note: page %d: %s", n.Page, n.Text)
					}
				}
				if len(strings.Fields(res.Markdown)) < 30 {
					t.Errorf("parsed to %d words, want at least 30", len(strings.Fields(res.Markdown)))
				}
			})
		}
		entries, err := os.ReadDir(d.Dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if !listed[e.Name()] {
				t.Errorf("%s/%s is not listed in deal.yaml", d.Dir, e.Name())
			}
		}
	}
}

// CheckGenerated checks that the documents generate writes (by their path
// under root) are on disk as written, that two runs of it agree, and that
// every PDF, DOCX and XLSX of a deal under root comes from it. pkg is the
// package to run go generate on.
func CheckGenerated(t testing.TB, root, pkg string, generate func() map[string][]byte) {
	t.Helper()
	a, b := generate(), generate()
	for name, want := range a {
		if !bytes.Equal(want, b[name]) {
			t.Errorf("%s: two runs of the generator give different bytes", name)
		}
		got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			t.Errorf("%v: run go generate %s", err, pkg)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from what the generator writes (%d bytes, want %d): run go generate %s", name, len(got), len(want), pkg)
		}
	}
	for _, ext := range []string{"pdf", "docx", "xlsx"} {
		m, _ := filepath.Glob(filepath.Join(root, "*", "*."+ext))
		for _, p := range m {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := a[filepath.ToSlash(rel)]; !ok {
				t.Errorf("%s is not written by the generator", p)
			}
		}
	}
}
