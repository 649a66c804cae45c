package coa_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/casework/coa"
	"github.com/sanadhq/sanad/casework/issues"
)

// housing is the Learned Hands area of landlord and tenant problems, which
// the issues taxonomy does not have yet.
const housing = "housing"

func TestC10_DefaultTaxonomy(t *testing.T) {
	tax := coa.Default()
	if tax.Version != "1.1.0" {
		t.Errorf("Version: got %q, want 1.1.0", tax.Version)
	}
	if len(tax.Causes) < 12 {
		t.Errorf("causes: got %d, want at least 12", len(tax.Causes))
	}
	if len(tax.Hash()) != 64 {
		t.Errorf("Hash: got %q, want 64 hex digits", tax.Hash())
	}
	areas := map[string]bool{housing: true}
	for _, a := range issues.Default().Areas {
		areas[a.ID] = true
	}
	for _, c := range tax.Causes {
		for _, a := range append([]string{c.Area}, c.RelatedAreas...) {
			if !areas[a] {
				t.Errorf("cause %s: area %q is not an area of casework/issues", c.ID, a)
			}
		}
		if c.Description == "" || c.Limitation == "" {
			t.Errorf("cause %s: needs a description and a limitation note", c.ID)
		}
		core := 0
		for _, e := range c.Elements {
			if e.Core {
				core++
			}
		}
		if core == 0 {
			t.Errorf("cause %s has no core element", c.ID)
		}
	}
}

// The hash is of the content, not of its YAML: comments and layout do not
// change it, a signal's weight does.
func TestC10_TaxonomyHashPinsContent(t *testing.T) {
	raw, err := os.ReadFile("taxonomy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	same, err := coa.LoadTaxonomy([]byte("# another comment\n" + string(raw) + "\n\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := same.Hash(), coa.Default().Hash(); got != want {
		t.Errorf("hash with a comment added: got %s, want %s", got, want)
	}
	changed, err := coa.LoadTaxonomy([]byte(strings.Replace(string(raw), "black mold: 3", "black mold: 2", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if changed.Hash() == coa.Default().Hash() {
		t.Error("hash after a weight changed: got the same hash, want another")
	}
}

const goodTaxonomy = `version: "0.1.0"
causes:
  - id: a
    name: A
    area: consumer
    description: d
    limitation: l
    elements:
      - id: x
        name: X
        description: the x
        signals: {paid: 2}
      - id: y
        name: Y
        description: the y
        needs: [amount]
        signals: {kept: 2}
`

func TestLoadTaxonomyErrors(t *testing.T) {
	if _, err := coa.LoadTaxonomy([]byte(goodTaxonomy)); err != nil {
		t.Fatalf("good taxonomy: got %v, want nil", err)
	}
	tests := []struct {
		name, old, new string
	}{
		{"no version", `version: "0.1.0"`, ``},
		{"empty version", `version: "0.1.0"`, `version: ""`},
		{"not yaml", `causes:`, `causes: [`},
		{"unknown field", `    area: consumer`, "    area: consumer\n    colour: red"},
		{"duplicate cause", "causes:\n", "causes:\n" + goodTaxonomy[strings.Index(goodTaxonomy, "  - id: a"):]},
		{"one element", "      - id: y\n        name: Y\n        description: the y\n        needs: [amount]\n        signals: {kept: 2}\n", ""},
		{"duplicate element", "      - id: y\n", "      - id: x\n"},
		{"element without description", "description: the y", "description: \"\""},
		{"cause without id", "  - id: a\n", "  - id: \"\"\n"},
		{"cause without area", "    area: consumer\n", ""},
		{"unknown need", "needs: [amount]", "needs: [witness]"},
		{"negative weight", "{kept: 2}", "{kept: -1}"},
		{"zero weight", "{kept: 2}", "{kept: 0}"},
		{"no signals", "        signals: {kept: 2}\n", ""},
		{"signal without words", "{kept: 2}", `{"...": 2}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := strings.Replace(goodTaxonomy, tt.old, tt.new, 1)
			if raw == goodTaxonomy {
				t.Fatalf("the test's edit %q changed nothing", tt.old)
			}
			_, err := coa.LoadTaxonomy([]byte(raw))
			if got := sanad.ErrorCode(err); got != sanad.CodeInvalidInput {
				t.Errorf("got code %q (%v), want %s", got, err, sanad.CodeInvalidInput)
			}
		})
	}
	t.Run("no causes", func(t *testing.T) {
		_, err := coa.LoadTaxonomy([]byte(`version: "1"`))
		var se *sanad.Error
		if !errors.As(err, &se) || se.Code != sanad.CodeInvalidInput {
			t.Errorf("got %v, want %s", err, sanad.CodeInvalidInput)
		}
	})
}

func FuzzLoadTaxonomy(f *testing.F) {
	raw, err := os.ReadFile("taxonomy.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(raw)
	f.Add([]byte(goodTaxonomy))
	f.Add([]byte(`version: 1`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		tax, err := coa.LoadTaxonomy(raw)
		if err != nil {
			if sanad.ErrorCode(err) != sanad.CodeInvalidInput {
				t.Fatalf("got code %q, want %s", sanad.ErrorCode(err), sanad.CodeInvalidInput)
			}
			return
		}
		// A taxonomy that loads maps facts without panicking.
		facts := coa.ExtractFacts([]coa.Source{{ID: "s", Kind: coa.KindTranscript, Text: "I paid a deposit of $500 on May 1, 2024 and he never returned it."}})
		m := coa.MapFacts(tax, facts, coa.Options{})
		if err := m.Check(tax, []coa.Source{{ID: "s", Kind: coa.KindTranscript, Text: "I paid a deposit of $500 on May 1, 2024 and he never returned it."}}); err != nil {
			t.Fatalf("Check: %v", err)
		}
	})
}
