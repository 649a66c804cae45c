package diligence

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// The floors the golden deal set must meet: the figures measured with
// `sanad eval diligence examples/deals`.
const (
	minRecall     = 1.0
	minPrecision  = 1.0
	minRiskRecall = 1.0
	minStopAcc    = 1.0
)

func TestGoldenDeals(t *testing.T) {
	dirs, err := filepath.Glob("../examples/deals/[0-9]*")
	if err != nil || len(dirs) != 10 {
		t.Fatalf("got %d deals (%v), want 10", len(dirs), err)
	}
	var scores []Scorecard
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			d, err := Load(context.Background(), dir)
			if err != nil {
				t.Fatal(err)
			}
			want, err := ReadExpected(dir)
			if err != nil {
				t.Fatal(err)
			}
			f := Analyze(d)
			checkCitations(t, d, f)
			s := Score(f, want)
			scores = append(scores, s)
			if !s.StopOK() {
				t.Errorf("stop reason: got %s, want %s", s.StopReason, s.WantStopReason)
			}
			for _, m := range s.Missed {
				t.Logf("missed: %s", m)
			}
			for _, m := range append(s.False, s.FalseRisks...) {
				t.Logf("false: %s", m)
			}
		})
	}
	tot := Sum(scores)
	t.Logf("recall %.3f (%d/%d), precision %.3f (%d/%d), risk recall %.3f, false risks %d, stop %d/%d",
		tot.Recall, tot.Found, tot.Expected, tot.Precision, tot.Correct, tot.Reported, tot.RiskRecall, tot.FalseRisks, tot.StopOK, tot.Deals)
	if tot.Recall < minRecall || tot.Precision < minPrecision || tot.RiskRecall < minRiskRecall || tot.StopAcc < minStopAcc {
		t.Errorf("got recall %.3f, precision %.3f, risk recall %.3f, stop accuracy %.3f; want at least %g, %g, %g, %g",
			tot.Recall, tot.Precision, tot.RiskRecall, tot.StopAcc, minRecall, minPrecision, minRiskRecall, minStopAcc)
	}
}

// checkCitations checks that every item cites claims that resolve to a
// span of its document's Markdown, and calcs that Findings carries.
func checkCitations(t testing.TB, d Deal, f Findings) {
	t.Helper()
	calcs := map[string]bool{}
	for _, c := range f.Calcs {
		calcs[c.CalcID] = true
	}
	for _, it := range append(append(append([]Item{}, f.Contradictions...), f.Defects...), f.Risks...) {
		if len(it.Claims) == 0 {
			t.Errorf("%s %s cites no claim", it.Type, it.Metric)
		}
		for _, id := range it.Claims {
			c, ok := f.Claims[id]
			if !ok {
				t.Errorf("%s %s cites %s, not in Findings.Claims", it.Type, it.Metric, id)
				continue
			}
			doc := d.Doc(c.Span.Document)
			if doc == nil || c.Span.Start < 0 || c.Span.End > len(doc.Markdown) || c.Span.Start >= c.Span.End {
				t.Errorf("%s %s: claim %s has span %+v outside its document", it.Type, it.Metric, id, c.Span)
			}
		}
		for _, id := range it.Calcs {
			if !calcs[id] {
				t.Errorf("%s %s cites calc %s, not in Findings.Calcs", it.Type, it.Metric, id)
			}
		}
	}
}

func TestReadManifest(t *testing.T) {
	tests := []struct {
		name, yaml, field string
	}{
		{"bad_kind", "name: X\nas_of: 2025-06-30\ndocuments:\n  - {file: a.pdf, kind: rumour}\n", "documents[0].kind"},
		{"bad_date", "name: X\nas_of: June\ndocuments:\n  - {file: a.pdf, kind: deck}\n", "as_of"},
		{"bad_empty", "name: X\nas_of: 2025-06-30\ndocuments: []\n", "documents"},
		{"bad_escape", "name: X\nas_of: 2025-06-30\ndocuments:\n  - {file: ../a.pdf, kind: deck}\n", "documents[0].file"},
		{"bad_twice", "name: X\nas_of: 2025-06-30\ndocuments:\n  - {file: a.pdf, kind: deck}\n  - {file: a.pdf, kind: deck}\n", "documents[1].file"},
		{"bad_field", "name: X\nas_of: 2025-06-30\nowner: me\ndocuments:\n  - {file: a.pdf, kind: deck}\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, ManifestFile), []byte(tt.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := ReadManifest(dir)
			var me *ManifestError
			if !errors.As(err, &me) || !errors.Is(err, ErrManifest) {
				t.Fatalf("got %v, want a *ManifestError", err)
			}
			if me.Field != tt.field {
				t.Errorf("got field %q, want %q", me.Field, tt.field)
			}
		})
	}
}

func TestPeriodBounds(t *testing.T) {
	tests := []struct{ p, start, end string }{
		{"FY2024", "2024-01-01", "2024-12-31"},
		{"LTM-2024-06", "2023-07-01", "2024-06-30"},
		{"Q3-2025", "2025-07-01", "2025-09-30"},
		{"H1-2025", "2025-01-01", "2025-06-30"},
		{"2025-02", "2025-02-01", "2025-02-28"},
	}
	for _, tt := range tests {
		s, e, ok := periodBounds(tt.p)
		if !ok || s.Format("2006-01-02") != tt.start || e.Format("2006-01-02") != tt.end {
			t.Errorf("periodBounds(%q) = %v, %v, %v; want %s, %s", tt.p, s, e, ok, tt.start, tt.end)
		}
	}
}
