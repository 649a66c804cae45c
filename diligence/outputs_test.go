package diligence

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/sanadhq/sanad/playbook/debate"
)

// TestD19_GDBSDebateCompletionAndMuhasabahPassRate runs the golden deal set:
// every deal's debate ends with its expected stop reason (the scoring test
// checks each), and every role's output of every round passes the
// Muḥāsabah gate (seed 000 §9.2: at least 98%), while the same outputs
// stripped of what each rule asks for are all rejected.
func TestD19_GDBSDebateCompletionAndMuhasabahPassRate(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join("..", "examples", "deals", "[0-9]*"))
	passed, total, broken, rejected := 0, 0, 0, 0
	for _, dir := range dirs {
		d, err := Load(context.Background(), dir)
		if err != nil {
			t.Fatal(err)
		}
		f := Analyze(d)
		if f.StopReason == "" {
			t.Errorf("%s: the debate did not stop", filepath.Base(dir))
		}
		ev := Evidence(d, f)
		for _, o := range Outputs(d, f) {
			total++
			if vs := debate.Check(o, ev); len(vs) == 0 {
				passed++
			} else {
				t.Errorf("%s round %d %s: %v", filepath.Base(dir), o.RoundNumber, o.Role, vs)
			}
			if len(o.Muhasabah.SupportedClaimIDs) == 0 {
				continue
			}
			for _, breakIt := range []func(*debate.Output){
				func(o *debate.Output) {
					o.Content += " Revenue was £99.9m."
					o.Muhasabah.SupportedClaimIDs = nil
					o.Muhasabah.SupportedCalcIDs = nil
				},
				func(o *debate.Output) { o.Muhasabah.Confidence, o.Muhasabah.FalsifiabilityTests = 0.7, nil },
				func(o *debate.Output) {
					o.Muhasabah.Confidence, o.Muhasabah.Uncertainties, o.Muhasabah.CounterHypothesis = 0.95, nil, ""
				},
			} {
				b := o
				b.Muhasabah.SupportedClaimIDs = append([]string(nil), o.Muhasabah.SupportedClaimIDs...)
				breakIt(&b)
				broken++
				if len(debate.Check(b, ev)) > 0 {
					rejected++
				}
			}
		}
	}
	if total == 0 || float64(passed)/float64(total) < 0.98 {
		t.Fatalf("Muḥāsabah pass rate %d/%d", passed, total)
	}
	if rejected != broken {
		t.Fatalf("%d of %d broken outputs rejected", rejected, broken)
	}
	t.Logf("%d outputs passed of %d; %d of %d broken ones rejected", passed, total, rejected, broken)
}
