package ledger_test

import (
	"context"
	"testing"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/ledgertest"
	"github.com/sanadhq/sanad/runs"
)

// TestAppendAllIsAtomic: drafts appended together are sealed in order and
// committed together; one bad draft, or one an ordering rule refuses, fails
// the whole append and nothing is written.
func TestAppendAllIsAtomic(t *testing.T) {
	ctx := context.Background()
	h := ledgertest.Home(t)
	scope := ledgertest.Scope
	rec := sanad.Run{ID: "t1", RootID: "t1", Trace: "t1", Kind: sanad.KindAgent, Scope: scope, Agent: "intake-agent",
		ContractVersion: sanad.ContractVersion, Status: sanad.StatusRunning, StartedAt: time.Now()}
	draft := func(typ string, body any) ledger.Draft {
		return ledger.Draft{Trace: "t1", Type: typ, Run: "t1", Root: "t1", Scope: scope, Body: body}
	}
	started := draft(runs.TypeStarted, runs.StartedBody{Run: rec})
	authz := draft(runs.TypeAuthz, runs.Decision{Allow: true, Reason: "ok", Principal: runs.Principal{Agent: "intake-agent"}, Action: "run:agent"})
	failed := draft(runs.TypeFailed, runs.EndedBody{Status: sanad.StatusFailed, Outcome: "failure"})

	for name, drafts := range map[string][]ledger.Draft{
		"bad body in the middle":  {started, draft(runs.TypeAuthz, map[string]any{"allow": "yes"}), failed},
		"ordering rule refuses":   {started, failed},
		"drafts of another trace": {started, {Trace: "t2", Type: runs.TypeAuthz, Scope: scope}},
		"unknown type at the end": {started, authz, draft("no.such", nil)},
	} {
		if _, err := h.Ledger.AppendAll(ctx, drafts...); sanad.ErrorCode(err) != sanad.CodeInvalidInput {
			t.Errorf("%s: got %v, want INVALID_INPUT", name, err)
		}
		if size := workSize(t, h); size != 0 {
			t.Fatalf("%s: %d events written, want 0", name, size)
		}
	}
	evs, err := h.Ledger.AppendAll(ctx, started, authz, failed)
	if err != nil {
		t.Fatal(err)
	}
	for i, ev := range evs {
		if ev.Seq != uint64(i+1) || (i > 0 && ev.Prev != evs[i-1].Hash) {
			t.Fatalf("event %d: seq %d prev %s, want a chain from 1", i, ev.Seq, ev.Prev)
		}
	}
	if _, err := h.Ledger.Verify(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
}
