package claim

import (
	"errors"
	"math"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/document"
)

func money(v, precision float64) Value {
	return Value{Metric: "revenue", Value: v, Unit: Currency, Currency: "GBP", Period: "FY2024", Precision: precision}
}

func TestCompareAllowsForRoundingAsWritten(t *testing.T) {
	tests := []struct {
		name string
		a, b Value
		same bool
	}{
		{"£48.2m and £48,213k", money(48.2e6, 0.05e6), money(48_213_000, 500), true},
		{"48.2m and 48,200 thousand", money(48.2e6, 0.05e6), money(48_200_000, 500), true},
		{"£49.6m and £48.2m", money(49.6e6, 0.05e6), money(48.2e6, 0.05e6), false},
		{"12.4 and 11.9", Value{Value: 12.4, Unit: Percent}, Value{Value: 11.9, Unit: Percent}, false},
		{"12.4 and 12.4", Value{Value: 12.4, Unit: Percent}, Value{Value: 12.4, Unit: Percent}, true},
		{"precision inferred: 48,200,000 and 48,213,000", money(48_200_000, 0), money(48_213_000, 0), true},
		{"unscaled 48.2 and £48.2m", money(48.2, 0.05), money(48.2e6, 0.05e6), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if same, _ := Compare(tt.a, tt.b); same != tt.same {
				t.Errorf("got same %v, want %v", same, tt.same)
			}
			if same, _ := Compare(tt.b, tt.a); same != tt.same {
				t.Errorf("reversed: got same %v, want %v", same, tt.same)
			}
		})
	}
}

func TestCompareRefusesDifferentUnitsAndCurrencies(t *testing.T) {
	pct := Value{Value: 48.2, Unit: Percent}
	if same, d := Compare(money(48.2, 0.05), pct); same || !math.IsInf(d, 1) {
		t.Errorf("currency and percent: got %v %g, want false +Inf", same, d)
	}
	usd := money(48.2e6, 0.05e6)
	usd.Currency = "USD"
	if same, d := Compare(money(48.2e6, 0.05e6), usd); same || !math.IsInf(d, 1) {
		t.Errorf("GBP and USD: got %v %g, want false +Inf", same, d)
	}
	if _, d := Compare(money(49.6e6, 0.05e6), money(48.2e6, 0.05e6)); math.Abs(d-1.4/49.6) > 1e-9 {
		t.Errorf("got relDiff %g, want %g", d, 1.4/49.6)
	}
}

func claimOf(doc string, v Value, cited string) Claim {
	s := Span{Document: doc, Version: "v1", Start: 0, End: 4}
	return Claim{ID: ID("v1", s, v), Value: v, Span: s, CitedSource: cited}
}

func TestChainFlagsAContradictionBetweenDeckAndAccounts(t *testing.T) {
	accounts, _ := Declare("accounts", "audited statements", "auditor")
	deck, _ := Declare("deck", "deck", "company")
	claims := []Claim{
		claimOf("accounts", money(48.2e6, 0.05e6), ""),
		claimOf("deck", money(52e6, 0.5e6), ""),
	}
	facts := Chain(claims, map[string]Source{"accounts": accounts, "deck": deck})
	if len(facts) != 1 {
		t.Fatalf("got %d facts, want 1", len(facts))
	}
	f := facts[0]
	if len(f.Contradictions) != 1 {
		t.Fatalf("got %d contradictions, want 1", len(f.Contradictions))
	}
	c := f.Contradictions[0]
	if c.A.Document != "accounts" || c.B.Document != "deck" || c.A.Value.Value != 48.2e6 || c.B.Value.Value != 52e6 || len(c.A.Spans) != 1 {
		t.Errorf("got contradiction %+v, want accounts 48.2m against deck 52m with spans", c)
	}
	if f.Value.Value != 48.2e6 || f.Grade != GradeA || f.Verdict != Verified {
		t.Errorf("got fact %g %s %s, want 48.2m A VERIFIED", f.Value.Value, f.Grade, f.Verdict)
	}
	verdicts := map[string]Verdict{}
	for _, c := range f.Claims {
		verdicts[c.Span.Document] = c.Verdict
	}
	if verdicts["accounts"] != Verified || verdicts["deck"] != Refuted {
		t.Errorf("got verdicts %v, want accounts VERIFIED and deck REFUTED", verdicts)
	}
}

func TestChainContradictsSourcesOfTheSameGrade(t *testing.T) {
	a, _ := Declare("a", "deck", "")
	b, _ := Declare("b", "press release", "")
	facts := Chain([]Claim{claimOf("a", money(12.4e6, 0.05e6), ""), claimOf("b", money(11.9e6, 0.05e6), "")}, map[string]Source{"a": a, "b": b})
	for _, c := range facts[0].Claims {
		if c.Verdict != Contradicted {
			t.Errorf("%s: got %s, want CONTRADICTED", c.Span.Document, c.Verdict)
		}
	}
}

func TestChainGradesCorroborationUpOneStep(t *testing.T) {
	deck, _ := Declare("deck", "deck", "company")
	press, _ := Declare("press", "press release", "newswire")
	web, _ := Declare("web", "web", "company")
	tests := []struct {
		name    string
		sources map[string]Source
		docs    []string
		grade   Grade
		verdict Verdict
		ahad    bool
	}{
		{"single deck is ahad", map[string]Source{"deck": deck}, []string{"deck"}, GradeC, Unverified, true},
		{"deck and press release agree", map[string]Source{"deck": deck, "press": press}, []string{"deck", "press"}, GradeB, Corroborated, false},
		{"same origin corroborates nothing", map[string]Source{"deck": deck, "web": web}, []string{"deck", "web"}, GradeC, Unverified, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cs []Claim
			for i, d := range tt.docs {
				// £48.2m in one, £48,213k in another: the same fact.
				v := money(48.2e6, 0.05e6)
				if i == 1 {
					v = money(48_213_000, 500)
				}
				cs = append(cs, claimOf(d, v, ""))
			}
			f := Chain(cs, tt.sources)[0]
			if f.Grade != tt.grade || f.Verdict != tt.verdict || f.Ahad != tt.ahad || len(f.Contradictions) != 0 {
				t.Errorf("got %s %s ahad=%v with %d contradictions, want %s %s ahad=%v", f.Grade, f.Verdict, f.Ahad, len(f.Contradictions), tt.grade, tt.verdict, tt.ahad)
			}
		})
	}
}

func TestChainKeepsDifferentPeriodsAndQualifiersApart(t *testing.T) {
	a := money(48.2e6, 0.05e6)
	b := money(40.7e6, 0.05e6)
	b.Period = "FY2023"
	c := money(47e6, 0.05e6)
	c.Qualifiers = []string{"budget"}
	facts := Chain([]Claim{claimOf("x", a, ""), claimOf("x", b, ""), claimOf("y", c, "")}, nil)
	if len(facts) != 3 {
		t.Fatalf("got %d facts, want 3", len(facts))
	}
	for _, f := range facts {
		if len(f.Contradictions) != 0 || f.Grade != GradeD {
			t.Errorf("%s %s %v: got %d contradictions grade %s, want none and D", f.Metric, f.Period, f.Qualifiers, len(f.Contradictions), f.Grade)
		}
	}
}

func TestChainGradesAQuotedSourceAsItsSource(t *testing.T) {
	accounts, _ := Declare("ar", "audited statements", "")
	facts := Chain([]Claim{
		claimOf("ar", money(48.2e6, 0.05e6), ""),
		claimOf("ar", money(1.4e6, 0.05e6), "management accounts"),
	}, map[string]Source{"ar": accounts})
	for _, c := range facts[0].Claims {
		want := Verified
		if c.CitedSource != "" {
			want = Refuted
		}
		if c.Verdict != want {
			t.Errorf("%g: got %s, want %s", c.Value.Value, c.Verdict, want)
		}
	}
}

func TestDeclareRejectsUnknownKinds(t *testing.T) {
	_, err := Declare("x", "rumour", "")
	var e *sanad.Error
	if !errors.As(err, &e) || e.Code != sanad.CodeInvalidInput {
		t.Errorf("got %v, want INVALID_INPUT", err)
	}
}

func TestInferSourceReadsTheFirstPage(t *testing.T) {
	tests := []struct {
		name  string
		doc   *document.Document
		kind  string
		grade Grade
	}{
		{"audited", textDoc(document.Block{Kind: document.Header, Level: 1, Text: "Annual Report and Financial Statements 2024"}), "audited statements", GradeA},
		{"management accounts", textDoc(para("The CFO presented the unaudited management accounts.")), "management accounts", GradeB},
		{"press release", textDoc(para("PRESS RELEASE: Tessaro announces record results, audited figures to follow.")), "press release", GradeC},
		{"web page", &document.Document{Format: "html", Blocks: []document.Block{para("Simple pricing")}}, "web", GradeD},
		{"nothing to go on", textDoc(para("Notes.")), "unknown", GradeD},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := InferSource(tt.doc, "d")
			if s.Kind != tt.kind || s.Grade != tt.grade || !s.Inferred {
				t.Errorf("got %s %s inferred=%v, want %s %s inferred", s.Kind, s.Grade, s.Inferred, tt.kind, tt.grade)
			}
		})
	}
}

// TestChainOnTheSampleDataRoomRefutesTheManagementAccountsRevenue reads
// the annual report and the board minutes of examples/corpus, inferring
// their grades, and checks the FY2024 revenue: £48.2m audited against
// £49.6m in the management accounts.
func TestChainOnTheSampleDataRoomRefutesTheManagementAccountsRevenue(t *testing.T) {
	var claims []Claim
	sources := map[string]Source{}
	for _, name := range []string{"annual-report-2024.pdf", "board-minutes-2025-03-18.docx"} {
		doc, _ := parseCorpus(t, name)
		sources[name] = InferSource(doc, name)
		claims = append(claims, Extract(doc, name, "v1")...)
	}
	if sources["annual-report-2024.pdf"].Grade != GradeA || sources["board-minutes-2025-03-18.docx"].Grade != GradeB {
		t.Fatalf("got sources %+v, want the report A and the minutes B", sources)
	}
	var rev *Fact
	facts := Chain(claims, sources)
	for i, f := range facts {
		if f.Metric == "revenue" && f.Period == "FY2024" && len(f.Qualifiers) == 0 {
			rev = &facts[i]
		}
	}
	if rev == nil {
		t.Fatal("no FY2024 revenue fact")
	}
	if rev.Value.Value != 48.2e6 || rev.Verdict != Verified {
		t.Errorf("got %g %s, want 48.2m VERIFIED", rev.Value.Value, rev.Verdict)
	}
	found := false
	for _, c := range rev.Contradictions {
		if c.A.Document == "annual-report-2024.pdf" && c.A.Value.Value == 48.2e6 && c.B.Document == "board-minutes-2025-03-18.docx" && c.B.Value.Value == 49.6e6 {
			found = true
		}
	}
	if !found {
		t.Errorf("got contradictions %+v, want 48.2m (report) against 49.6m (minutes)", rev.Contradictions)
	}
	for _, f := range facts {
		if f.Metric == "cash" && f.Period == "FY2024" && (f.Verdict != Verified || f.Ahad) {
			t.Errorf("cash FY2024: got %s ahad=%v, want VERIFIED by two sources", f.Verdict, f.Ahad)
		}
	}
}
