package issues

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/internal/sharedtest"
)

func TestEmbeddedTaxonomy(t *testing.T) {
	tx := Default()
	if tx.Version < 1 {
		t.Fatalf("version %d, want at least 1", tx.Version)
	}
	want := []string{"benefits", "business", "consumer", "courts", "crime", "divorce", "domestic_violence",
		"education", "employment", "estates", "family", "health", "immigration", "torts", "traffic"}
	for _, id := range want {
		if _, ok := tx.byID[id]; !ok {
			t.Errorf("area %q missing", id)
		}
	}
}

func TestSpot(t *testing.T) {
	tests := []struct {
		text, want string
	}{
		{"I slipped on a wet floor at the grocery store and was injured. Can I sue for damages?", "torts"},
		{"My landlord's dog bit my son and he needed stitches.", "torts"},
		{"I was pulled over for speeding, 20 mph over, and got a ticket.", "traffic"},
		{"My ex won't let me see my kids and I want joint custody and visitation.", "family"},
		{"The police arrested me for shoplifting and I have a court date for the misdemeanor.", "crime"},
		{"My boss hasn't paid my overtime wages for three weeks.", "employment"},
		{"A debt collector keeps calling about a credit card I never opened.", "consumer"},
		{"My wife and I are getting a divorce and she wants alimony.", "divorce"},
		{"My grandmother passed away and left no will; who handles probate of her estate?", "estates"},
		{"My H1B visa expires and I want to apply for a green card.", "immigration"},
		// An area the learned_hands set has no rows of.
		{"My landlord kept my security deposit and served me an eviction notice after I complained about mould.", "housing"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			got := Spot(tt.text)
			if len(got) == 0 || got[0].ID != tt.want {
				t.Fatalf("Spot(%q) = %v, want %s first", tt.text, got, tt.want)
			}
			if ok, s := Classify(tt.text, tt.want); !ok {
				t.Errorf("Classify(%q, %s) = false, %.3f, want true", tt.text, tt.want, s)
			}
		})
	}
}

func TestNegation(t *testing.T) {
	_, plain := Classify("I was injured in the accident.", "torts")
	_, neg := Classify("I was not injured in the accident.", "torts")
	if neg >= plain {
		t.Errorf("negated score %.3f, want below %.3f", neg, plain)
	}
}

func TestDescriptionFallback(t *testing.T) {
	tx, err := Load([]byte(`version: 1
threshold: 0.1
areas:
  - id: housing
    name: Housing
    description: Renting a home, landlords, evictions and security deposits.
`))
	if err != nil {
		t.Fatal(err)
	}
	ok, s := tx.Classify("My landlord kept my security deposit after I moved out.", "housing")
	if !ok {
		t.Errorf("Classify = false, %.3f, want true", s)
	}
	if ok, s := tx.Classify("What time is it?", "housing"); ok || s != 0 {
		t.Errorf("Classify of an unrelated text = %v, %.3f, want false, 0", ok, s)
	}
	if ok, s := tx.Classify("anything", "nope"); ok || s != 0 {
		t.Errorf("Classify of an unknown area = %v, %.3f, want false, 0", ok, s)
	}
}

func TestLoadInvalid(t *testing.T) {
	for name, y := range map[string]string{
		"no version":  "threshold: 0.5\nareas: [{id: a, description: words here}]\n",
		"threshold":   "version: 1\nthreshold: 2\nareas: [{id: a, description: words here}]\n",
		"duplicate":   "version: 1\nthreshold: 0.5\nareas: [{id: a, description: words here}, {id: a, description: more words}]\n",
		"empty":       "version: 1\nthreshold: 0.5\nareas: [{id: a}]\n",
		"unknown key": "version: 1\nthreshold: 0.5\nbogus: 1\nareas: [{id: a, description: words here}]\n",
		"weight":      "version: 1\nthreshold: 0.5\nareas: [{id: a, signals: {x: -1}}]\n",
		"not yaml":    "version: [\n",
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Load([]byte(y)); sanad.ErrorCode(err) != sanad.CodeInvalidInput {
				t.Errorf("Load: got %v, want %s", err, sanad.CodeInvalidInput)
			}
		})
	}
}

func TestReadTSV(t *testing.T) {
	in := "index\ttext\tanswer\n0\t\"He said \"\"hi\"\"\tthen left\"\tYes\n1\tplain\tno\n"
	got, err := ReadTSV(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Text != "He said \"hi\"\tthen left" || !got[0].Label || got[1].Label {
		t.Errorf("got %+v", got)
	}
	for _, bad := range []string{"", "text\n", "text\tlabel\nx\tmaybe\n"} {
		if _, err := ReadTSV(strings.NewReader(bad)); sanad.ErrorCode(err) != sanad.CodeInvalidInput {
			t.Errorf("ReadTSV(%q): got %v, want %s", bad, err, sanad.CodeInvalidInput)
		}
	}
}

// TestThresholdFromTrain recomputes the threshold on the train.tsv rows of
// every learned_hands area and checks the embedded one does as well there.
func TestThresholdFromTrain(t *testing.T) {
	dir := sharedtest.Dir(t, "legal", "learned_hands")
	tx := Default()
	var scores []float64
	var labels []bool
	for _, s := range tx.Areas {
		f, err := os.Open(filepath.Join(dir, s.ID, "train.tsv"))
		if errors.Is(err, fs.ErrNotExist) {
			continue // an area the set has no rows of (housing)
		}
		if err != nil {
			t.Fatal(err)
		}
		ex, err := ReadTSV(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", s.ID, err)
		}
		for _, x := range ex {
			_, sc := tx.Classify(x.Text, s.ID)
			scores = append(scores, sc)
			labels = append(labels, x.Label)
		}
	}
	fit, best := FitThreshold(scores, labels)
	correct := 0
	for i, s := range scores {
		if (s >= tx.Threshold) == labels[i] {
			correct++
		}
	}
	got := float64(correct) / float64(len(scores))
	t.Logf("train rows %d: fitted threshold %.3f (accuracy %.3f); embedded %.3f (accuracy %.3f)", len(scores), fit, best, tx.Threshold, got)
	if math.Abs(got-best) > 1e-9 {
		t.Errorf("embedded threshold %.3f scores %.3f on train.tsv, want the fitted %.3f's %.3f", tx.Threshold, got, fit, best)
	}
}
