package ledger_test

import (
	"encoding/json"
	"testing"

	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/ledgertest"
)

// TestBodyPath: a field read from an event's canonical body (as the ledger
// seals it), from the event decoded (its parsed body) and from a body
// written by hand in another JSON form is the same value.
func TestBodyPath(t *testing.T) {
	h := ledgertest.Open(t, t.TempDir())
	trace := ledgertest.Record(t, h, 3)
	stored, err := h.Ledger.Events(t.Context(), trace)
	if err != nil {
		t.Fatal(err)
	}
	sealed := stored[0]
	decoded, err := ledger.Decode(sealed.Canonical())
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	if err := json.Unmarshal(sealed.Body, &body); err != nil {
		t.Fatal(err)
	}
	pretty, _ := json.MarshalIndent(body, "", "  ")
	byHand := &ledger.Event{Body: pretty}
	canonicalOnly := &ledger.Event{Body: sealed.Body} // as sealed: no parsed body kept
	run, _ := body["run"].(map[string]any)
	if run == nil || run["kind"] == nil {
		t.Fatalf("the first event of a trace has no run.kind: %s", sealed.Body)
	}
	for _, ev := range []*ledger.Event{sealed, decoded, byHand, canonicalOnly} {
		if kind, ok := ev.BodyPath("run", "kind"); !ok || kind != run["kind"] {
			t.Errorf("BodyPath(run, kind) = %v, %v; want %v", kind, ok, run["kind"])
		}
		if _, ok := ev.BodyPath("run", "no_such_member"); ok {
			t.Error("BodyPath found a member the body does not have")
		}
		if _, ok := ev.BodyPath("run", "kind", "deeper"); ok {
			t.Error("BodyPath went into a string")
		}
		if v, ok := ev.BodyField("run"); !ok || v.(map[string]any)["run_id"] != run["run_id"] {
			t.Errorf("BodyField(run) = %v, %v", v, ok)
		}
	}
	ledgertest.Close(t, h)
}
