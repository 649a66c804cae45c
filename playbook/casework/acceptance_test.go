package casework_test

import (
	"encoding/json"
	"github.com/sanadhq/sanad/runner"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/dbwrite"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/playbook/casework"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/runs"
	"github.com/sanadhq/sanad/tool"
)

// The five minimal acceptance tests of seed 001 §7. Each checks the lane
// both ways (the allowed agent succeeds; every other caller is refused with
// POLICY_DENIED, and the refusal is audited) and the audit records of §6:
// an authz decision at the start of every run, one terminal event, and a
// tool_gateway or db_write child run per call.

// audit checks §6 over a trace: every run starts with run.started then
// authz.decision and ends with one terminal event; every tool call is a
// tool_gateway run with its tool events; every write a db_write run whose
// parent is a tool_gateway run of an agent run. It returns the runs.
func audit(t *testing.T, e *env, trace string) map[string]sanad.Run {
	t.Helper()
	evs := e.events(trace)
	rs := e.runsOf(trace)
	byRun := map[string][]*ledger.Event{}
	for _, ev := range evs {
		byRun[ev.Run] = append(byRun[ev.Run], ev)
	}
	terminal := []string{runs.TypeCompleted, runs.TypeFailed, runs.TypeDenied, runs.TypeCancelled}
	for id, r := range rs {
		mine := byRun[id]
		if len(mine) < 2 || mine[0].Type != runs.TypeStarted || mine[1].Type != runs.TypeAuthz {
			t.Errorf("run %s (%s): does not start with run.started, authz.decision", id, r.Kind)
			continue
		}
		n := 0
		for _, ev := range mine {
			if slices.Contains(terminal, ev.Type) {
				n++
			}
		}
		if want := map[bool]int{true: 1, false: 0}[r.Status != sanad.StatusRunning]; n != want {
			t.Errorf("run %s (%s, %s): %d terminal events, want %d", id, r.Kind, r.Status, n, want)
		}
		switch r.Kind {
		case sanad.KindToolGateway:
			if p := rs[r.ParentID]; p.Kind != sanad.KindAgent && p.Kind != sanad.KindWorkflow {
				t.Errorf("tool_gateway run %s: parent %s is a %s run", id, r.ParentID, p.Kind)
			}
		case sanad.KindDBWrite:
			p := rs[r.ParentID]
			if p.Kind != sanad.KindToolGateway || rs[p.ParentID].Kind != sanad.KindAgent {
				t.Errorf("db_write run %s: parent %s is a %s run of a %s run, want a tool_gateway run of an agent run", id, p.ID, p.Kind, rs[p.ParentID].Kind)
			}
		}
	}
	for _, ev := range evs {
		switch ev.Type {
		case tool.TypeStarted, tool.TypeCompleted:
			if rs[ev.Run].Kind != sanad.KindToolGateway {
				t.Errorf("%s in a %s run", ev.Type, rs[ev.Run].Kind)
			}
		case dbwrite.TypeWrite:
			if rs[ev.Run].Kind != sanad.KindDBWrite {
				t.Errorf("%s in a %s run", ev.Type, rs[ev.Run].Kind)
			}
		}
	}
	return rs
}

// writes returns the db.write bodies of a trace, with the role of the run.
func writes(t *testing.T, e *env, trace string) []dbwrite.Body {
	t.Helper()
	var out []dbwrite.Body
	for _, ev := range e.events(trace) {
		if ev.Type == dbwrite.TypeWrite {
			var b dbwrite.Body
			if err := json.Unmarshal(ev.Body, &b); err != nil {
				t.Fatal(err)
			}
			out = append(out, b)
		}
	}
	return out
}

// refusedByLane calls tool as each role in caseID and checks it is refused
// with POLICY_DENIED and the refusal recorded in the caller's run.
func refusedByLane(t *testing.T, e *env, caseID, name string, input any, roles []string) {
	t.Helper()
	g := e.gateway()
	for _, role := range roles {
		parent := e.agentRun(role, caseID)
		res := g.Call(t.Context(), parent, policy.Principal{Agent: agentID(role), Role: role, Scope: scopeOf(caseID)},
			tool.Request{Tool: name, CallID: "refused-1", Input: mustJSON(t, input)})
		if res.Code != sanad.CodePolicyDenied {
			t.Errorf("%s as %s: got %q %q, want POLICY_DENIED", name, role, res.Code, res.Message)
			continue
		}
		var refused bool
		for _, ev := range e.events(parent.Record.Trace) {
			refused = refused || (ev.Type == tool.TypeRefused && ev.Run == parent.Record.ID)
		}
		if !refused {
			t.Errorf("%s as %s: the refusal is not in the record", name, role)
		}
	}
}

// deniedWrite writes to table through lane as each role and checks the
// write is refused with POLICY_DENIED and recorded as a denied db_write run.
func deniedWrite(t *testing.T, e *env, caseID, lane, table string, fields map[string]string, roles []string) {
	t.Helper()
	w := &dbwrite.Writer{Policy: e.pol, Runs: e.h.Runs, Artifacts: e.h.Artifacts}
	for _, role := range roles {
		parent := e.agentRun(role, caseID)
		_, err := w.Write(t.Context(), parent, policy.Principal{Agent: agentID(role), Role: role, Scope: scopeOf(caseID)},
			dbwrite.Request{Lane: lane, Table: table, Op: dbwrite.Append, Record: json.RawMessage(`{"x":1}`), Fields: fields})
		if sanad.ErrorCode(err) != sanad.CodePolicyDenied {
			t.Errorf("append:%s through %s as %s: got %v, want POLICY_DENIED", table, lane, role, err)
			continue
		}
		var denied bool
		for _, r := range e.runsOf(parent.Record.Trace) {
			denied = denied || (r.Kind == sanad.KindDBWrite && r.ParentID == parent.Record.ID && r.Status == sanad.StatusDenied)
		}
		if !denied {
			t.Errorf("append:%s as %s: no denied db_write run recorded", table, role)
		}
	}
}

// TestC14_InterviewCapturesTranscriptionThroughGateway is §7.1: the
// interview agent's transcription is a tool_gateway run under
// TOOL_INTERVIEW_CAPTURE, allowed and audited; every other caller is refused.
func TestC14_InterviewCapturesTranscriptionThroughGateway(t *testing.T) {
	e := newEnv(t)
	e.run(casework.Open, "c-1", casework.OpenInput{Form: read(t, "tenant-retaliation", "intake.json"), ClientSessionID: "intake-1"})
	res := e.interview("c-1", casesDir+"/tenant-retaliation/interview.vtt")
	rs := audit(t, e, res.Trace)
	var calls int
	for _, ev := range e.events(res.Trace) {
		if ev.Type == runs.TypeAuthz && rs[ev.Run].Kind == sanad.KindToolGateway {
			var d runs.Decision
			if err := json.Unmarshal(ev.Body, &d); err != nil {
				t.Fatal(err)
			}
			if d.Action == "tool:"+casework.ToolTranscribe {
				calls++
				if !d.Allow || d.Principal.Role != casework.RoleInterview {
					t.Errorf("transcription decision %+v, want allowed for the interview agent", d)
				}
			}
		}
	}
	if calls != 1 {
		t.Errorf("transcription.run calls: got %d, want 1", calls)
	}
	var out casework.InterviewOutcome
	if err := json.Unmarshal(res.Outputs["interview"], &out); err != nil || out.Turns == 0 || out.Notes == 0 {
		t.Fatalf("interview output %+v, %v", out, err)
	}
	ref, err := e.h.Artifacts.Put(t.Context(), scopeOf("c-1"), "", "text/vtt", read(t, "tenant-retaliation", "interview.vtt"))
	if err != nil {
		t.Fatal(err)
	}
	refusedByLane(t, e, "c-1", casework.ToolTranscribe, map[string]any{"client_session_id": "s-1", "artifact": "sha256:" + ref.SHA256, "name": "interview.vtt"},
		others(casework.RoleInterview))
}

// TestC14_InterviewPersistsTranscriptsThroughDBWrite is §7.2: transcripts,
// notes and entities are db_write runs under WRITE_INTAKE_ARTIFACTS with
// the client session in scope; a caller outside the lane is refused.
func TestC14_InterviewPersistsTranscriptsThroughDBWrite(t *testing.T) {
	e := newEnv(t)
	e.run(casework.Open, "c-1", casework.OpenInput{Form: read(t, "tenant-retaliation", "intake.json"), ClientSessionID: "intake-1"})
	res := e.interview("c-1", casesDir+"/tenant-retaliation/interview.vtt")
	audit(t, e, res.Trace)
	got := map[string]bool{}
	for _, w := range writes(t, e, res.Trace) {
		if w.Lane != casework.LaneIntake {
			t.Errorf("write to %s through %s, want %s", w.Table, w.Lane, casework.LaneIntake)
		}
		got[string(w.Op)+":"+w.Table] = true
	}
	for _, want := range []string{"append:transcripts", "append:interview_notes", "upsert:entities"} {
		if !got[want] {
			t.Errorf("no %s write; got %v", want, got)
		}
	}
	rows, err := e.h.DB.Records(t.Context(), scopeOf("c-1"), "transcripts")
	if err != nil || len(rows) != 1 {
		t.Fatalf("transcripts rows: %v, %v", rows, err)
	}
	deniedWrite(t, e, "c-1", casework.LaneIntake, "transcripts", map[string]string{"client_session_id": "s-1"},
		others(casework.RoleInterview, casework.RoleIntake))
	// Without the client session the lane refuses the interview agent too.
	deniedWrite(t, e, "c-1", casework.LaneIntake, "transcripts", nil, []string{casework.RoleInterview})
}

// TestC14_MappingWritesFactsEvidenceAndCOAMaps is §7.3: facts, evidence_map
// and coa_map through WRITE_MAPPING_OUTPUTS with coa_version pinned.
func TestC14_MappingWritesFactsEvidenceAndCOAMaps(t *testing.T) {
	e := newEnv(t)
	e.openMatter("tenant-retaliation", "c-1")
	res, err := e.r.Run(t.Context(), casework.Map, casework.MapInput{COAVersion: "1.1.0"},
		runner.Options{Scope: scopeOf("c-1"), Caller: "test", TaxonomyVersions: map[string]string{"coa": "1.1.0"}})
	if err != nil || res.Status != sanad.StatusCompleted {
		t.Fatalf("map: %s %+v, %v", res.Status, res.Errors, err)
	}
	// The mapping agent's run pins the contract, the policy versions and
	// the taxonomy's version (§1, §2.1).
	for _, r := range audit(t, e, res.Trace) {
		if r.Kind != sanad.KindAgent {
			continue
		}
		if r.ContractVersion != "v1" || r.PolicyVersions["lanes"].SHA256 == "" || r.TaxonomyVersions["coa"] != "1.1.0" || r.Scope.Case != "c-1" {
			t.Errorf("agent run %s pins contract %q, policies %v, taxonomies %v, case %q", r.Agent, r.ContractVersion, r.PolicyVersions, r.TaxonomyVersions, r.Scope.Case)
		}
	}
	var tables []string
	for _, w := range writes(t, e, res.Trace) {
		if w.Lane != casework.LaneMapping {
			t.Errorf("write to %s through %s", w.Table, w.Lane)
		}
		tables = append(tables, w.Table)
	}
	if want := []string{"facts", "evidence_map", "coa_map"}; !slices.Equal(tables, want) {
		t.Errorf("tables written %v, want %v", tables, want)
	}
	var out casework.MapOutcome
	if err := json.Unmarshal(res.Outputs["map"], &out); err != nil {
		t.Fatal(err)
	}
	if out.COAVersion != "1.1.0" || out.Facts == 0 || !strings.Contains(out.Summary, "not legal advice") {
		t.Errorf("mapping: version %s, %d facts, summary %.80q", out.COAVersion, out.Facts, out.Summary)
	}
	// A version the runtime does not have is refused before anything is written.
	bad, err := e.r.Run(t.Context(), casework.Map, casework.MapInput{COAVersion: "9.9.9"}, runnerOpts("c-1"))
	if err != nil || bad.Status != sanad.StatusFailed {
		t.Errorf("map with coa_version 9.9.9: %s, %v; want failed", bad.Status, err)
	}
	deniedWrite(t, e, "c-1", casework.LaneMapping, "coa_map", map[string]string{"coa_version": "1.1.0"}, others(casework.RoleMapping))
	deniedWrite(t, e, "c-1", casework.LaneMapping, "coa_map", nil, []string{casework.RoleMapping})
}

// TestC14_GovernancePromotesSanitizedInsightOnly is §7.4: a candidate that
// quotes the case or names its client is refused with the check and where;
// a sanitized one is written to shared knowledge only once an attorney
// admin approves it; an attorney may not; the lane itself refuses a write
// tagged with case content.
func TestC14_GovernancePromotesSanitizedInsightOnly(t *testing.T) {
	e := newEnv(t)
	e.openMatter("tenant-retaliation", "c-1")
	var in casework.PromoteInput
	if err := json.Unmarshal(read(t, "tenant-retaliation", "ticket.json"), &in); err != nil {
		t.Fatal(err)
	}
	res := e.run(casework.Promote, "c-1", in)
	if len(res.Gates) != 1 {
		t.Fatalf("gates %v, want one (the sanitized candidate's)", res.Gates)
	}
	if _, err := e.r.ResolveGate(t.Context(), res.Gates[0], runs.Principal{Agent: "sam", Role: casework.RoleAttorney}, true, "", true); sanad.ErrorCode(err) != sanad.CodePolicyDenied {
		t.Errorf("an attorney approving a promotion: got %v, want POLICY_DENIED", err)
	}
	res = e.approve(res, casework.RoleAttorneyAdmin)
	audit(t, e, res.Trace)
	var out casework.PromoteOutcome
	if err := json.Unmarshal(res.Outputs["publish"], &out); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"h-repair-log": "promoted", "h-quote": "refused:raw_case_text", "h-client": "refused:client_identity"}
	for _, r := range out.Receipts {
		got := r.Decision
		for _, c := range r.Checks {
			if !c.Passed {
				got += ":" + c.Check
				if c.Detail == "" {
					t.Errorf("%s: check %s failed without saying where", r.CandidateID, c.Check)
				}
			}
		}
		if got != want[r.CandidateID] {
			t.Errorf("%s: got %s, want %s", r.CandidateID, got, want[r.CandidateID])
		}
	}
	shared, err := e.h.DB.Records(t.Context(), scopeOf("c-1"), "shared_heuristics")
	if err != nil || len(shared) != 1 {
		t.Fatalf("shared_heuristics rows: %d, %v; want 1", len(shared), err)
	}
	var promoted int
	for _, w := range writes(t, e, res.Trace) {
		if w.Lane == casework.LanePromote {
			promoted++
		}
	}
	if promoted != 1 {
		t.Errorf("promotion writes: %d, want 1", promoted)
	}
	ticket := map[string]string{"promotion_ticket_id": in.Ticket.ID}
	deniedWrite(t, e, "c-1", casework.LanePromote, "shared_heuristics", ticket, others(casework.RoleGovernance, casework.RoleAttorneyAdmin))
	// The lane refuses content tagged as case text, identity or privileged,
	// whoever writes it.
	w := &dbwrite.Writer{Policy: e.pol, Runs: e.h.Runs, Artifacts: e.h.Artifacts}
	for _, tag := range []string{policy.TagRawCaseText, policy.TagClientIdentity, policy.TagPrivilegedNotes} {
		parent := e.agentRun(casework.RoleGovernance, "c-1")
		_, err := w.Write(t.Context(), parent, policy.Principal{Agent: agentID(casework.RoleGovernance), Role: casework.RoleGovernance, Scope: scopeOf("c-1")},
			dbwrite.Request{Lane: casework.LanePromote, Table: "shared_heuristics", Op: dbwrite.Append, Record: json.RawMessage(`{"x":1}`), Fields: ticket, Tags: []string{tag}})
		if sanad.ErrorCode(err) != sanad.CodePolicyDenied {
			t.Errorf("a write tagged %s: got %v, want POLICY_DENIED", tag, err)
		}
	}
}

// TestC14_ExportProducesManifestHashesAndAuditEvents is §7.5: the export
// agent's run through the EXPORT lane gives a manifest whose every item's
// hash is the hash of the bytes in the bundle, a receipt, the
// authorize/assemble/finalize events of the bundle's export run, and a
// bundle that verifies offline; other callers are refused the lane.
func TestC14_ExportProducesManifestHashesAndAuditEvents(t *testing.T) {
	e := newEnv(t)
	e.openMatter("tenant-retaliation", "c-1")
	e.run(casework.Map, "c-1", casework.MapInput{})
	res := e.run(casework.Export, "c-1", casework.ExportInput{Request: exportRequest("c-1", "discovery")})
	audit(t, e, res.Trace)
	var out casework.ExportOutcome
	if err := json.Unmarshal(res.Outputs["export"], &out); err != nil {
		t.Fatal(err)
	}
	if out.ManifestSHA256 != out.Manifest.Hash() || out.Receipt.ManifestSHA256 != out.ManifestSHA256 || len(out.Manifest.Items) == 0 {
		t.Fatalf("manifest %s (hash %s), receipt %+v", out.ManifestSHA256, out.Manifest.Hash(), out.Receipt)
	}
	if len(out.Excluded) != 1 || !strings.Contains(out.Excluded[0].Excluded, "privileged") {
		t.Errorf("excluded %+v, want the privileged note", out.Excluded)
	}
	var rows int
	for _, w := range writes(t, e, res.Trace) {
		if w.Lane == casework.LaneExport && w.Table == "export_bundles" {
			rows++
		}
	}
	if rows != 1 {
		t.Errorf("export_bundles writes: %d, want 1", rows)
	}
	files := exportBundle(t, e, "c-1", res.Trace)
	contents := redactedContents(t, files)
	for _, it := range out.Manifest.Items {
		c, ok := contents[it.Path]
		if !ok {
			t.Errorf("item %s is not in the bundle", it.Path)
			continue
		}
		if sha(c) != it.SHA256 {
			t.Errorf("item %s: the bundle's bytes hash to %s, the manifest says %s", it.Path, sha(c), it.SHA256)
		}
	}
	refusedByLane(t, e, "c-1", casework.ToolExportAuthorize, map[string]any{"export_request_id": "x-1", "request": exportRequest("c-1", "discovery")},
		others(casework.RoleExport))
	deniedWrite(t, e, "c-1", casework.LaneExport, "export_bundles", map[string]string{"export_request_id": "x-1"}, others(casework.RoleExport))
}

// TestExampleMattersMeetTheirExpectations runs every matter of
// examples/cases end to end and checks it against its expected.json: the
// areas of law intake spots, the triage, the causes of action the mapping
// finds plausible (supported or partial) and those it must not, and each
// promotion candidate's outcome.
func TestExampleMattersMeetTheirExpectations(t *testing.T) {
	matters, err := os.ReadDir(casesDir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range matters {
		if !m.IsDir() {
			continue
		}
		n++
		t.Run(m.Name(), func(t *testing.T) {
			var want struct {
				Areas     []string          `json:"areas"`
				Triage    string            `json:"triage"`
				Causes    []string          `json:"causes"`
				NotCauses []string          `json:"not_causes"`
				Promotion map[string]string `json:"promotion"`
			}
			if err := json.Unmarshal(read(t, m.Name(), "expected.json"), &want); err != nil {
				t.Fatal(err)
			}
			e := newEnv(t)
			res := e.run(casework.Open, "c-1", casework.OpenInput{Form: read(t, m.Name(), "intake.json"), ClientSessionID: "intake-1", AsOf: "2025-11-10"})
			var in casework.IntakeOutcome
			if err := json.Unmarshal(res.Outputs["intake"], &in); err != nil {
				t.Fatal(err)
			}
			var primary []string
			for _, a := range in.Assessment.Summary.Areas {
				if a.Primary {
					primary = append(primary, a.ID)
				}
			}
			for _, a := range want.Areas {
				if !slices.Contains(primary, a) {
					t.Errorf("areas %v, want %s among the primary ones", primary, a)
				}
			}
			if got := string(in.Assessment.Triage.Recommendation); got != want.Triage {
				t.Errorf("triage %s, want %s", got, want.Triage)
			}
			e.approve(res, casework.RoleAttorney)
			files, _ := filepath.Glob(filepath.Join(casesDir, m.Name(), "interview.*"))
			e.interview("c-1", files[0])
			e.add("c-1", filepath.Join(casesDir, m.Name(), "documents"), false)
			mres := e.run(casework.Map, "c-1", casework.MapInput{})
			var mo casework.MapOutcome
			if err := json.Unmarshal(mres.Outputs["map"], &mo); err != nil {
				t.Fatal(err)
			}
			status := map[string]string{}
			for _, c := range mo.Causes {
				status[c.ID] = c.Status
			}
			for _, c := range want.Causes {
				if s := status[c]; s != "supported" && s != "partial" {
					t.Errorf("cause %s is %q, want supported or partial", c, s)
				}
			}
			for _, c := range want.NotCauses {
				if s := status[c]; s == "supported" || s == "partial" {
					t.Errorf("cause %s is %s, want neither supported nor partial", c, s)
				}
			}
			var ticket casework.PromoteInput
			if err := json.Unmarshal(read(t, m.Name(), "ticket.json"), &ticket); err != nil {
				t.Fatal(err)
			}
			pres := e.approve(e.run(casework.Promote, "c-1", ticket), casework.RoleAttorneyAdmin)
			var po casework.PromoteOutcome
			if err := json.Unmarshal(pres.Outputs["publish"], &po); err != nil {
				t.Fatal(err)
			}
			for _, r := range po.Receipts {
				got := r.Decision
				for _, c := range r.Checks {
					if !c.Passed {
						got += ":" + c.Check
					}
				}
				if got != want.Promotion[r.CandidateID] {
					t.Errorf("candidate %s: %s, want %s", r.CandidateID, got, want.Promotion[r.CandidateID])
				}
			}
		})
	}
	if n < 3 {
		t.Errorf("%d example matters, want at least 3", n)
	}
}
