package workflow

import (
	"encoding/json"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/canon"
	"pgregory.net/rapid"
)

// The hand-written encoding of a step body is, once canonicalized, exactly
// what encoding/json gives.
func TestStepBodyEncoding(t *testing.T) {
	raw := rapid.SampledFrom([]json.RawMessage{
		json.RawMessage(`{}`), json.RawMessage(`null`), json.RawMessage(`"x<y>&z"`), json.RawMessage(`[1,2.5,{"b":true,"a":null}]`),
		json.RawMessage(`{"text":"\u00e9\ud83d\ude00","n":-0.125e3}`), json.RawMessage(` { "spaced" : [ ] } `),
	})
	key := rapid.StringMatching(`[a-zA-Z0-9"\\<>&é\x{1F600} _.-]{0,12}`)
	rapid.Check(t, func(t *rapid.T) {
		b := StepBody{
			StepID: key.Draw(t, "step"), StepIndex: rapid.IntRange(0, 1<<20).Draw(t, "index"), Agent: key.Draw(t, "agent"),
			Checkpoint: Checkpoint{
				StepIndex: rapid.IntRange(0, 1<<20).Draw(t, "cpindex"), CompletedStepID: key.Draw(t, "cpstep"),
				StepOutputs:    rapid.MapOf(key, raw).Draw(t, "outputs"),
				Context:        rapid.MapOf(key, raw).Draw(t, "context"),
				MemorySnapshot: rapid.MapOf(key, raw).Draw(t, "memory"),
				Completed:      rapid.SliceOf(key).Draw(t, "completed"),
				Compensated:    rapid.SliceOf(key).Draw(t, "compensated"),
				Phase:          rapid.SampledFrom([]string{PhaseRun, PhaseRollback}).Draw(t, "phase"),
			},
		}
		if b.Checkpoint.Completed == nil {
			b.Checkpoint.Completed = []string{}
		}
		if rapid.Bool().Draw(t, "output") {
			b.Output, b.OutputHash = raw.Draw(t, "out"), "sha256:00"
		}
		if rapid.Bool().Draw(t, "failed") {
			e := sanad.RunError{Code: sanad.CodeToolFailed, Message: key.Draw(t, "msg"), Retryable: true}
			b.Error = &e
			b.Checkpoint.FailedSteps = map[string]sanad.RunError{key.Draw(t, "failed step"): e}
		}
		want, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		wantC, err := canon.Transform(want)
		if err != nil {
			t.Fatal(err)
		}
		gotC, err := canon.Transform(b.appendJSON(nil))
		if err != nil {
			t.Fatalf("appendJSON wrote invalid JSON: %v\n%s", err, b.appendJSON(nil))
		}
		if string(gotC) != string(wantC) {
			t.Fatalf("got  %s\nwant %s", gotC, wantC)
		}
	})
}
