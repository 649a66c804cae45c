package runs_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/runs"
)

func openHome(t *testing.T) *home.Home {
	t.Helper()
	h, err := home.Open(t.Context(), home.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatalf("home.Open: %v", err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

var (
	caseScope = sanad.Scope{Tenant: "firm", Case: "case-7"}
	policies  = map[string]sanad.PolicyVersion{
		"lanes": {Version: "2025.1", SHA256: strings.Repeat("1f", 32)},
		"roles": {Version: "4", SHA256: strings.Repeat("2e", 32)},
	}
	hashRE = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
)

func allow(reason string) runs.Decision { return runs.Decision{Allow: true, Reason: reason} }

func ref(t *testing.T, h *home.Home, content string) sanad.ArtifactRef {
	t.Helper()
	r, err := h.Artifacts.Put(t.Context(), caseScope, "", "text/plain", []byte(content))
	if err != nil {
		t.Fatalf("put artifact: %v", err)
	}
	return r
}

func start(t *testing.T, h *home.Home, s runs.Spec) *runs.Run {
	t.Helper()
	if s.Scope == (sanad.Scope{}) {
		s.Scope = caseScope
	}
	if s.Decision.Reason == "" {
		s.Decision = allow("allowed by test")
	}
	r, err := h.Runs.Start(t.Context(), s)
	if err != nil {
		t.Fatalf("Start(%s by %s): %v", s.Kind, s.Agent, err)
	}
	return r
}

// traceEvents returns the events of trace, checked by the ledger's own
// Verify first.
func traceEvents(t *testing.T, h *home.Home, trace string) []*ledger.Event {
	t.Helper()
	if _, err := h.Ledger.Verify(t.Context(), trace); err != nil {
		t.Fatalf("Verify(%s): %v", trace, err)
	}
	evs, err := h.Ledger.Events(t.Context(), trace)
	if err != nil {
		t.Fatalf("Events(%s): %v", trace, err)
	}
	return evs
}

// ofRun returns the events of one run, in order.
func ofRun(evs []*ledger.Event, run string) []*ledger.Event {
	var out []*ledger.Event
	for _, ev := range evs {
		if ev.Run == run {
			out = append(out, ev)
		}
	}
	return out
}

func body[T any](t *testing.T, ev *ledger.Event) T {
	t.Helper()
	var b T
	if err := json.Unmarshal(ev.Body, &b); err != nil {
		t.Fatalf("%s body: %v", ev.Type, err)
	}
	return b
}

func startedRun(t *testing.T, evs []*ledger.Event, run string) sanad.Run {
	t.Helper()
	mine := ofRun(evs, run)
	if len(mine) == 0 || mine[0].Type != runs.TypeStarted {
		t.Fatalf("run %s: first event is not %s", run, runs.TypeStarted)
	}
	return body[runs.StartedBody](t, mine[0]).Run
}

func wantCode(t *testing.T, what string, err error, code sanad.Code) {
	t.Helper()
	if got := sanad.ErrorCode(err); got != code {
		t.Fatalf("%s: got error %v (code %q), want code %s", what, err, got, code)
	}
}

// TestC03_RunPinsVersions: every run's run.started event pins contract
// version v1, the policy versions it runs under (its own, or its parent's),
// its case, and its input artifacts; its terminal event pins its outputs.
func TestC03_RunPinsVersions(t *testing.T) {
	h := openHome(t)
	ctx := t.Context()
	in := ref(t, h, "the intake form")
	root := start(t, h, runs.Spec{Kind: sanad.KindWorkflow, Agent: "orchestrator", Role: "orchestrator",
		PolicyVersions: policies, TaxonomyVersions: map[string]string{"coa": "v3"}, Inputs: []sanad.ArtifactRef{in}})
	inherits := start(t, h, runs.Spec{Kind: sanad.KindAgent, Parent: root, Agent: "intake"})
	own := map[string]sanad.PolicyVersion{"lanes": {Version: "2025.2", SHA256: strings.Repeat("3d", 32)}}
	pinsOwn := start(t, h, runs.Spec{Kind: sanad.KindAgent, Parent: root, Agent: "mapping", PolicyVersions: own})
	out := ref(t, h, "the intake summary")
	if err := inherits.Complete(ctx, []sanad.ArtifactRef{out}, nil); err != nil {
		t.Fatal(err)
	}
	if err := pinsOwn.Complete(ctx, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := root.Complete(ctx, nil, nil); err != nil {
		t.Fatal(err)
	}

	evs := traceEvents(t, h, root.Record.Trace)
	for _, c := range []struct {
		run      *runs.Run
		policies map[string]sanad.PolicyVersion
		inputs   []sanad.ArtifactRef
	}{
		{root, policies, []sanad.ArtifactRef{in}},
		{inherits, policies, nil},
		{pinsOwn, own, nil},
	} {
		id := c.run.Record.ID
		got := startedRun(t, evs, id)
		if got.ContractVersion != "v1" {
			t.Errorf("run %s: contract_version %q, want v1", id, got.ContractVersion)
		}
		if !reflect.DeepEqual(got.PolicyVersions, c.policies) {
			t.Errorf("run %s: policy_versions %v, want %v", id, got.PolicyVersions, c.policies)
		}
		if got.Scope != caseScope {
			t.Errorf("run %s: scope %v, want %v", id, got.Scope, caseScope)
		}
		if !reflect.DeepEqual(got.Inputs, c.inputs) {
			t.Errorf("run %s: inputs %v, want %v", id, got.Inputs, c.inputs)
		}
		mine := ofRun(evs, id)
		if !reflect.DeepEqual(mine[0].Refs, c.inputs) {
			t.Errorf("run %s: run.started refs %v, want the inputs %v", id, mine[0].Refs, c.inputs)
		}
		if d := body[runs.Decision](t, mine[1]); !reflect.DeepEqual(d.PolicyVersions, c.policies) {
			t.Errorf("run %s: authz.decision policy_versions %v, want %v", id, d.PolicyVersions, c.policies)
		}
		proj, err := h.DB.Run(ctx, id)
		if err != nil || proj.ContractVersion != "v1" || !reflect.DeepEqual(proj.PolicyVersions, c.policies) {
			t.Errorf("projected run %s: got (%+v, %v), want contract v1 and its policy versions", id, proj, err)
		}
	}
	if got := startedRun(t, evs, root.Record.ID).TaxonomyVersions; !reflect.DeepEqual(got, map[string]string{"coa": "v3"}) {
		t.Errorf("root taxonomy_versions %v, want coa v3", got)
	}
	end := ofRun(evs, inherits.Record.ID)
	last := end[len(end)-1]
	if b := body[runs.EndedBody](t, last); !reflect.DeepEqual(b.Outputs, []sanad.ArtifactRef{out}) || !reflect.DeepEqual(last.Refs, []sanad.ArtifactRef{out}) {
		t.Errorf("run.completed outputs %v refs %v, want %v", b.Outputs, last.Refs, out)
	}

	// The pin is enforced by the event schema: no other contract version can
	// be recorded.
	bad := root.Record
	bad.ID, bad.RootID, bad.Trace, bad.ParentID, bad.ContractVersion = "r-v2", "r-v2", "r-v2", "", "v2"
	_, err := h.Ledger.Append(ctx, ledger.Draft{Trace: "r-v2", Type: runs.TypeStarted, Run: "r-v2", Root: "r-v2", Scope: caseScope, Body: runs.StartedBody{Run: bad}})
	wantCode(t, "run.started with contract_version v2", err, sanad.CodeInvalidInput)
}

// TestC04_AuditEvents: a run's events are run.started, then its
// authz.decision (signed by the runtime, naming the principal and the
// action), then exactly one terminal event, signed by the acting agent when
// it completes. Child runs of every privileged kind record the same, in the
// root's trace.
func TestC04_AuditEvents(t *testing.T) {
	h := openHome(t)
	ctx := t.Context()
	root := start(t, h, runs.Spec{Kind: sanad.KindWorkflow, Agent: "orchestrator", Role: "orchestrator", PolicyVersions: policies})
	kinds := []sanad.RunKind{sanad.KindToolGateway, sanad.KindDBWrite, sanad.KindPromotion, sanad.KindExport, sanad.KindModelCall}
	children := map[string]sanad.RunKind{}
	for i, k := range kinds {
		d := runs.Decision{Allow: true, Reason: "lane allows " + string(k)}
		if i == 0 {
			d.Action, d.Resource, d.Rule = "tool:transcribe", "interview-1", "TOOL_INTERVIEW_CAPTURE"
		}
		c := start(t, h, runs.Spec{Kind: k, Parent: root, Agent: "agent-" + strings.ReplaceAll(string(k), "_", "-"), Role: "worker", Decision: d})
		children[c.Record.ID] = k
		var err error
		if i%2 == 0 {
			err = c.Complete(ctx, []sanad.ArtifactRef{ref(t, h, "output of "+string(k))}, map[string]any{"kind": k})
		} else {
			err = c.Fail(ctx, sanad.Errorf(sanad.CodeDependencyDown, "child", "%s failed", k))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := root.Complete(ctx, nil, nil); err != nil {
		t.Fatal(err)
	}

	evs := traceEvents(t, h, root.Record.Trace)
	runtime := h.Ledger.RuntimeIdentity()
	check := func(id, agent, role string, kind sanad.RunKind) {
		t.Helper()
		mine := ofRun(evs, id)
		if len(mine) != 3 {
			t.Fatalf("run %s (%s): %d events, want started, decision, terminal", id, kind, len(mine))
		}
		if mine[0].Type != runs.TypeStarted || mine[1].Type != runs.TypeAuthz {
			t.Fatalf("run %s: events %s, %s; want %s, %s", id, mine[0].Type, mine[1].Type, runs.TypeStarted, runs.TypeAuthz)
		}
		for _, ev := range mine[:2] {
			if ev.Actor.Agent != runtime {
				t.Errorf("run %s: %s signed by %q, want the runtime", id, ev.Type, ev.Actor.Agent)
			}
		}
		d := body[runs.Decision](t, mine[1])
		if !d.Allow || d.Principal != (runs.Principal{Agent: agent, Role: role}) || d.Reason == "" {
			t.Errorf("run %s: decision %+v, want allow for %s/%s with a reason", id, d, agent, role)
		}
		if kind != sanad.KindToolGateway && d.Action != "run:"+string(kind) {
			t.Errorf("run %s: decision action %q, want run:%s", id, d.Action, kind)
		}
		terminals := 0
		for _, ev := range mine {
			if _, ok := runs.StatusOf(ev.Type); ok && ev.Type != runs.TypeStarted {
				terminals++
			}
		}
		last := mine[2]
		if terminals != 1 {
			t.Errorf("run %s: %d terminal events, want exactly 1", id, terminals)
		}
		// An agent signs its own run's outputs; a privileged child run's
		// outcome is what the runtime did, so the runtime signs it.
		agentRun := kind == sanad.KindAgent || kind == sanad.KindWorkflow || kind == sanad.KindSession
		if last.Type == runs.TypeCompleted && agentRun && (last.Actor.Agent != agent || last.Actor.Role != role) {
			t.Errorf("run %s: run.completed signed by %s/%s, want the acting agent %s/%s", id, last.Actor.Agent, last.Actor.Role, agent, role)
		}
		if last.Type == runs.TypeCompleted && !agentRun && last.Actor.Agent != runtime {
			t.Errorf("run %s (%s): run.completed signed by %q, want the runtime", id, kind, last.Actor.Agent)
		}
		if last.Type == runs.TypeFailed && last.Actor.Agent != runtime {
			t.Errorf("run %s: run.failed signed by %q, want the runtime", id, last.Actor.Agent)
		}
	}
	check(root.Record.ID, "orchestrator", "orchestrator", sanad.KindWorkflow)
	for id, k := range children {
		check(id, "agent-"+strings.ReplaceAll(string(k), "_", "-"), "worker", k)
	}
	if last := evs[len(evs)-1]; last.Type != runs.TypeCompleted || last.Run != root.Record.ID {
		t.Errorf("the trace ends with %s of %s, want the root's %s", last.Type, last.Run, runs.TypeCompleted)
	}
	for id, k := range children {
		if k != sanad.KindToolGateway {
			continue
		}
		if d := body[runs.Decision](t, ofRun(evs, id)[1]); d.Action != "tool:transcribe" || d.Resource != "interview-1" || d.Rule != "TOOL_INTERVIEW_CAPTURE" {
			t.Errorf("tool gateway decision %+v, want the action, resource and rule given", d)
		}
	}
}

// TestC04_DeniedRun: a denied decision is recorded, then run.denied ends the
// run, and Start returns the ended run with POLICY_DENIED.
func TestC04_DeniedRun(t *testing.T) {
	h := openHome(t)
	ctx := t.Context()
	run, err := h.Runs.Start(ctx, runs.Spec{Kind: sanad.KindExport, Scope: caseScope, Agent: "exporter",
		Decision: runs.Decision{Reason: "no export lane is defined for this case", Rule: "EXPORT_LANE"}})
	wantCode(t, "Start(denied)", err, sanad.CodePolicyDenied)
	var se *sanad.Error
	if !errors.As(err, &se) || se.Retryable() || !strings.Contains(se.Message, "no export lane") {
		t.Fatalf("Start(denied): got %#v, want a non-retryable POLICY_DENIED carrying the reason", err)
	}
	if run == nil || !run.Ended() || run.Record.Status != sanad.StatusDenied {
		t.Fatalf("Start(denied): got run %+v, want the run, ended as denied", run)
	}
	evs := traceEvents(t, h, run.Record.Trace)
	var types []string
	for _, ev := range evs {
		types = append(types, ev.Type)
	}
	if want := []string{runs.TypeStarted, runs.TypeAuthz, runs.TypeDenied}; !reflect.DeepEqual(types, want) {
		t.Fatalf("events %v, want %v", types, want)
	}
	if d := body[runs.Decision](t, evs[1]); d.Allow || d.Rule != "EXPORT_LANE" || d.Action != "run:export" {
		t.Errorf("decision %+v, want a denial under rule EXPORT_LANE for run:export", d)
	}
	b := body[runs.EndedBody](t, evs[2])
	if b.Status != sanad.StatusDenied || b.Outcome != "deny" || b.Error == nil || b.Error.Code != sanad.CodePolicyDenied || b.Error.Retryable {
		t.Errorf("run.denied body %+v, want status denied, outcome deny, a non-retryable POLICY_DENIED", b)
	}
	proj, err := h.DB.Run(ctx, run.Record.ID)
	if err != nil || proj.Status != sanad.StatusDenied || proj.Error == nil || proj.Error.Code != sanad.CodePolicyDenied {
		t.Errorf("projected run: got (%+v, %v), want denied with POLICY_DENIED", proj, err)
	}
	if err := run.Complete(ctx, nil, nil); err == nil {
		t.Errorf("Complete of a denied run: got nil, want an error")
	}
	if got := traceEvents(t, h, run.Record.Trace); len(got) != 3 {
		t.Errorf("after the refused Complete: %d events, want 3", len(got))
	}
}

// TestC05_RequestHashNormalized: request_hash is the normalized hash of the
// request: two requests that differ only in run ids, correlation ids and
// timestamps, or in key order, hash the same; any other difference changes it.
func TestC05_RequestHashNormalized(t *testing.T) {
	h := openHome(t)
	type params struct {
		Query     string    `json:"query"`
		Limit     int       `json:"limit"`
		Timestamp time.Time `json:"timestamp"`
	}
	type request struct {
		RunID         string    `json:"run_id"`
		ParentRunID   string    `json:"parent_run_id"`
		CorrelationID string    `json:"correlation_id"`
		CreatedAt     time.Time `json:"created_at"`
		Params        params    `json:"params"`
	}
	t1 := time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
	a := request{RunID: "r-1", ParentRunID: "p-1", CorrelationID: "c-1", CreatedAt: t1, Params: params{Query: "liability", Limit: 5, Timestamp: t1}}
	b := request{RunID: "r-2", ParentRunID: "p-2", CorrelationID: "c-2", CreatedAt: t1.Add(time.Hour), Params: params{Query: "liability", Limit: 5, Timestamp: t1.Add(time.Minute)}}
	sameAsMap := map[string]any{"params": map[string]any{"limit": 5, "query": "liability"}, "run_id": "r-3"}
	other := a
	other.Params.Query = "negligence"
	hash := func(req any) string {
		t.Helper()
		r := start(t, h, runs.Spec{Kind: sanad.KindAgent, Agent: "intake", Request: req})
		got := startedRun(t, traceEvents(t, h, r.Record.Trace), r.Record.ID).RequestHash
		if got != r.Record.RequestHash || !hashRE.MatchString(got) {
			t.Fatalf("request_hash %q (record %q), want one sha256:<hex> in both", got, r.Record.RequestHash)
		}
		return got
	}
	ha, hb, hm, ho := hash(a), hash(b), hash(sameAsMap), hash(other)
	if ha != hb {
		t.Errorf("requests differing only in volatile fields: hashes %s and %s, want equal", ha, hb)
	}
	if ha != hm {
		t.Errorf("the same request as a struct and as a map: hashes %s and %s, want equal", ha, hm)
	}
	if ha == ho {
		t.Errorf("requests with different queries: both hash %s", ha)
	}
	if want, err := canon.RequestHash(a); err != nil || want.String() != ha {
		t.Errorf("request_hash %s, want canon.RequestHash %s (%v)", ha, want, err)
	}
	noReq := start(t, h, runs.Spec{Kind: sanad.KindAgent, Agent: "intake"})
	if noReq.Record.RequestHash != "" {
		t.Errorf("run without a request: request_hash %q, want none", noReq.Record.RequestHash)
	}
	_, err := h.Runs.Start(t.Context(), runs.Spec{Kind: sanad.KindAgent, Scope: caseScope, Agent: "intake", Request: map[string]any{"f": func() {}},
		Decision: allow("ok")})
	wantCode(t, "Start with a request that is not JSON", err, sanad.CodeInvalidInput)
}

// TestC05_ChildRunsShareTrace: child and grandchild runs record their parent
// and root run ids, inherit the correlation id, and append to the root's
// trace, one linear chain.
func TestC05_ChildRunsShareTrace(t *testing.T) {
	h := openHome(t)
	ctx := t.Context()
	root := start(t, h, runs.Spec{Kind: sanad.KindWorkflow, Agent: "orchestrator", CorrelationID: "ticket-42"})
	child := start(t, h, runs.Spec{Kind: sanad.KindAgent, Parent: root, Agent: "interview"})
	grand := start(t, h, runs.Spec{Kind: sanad.KindToolGateway, Parent: child, Agent: "gateway"})
	own := start(t, h, runs.Spec{Kind: sanad.KindDBWrite, Parent: child, Agent: "writer", CorrelationID: "ticket-43"})
	for _, r := range []*runs.Run{grand, own, child, root} {
		if err := r.Complete(ctx, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	if root.Record.Trace != root.Record.ID || root.Record.RootID != root.Record.ID || root.Record.ParentID != "" {
		t.Errorf("root: trace %q root %q parent %q, want its own id, its own id, none", root.Record.Trace, root.Record.RootID, root.Record.ParentID)
	}
	for _, c := range []struct {
		run         *runs.Run
		parent      string
		correlation string
	}{
		{child, root.Record.ID, "ticket-42"},
		{grand, child.Record.ID, "ticket-42"},
		{own, child.Record.ID, "ticket-43"},
	} {
		r := c.run.Record
		if r.Trace != root.Record.Trace || r.RootID != root.Record.ID || r.ParentID != c.parent || r.CorrelationID != c.correlation {
			t.Errorf("run %s: trace %q root %q parent %q correlation %q; want %q %q %q %q",
				r.ID, r.Trace, r.RootID, r.ParentID, r.CorrelationID, root.Record.Trace, root.Record.ID, c.parent, c.correlation)
		}
	}
	evs := traceEvents(t, h, root.Record.Trace) // Verify checks the chain is linear
	if len(evs) != 4*3 {
		t.Fatalf("trace has %d events, want 12", len(evs))
	}
	for _, ev := range evs {
		if ev.Root != root.Record.ID || ev.Trace != root.Record.Trace {
			t.Errorf("event %d (%s of %s): root %q trace %q, want %q", ev.Seq, ev.Type, ev.Run, ev.Root, ev.Trace, root.Record.ID)
		}
	}
	traces, err := ledger.WorkTraces(ctx, h.DB)
	if err != nil || len(traces) != 1 {
		t.Errorf("Traces: got (%v, %v), want the one root trace", traces, err)
	}
	got, err := h.DB.Runs(ctx, root.Record.Trace)
	if err != nil || len(got) != 4 {
		t.Errorf("Runs(trace): got (%d, %v), want 4", len(got), err)
	}
}

// TestC06_ResponseOutcome: the terminal event carries the outcome (success,
// deny or failure), the outputs, the normalized response hash, and a bounded
// error with its retryable flag.
func TestC06_ResponseOutcome(t *testing.T) {
	h := openHome(t)
	ctx := t.Context()
	root := start(t, h, runs.Spec{Kind: sanad.KindWorkflow, Agent: "orchestrator"})
	terminal := func(r *runs.Run) runs.EndedBody {
		t.Helper()
		mine := ofRun(traceEvents(t, h, root.Record.Trace), r.Record.ID)
		return body[runs.EndedBody](t, mine[len(mine)-1])
	}

	out := ref(t, h, "the memo")
	t1 := time.Date(2025, 5, 1, 0, 0, 0, 0, time.UTC)
	ok1 := start(t, h, runs.Spec{Kind: sanad.KindAgent, Parent: root, Agent: "tailor"})
	if err := ok1.Complete(ctx, []sanad.ArtifactRef{out}, map[string]any{"answer": "yes", "created_at": t1, "run_id": ok1.Record.ID}); err != nil {
		t.Fatal(err)
	}
	ok2 := start(t, h, runs.Spec{Kind: sanad.KindAgent, Parent: root, Agent: "tailor"})
	if err := ok2.Complete(ctx, nil, map[string]any{"answer": "yes", "created_at": t1.Add(time.Hour), "run_id": ok2.Record.ID}); err != nil {
		t.Fatal(err)
	}
	b1, b2 := terminal(ok1), terminal(ok2)
	if b1.Status != sanad.StatusCompleted || b1.Outcome != "success" || !reflect.DeepEqual(b1.Outputs, []sanad.ArtifactRef{out}) || b1.Error != nil {
		t.Errorf("completed: body %+v, want completed, success, the output, no error", b1)
	}
	if !hashRE.MatchString(b1.ResponseHash) || b1.ResponseHash != b2.ResponseHash || ok1.Record.ResponseHash != b1.ResponseHash {
		t.Errorf("response hashes %q and %q (record %q): want one sha256:<hex>, equal for responses differing only in volatile fields",
			b1.ResponseHash, b2.ResponseHash, ok1.Record.ResponseHash)
	}
	if want, _ := canon.RequestHash(map[string]any{"answer": "yes"}); b1.ResponseHash != want.String() {
		t.Errorf("response hash %s, want the normalized hash %s", b1.ResponseHash, want)
	}

	long := strings.Repeat("é", 2000) // 4000 bytes
	for _, c := range []struct {
		cause     error
		code      sanad.Code
		retryable bool
	}{
		{sanad.Errorf(sanad.CodeDependencyDown, "db", "%s", long), sanad.CodeDependencyDown, true},
		{sanad.Errorf(sanad.CodeInvalidInput, "intake", "missing client name"), sanad.CodeInvalidInput, false},
		{errors.New("unclassified: " + long), sanad.CodeInternal, false},
	} {
		r := start(t, h, runs.Spec{Kind: sanad.KindDBWrite, Parent: root, Agent: "writer"})
		if err := r.Fail(ctx, c.cause); err != nil {
			t.Fatal(err)
		}
		b := terminal(r)
		if b.Status != sanad.StatusFailed || b.Outcome != "failure" || b.Error == nil || b.ResponseHash != "" || len(b.Outputs) != 0 {
			t.Fatalf("failed: body %+v, want failed, failure, an error, no response", b)
		}
		if b.Error.Code != c.code || b.Error.Retryable != c.retryable || len(b.Error.Message) > sanad.MaxMessageBytes || b.Error.Message == "" {
			t.Errorf("failed with %.40q: error {%s, %d bytes, retryable %t}, want {%s, 1..%d bytes, retryable %t}",
				c.cause.Error(), b.Error.Code, len(b.Error.Message), b.Error.Retryable, c.code, sanad.MaxMessageBytes, c.retryable)
		}
		if !reflect.DeepEqual(r.Record.Error, b.Error) {
			t.Errorf("record error %+v, want the recorded %+v", r.Record.Error, b.Error)
		}
	}

	c := start(t, h, runs.Spec{Kind: sanad.KindModelCall, Parent: root, Agent: "model"})
	if err := c.Cancel(ctx, "the user stopped it"); err != nil {
		t.Fatal(err)
	}
	if b := terminal(c); b.Status != sanad.StatusCancelled || b.Outcome != "failure" || b.Error == nil || b.Error.Code != sanad.CodeCancelled {
		t.Errorf("cancelled: body %+v, want cancelled, failure, CANCELLED", b)
	}
	d, _ := h.Runs.Start(ctx, runs.Spec{Kind: sanad.KindExport, Parent: root, Scope: caseScope, Agent: "exporter", Decision: runs.Decision{Reason: "no lane"}})
	if b := terminal(d); b.Outcome != "deny" {
		t.Errorf("denied: outcome %q, want deny", b.Outcome)
	}
	if err := root.Complete(ctx, nil, nil); err != nil {
		t.Fatal(err)
	}
}

// TestLifecycleRefusals: what the run lifecycle forbids is refused with
// INVALID_INPUT and writes nothing: ending a run twice, starting a child
// under an ended parent, ending a parent while a child is open, and any
// event of a run before its authorization.
func TestLifecycleRefusals(t *testing.T) {
	h := openHome(t)
	ctx := t.Context()
	head := func(t *testing.T, trace string) uint64 {
		t.Helper()
		seq, _, err := h.DB.TraceHead(ctx, trace)
		if err != nil {
			t.Fatal(err)
		}
		return seq
	}
	refused := func(t *testing.T, what, trace string, do func() error) {
		t.Helper()
		before := head(t, trace)
		if err := do(); sanad.ErrorCode(err) != sanad.CodeInvalidInput {
			t.Errorf("%s: got error %v (code %q), want code %s", what, err, sanad.ErrorCode(err), sanad.CodeInvalidInput)
		}
		if after := head(t, trace); after != before {
			t.Errorf("%s: trace grew from %d to %d events", what, before, after)
		}
		traceEvents(t, h, trace) // still verifies
	}

	t.Run("complete twice through the ledger", func(t *testing.T) {
		r := start(t, h, runs.Spec{Kind: sanad.KindAgent, Agent: "intake"})
		if err := r.Complete(ctx, nil, nil); err != nil {
			t.Fatal(err)
		}
		rec := r.Record
		refused(t, "second run.completed", rec.Trace, func() error {
			_, err := h.Ledger.Append(ctx, ledger.Draft{Trace: rec.Trace, Type: runs.TypeCompleted, Run: rec.ID, Root: rec.RootID, Agent: rec.Agent,
				Scope: rec.Scope, Body: runs.EndedBody{Status: sanad.StatusCompleted, Outcome: "success"}})
			return err
		})
		refused(t, "run.failed after run.completed", rec.Trace, func() error {
			_, err := h.Ledger.Append(ctx, ledger.Draft{Trace: rec.Trace, Type: runs.TypeFailed, Run: rec.ID, Root: rec.RootID,
				Scope: rec.Scope, Body: runs.EndedBody{Status: sanad.StatusFailed, Outcome: "failure"}})
			return err
		})
	})

	t.Run("complete twice through the run", func(t *testing.T) {
		r := start(t, h, runs.Spec{Kind: sanad.KindAgent, Agent: "intake"})
		if err := r.Complete(ctx, nil, nil); err != nil {
			t.Fatal(err)
		}
		refused(t, "second Complete", r.Record.Trace, func() error { return r.Complete(ctx, nil, nil) })
		refused(t, "Fail after Complete", r.Record.Trace, func() error { return r.Fail(ctx, errors.New("late")) })
		refused(t, "Append after Complete", r.Record.Trace, func() error {
			_, err := r.Append(ctx, runs.TypeAuthz, "", allow("late"), nil)
			return err
		})
	})

	t.Run("child after parent ended", func(t *testing.T) {
		parent := start(t, h, runs.Spec{Kind: sanad.KindWorkflow, Agent: "orchestrator"})
		if err := parent.Complete(ctx, nil, nil); err != nil {
			t.Fatal(err)
		}
		refused(t, "Start under an ended parent", parent.Record.Trace, func() error {
			_, err := h.Runs.Start(ctx, runs.Spec{Kind: sanad.KindAgent, Parent: parent, Scope: caseScope, Agent: "late", Decision: allow("ok")})
			return err
		})
	})

	t.Run("parent completing with an open child", func(t *testing.T) {
		parent := start(t, h, runs.Spec{Kind: sanad.KindWorkflow, Agent: "orchestrator"})
		child := start(t, h, runs.Spec{Kind: sanad.KindAgent, Parent: parent, Agent: "intake"})
		refused(t, "Complete of a parent with an open child", parent.Record.Trace, func() error { return parent.Complete(ctx, nil, nil) })
		if parent.Ended() || parent.Record.Status != sanad.StatusRunning {
			t.Fatalf("after the refused Complete: parent ended %t status %s, want still running", parent.Ended(), parent.Record.Status)
		}
		if err := child.Complete(ctx, nil, nil); err != nil {
			t.Fatal(err)
		}
		if err := parent.Complete(ctx, nil, nil); err != nil {
			t.Fatalf("Complete of the parent once its child ended: %v", err)
		}
	})

	t.Run("events before authorization", func(t *testing.T) {
		rec := sanad.Run{ID: "r-manual", RootID: "r-manual", Trace: "r-manual", Kind: sanad.KindAgent, Scope: caseScope,
			Agent: "intake", ContractVersion: sanad.ContractVersion, Status: sanad.StatusRunning, StartedAt: time.Now().UTC()}
		if _, err := h.Ledger.Append(ctx, ledger.Draft{Trace: rec.Trace, Type: runs.TypeStarted, Run: rec.ID, Root: rec.RootID,
			Scope: caseScope, Body: runs.StartedBody{Run: rec}}); err != nil {
			t.Fatal(err)
		}
		refused(t, "run.completed before authz.decision", rec.Trace, func() error {
			_, err := h.Ledger.Append(ctx, ledger.Draft{Trace: rec.Trace, Type: runs.TypeCompleted, Run: rec.ID, Root: rec.RootID,
				Scope: caseScope, Body: runs.EndedBody{Status: sanad.StatusCompleted, Outcome: "success"}})
			return err
		})
		refused(t, "a second run.started", rec.Trace, func() error {
			_, err := h.Ledger.Append(ctx, ledger.Draft{Trace: rec.Trace, Type: runs.TypeStarted, Run: rec.ID, Root: rec.RootID,
				Scope: caseScope, Body: runs.StartedBody{Run: rec}})
			return err
		})
	})
}

// TestStartRefusesBadSpecs: a spec without a valid kind, an agent or a scope
// is refused with INVALID_INPUT before anything is written.
func TestStartRefusesBadSpecs(t *testing.T) {
	h := openHome(t)
	for name, s := range map[string]runs.Spec{
		"no kind":    {Scope: caseScope, Agent: "a", Decision: allow("ok")},
		"bad kind":   {Kind: "teleport", Scope: caseScope, Agent: "a", Decision: allow("ok")},
		"no agent":   {Kind: sanad.KindAgent, Scope: caseScope, Decision: allow("ok")},
		"no tenant":  {Kind: sanad.KindAgent, Agent: "a", Decision: allow("ok")},
		"bad inputs": {Kind: sanad.KindAgent, Scope: caseScope, Agent: "a", Inputs: []sanad.ArtifactRef{{ID: "x"}}, Decision: allow("ok")},
	} {
		_, err := h.Runs.Start(t.Context(), s)
		wantCode(t, "Start("+name+")", err, sanad.CodeInvalidInput)
	}
	if traces, err := ledger.WorkTraces(t.Context(), h.DB); err != nil || len(traces) != 0 {
		t.Fatalf("after refused starts: traces (%v, %v), want none", traces, err)
	}
}

func TestNewID(t *testing.T) {
	seen := map[string]bool{}
	prev := ""
	for range 1000 {
		id := runs.NewID()
		if !regexp.MustCompile(`^r[0-9a-f]{26}$`).MatchString(id) || !ledger.ValidID(id) {
			t.Fatalf("NewID() = %q, want r and 26 hex digits, a valid id", id)
		}
		if seen[id] {
			t.Fatalf("NewID() repeated %q", id)
		}
		if id[:11] < prev {
			t.Fatalf("NewID() = %q after %q: the time prefix went back", id, prev)
		}
		seen[id], prev = true, id[:11]
	}
}
