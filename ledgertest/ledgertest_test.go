package ledgertest_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/ledgertest"
	"github.com/sanadhq/sanad/runs"
)

// TestRecord: Record writes a verifiable trace of at least n events with what
// real traces have — a workflow root, agent children and tool grandchildren,
// denied and failed runs, artifacts in and out, and completions signed by the
// agents themselves.
func TestRecord(t *testing.T) {
	ctx := context.Background()
	h := ledgertest.Home(t)
	for _, n := range []int{1, 10, 150} {
		trace := ledgertest.Record(t, h, n)
		events, err := h.Ledger.Events(ctx, trace)
		if err != nil {
			t.Fatalf("Events: got error %v, want nil", err)
		}
		if len(events) < n {
			t.Fatalf("Record(%d): got %d events, want at least %d", n, len(events), n)
		}
		if _, err := h.Ledger.Verify(ctx, trace); err != nil {
			t.Fatalf("Record(%d): Verify: got error %v, want nil", n, err)
		}
		last := events[len(events)-1]
		if last.Type != runs.TypeCompleted || last.Run != trace || last.Actor.Agent != "orchestrator" || len(last.Refs) == 0 {
			t.Errorf("Record(%d): last event: got %s of run %s by %s with %d refs, want the root's run.completed by orchestrator with its output", n, last.Type, last.Run, last.Actor.Agent, len(last.Refs))
		}
		if n < 150 {
			continue
		}
		types := map[string]int{}
		agentSigned, refs, grandchildren := 0, 0, 0
		parents := map[string]string{}
		for _, ev := range events {
			types[ev.Type]++
			if ev.Actor.Agent != ledger.DefaultRuntimeIdentity {
				agentSigned++
			}
			refs += len(ev.Refs)
			if ev.Type == runs.TypeStarted {
				parents[ev.Run] = ev.Parent
				if ev.Parent != "" && parents[ev.Parent] != "" {
					grandchildren++
				}
			}
		}
		for _, typ := range []string{runs.TypeStarted, runs.TypeAuthz, runs.TypeCompleted, runs.TypeFailed, runs.TypeDenied} {
			if types[typ] == 0 {
				t.Errorf("Record(%d): no %s event, want some", n, typ)
			}
		}
		if agentSigned < 10 || refs < 20 || grandchildren == 0 {
			t.Errorf("Record(%d): got %d agent-signed events, %d refs, %d grandchild runs; want agents signing, artifacts and nested runs", n, agentSigned, refs, grandchildren)
		}
	}
}

// TestCopyAndTamper: a copied home opens and verifies as the original; an
// edit through Tamper is seen by the next open; Reseal makes an event that
// decodes, with a new hash, and signs it when given a key.
func TestCopyAndTamper(t *testing.T) {
	ctx := context.Background()
	h := ledgertest.Home(t)
	trace := ledgertest.Record(t, h, 20)
	events, err := h.Ledger.Events(ctx, trace)
	if err != nil {
		t.Fatal(err)
	}
	ledgertest.Close(t, h)
	for _, copyHome := range []func(testing.TB, string) string{ledgertest.CopyHome, ledgertest.CopyLedger} {
		dir := copyHome(t, h.Dir)
		h2 := ledgertest.Open(t, dir)
		if _, err := h2.Ledger.Verify(ctx, ""); err != nil {
			t.Fatalf("Verify of a copy: got error %v, want nil", err)
		}
		ledgertest.Close(t, h2)
	}
	if _, err := os.Stat(filepath.Join(ledgertest.CopyLedger(t, h.Dir), "blobs")); !os.IsNotExist(err) {
		t.Errorf("CopyLedger copied the blobs (stat error %v), want them left out", err)
	}

	raw := events[3].Canonical()
	key, err := h.Keys.Existing(events[3].Actor.Agent)
	if err != nil {
		t.Fatal(err)
	}
	same := ledgertest.Reseal(t, raw, key, nil)
	if !bytes.Equal(same, raw) {
		t.Errorf("Reseal without an edit: got\n%s\nwant\n%s", same, raw)
	}
	edited := ledgertest.Reseal(t, raw, nil, func(ev map[string]any) { ev["seq"] = json.Number("99") })
	ev, err := ledger.Decode(edited)
	if err != nil {
		t.Fatalf("Decode of a resealed event: got error %v, want nil", err)
	}
	if ev.Seq != 99 || ev.Hash == events[3].Hash || !bytes.Equal(ev.Sig, events[3].Sig) {
		t.Errorf("Reseal: got seq %d, hash %s, sig kept %v; want seq 99, a new hash, the old sig", ev.Seq, ev.Hash, bytes.Equal(ev.Sig, events[3].Sig))
	}
	if got := ledgertest.Field(t, raw, "actor.agent"); got != events[3].Actor.Agent {
		t.Errorf("Field(actor.agent): got %q, want %q", got, events[3].Actor.Agent)
	}

	dir := ledgertest.CopyLedger(t, h.Dir)
	ledgertest.Tamper(t, dir, func(db *sql.DB) error {
		_, err := db.Exec("UPDATE events SET data = ? WHERE trace = ? AND seq = 4", edited, trace)
		return err
	})
	h3 := ledgertest.Open(t, dir)
	if _, err := h3.Ledger.Verify(ctx, trace); err == nil {
		t.Error("Verify after Tamper: got nil, want an error")
	}
}
