package coa_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/sanadhq/sanad/casework/coa"
)

func texts(facts []coa.Fact) []string {
	out := make([]string, len(facts))
	for i, f := range facts {
		out[i] = f.Text
	}
	return out
}

func TestExtractFactsSentences(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{
			"abbreviations and numbers do not split",
			"Mr. Patel of Acme Roofing, Inc. took $1,800.00 from me on March 3, 2024. He is a U.S. citizen and was hired by Dr. Smith.",
			[]string{
				"Mr. Patel of Acme Roofing, Inc. took $1,800.00 from me on March 3, 2024.",
				"He is a U.S. citizen and was hired by Dr. Smith.",
			},
		},
		{
			"an abbreviation before a new sentence splits",
			"I hired Apex Builders Inc. They never started the work. No. They kept my money.",
			[]string{"I hired Apex Builders Inc.", "They never started the work.", "They kept my money."},
		},
		{
			"questions, greetings and filler are dropped",
			"ATTORNEY: Good morning. How are you today?\nCLIENT: Good morning.\nATTORNEY: When did you move in?\nCLIENT: I moved in on June 1, 2022.\nATTORNEY: Okay. Thank you, that is helpful.\nCLIENT: Yes.",
			[]string{"I moved in on June 1, 2022."},
		},
		{
			"markdown headings and list markers are left out",
			"# Lease\n\n## Rent\n\n- Monthly rent is $1,450.00.\n- Tenant paid a security deposit of $1,800.\n\nThe landlord signed the lease\non May 20, 2022.",
			[]string{"Monthly rent is $1,450.00.", "Tenant paid a security deposit of $1,800.", "The landlord signed the lease\non May 20, 2022."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := texts(coa.ExtractFacts([]coa.Source{{ID: "s", Kind: coa.KindTranscript, Text: tt.text}}))
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q,\nwant %q", got, tt.want)
			}
		})
	}
}

func TestExtractFactsAttributes(t *testing.T) {
	text := "On March 3, 2024 Mr. Dale Kessler of Harbor View Properties LLC kept my $1,800 deposit and a $2.5k fee, and on 04/15/2024 the landlord sent 300 dollars in May 2024."
	facts := coa.ExtractFacts([]coa.Source{{ID: "s", Kind: coa.KindDocument, Text: text}})
	if len(facts) != 1 {
		t.Fatalf("facts: got %q, want one", texts(facts))
	}
	f := facts[0]
	if want := []string{"2024-03-03", "2024-04-15", "2024-05"}; !slices.Equal(f.Dates, want) {
		t.Errorf("Dates: got %q, want %q", f.Dates, want)
	}
	if want := []string{"1800.00 USD", "2500.00 USD", "300.00 USD"}; !slices.Equal(f.Amounts, want) {
		t.Errorf("Amounts: got %q, want %q", f.Amounts, want)
	}
	for _, p := range []string{"Mr. Dale Kessler", "Harbor View Properties LLC", "landlord"} {
		if !slices.Contains(f.Parties, p) {
			t.Errorf("Parties: got %q, want it to hold %q", f.Parties, p)
		}
	}
	if f.ID != coa.FactID("s", f.Span) || f.Kind != coa.KindDocument || f.Source != "s" {
		t.Errorf("fact: got id %s kind %s source %s, want FactID, document, s", f.ID, f.Kind, f.Source)
	}
}

// Every fact of every matter slices its source to its text, and extraction
// is deterministic.
func TestC10_FactSpansSliceSources(t *testing.T) {
	for _, m := range matters(t) {
		t.Run(m.name, func(t *testing.T) {
			facts := coa.ExtractFacts(m.sources)
			if len(facts) < 8 {
				t.Errorf("facts: got %d, want at least 8", len(facts))
			}
			assertSpans(t, m.sources, facts)
			again := coa.ExtractFacts(m.sources)
			if !slices.EqualFunc(facts, again, func(a, b coa.Fact) bool { return a.ID == b.ID && a.Text == b.Text }) {
				t.Error("a second extraction gave other facts")
			}
		})
	}
}

func assertSpans(tb testing.TB, sources []coa.Source, facts []coa.Fact) {
	tb.Helper()
	byID := map[string]string{}
	for _, s := range sources {
		byID[s.ID] = s.Text
	}
	seen := map[string]bool{}
	for _, f := range facts {
		text, ok := byID[f.Source]
		if !ok || f.Span.Start < 0 || f.Span.End > len(text) || f.Span.Start > f.Span.End {
			tb.Fatalf("fact %s: span %v outside source %q", f.ID, f.Span, f.Source)
		}
		if got := text[f.Span.Start:f.Span.End]; got != f.Text {
			tb.Errorf("fact %s: source slice %q, want %q", f.ID, got, f.Text)
		}
		if seen[f.ID] {
			tb.Errorf("fact %s appears twice", f.ID)
		}
		seen[f.ID] = true
		if strings.HasSuffix(f.Text, "?") {
			tb.Errorf("fact %s is a question: %q", f.ID, f.Text)
		}
	}
}

func FuzzExtractFacts(f *testing.F) {
	for _, m := range matters(f) {
		for _, s := range m.sources {
			f.Add(s.Text)
		}
	}
	f.Add("Mr. U.S. Inc. No. 1,800.00 $ $1, 12/45/2024 March 40, 2024 ... ?! ’” \n- \n# \n| a | b |")
	f.Fuzz(func(t *testing.T, text string) {
		sources := []coa.Source{{ID: "s", Kind: coa.KindTranscript, Text: text}}
		facts := coa.ExtractFacts(sources)
		assertSpans(t, sources, facts)
		m := coa.MapFacts(coa.Default(), facts, coa.Options{})
		if err := m.Check(coa.Default(), sources); err != nil {
			t.Fatalf("Check: %v", err)
		}
	})
}
