package sqlite_test

import (
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/artifact"
	"github.com/sanadhq/sanad/runs"
)

// TestStagedArtifactIndexedByCitingEvent: a staged artifact is not found
// until an event of its scope that cites it commits, and is found from then
// on; a ref to another scope's artifact in an event indexes nothing there.
func TestStagedArtifactIndexedByCitingEvent(t *testing.T) {
	ctx := t.Context()
	db := openDB(t, dbPath(t))
	rec := &runs.Recorder{Ledger: openLedger(t, db, openKeys(t))}
	store, err := artifact.Open(t.TempDir(), db)
	if err != nil {
		t.Fatal(err)
	}
	other := sanad.Scope{Tenant: scope.Tenant, Case: "another-case"}
	mine, err := store.Stage(scope, "r-stage", "application/json", []byte(`{"mine":true}`))
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := store.Stage(other, "r-stage", "application/json", []byte(`{"theirs":true}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := store.Get(ctx, mine.ID, scope); sanad.ErrorCode(err) != sanad.CodeNotFound {
		t.Fatalf("Get before any event cites it: got %v, want NOT_FOUND", err)
	}
	run, err := rec.Start(ctx, runs.Spec{Kind: sanad.KindAgent, Scope: scope, Agent: "worker",
		Inputs: []sanad.ArtifactRef{mine, theirs}, Decision: runs.Decision{Allow: true, Reason: "ok"}})
	if err != nil {
		t.Fatal(err)
	}
	data, ref, err := store.Get(ctx, mine.ID, scope)
	if err != nil || string(data) != `{"mine":true}` || ref.CreatedByRun != "r-stage" {
		t.Fatalf("Get after run.started cites it: %q, %+v, %v", data, ref, err)
	}
	if _, _, err := store.Get(ctx, theirs.ID, other); sanad.ErrorCode(err) != sanad.CodeNotFound {
		t.Fatalf("another scope's artifact cited from this scope: got %v, want NOT_FOUND", err)
	}
	if _, _, err := store.Get(ctx, mine.ID, other); sanad.ErrorCode(err) != sanad.CodeNotFound {
		t.Fatalf("cited artifact read from another scope: got %v, want NOT_FOUND", err)
	}
	if err := run.Complete(ctx, []sanad.ArtifactRef{mine}, nil); err != nil {
		t.Fatal(err) // citing it again changes nothing
	}
}
