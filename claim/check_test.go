package claim

import (
	"context"
	"testing"

	"github.com/sanadhq/sanad"
)

func TestCheckSupportsContradictsOrDoesNotAddress(t *testing.T) {
	passage := func(doc, text string) Passage {
		return Passage{Document: doc, Text: text, Claims: Extract(textDoc(para(text)), doc, "v1")}
	}
	audited := passage("audited.pdf", "Revenue for the year ended 31 December 2024 was £48.2 million.")
	minutes := passage("minutes.docx", "Revenue for FY2024 in the management accounts was £49.6 million.")
	cases := []struct {
		text     string
		passages []Passage
		want     string
	}{
		{"Revenue in FY2024 was £48.2m", []Passage{audited}, Supports},
		{"Revenue in FY2024 was £48,213k", []Passage{audited}, Supports},
		{"Revenue in FY2024 was £52m", []Passage{audited}, Contradicts},
		{"Revenue in FY2024 was £49.6m", []Passage{audited, minutes}, Mixed},
		{"Revenue in FY2023 was £40m", []Passage{audited}, DoesNotAddress},
		{"Headcount was 412 in FY2024", []Passage{audited}, DoesNotAddress},
	}
	for _, c := range cases {
		res, err := Check(context.Background(), c.text, c.passages)
		if err != nil || res.Verdict != c.want {
			t.Errorf("%q: %s %v, want %s (%+v)", c.text, res.Verdict, err, c.want, res.Figures)
		}
	}
	if _, err := Check(context.Background(), "the company is doing well", nil); sanad.ErrorCode(err) != sanad.CodeInvalidInput {
		t.Errorf("a claim without a figure: %v", err)
	}
}
