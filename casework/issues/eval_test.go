package issues

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sanadhq/sanad/internal/sharedtest"
)

// TestLearnedHands holds the figures reported for the eight learned_hands
// areas with a test.tsv (class-balanced, so 0.5 is chance), a little below
// what the taxonomy scores, so a change that loses quality fails.
func TestLearnedHands(t *testing.T) {
	dir := sharedtest.Dir(t, "legal", "learned_hands")
	r, err := Evaluate(os.DirFS(dir), Default())
	if err != nil {
		t.Fatal(err)
	}
	floor := map[string]float64{
		"consumer": 0.75, "courts": 0.80, "crime": 0.79, "divorce": 0.91,
		"employment": 0.80, "family": 0.86, "torts": 0.65, "traffic": 0.85,
	}
	if len(r.Areas) != len(floor) {
		t.Fatalf("scored %d areas, want %d (skipped %v)", len(r.Areas), len(floor), r.Skipped)
	}
	for _, a := range r.Areas {
		t.Logf("%-12s n=%4d accuracy %.3f precision %.3f recall %.3f", a.ID, a.N, a.Accuracy, a.Precision, a.Recall)
		if a.Accuracy < floor[a.ID] {
			t.Errorf("%s: accuracy %.3f, want at least %.2f", a.ID, a.Accuracy, floor[a.ID])
		}
	}
	t.Logf("overall n=%d accuracy %.3f precision %.3f recall %.3f; mean accuracy %.3f", r.Overall.N, r.Overall.Accuracy, r.Overall.Precision, r.Overall.Recall, r.MeanAccuracy)
	if r.MeanAccuracy < 0.80 || r.Overall.Accuracy < 0.81 {
		t.Errorf("mean accuracy %.3f, overall %.3f, want at least 0.80 and 0.81", r.MeanAccuracy, r.Overall.Accuracy)
	}
	if len(r.Skipped) != 7 {
		t.Errorf("skipped %v, want the 7 areas without test.tsv", r.Skipped)
	}
}

func FuzzReadTSV(f *testing.F) {
	f.Add("text\tlabel\nhello\tYes\n")
	f.Add("index\ttext\tanswer\n0\t\"a \"\"quoted\"\"\ttext\"\tNo\n")
	f.Add("text\tlabel\n\"unterminated\tYes\n")
	f.Fuzz(func(t *testing.T, in string) {
		ex, err := ReadTSV(strings.NewReader(in))
		if err == nil && len(ex) > strings.Count(in, "\n")+1 {
			t.Errorf("%d examples from %d lines", len(ex), strings.Count(in, "\n")+1)
		}
	})
}

func FuzzSpot(f *testing.F) {
	f.Add("I was not injured when the dog bit me, but I'll sue for damages.")
	f.Add("didn't didn't didn't arrested")
	f.Add("\xff\xfe car accident \u2019s")
	f.Fuzz(func(t *testing.T, text string) {
		for _, a := range Spot(text) {
			if !(a.Score > 0 && a.Score < 1) {
				t.Errorf("%s: score %v outside (0, 1)", a.ID, a.Score)
			}
		}
		Classify(text, "torts")
	})
}

// TestSpotLongInput checks that scoring is bounded by MaxTextBytes.
func TestSpotLongInput(t *testing.T) {
	long := strings.Repeat("my car accident injured me and the police arrested the driver ", 1<<17)
	start := time.Now()
	if got := Spot(long); len(got) == 0 {
		t.Fatal("Spot found nothing")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Spot took %v on %d bytes", d, len(long))
	}
}
