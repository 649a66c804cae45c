package workflow_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/ledgertest"
	"github.com/sanadhq/sanad/workflow"
)

// Finding 6: checkpoints grew quadratically, each step event holding every
// output before it. A step event now holds its own change and a state hash:
// the events of a long run are as large at its end as at its start, and the
// checkpoint they fold into is still complete.
func TestIntegrity6_CheckpointCostIsFlat(t *testing.T) {
	const n = 2000
	e := openEnv(t)
	src := "name: long\nagent: worker\nsteps:\n"
	for i := range n {
		src += fmt.Sprintf("  - {id: s%d, uses: echo, with: {n: %d}}\n", i, i)
	}
	def := parse(t, src)
	res, err := e.engine.Start(t.Context(), def, nil, opts)
	if err != nil || res.Status != sanad.StatusCompleted {
		t.Fatalf("Start: got %v %+v, %v; want completed", res.Status, res.Errors, err)
	}
	evs, err := e.home.Ledger.Events(t.Context(), res.Trace)
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int
	var last workflow.Checkpoint
	err = workflow.Checkpoints(evs, res.Run, func(ev *ledger.Event, cp *workflow.Checkpoint) error {
		sizes = append(sizes, len(ev.Body))
		if len(sizes) == n {
			last = cp.Clone()
		}
		return nil
	})
	if err != nil || len(sizes) != n {
		t.Fatalf("Checkpoints: %d step events, %v; want %d, nil", len(sizes), err, n)
	}
	mean := func(s []int) float64 {
		sum := 0
		for _, v := range s {
			sum += v
		}
		return float64(sum) / float64(len(s))
	}
	first, end := mean(sizes[:100]), mean(sizes[n-100:])
	t.Logf("step event bodies: first 100 %.0f bytes on average, last 100 %.0f", first, end)
	// Step ids and outputs have up to three more digits at the end: a few
	// bytes, whatever the run's length.
	if end > first+32 || slices.Max(sizes) > 2*slices.Min(sizes) {
		t.Errorf("step event bodies: first 100 %.0f bytes on average, last 100 %.0f, from %d to %d; want the same size at the end as at the start",
			first, end, slices.Min(sizes), slices.Max(sizes))
	}
	// The checkpoint after the last step is complete all the same.
	if err := last.Validate(def); err != nil || len(last.StepOutputs) != n || last.CompletedStepID != fmt.Sprintf("s%d", n-1) {
		t.Fatalf("last checkpoint: %v, %d outputs, after %s; want valid, %d, after s%d", err, len(last.StepOutputs), last.CompletedStepID, n, n-1)
	}
	for i := range n {
		if id := fmt.Sprintf("s%d", i); string(last.StepOutputs[id]) != fmt.Sprintf(`{"n":%d}`, i) || last.Completed[i] != id {
			t.Fatalf("last checkpoint: %s is %s at position %d (%s)", id, last.StepOutputs[id], i, last.Completed[i])
		}
	}
	if rep, err := e.engine.Replay(t.Context(), res.Run); err != nil || len(rep.Outputs) != n {
		t.Errorf("Replay: %d outputs, %v; want %d, nil", len(rep.Outputs), err, n)
	}
}

// rewriteTrace rewrites the stored events of trace as someone with the
// database but no key would: edit gets the trace's events as JSON objects,
// in order, and returns them changed, fewer or reordered; they are numbered
// and chained again and their hashes recomputed (their signatures, left as
// they were, no longer verify, which only a verification checks). An event
// edit leaves out is moved to another trace. Only the rows of the events from
// the first one edit changes on are rewritten, each keeping its place in the
// log. The home is closed and opened again around it.
func rewriteTrace(t *testing.T, e *env, trace string, edit func(evs []map[string]any) []map[string]any) {
	t.Helper()
	e.home.Close()
	ledgertest.Tamper(t, e.dir, func(db *sql.DB) error {
		rows, err := db.Query("SELECT idx, data FROM events WHERE trace = ? ORDER BY seq", trace)
		if err != nil {
			return err
		}
		var idx []int64
		var raws [][]byte
		var evs []map[string]any
		for rows.Next() {
			var i int64
			var raw []byte
			if err := rows.Scan(&i, &raw); err != nil {
				return err
			}
			var ev map[string]any
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.UseNumber()
			if err := dec.Decode(&ev); err != nil {
				return err
			}
			idx, raws, evs = append(idx, i), append(raws, raw), append(evs, ev)
		}
		if err := rows.Close(); err != nil {
			return err
		}
		out := edit(slices.Clone(evs))
		var prev any
		for i, ev := range out {
			if i > 0 {
				ev["prev"] = prev
			}
			ev["seq"] = json.Number(fmt.Sprint(i + 1))
			raw, err := canon.Marshal(ev)
			if err != nil {
				return err
			}
			raw = ledgertest.Reseal(t, raw, nil, nil)
			prev = ledgertest.Field(t, raw, "hash")
			if bytes.Equal(raw, raws[i]) {
				continue
			}
			run, _ := ev["run"].(string)
			if _, err := db.Exec("UPDATE events SET seq = -seq WHERE trace = ? AND seq = ?", trace, i+1); err != nil {
				return err
			}
			if _, err := db.Exec("UPDATE events SET seq = ?, type = ?, run = ?, data = ? WHERE idx = ?", i+1, ev["type"], run, raw, idx[i]); err != nil {
				return err
			}
		}
		for i := len(out); i < len(evs); i++ {
			if _, err := db.Exec("UPDATE events SET trace = ?, seq = ? WHERE idx = ?", trace+"-removed", i+1, idx[i]); err != nil {
				return err
			}
		}
		return nil
	})
	e.reopen(t)
}

// stepEvent returns the position in evs of the step event of step id.
func stepEvent(t *testing.T, evs []map[string]any, id string) int {
	t.Helper()
	for i, ev := range evs {
		if typ, _ := ev["type"].(string); strings.HasPrefix(typ, "step.") {
			if ev["body"].(map[string]any)["step_id"] == id {
				return i
			}
		}
	}
	t.Fatalf("no step event of %s", id)
	return -1
}

// A step event changed, removed or put in another place in a run's record
// is refused by a resume and by a replay (INTEGRITY), before anything runs
// or is recorded: each event's state commits to the checkpoint after it, and
// the fold of the events before it gives another.
func TestIntegrity6_TamperedStepEventsRefused(t *testing.T) {
	body := func(ev map[string]any) map[string]any { return ev["body"].(map[string]any) }
	delta := func(ev map[string]any) map[string]any { return body(ev)["checkpoint"].(map[string]any) }
	cases := []struct {
		name string
		edit func(t *testing.T, evs []map[string]any) []map[string]any
		want string // in the error
	}{
		{"nothing", func(t *testing.T, evs []map[string]any) []map[string]any { return evs }, ""},
		{"state", func(t *testing.T, evs []map[string]any) []map[string]any {
			delta(evs[stepEvent(t, evs, "s2")])["state"] = canon.Sum([]byte("forged")).String()
			return evs
		}, "checkpoint state"},
		{"output", func(t *testing.T, evs []map[string]any) []map[string]any {
			b := body(evs[stepEvent(t, evs, "s2")])
			b["output"] = map[string]any{"n": json.Number("99")}
			b["output_hash"] = canon.Sum([]byte(`{"n":99}`)).String()
			return evs
		}, "checkpoint state"},
		{"output without its hash", func(t *testing.T, evs []map[string]any) []map[string]any {
			body(evs[stepEvent(t, evs, "s2")])["output"] = map[string]any{"n": json.Number("99")}
			return evs
		}, "output_hash"},
		{"context", func(t *testing.T, evs []map[string]any) []map[string]any {
			delta(evs[stepEvent(t, evs, "s2")])["context"] = map[string]any{"last": "forged"}
			return evs
		}, "checkpoint state"},
		{"removed", func(t *testing.T, evs []map[string]any) []map[string]any {
			i := stepEvent(t, evs, "s2")
			return append(evs[:i], evs[i+1:]...)
		}, "checkpoint state"},
		{"reordered", func(t *testing.T, evs []map[string]any) []map[string]any {
			i, j := stepEvent(t, evs, "s2"), stepEvent(t, evs, "s3")
			evs[i], evs[j] = evs[j], evs[i]
			return evs
		}, "checkpoint state"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := openEnv(t)
			e.actions.Register("rec", func(_ context.Context, s *workflow.StepContext) (json.RawMessage, error) {
				s.Set("last", json.RawMessage(`"`+s.Step.ID+`"`))
				return s.Step.With, nil
			})
			e.crashAt(workflow.PointAfterCheckpoint, 5) // s0 to s4 recorded
			id := e.startCrashing(t, parse(t, steps(7, "")))
			rec, err := e.home.DB.Run(t.Context(), id)
			if err != nil {
				t.Fatal(err)
			}
			rewriteTrace(t, e, rec.Trace, func(evs []map[string]any) []map[string]any { return c.edit(t, evs) })
			before, err := e.home.Ledger.Events(t.Context(), rec.Trace)
			if err != nil {
				t.Fatalf("reading the rewritten trace: %v", err)
			}
			if c.want == "" {
				res, err := e.engine.Resume(t.Context(), id)
				if err != nil || res.Status != sanad.StatusCompleted || res.Executed != 2 {
					t.Fatalf("untouched record: Resume %v, %v, %d steps run; want completed, 2", res.Status, err, res.Executed)
				}
				if _, err := e.engine.Replay(t.Context(), id); err != nil {
					t.Fatalf("untouched record: Replay %v, want nil", err)
				}
				return
			}
			_, rerr := e.engine.Replay(t.Context(), id)
			_, err = e.engine.Resume(t.Context(), id)
			for what, err := range map[string]error{"Replay": rerr, "Resume": err} {
				if codeOf(err) != sanad.CodeIntegrity || !strings.Contains(err.Error(), c.want) {
					t.Errorf("%s: got %v, want INTEGRITY saying %q", what, err, c.want)
				}
			}
			after, _ := e.home.Ledger.Events(t.Context(), rec.Trace)
			if len(after) != len(before) {
				t.Errorf("the refused resume recorded %d events", len(after)-len(before))
			}
		})
	}
}

// A failure no step event of its own records (here a compensation that
// fails) is in the next step event's change, so that the checkpoint a resume
// rebuilds has it, as the running one did.
func TestFailureCarriedByTheNextStepEvent(t *testing.T) {
	e := openEnv(t)
	src := `name: undo
agent: worker
strategy: rollback
steps:
  - {id: a, tool: count, with: {}, compensate: {uses: tool, tool: undo, with: {step: a}}}
  - {id: b, tool: count, with: {}, compensate: {uses: tool, tool: boom, with: {}}}
  - {id: bad, tool: boom, with: {}}
`
	res, err := e.engine.Start(t.Context(), parse(t, src), nil, opts)
	if err != nil || res.Status != sanad.StatusFailed {
		t.Fatalf("Start: got %v, %v; want failed", res.Status, err)
	}
	var failed []string
	for _, f := range res.Errors {
		failed = append(failed, f.Step)
	}
	if !slices.Equal(failed, []string{"b#compensate", "bad"}) {
		t.Fatalf("errors at %v, want [b#compensate bad]", failed)
	}
	evs, _ := e.home.Ledger.Events(t.Context(), res.Trace)
	var last workflow.Checkpoint
	if err := workflow.Checkpoints(evs, res.Run, func(_ *ledger.Event, cp *workflow.Checkpoint) error { last = cp.Clone(); return nil }); err != nil {
		t.Fatal(err)
	}
	if _, ok := last.FailedSteps["b#compensate"]; !ok || len(last.FailedSteps) != 2 || !slices.Equal(last.Compensated, []string{"a"}) || last.Phase != workflow.PhaseRollback {
		t.Errorf("last checkpoint: failures %v, compensated %v, phase %s; want bad and b#compensate, [a], rollback", last.FailedSteps, last.Compensated, last.Phase)
	}
}
