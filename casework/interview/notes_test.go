package interview_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sanadhq/sanad/casework/interview"
	"github.com/sanadhq/sanad/casework/issues"
)

type wantNote struct{ kind, typ, value, normalized string }

func hasNote(notes interview.Notes, w wantNote) bool {
	return slices.ContainsFunc(notes.Items, func(n interview.Note) bool {
		return n.Kind == w.kind && n.Type == w.typ && n.Value == w.value && n.Normalized == w.normalized
	})
}

func TestC09_ExtractNotes(t *testing.T) {
	tests := []struct {
		file string
		want []wantNote
	}{
		{"tenant_interview.vtt", []wantNote{
			{"amount", "amount", "$1,800", "1800.00 USD"},
			{"when", "date", "June 1, 2023", "2023-06-01"},
			{"when", "date", "May 15, 2023", "2023-05-15"},
			{"when", "date", "2024-02-29", "2024-02-29"},
			{"when", "date", "3/8/2024", "2024-03-08"},
			{"who", "organization", "Hillcrest Property Management", "Hillcrest Property Management"},
			{"who", "person", "Mr. Tom Becker", "Tom Becker"},
			{"where", "address", "412 Elm Street, Apt 3B, Springfield", "412 Elm Street, Apt 3B, Springfield"},
			{"what", "payment", "paid", ""},
			{"what", "signing", "signed", ""},
			{"what", "refusal", "refused", ""},
			{"document", "lease", "lease", ""},
			{"document", "letter", "letter", ""},
		}},
		{"employment_call.srt", []wantNote{
			{"who", "organization", "Northgate Logistics LLC", "Northgate Logistics LLC"},
			{"who", "person", "Karen Lowe", "Karen Lowe"},
			{"when", "date", "January 2021", "2021-01"},
			{"when", "date", "October 12, 2023", "2023-10-12"},
			{"amount", "amount", "$2,340.50", "2340.50 USD"},
			{"what", "termination", "fired", ""},
			{"what", "withholding", "withheld", ""},
			{"document", "paystubs", "pay stubs", ""},
		}},
		{"consumer_notes.txt", []wantNote{
			{"who", "organization", "Valley Auto Sales Inc.", "Valley Auto Sales Inc"},
			{"who", "organization", "Coastal Credit Union", "Coastal Credit Union"},
			{"where", "place", "Riverside", "Riverside"},
			{"when", "date", "04/02/2024", "2024-04-02"},
			{"when", "date", "last Tuesday", ""},
			{"amount", "amount", "9,500 dollars", "9500.00 USD"},
			{"amount", "amount", "£300", "300.00 GBP"},
			{"what", "threat", "threatened", ""},
		}},
		{"whisper_verbose.json", []wantNote{
			{"who", "organization", "Fresh Foods Market", "Fresh Foods Market"},
			{"who", "person", "Ms. Alvarez", "Alvarez"},
			{"where", "place", "Main Street", "Main Street"},
			{"when", "date", "August 9, 2023", "2023-08-09"},
			{"amount", "amount", "$4,200", "4200.00 USD"},
			{"what", "injury", "slipped", ""},
			{"document", "report", "incident report", ""},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			tr := parseFile(t, tt.file)
			notes := interview.ExtractNotes(tr)
			for _, n := range notes.Items {
				checkNote(t, tr, n)
			}
			for _, w := range tt.want {
				if !hasNote(notes, w) {
					t.Errorf("no note %+v", w)
				}
			}
		})
	}
}

func TestC09_ExtractNotesQuote(t *testing.T) {
	tr := parseFile(t, "tenant_interview.vtt")
	for _, n := range interview.ExtractNotes(tr).Items {
		if n.Kind == "amount" && n.Normalized == "1800.00 USD" {
			want := "I paid a $1,800 deposit to Hillcrest Property Management on June 1, 2023."
			if n.Quote != want || n.Speaker != "Maria Rivera" || n.Turn != 4 {
				t.Errorf("got %q by %s in turn %d, want %q by Maria Rivera in turn 4", n.Quote, n.Speaker, n.Turn, want)
			}
			return
		}
	}
	t.Fatal("no 1800.00 USD note")
}

func TestExtractNotesDates(t *testing.T) {
	tests := []struct{ text, value, want string }{
		{"It was on March 3, 2024.", "March 3, 2024", "2024-03-03"},
		{"It was on March 3rd 2024.", "March 3rd 2024", "2024-03-03"},
		{"It was on 3 March 2024.", "3 March 2024", "2024-03-03"},
		{"It was on the 3rd of March, 2024.", "3rd of March, 2024", "2024-03-03"},
		{"It was on 3/3/2024.", "3/3/2024", "2024-03-03"},
		{"It was on 25/12/2023.", "25/12/2023", "2023-12-25"},
		{"It was on 12/25/23.", "12/25/23", "2023-12-25"},
		{"It was on 2024-03-03.", "2024-03-03", "2024-03-03"},
		{"It was on June 1st.", "June 1st", "--06-01"},
		{"It was in Sept. 2022.", "Sept. 2022", "2022-09"},
		{"It was two weeks ago.", "two weeks ago", ""},
	}
	for _, tt := range tests {
		tr, err := interview.ParseTranscript("t.txt", []byte("Client: "+tt.text))
		if err != nil {
			t.Fatal(err)
		}
		if !hasNote(interview.ExtractNotes(tr), wantNote{"when", "date", tt.value, tt.want}) {
			t.Errorf("%q: no date note %q → %q in %+v", tt.text, tt.value, tt.want, interview.ExtractNotes(tr).Items)
		}
	}
	for _, text := range []string{"It was on 2/30/2024.", "It was on 2023-13-01.", "May I ask?"} {
		tr, _ := interview.ParseTranscript("t.txt", []byte("Client: "+text))
		for _, n := range interview.ExtractNotes(tr).Items {
			if n.Kind == "when" {
				t.Errorf("%q: got date note %+v, want none", text, n)
			}
		}
	}
}

func TestExtractNotesAmounts(t *testing.T) {
	tests := []struct{ text, value, want string }{
		{"I owe $1,250.", "$1,250", "1250.00 USD"},
		{"I owe $1,250.5 now.", "$1,250.5", "1250.50 USD"},
		{"I owe $2.5k now.", "$2.5k", "2500.00 USD"},
		{"I owe 1,250 dollars.", "1,250 dollars", "1250.00 USD"},
		{"I owe 3 thousand dollars.", "3 thousand dollars", "3000.00 USD"},
		{"I owe €40.", "€40", "40.00 EUR"},
	}
	for _, tt := range tests {
		tr, _ := interview.ParseTranscript("t.txt", []byte("Client: "+tt.text))
		if !hasNote(interview.ExtractNotes(tr), wantNote{"amount", "amount", tt.value, tt.want}) {
			t.Errorf("%q: no amount note %q → %q in %+v", tt.text, tt.value, tt.want, interview.ExtractNotes(tr).Items)
		}
	}
}

func TestC09_ExtractEntities(t *testing.T) {
	tr := parseFile(t, "tenant_interview.vtt")
	ents := interview.ExtractEntities(tr)
	byID := map[string]interview.Entity{}
	for _, e := range ents {
		byID[e.ID] = e
		for _, m := range e.Mentions {
			if m.Slice(tr.Text) == "" {
				t.Errorf("entity %s: mention %v outside the text", e.ID, m)
			}
		}
	}
	tests := []struct {
		id, kind string
		mentions int
	}{
		{"organization:hillcrest-property-management", "organization", 2},
		{"person:tom-becker", "person", 1},
		{"amount:1800.00-usd", "amount", 1},
		{"date:2023-06-01", "date", 1},
		{"place:412-elm-street-apt-3b-springfield", "place", 1},
		{"email:maria.rivera@example.com", "email", 1},
		{"phone:2175550143", "phone", 1},
	}
	for _, tt := range tests {
		e, ok := byID[tt.id]
		if !ok || e.Kind != tt.kind || len(e.Mentions) != tt.mentions {
			t.Errorf("entity %s: got %+v, want kind %s with %d mentions", tt.id, e, tt.kind, tt.mentions)
		}
	}
}

func TestExtractEntitiesJoinsSurname(t *testing.T) {
	tr, _ := interview.ParseTranscript("t.txt", []byte("Client: My landlord is John Smith.\nClient: Mr. Smith never called back."))
	ents := interview.ExtractEntities(tr)
	if len(ents) != 1 || ents[0].ID != "person:john-smith" || len(ents[0].Mentions) != 2 {
		t.Errorf("got %+v, want John Smith named twice", ents)
	}
}

func TestPacks(t *testing.T) {
	packs, err := interview.LoadPacks()
	if err != nil {
		t.Fatal(err)
	}
	areas := map[string]bool{"housing": true, "general": true} // not in the taxonomy
	for _, a := range issues.Default().Areas {
		areas[a.ID] = true
	}
	for _, id := range []string{"housing", "employment", "consumer", "family", "torts", "debt", "general"} {
		p, ok := packs[id]
		if !ok {
			t.Errorf("no pack %q", id)
			continue
		}
		if !areas[p.Area] {
			t.Errorf("pack %s: area %q is not an area of the issues taxonomy", id, p.Area)
		}
	}
	if got := interview.PackFor(packs, "employment").ID; got != "employment" {
		t.Errorf("PackFor(employment) = %s, want employment", got)
	}
	if got := interview.PackFor(packs, "immigration").ID; got != "general" {
		t.Errorf("PackFor(immigration) = %s, want general", got)
	}
}

func TestParsePackRejects(t *testing.T) {
	tests := []struct{ yaml, says string }{
		{"id: x\nversion: '1'\narea: torts\nquestions: []\n", "no questions"},
		{"id: x\nversion: '1'\narea: torts\nquestions:\n  - {id: a, text: A?, covers: [parties.opposing]}\n  - {id: a, text: B?, covers: [dates.any]}\n", "used twice"},
		{"id: x\nversion: '1'\narea: torts\nquestions:\n  - {id: a, text: A?, covers: [goals.outcome]}\n", "no note can answer"},
		{"id: x\nversion: '1'\narea: torts\nquestions:\n  - {id: a, text: A?, covers: []}\n", "covers no item"},
		{"id: x\nversion: '1'\nquestions:\n  - {id: a, text: A?, covers: [dates.any]}\n", "needs an id, a version and an area"},
		{"id: x\nversion: '1'\narea: torts\nextra: 1\n", "not a prompt pack"},
	}
	for _, tt := range tests {
		_, err := interview.ParsePack([]byte(tt.yaml))
		if err == nil || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("%q: got %v, want an error saying %q", tt.yaml, err, tt.says)
		}
	}
}

// TestC09_NextOverInterview asks the housing pack's questions while the
// tenant's interview is heard turn by turn.
func TestC09_NextOverInterview(t *testing.T) {
	packs, err := interview.LoadPacks()
	if err != nil {
		t.Fatal(err)
	}
	housing := packs["housing"]
	full := parseFile(t, "tenant_interview.vtt")
	var asked []string
	for n := 0; n <= len(full.Turns); n++ {
		heard := full
		heard.Turns = full.Turns[:n]
		q, ok := interview.Next(housing, interview.Covered(interview.ExtractNotes(heard)))
		if !ok {
			t.Fatalf("after %d turns every item is covered; the interview never said the rent", n)
		}
		if len(asked) == 0 || asked[len(asked)-1] != q.ID {
			asked = append(asked, q.ID)
		}
	}
	want := []string{"housing.landlord", "housing.address", "housing.rent"}
	if fmt.Sprint(asked) != fmt.Sprint(want) {
		t.Errorf("asked %v, want %v", asked, want)
	}
	covered := interview.Covered(interview.ExtractNotes(full))
	for _, item := range []string{"parties.opposing", "places.property", "documents.lease", "dates.start", "amounts.deposit", "facts.withholding", "dates.incident"} {
		if !covered[item] {
			t.Errorf("%s not covered by the tenant's interview", item)
		}
	}
	covered["amounts.rent"] = true
	covered["facts.notice_given"] = true
	covered["documents.receipts"] = true
	covered["documents.messages"] = true
	if q, ok := interview.Next(housing, covered); ok {
		t.Errorf("Next = %s, want none once every item is covered", q.ID)
	}
}
