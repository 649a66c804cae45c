package dbwrite_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/dbwrite"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/runs"
)

type fixture struct {
	h *home.Home
	w *dbwrite.Writer
}

func setup(t *testing.T) fixture {
	t.Helper()
	h, err := home.Open(context.Background(), home.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	set, err := policy.Load("../examples/policies/casework")
	if err != nil {
		t.Fatal(err)
	}
	return fixture{h: h, w: &dbwrite.Writer{Policy: set, Runs: h.Runs, Artifacts: h.Artifacts}}
}

func (f fixture) agentRun(t *testing.T, agent string, scope sanad.Scope) (*runs.Run, policy.Principal) {
	t.Helper()
	run, err := f.h.Runs.Start(context.Background(), runs.Spec{
		Kind: sanad.KindAgent, Scope: scope, Agent: strings.ToLower(strings.ReplaceAll(agent, "_", "-")), Role: agent,
		Decision: runs.Decision{Allow: true, Reason: "test"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return run, policy.Principal{Agent: run.Record.Agent, Role: agent, Scope: scope}
}

var caseA = sanad.Scope{Tenant: "firm", Case: "case-A"}

func rec(s string) json.RawMessage { return json.RawMessage(s) }

// TestC09_InterviewPersistsThroughLane: the interview agent appends a
// transcript under WRITE_INTAKE_ARTIFACTS as a db_write child run with a
// db.write event; the mapping agent may not; both leave audit events.
func TestC09_InterviewPersistsThroughLane(t *testing.T) {
	ctx := context.Background()
	f := setup(t)
	run, p := f.agentRun(t, "INTERVIEW_AGENT", caseA)
	res, err := f.w.Write(ctx, run, p, dbwrite.Request{
		Lane: "WRITE_INTAKE_ARTIFACTS", Table: "transcripts", Op: dbwrite.Append,
		Record: rec(`{"speaker":"client","text":"I signed the lease in March."}`), Fields: map[string]string{"client_session_id": "s-1"},
	})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := f.h.DB.Records(ctx, caseA, "transcripts")
	if err != nil || len(rows) != 1 || rows[0].SHA256 != res.Record.SHA256 || rows[0].Run != res.Run {
		t.Fatalf("records: got %+v, %v; want the one transcript", rows, err)
	}
	child, err := f.h.DB.Run(ctx, res.Run)
	if err != nil || child.Kind != sanad.KindDBWrite || child.Status != sanad.StatusCompleted || child.ParentID != run.Record.ID {
		t.Fatalf("db_write run: got %+v, %v", child, err)
	}

	mrun, mp := f.agentRun(t, "MAPPING_AGENT", caseA)
	_, err = f.w.Write(ctx, mrun, mp, dbwrite.Request{
		Lane: "WRITE_INTAKE_ARTIFACTS", Table: "transcripts", Op: dbwrite.Append,
		Record: rec(`{"text":"x"}`), Fields: map[string]string{"client_session_id": "s-1"},
	})
	if sanad.ErrorCode(err) != sanad.CodePolicyDenied {
		t.Fatalf("mapping agent: got %v, want POLICY_DENIED", err)
	}
	runsOfTrace, _ := f.h.DB.Runs(ctx, mrun.Record.Trace)
	denied := 0
	for _, r := range runsOfTrace {
		if r.Kind == sanad.KindDBWrite && r.Status == sanad.StatusDenied {
			denied++
		}
	}
	if denied != 1 {
		t.Fatalf("denied db_write runs: got %d, want 1", denied)
	}
	if rows, _ := f.h.DB.Records(ctx, caseA, "transcripts"); len(rows) != 1 {
		t.Fatalf("records after a refused write: got %d, want 1", len(rows))
	}
	if _, err := f.h.Ledger.Verify(ctx, ""); err != nil {
		t.Fatal(err)
	}
}

// TestC10_MappingWrites: facts, evidence_map and coa_map with the COA
// version pinned; without coa_version the lane refuses.
func TestC10_MappingWrites(t *testing.T) {
	ctx := context.Background()
	f := setup(t)
	run, p := f.agentRun(t, "MAPPING_AGENT", caseA)
	for _, table := range []string{"facts", "evidence_map", "coa_map"} {
		_, err := f.w.Write(ctx, run, p, dbwrite.Request{Lane: "WRITE_MAPPING_OUTPUTS", Table: table, Op: dbwrite.Append,
			Record: rec(`{"item":"lease signed 2026-03-02"}`), Fields: map[string]string{"coa_version": "2026.1"}})
		if err != nil {
			t.Fatalf("%s: %v", table, err)
		}
	}
	_, err := f.w.Write(ctx, run, p, dbwrite.Request{Lane: "WRITE_MAPPING_OUTPUTS", Table: "facts", Op: dbwrite.Append, Record: rec(`{"item":"x"}`)})
	if sanad.ErrorCode(err) != sanad.CodePolicyDenied {
		t.Fatalf("without coa_version: got %v, want POLICY_DENIED", err)
	}
}

// TestC11_PromotionRefusesCaseContent: the governance agent promotes a
// sanitized insight; raw case text, client identity and privileged notes are
// refused.
func TestC11_PromotionRefusesCaseContent(t *testing.T) {
	ctx := context.Background()
	f := setup(t)
	shared := sanad.Scope{Tenant: "firm"}
	run, p := f.agentRun(t, "GOVERNANCE_AGENT", shared)
	fields := map[string]string{"promotion_ticket_id": "pt-9"}
	if _, err := f.w.Write(ctx, run, p, dbwrite.Request{Lane: "PROMOTE_SHARED_KNOWLEDGE", Table: "shared_heuristics", Op: dbwrite.Append,
		Record: rec(`{"heuristic":"ask for the signed lease before the deposit receipt"}`), Fields: fields}); err != nil {
		t.Fatal(err)
	}
	for _, tag := range []string{policy.TagRawCaseText, policy.TagClientIdentity, policy.TagPrivilegedNotes} {
		_, err := f.w.Write(ctx, run, p, dbwrite.Request{Lane: "PROMOTE_SHARED_KNOWLEDGE", Table: "shared_playbooks", Op: dbwrite.Append,
			Record: rec(`{"text":"..."}`), Fields: fields, Tags: []string{tag}})
		if sanad.ErrorCode(err) != sanad.CodePolicyDenied {
			t.Errorf("%s: got %v, want POLICY_DENIED", tag, err)
		}
	}
}

// TestUpsertAndIsolation: an upsert replaces its key; another case sees
// nothing; malformed requests are refused before anything is recorded.
func TestUpsertAndIsolation(t *testing.T) {
	ctx := context.Background()
	f := setup(t)
	run, p := f.agentRun(t, "INTAKE_AGENT", caseA)
	for _, name := range []string{"Acme Ltd", "Acme Limited"} {
		if _, err := f.w.Write(ctx, run, p, dbwrite.Request{Lane: "WRITE_INTAKE_ARTIFACTS", Table: "entities", Op: dbwrite.Upsert, Key: "org-1",
			Record: rec(`{"name":"` + name + `"}`), Fields: map[string]string{"client_session_id": "s-1"}}); err != nil {
			t.Fatal(err)
		}
	}
	rows, _ := f.h.DB.Records(ctx, caseA, "entities")
	if len(rows) != 1 {
		t.Fatalf("entities: got %d rows, want 1 (upsert replaces)", len(rows))
	}
	data, err := f.h.Artifacts.Read(rows[0].SHA256)
	if err != nil || string(data) != `{"name":"Acme Limited"}` {
		t.Fatalf("entity: got %s, %v", data, err)
	}
	if rows, _ := f.h.DB.Records(ctx, sanad.Scope{Tenant: "firm", Case: "case-B"}, "entities"); len(rows) != 0 {
		t.Fatalf("case B sees %d of case A's entities, want 0", len(rows))
	}
	before, _ := f.h.DB.TreeSize(ctx)
	for _, bad := range []dbwrite.Request{
		{Lane: "WRITE_INTAKE_ARTIFACTS", Table: "nope", Op: dbwrite.Append, Record: rec(`{}`)},
		{Lane: "WRITE_INTAKE_ARTIFACTS", Table: "entities", Op: "delete", Record: rec(`{}`)},
		{Lane: "WRITE_INTAKE_ARTIFACTS", Table: "entities", Op: dbwrite.Upsert, Record: rec(`{}`)},
		{Lane: "WRITE_INTAKE_ARTIFACTS", Table: "entities", Op: dbwrite.Append, Record: rec(`[1]`)},
	} {
		if _, err := f.w.Write(ctx, run, p, bad); sanad.ErrorCode(err) != sanad.CodeInvalidInput {
			t.Errorf("%+v: got %v, want INVALID_INPUT", bad, err)
		}
	}
	if after, _ := f.h.DB.TreeSize(ctx); after != before {
		t.Fatalf("malformed writes recorded %d events, want 0", after-before)
	}
}
