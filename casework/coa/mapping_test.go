package coa_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/casework/coa"
)

func causeByID(tb testing.TB, m coa.Map, id string) (coa.CauseMap, int) {
	tb.Helper()
	for i, c := range m.Causes {
		if c.ID == id {
			return c, i
		}
	}
	tb.Fatalf("cause %q is not in the map", id)
	return coa.CauseMap{}, -1
}

// TestC10_MatterMaps maps each matter under testdata: the expected causes
// are plausible and rank above the unrelated ones, which are not supported,
// the expected gaps are named, and the map passes Check.
func TestC10_MatterMaps(t *testing.T) {
	tax := coa.Default()
	for _, mt := range matters(t) {
		t.Run(mt.name, func(t *testing.T) {
			facts := coa.ExtractFacts(mt.sources)
			m := coa.MapFacts(tax, facts, coa.Options{})
			if m.COAVersion != tax.Version || m.TaxonomyHash != tax.Hash() {
				t.Errorf("pins: got %s %s, want %s %s", m.COAVersion, m.TaxonomyHash, tax.Version, tax.Hash())
			}
			if err := m.Check(tax, mt.sources); err != nil {
				t.Fatalf("Check: got %v, want nil", err)
			}
			lowestExpected := -1
			for _, id := range mt.expected.Causes {
				c, rank := causeByID(t, m, id)
				if c.Status == coa.StatusWeak {
					t.Errorf("%s: got status weak (gaps %v), want supported or partial", id, c.Gaps)
				}
				lowestExpected = max(lowestExpected, rank)
			}
			for _, id := range mt.expected.NotSupported {
				c, rank := causeByID(t, m, id)
				if c.Status == coa.StatusSupported {
					t.Errorf("%s: got supported, want not", id)
				}
				if rank < lowestExpected {
					t.Errorf("%s ranks %d, above an expected cause (lowest rank %d)", id, rank+1, lowestExpected+1)
				}
			}
			for id, gaps := range mt.expected.Gaps {
				c, _ := causeByID(t, m, id)
				for _, g := range gaps {
					if !slices.Contains(c.Gaps, g) {
						t.Errorf("%s: gaps %v, want them to name %s", id, c.Gaps, g)
					}
				}
				for _, e := range c.Elements {
					if !e.Supported && e.Gap == "" {
						t.Errorf("%s/%s: a gap without a reason", id, e.ElementID)
					}
				}
			}
			for _, l := range m.Evidence {
				if len(l.Signals) == 0 || l.Score < coa.DefaultMinScore {
					t.Errorf("link %s → %s/%s: signals %v score %v, want a signal and a score of at least %v", l.FactID, l.CauseID, l.ElementID, l.Signals, l.Score, coa.DefaultMinScore)
				}
			}
			// Precision: no fact supports more than a handful of causes.
			perFact := map[string]map[string]bool{}
			for _, l := range m.Evidence {
				if perFact[l.FactID] == nil {
					perFact[l.FactID] = map[string]bool{}
				}
				perFact[l.FactID][l.CauseID] = true
			}
			for id, causes := range perFact {
				if len(causes) > 6 {
					t.Errorf("fact %s supports %d causes, want at most 6", id, len(causes))
				}
			}
		})
	}
}

// The map's JSON has the fields the mapping lane persists, with the COA
// version pinned.
func TestC10_MapJSON(t *testing.T) {
	mt := matters(t)[0]
	m := coa.MapFacts(coa.Default(), coa.ExtractFacts(mt.sources), coa.Options{})
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"coa_version", "taxonomy_sha256", "facts", "evidence_map", "coa_map"} {
		if _, ok := fields[k]; !ok {
			t.Errorf("JSON field %q: missing", k)
		}
	}
	var back coa.Map
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if err := back.Check(coa.Default(), mt.sources); err != nil {
		t.Errorf("Check of the decoded map: got %v, want nil", err)
	}
}

func TestC10_CheckRejectsTampering(t *testing.T) {
	tax := coa.Default()
	var mt matter
	for _, m := range matters(t) {
		if m.name == "tenant_deposit" {
			mt = m
		}
	}
	fresh := func() coa.Map {
		m := coa.MapFacts(tax, coa.ExtractFacts(mt.sources), coa.Options{})
		raw, _ := json.Marshal(m)
		var c coa.Map
		_ = json.Unmarshal(raw, &c) // a deep copy
		return c
	}
	supportedIndex := func(m coa.Map) int {
		for i, c := range m.Causes {
			if c.Status == coa.StatusSupported {
				return i
			}
		}
		t.Fatal("no supported cause")
		return -1
	}
	tests := []struct {
		name   string
		tamper func(m *coa.Map)
	}{
		{"unknown element", func(m *coa.Map) { m.Evidence[0].ElementID = "no_such_element" }},
		{"unknown cause", func(m *coa.Map) { m.Evidence[0].CauseID = "no_such_cause" }},
		{"unknown fact in a link", func(m *coa.Map) { m.Evidence[0].FactID = "fact-0000000000000000" }},
		{"span off by one", func(m *coa.Map) { m.Facts[0].Span.End++ }},
		{"span start off by one", func(m *coa.Map) { m.Facts[1].Span.Start-- }},
		{"text edited", func(m *coa.Map) { m.Facts[0].Text = strings.Replace(m.Facts[0].Text, "a", "A", 1) }},
		{"span past the source", func(m *coa.Map) { m.Facts[0].Span.End = 1 << 30 }},
		{"version mismatch", func(m *coa.Map) { m.COAVersion = "0.9.0" }},
		{"taxonomy hash mismatch", func(m *coa.Map) { m.TaxonomyHash = strings.Repeat("0", 64) }},
		{"unknown source", func(m *coa.Map) { m.Facts[0].Source = "elsewhere" }},
		{"supported with an element lacking facts", func(m *coa.Map) {
			c := &m.Causes[supportedIndex(*m)]
			c.Elements[0].FactIDs = nil
		}},
		{"supported element without facts", func(m *coa.Map) {
			c := &m.Causes[supportedIndex(*m)]
			c.Elements[0].FactIDs = []string{}
			c.Elements[0].Supported = true
		}},
		{"status raised", func(m *coa.Map) {
			for i := range m.Causes {
				if m.Causes[i].Status == coa.StatusWeak {
					m.Causes[i].Status = coa.StatusSupported
					return
				}
			}
		}},
		{"gaps hidden", func(m *coa.Map) {
			for i := range m.Causes {
				if len(m.Causes[i].Gaps) > 0 {
					m.Causes[i].Gaps = nil
					return
				}
			}
		}},
		{"fact not backed by a link", func(m *coa.Map) {
			c := &m.Causes[supportedIndex(*m)]
			c.Elements[0].FactIDs = append(c.Elements[0].FactIDs, m.Facts[len(m.Facts)-1].ID)
		}},
		{"cause left out", func(m *coa.Map) { m.Causes = m.Causes[:len(m.Causes)-1] }},
	}
	if err := fresh().Check(tax, mt.sources); err != nil {
		t.Fatalf("untampered: got %v, want nil", err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := fresh()
			tt.tamper(&m)
			err := m.Check(tax, mt.sources)
			if got := sanad.ErrorCode(err); got != sanad.CodeIntegrity {
				t.Errorf("got %v, want a %s error", err, sanad.CodeIntegrity)
			}
		})
	}
}

func mapText(text string) coa.Map {
	facts := coa.ExtractFacts([]coa.Source{{ID: "s", Kind: coa.KindTranscript, Text: text}})
	return coa.MapFacts(coa.Default(), facts, coa.Options{})
}

func linked(m coa.Map, cause, element string) bool {
	return slices.ContainsFunc(m.Evidence, func(l coa.EvidenceLink) bool { return l.CauseID == cause && l.ElementID == element })
}

func TestNegation(t *testing.T) {
	tests := []struct {
		text           string
		cause, element string
		want           bool
	}{
		{"I signed a written contract with Apex Builders on May 1, 2024. He never started the work.", "breach_of_contract", "contract_formed", true},
		{"I did not sign a written contract with Apex Builders on May 1, 2024. He never started the work.", "breach_of_contract", "contract_formed", false},
		{"I paid a security deposit of $1,800 on June 1, 2022. The landlord never returned my $1,800 deposit.", "security_deposit_withholding", "deposit_withheld", true},
		{"I paid a security deposit of $1,800 on June 1, 2022. The landlord returned my $1,800 deposit in full on June 3, 2024.", "security_deposit_withholding", "deposit_withheld", false},
		{"My manager fired me on October 18, 2024 after I complained about overtime. I worked for Brightline Logistics for three years.", "wrongful_termination_public_policy", "termination", true},
		{"My manager never fired me, I quit on October 18, 2024. I worked for Brightline Logistics for three years.", "wrongful_termination_public_policy", "termination", false},
	}
	for _, tt := range tests {
		m := mapText(tt.text)
		if got := linked(m, tt.cause, tt.element); got != tt.want {
			t.Errorf("%q → %s/%s: got %v, want %v", tt.text, tt.cause, tt.element, got, tt.want)
		}
	}
}

// A fact with no real signal supports nothing.
func TestNoSignalNoLink(t *testing.T) {
	m := mapText("The weather was warm on March 3, 2024 and we walked to the park with Dana Whitfield.")
	if len(m.Facts) != 1 {
		t.Fatalf("facts: got %d, want 1", len(m.Facts))
	}
	if len(m.Evidence) != 0 {
		t.Errorf("evidence: got %+v, want none", m.Evidence)
	}
	for _, c := range m.Causes {
		if c.Status != coa.StatusWeak {
			t.Errorf("%s: got %s, want weak", c.ID, c.Status)
		}
	}
}

// The intake areas raise a cause's score, never its support.
func TestAreasPrior(t *testing.T) {
	mt := matters(t)[0]
	facts := coa.ExtractFacts(mt.sources)
	plain := coa.MapFacts(coa.Default(), facts, coa.Options{})
	prior := coa.MapFacts(coa.Default(), facts, coa.Options{Areas: []string{"torts"}})
	for _, c := range plain.Causes {
		p, _ := causeByID(t, prior, c.ID)
		if p.Status != c.Status {
			t.Errorf("%s: status %s with the prior, %s without", c.ID, p.Status, c.Status)
		}
		if c.ID == "conversion" && c.Score > 0 && p.Score <= c.Score {
			t.Errorf("conversion: score %v with the torts prior, want above %v", p.Score, c.Score)
		}
	}
}

func TestSummary(t *testing.T) {
	var mt matter
	for _, m := range matters(t) {
		if m.name == "tenant_deposit" {
			mt = m
		}
	}
	m := coa.MapFacts(coa.Default(), coa.ExtractFacts(mt.sources), coa.Options{})
	s := coa.Summary(m)
	for _, want := range []string{
		"not legal advice",
		"## Plausible causes of action",
		"Wrongful withholding of a security deposit: supported",
		"“They never returned my $1,800 deposit, and I never received any itemised statement of deductions.” (tenant_deposit/transcript, bytes ",
		"## Considered, not supported",
		"- Defamation: no fact for A false statement of fact about the plaintiff; Published to someone else.",
		"Limitation: ",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "Defamation: supported") || strings.Contains(s, "Defamation: partial") {
		t.Errorf("summary puts defamation forward:\n%s", s)
	}
}

// A need may be met by another sentence of the same paragraph or turn,
// not by another paragraph.
func TestNeedsMetByTheTurn(t *testing.T) {
	const complaint = "I worked for Harbor Freight Logistics and complained to the labor department on March 3, 2025."
	tests := []struct {
		name, text string
		want       bool
	}{
		{"same turn", "Client: " + complaint + " Two days later my manager fired me.", true},
		{"other paragraph", complaint + "\n\nTwo days later my manager fired me.", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := mapText(tt.text)
			var got bool
			for _, l := range m.Evidence {
				if l.CauseID == "wrongful_termination_public_policy" && l.ElementID == "causal_connection" {
					got = slices.Contains(l.NeedsMet, coa.NeedDate)
				}
			}
			if got != tt.want {
				t.Errorf("causal_connection with its date: got %v, want %v (evidence %+v)", got, tt.want, m.Evidence)
			}
		})
	}
}

// An article in a signal is optional: "ran a red light" is also "ran the
// light".
func TestSignalArticles(t *testing.T) {
	m := mapText("The van ran the red light and struck me, and I was injured and needed surgery.")
	if !linked(m, "negligence", "breach") {
		t.Errorf("negligence/breach: got no link, want one (evidence %+v)", m.Evidence)
	}
}
