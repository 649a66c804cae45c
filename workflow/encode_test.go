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
			Checkpoint: CheckpointDelta{
				StepIndex: rapid.IntRange(0, 1<<20).Draw(t, "cpindex"), CompletedStepID: key.Draw(t, "cpstep"),
				Context:        rapid.MapOf(key, raw).Draw(t, "context"),
				MemorySnapshot: rapid.MapOf(key, raw).Draw(t, "memory"),
				Phase:          rapid.SampledFrom([]string{PhaseRun, PhaseRollback}).Draw(t, "phase"),
				State:          canon.Sum([]byte(key.Draw(t, "state"))).String(),
			},
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
		// The state a step's event commits to is the same computed from
		// the body as recorded (canonical) as from the body it was made of.
		var back StepBody
		if err := json.Unmarshal(gotC, &back); err != nil {
			t.Fatal(err)
		}
		prev := canon.Sum([]byte("prev"))
		s1, err1 := stepState(prev, TypeStepCompleted, &b)
		s2, err2 := stepState(prev, TypeStepCompleted, &back)
		if err1 != nil || err2 != nil || s1 != s2 {
			t.Fatalf("state of the body: %v, %v; of the recorded body: %v, %v; want the same", s1, err1, s2, err2)
		}
		// Neither the output nor the state itself is part of what the state
		// hashes; everything else is.
		other := b
		other.Output, other.Checkpoint.State = json.RawMessage(`"another output"`), "sha256:00"
		if s3, _ := stepState(prev, TypeStepCompleted, &other); s3 != s1 {
			t.Fatalf("state changed with the output or the state: %v, want %v", s3, s1)
		}
		other = b
		other.Checkpoint.Phase = map[string]string{PhaseRun: PhaseRollback, PhaseRollback: PhaseRun}[b.Checkpoint.Phase]
		if s3, _ := stepState(prev, TypeStepCompleted, &other); s3 == s1 {
			t.Fatalf("state did not change with the phase")
		}
		if s3, _ := stepState(prev, TypeStepFailed, &b); s3 == s1 {
			t.Fatalf("state did not change with the event type")
		}
	})
}
