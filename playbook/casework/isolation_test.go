package casework_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/dbwrite"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/playbook/casework"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/tool"
)

func principalOf(role, caseID string) policy.Principal {
	return policy.Principal{Agent: agentID(role), Role: role, Scope: scopeOf(caseID)}
}

var calls int

func toolRequest(t *testing.T, name string, input any) tool.Request {
	t.Helper()
	calls++
	return tool.Request{Tool: name, Justification: "a test asks for it", CallID: "call-" + strings.ReplaceAll(name, ".", "-") + "-" + string(rune('a'+calls%26)) + string(rune('a'+calls/26%26)), Input: mustJSON(t, input)}
}

// TestC02_NoAgentReachesAnotherCase: for every casework tool and lane, an
// agent of case A, even the one the lane allows, is refused anything of
// case B: a call scoped to B is denied by policy (and recorded); an id of
// B's (an upload, a transcript, an export item) is not found from A; A's
// reads return none of B's texts; and a write naming B's case is refused.
func TestC02_NoAgentReachesAnotherCase(t *testing.T) {
	e := newEnv(t)
	e.openMatter("tenant-retaliation", "case-a")
	e.openMatter("wage-retaliation", "case-b")
	e.run(casework.Map, "case-b", casework.MapInput{})
	bRes := e.run(casework.Export, "case-b", casework.ExportInput{Request: exportRequest("case-b", "discovery")})
	var bExport casework.ExportOutcome
	if err := json.Unmarshal(bRes.Outputs["export"], &bExport); err != nil {
		t.Fatal(err)
	}
	bItem := strings.Split(bExport.Manifest.Items[0].Path, "/")[1]
	bUpload, err := e.h.Artifacts.Put(t.Context(), scopeOf("case-b"), "", "text/plain", read(t, "wage-retaliation", "interview.srt"))
	if err != nil {
		t.Fatal(err)
	}
	bTranscripts, err := e.h.DB.Records(t.Context(), scopeOf("case-b"), "transcripts")
	if err != nil || len(bTranscripts) == 0 {
		t.Fatal(err)
	}
	var bTr casework.TranscriptRecord
	data, err := e.h.Artifacts.Read(bTranscripts[0].SHA256)
	if err != nil || json.Unmarshal(data, &bTr) != nil {
		t.Fatal(err)
	}
	session := "s-1"
	xid := "x-1"
	record := json.RawMessage(`{"note":"x"}`)
	tools := []struct {
		tool, role string
		input      map[string]any
	}{
		{casework.ToolWrite, casework.RoleInterview, map[string]any{"lane": casework.LaneIntake, "table": "transcripts", "op": "append", "record": record, "fields": map[string]string{"client_session_id": session}}},
		{casework.ToolWrite, casework.RoleMapping, map[string]any{"lane": casework.LaneMapping, "table": "facts", "op": "append", "record": record, "fields": map[string]string{"coa_version": "1.1.0"}}},
		{casework.ToolWrite, casework.RoleExport, map[string]any{"lane": casework.LaneExport, "table": "export_bundles", "op": "append", "record": record, "fields": map[string]string{"export_request_id": xid}}},
		{casework.ToolSources, casework.RoleMapping, map[string]any{}},
		{casework.ToolConfirmTriage, casework.RoleIntake, map[string]any{"client_session_id": session, "triage": map[string]any{}}},
		{casework.ToolTranscribe, casework.RoleInterview, map[string]any{"client_session_id": session, "artifact": "sha256:" + bUpload.SHA256, "name": "interview.srt"}},
		{casework.ToolTranscriptionStatus, casework.RoleInterview, map[string]any{"client_session_id": session, "transcript_id": bTr.ID}},
		{casework.ToolPromptNext, casework.RoleInterview, map[string]any{"client_session_id": session}},
		{casework.ToolPromotionCheck, casework.RoleGovernance, map[string]any{"candidate": map[string]any{"id": "c", "kind": "heuristic", "title": "t", "text": "x"}}},
		{casework.ToolPublish, casework.RoleGovernance, map[string]any{"ticket": map[string]any{}, "candidate": map[string]any{}}},
		{casework.ToolExportAuthorize, casework.RoleExport, map[string]any{"export_request_id": xid, "request": exportRequest("case-b", "discovery")}},
		{casework.ToolRedact, casework.RoleExport, map[string]any{"export_request_id": xid, "item": bItem, "profile": "discovery"}},
		{casework.ToolExportAssemble, casework.RoleExport, map[string]any{"export_request_id": xid, "manifest": bExport.Manifest}},
		{casework.ToolExportFinalize, casework.RoleExport, map[string]any{"export_request_id": xid, "manifest_sha256": bExport.ManifestSHA256}},
	}
	g := e.gateway()
	specs, err := e.r.Tools(casework.Map)
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, c := range tools {
		covered[c.tool] = true
		t.Run(c.tool+"/scoped-to-b", func(t *testing.T) {
			parent := e.agentRun(c.role, "case-a")
			req := toolRequest(t, c.tool, c.input)
			req.Scope = scopeOf("case-b")
			got := g.Call(t.Context(), parent, principalOf(c.role, "case-a"), req)
			if got.Code != sanad.CodePolicyDenied {
				t.Fatalf("got %q %q, want POLICY_DENIED", got.Code, got.Message)
			}
			if !recorded(e.events(parent.Record.Trace), parent.Record.ID, string(policy.RuleCaseIsolation)) {
				t.Errorf("the case isolation refusal is not in the record")
			}
		})
	}
	for _, s := range specs {
		if strings.HasPrefix(s.Name, "workflow.") || !covered[s.Name] && isCasework(s.Name) {
			if !strings.HasPrefix(s.Name, "workflow.") {
				t.Errorf("tool %s is not in the isolation table", s.Name)
			}
		}
	}

	// Ids of case B, asked for from case A by the agent the lane allows.
	for _, c := range []struct {
		tool, role string
		input      map[string]any
	}{
		{casework.ToolTranscribe, casework.RoleInterview, map[string]any{"client_session_id": session, "artifact": "sha256:" + bUpload.SHA256, "name": "interview.srt"}},
		{casework.ToolTranscriptionStatus, casework.RoleInterview, map[string]any{"client_session_id": session, "transcript_id": bTr.ID}},
		{casework.ToolRedact, casework.RoleExport, map[string]any{"export_request_id": xid, "item": bItem, "profile": "discovery"}},
	} {
		t.Run(c.tool+"/id-of-b", func(t *testing.T) {
			parent := e.agentRun(c.role, "case-a")
			got := g.Call(t.Context(), parent, principalOf(c.role, "case-a"), toolRequest(t, c.tool, c.input))
			if got.Code != sanad.CodeNotFound {
				t.Errorf("got %q %q, want NOT_FOUND", got.Code, got.Message)
			}
		})
	}
	// A's reads hold nothing of B's.
	parent := e.agentRun(casework.RoleMapping, "case-a")
	got := g.Call(t.Context(), parent, principalOf(casework.RoleMapping, "case-a"), toolRequest(t, casework.ToolSources, map[string]any{}))
	if got.Code != "" {
		t.Fatalf("case.sources: %s %s", got.Code, got.Message)
	}
	for _, leak := range []string{"Okafor", "Summit Logistics", "Kowalski"} {
		if strings.Contains(string(got.Output()), leak) {
			t.Errorf("case A's sources hold %q of case B", leak)
		}
	}
	// A candidate that quotes case B is checked against A only: B's text is
	// not visible to A's governance agent.
	parent = e.agentRun(casework.RoleGovernance, "case-a")
	got = g.Call(t.Context(), parent, principalOf(casework.RoleGovernance, "case-a"), toolRequest(t, casework.ToolPromotionCheck,
		map[string]any{"candidate": map[string]any{"id": "c", "kind": "heuristic", "title": "t", "text": "From June 2025 my manager told us to clock out at 40 hours and keep working until the trucks were loaded."}}))
	if got.Code != "" || !strings.Contains(string(got.Output()), `"allowed":true`) {
		t.Errorf("promotion.check in A of B's words: %s %s %s", got.Code, got.Message, got.Output())
	}
	// Writes: a record naming case B from a run of case A is refused.
	w := &dbwrite.Writer{Policy: e.pol, Runs: e.h.Runs, Artifacts: e.h.Artifacts}
	for _, c := range []struct{ lane, table, role string }{
		{casework.LaneIntake, "transcripts", casework.RoleInterview},
		{casework.LaneMapping, "coa_map", casework.RoleMapping},
		{casework.LaneExport, "export_bundles", casework.RoleExport},
		{casework.LanePromote, "shared_heuristics", casework.RoleGovernance},
	} {
		parent := e.agentRun(c.role, "case-a")
		_, err := w.Write(t.Context(), parent, principalOf(c.role, "case-a"), dbwrite.Request{Lane: c.lane, Table: c.table, Op: dbwrite.Append, Record: record,
			Fields: map[string]string{"case_id": "case-b", "client_session_id": session, "coa_version": "1.1.0", "export_request_id": xid, "promotion_ticket_id": "t-1"}})
		if sanad.ErrorCode(err) != sanad.CodePolicyDenied {
			t.Errorf("%s through %s naming case B: got %v, want POLICY_DENIED", c.table, c.lane, err)
		}
	}
	// A workflow of case A sees nothing of B: its mapping has no fact of B.
	res := e.run(casework.Map, "case-a", casework.MapInput{})
	for _, leak := range []string{"Okafor", "Summit", "Kowalski"} {
		if strings.Contains(string(res.Outputs["map"]), leak) {
			t.Errorf("case A's mapping holds %q of case B", leak)
		}
	}
}

func isCasework(name string) bool {
	for _, n := range []string{casework.ToolWrite, casework.ToolSources, casework.ToolConfirmTriage, casework.ToolTranscribe, casework.ToolTranscriptionStatus,
		casework.ToolPromptNext, casework.ToolPromotionCheck, casework.ToolPublish, casework.ToolExportAuthorize, casework.ToolRedact,
		casework.ToolExportAssemble, casework.ToolExportFinalize} {
		if n == name {
			return true
		}
	}
	return false
}

// recorded reports whether run's record holds a refusal by rule.
func recorded(evs []*ledger.Event, run, rule string) bool {
	for _, ev := range evs {
		if ev.Run == run && ev.Type == tool.TypeRefused && strings.Contains(string(ev.Body), `"rule":"`+rule+`"`) {
			return true
		}
	}
	return false
}

// TestC01_AgentsActOnlyThroughGovernedRuns: across a whole matter, every
// tool event is in a tool_gateway run and every domain write in a db_write
// run under a tool_gateway run of an agent run: no agent wrote or called
// anything directly.
func TestC01_AgentsActOnlyThroughGovernedRuns(t *testing.T) {
	e := newEnv(t)
	e.openMatter("contractor-deposit", "c-1")
	e.run(casework.Map, "c-1", casework.MapInput{})
	traces, err := e.h.DB.Traces(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, tr := range traces {
		rs := e.runsOf(tr)
		root := rs[tr]
		if root.Kind != sanad.KindWorkflow {
			continue // ingestion, and the test's own runs
		}
		audit(t, e, tr)
		n++
	}
	if n < 3 {
		t.Errorf("audited %d casework traces, want open, interview, map at least", n)
	}
}

// TestC07_OrchestratorOnlyCoordinates: the orchestrator's root run starts
// the agent runs of its steps, writes nothing and calls no tool itself, and
// its summary step names each agent's outcome.
func TestC07_OrchestratorOnlyCoordinates(t *testing.T) {
	e := newEnv(t)
	e.openMatter("wage-retaliation", "c-1")
	res := e.run(casework.Map, "c-1", casework.MapInput{})
	rs := e.runsOf(res.Trace)
	root := rs[res.Run]
	if root.Agent != casework.AgentOrchestrator {
		t.Errorf("root run's agent %s, want the orchestrator", root.Agent)
	}
	agents := map[string]bool{}
	for _, r := range rs {
		if r.ParentID == res.Run && r.Kind == sanad.KindAgent {
			agents[r.Agent] = true
		}
		if r.Kind == sanad.KindToolGateway && rs[r.ParentID].Agent == casework.AgentOrchestrator {
			t.Errorf("the orchestrator called a tool (run %s)", r.ID)
		}
	}
	// The summary step calls nothing: the orchestrator acts in the root run
	// alone, and starts the mapping agent's run.
	if !agents[casework.AgentMapping] || agents[casework.AgentOrchestrator] {
		t.Errorf("child agent runs %v, want the mapping agent's only", agents)
	}
	for _, ev := range e.events(res.Trace) {
		if ev.Type == dbwrite.TypeWrite && rs[rs[rs[ev.Run].ParentID].ParentID].Agent == casework.AgentOrchestrator {
			t.Errorf("the orchestrator wrote %s", ev.Body)
		}
	}
	var s casework.Summary
	if err := json.Unmarshal(res.Outputs["summary"], &s); err != nil {
		t.Fatal(err)
	}
	if s.ContractVersion != "v1" || s.Request != casework.Map || len(s.Steps) != 1 || s.Steps[0].Outcome != "success" {
		t.Errorf("summary %+v", s)
	}
}
