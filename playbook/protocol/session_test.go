package protocol_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/playbook/protocol"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/runs"
	"github.com/sanadhq/sanad/tool"
)

// ofType returns the events of trace of type typ.
func ofType(evs []*ledger.Event, typ string) []*ledger.Event {
	var out []*ledger.Event
	for _, ev := range evs {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

// transitions returns the states a trace moved through, from initialized.
func transitions(evs []*ledger.Event) []protocol.State {
	out := []protocol.State{protocol.StateInitialized}
	for _, ev := range ofType(evs, protocol.TypeStateTransition) {
		out = append(out, protocol.State(ev.BodyString("to")))
	}
	return out
}

func wantState(tb testing.TB, res protocol.Result, state protocol.State, status string) {
	tb.Helper()
	if res.State != state {
		tb.Fatalf("state: got %s (%+v), want %s", res.State, res, state)
	}
	if status != "" && (res.Verification == nil || res.Verification.Status != status) {
		tb.Fatalf("verification: got %+v, want status %s", res.Verification, status)
	}
}

// report reads the report a session's verification stored.
func report(tb testing.TB, h *home.Home, res protocol.Result) protocol.Report {
	tb.Helper()
	data, _, err := h.Artifacts.Get(context.Background(), res.Verification.Report, scope)
	if err != nil {
		tb.Fatalf("report %s: %v", res.Verification.Report, err)
	}
	var r protocol.Report
	if err := json.Unmarshal(data, &r); err != nil {
		tb.Fatalf("report: %v", err)
	}
	return r
}

// TestP01_EachRoleSignsWithItsOwnKey: the planner, executor, critic and
// auditor each sign their events with a key of their own, and the runtime
// signs what it records.
func TestP01_EachRoleSignsWithItsOwnKey(t *testing.T) {
	h := openHome(t)
	res := start(t, newEngine(t, h), exampleTask(t, "vendor-check"))
	wantState(t, res, protocol.StateCompleted, protocol.VerificationPass)
	keys := map[string]map[string]bool{}
	for _, ev := range events(t, h, res.Trace) {
		if !strings.HasPrefix(ev.Type, "protocol.") {
			continue
		}
		role, isRole := protocol.RoleOf(ev.Type)
		who := string(role)
		if !isRole {
			who = "runtime"
		}
		if keys[who] == nil {
			keys[who] = map[string]bool{}
		}
		keys[who][ev.Actor.Key] = true
	}
	seen := map[string]string{}
	for who, ks := range keys {
		if len(ks) != 1 {
			t.Errorf("%s signed with %d keys, want 1", who, len(ks))
		}
		for k := range ks {
			if other, dup := seen[k]; dup {
				t.Errorf("%s and %s sign with the same key %s", who, other, k)
			}
			seen[k] = who
			identity := h.Ledger.RuntimeIdentity()
			if who != "runtime" {
				identity = protocol.DefaultRoster[protocol.Role(who)]
			}
			if key, err := h.Keys.Existing(identity); err != nil || key.ID != k {
				t.Errorf("%s signed with %s, want the key of identity %s (%v)", who, k, identity, err)
			}
		}
	}
	if len(keys) != 5 {
		t.Errorf("signers: got %v, want the four roles and the runtime", keys)
	}
}

// TestP03_AppendOnlyHashChain: a session's events are ordered within their
// trace, each linked to its predecessor's hash, and the trace verifies.
func TestP03_AppendOnlyHashChain(t *testing.T) {
	h := openHome(t)
	res := start(t, newEngine(t, h), exampleTask(t, "risky-transfer"))
	evs := events(t, h, res.Trace)
	for i, ev := range evs {
		if ev.Seq != uint64(i+1) {
			t.Fatalf("event %d has seq %d", i, ev.Seq)
		}
		if i > 0 && ev.Prev != evs[i-1].Hash {
			t.Fatalf("seq %d links to %s, want %s", ev.Seq, ev.Prev, evs[i-1].Hash)
		}
	}
	verify(t, h, res.Trace)
	verify(t, h, "")
}

// TestP05_MandatorySignedTypes: the six mandatory types are signed by the
// acting agent, never by the runtime, and a session records each.
func TestP05_MandatorySignedTypes(t *testing.T) {
	mandatory := []string{protocol.TypeProposalCreated, protocol.TypeToolIntentSigned, protocol.TypeClaimIssued,
		protocol.TypeClaimChallenged, protocol.TypeFinalStatementSigned, protocol.TypeVerificationRunCompleted}
	h := openHome(t)
	for _, typ := range mandatory {
		def, ok := h.Types.Lookup(typ)
		if !ok || def.Signer != ledger.SignedByAgent {
			t.Errorf("%s: declared %v, signer %v; want it declared, signed by the agent", typ, ok, def.Signer)
		}
	}
	res := start(t, newEngine(t, h), parseTask(t, crashTask))
	evs := events(t, h, res.Trace)
	for _, typ := range mandatory {
		got := ofType(evs, typ)
		if len(got) == 0 {
			t.Errorf("the session recorded no %s", typ)
		}
		role, _ := protocol.RoleOf(typ)
		for _, ev := range got {
			if ev.Actor.Agent != protocol.DefaultRoster[role] || ev.Actor.Role != string(role) {
				t.Errorf("%s seq %d signed by %+v, want the %s", typ, ev.Seq, ev.Actor, role)
			}
		}
	}
}

// TestP06_ProposalWorkflow: proposals carry objective, assumptions, tools
// and expected evidence; the critic approves, approves on conditions, or
// rejects; a rejected proposal never executes, and its revision does.
func TestP06_ProposalWorkflow(t *testing.T) {
	h := openHome(t)
	res := start(t, newEngine(t, h), parseTask(t, `
name: proposals
fixtures: {k: {v: 1}}
objectives:
  - {id: plain, objective: Read k, assumptions: [k exists], tool: lookup, input: {key: k}, claim: {text: k is 1, confidence: 0.9, field: record.v, equals: 1}}
  - {id: careful, objective: Read k with care, risk: medium, tool: lookup, input: {key: k}, claim: {text: k holds, confidence: 0.9}}
  - id: revised
    objective: Sum with a critical plan first
    risk: critical
    tool: compute
    input: {op: sum, values: [1, 2]}
    claim: {text: the sum is 3, confidence: 0.9}
    fallback: {tool: compute, input: {op: sum, values: [1, 2]}, claim: {text: the sum is 3, confidence: 0.9, field: result, equals: 3}}
  - {id: refused, objective: Never run, risk: critical, tool: compute, input: {op: sum, values: [1]}, claim: {text: never, confidence: 0.9}}
`))
	wantState(t, res, protocol.StateCompleted, protocol.VerificationPassWithWarnings)
	evs := events(t, h, res.Trace)
	status := map[string]string{}
	for _, ev := range ofType(evs, protocol.TypeProposalReviewed) {
		status[ev.BodyString("proposal_id")] = ev.BodyString("status")
	}
	want := map[string]string{"P1": protocol.ReviewApproved, "P2": protocol.ReviewConditional, "P3": protocol.ReviewRejected,
		"P4": protocol.ReviewRejected, "P5": protocol.ReviewApproved}
	if fmt.Sprint(status) != fmt.Sprint(want) {
		t.Errorf("reviews: got %v, want %v", status, want)
	}
	for _, ev := range ofType(evs, protocol.TypeProposalCreated) {
		var b protocol.ProposalBody
		if err := json.Unmarshal(ev.Body, &b); err != nil {
			t.Fatal(err)
		}
		if b.Objective == "" || b.Assumptions == nil || len(b.RequiredTools) != 1 || len(b.ExpectedEvidence) == 0 || b.MinEvidence < 1 {
			t.Errorf("proposal %s lacks a part: %+v", b.ProposalID, b)
		}
		if b.ProposalID == "P5" && (b.Revises != "P3" || b.Cause != "rejected") {
			t.Errorf("P5: revises %q (%q), want P3 (rejected)", b.Revises, b.Cause)
		}
	}
	for _, ev := range ofType(evs, protocol.TypeToolIntentSigned) {
		if p := ev.BodyString("proposal_id"); p == "P3" || p == "P4" {
			t.Errorf("rejected proposal %s has intent %s", p, ev.BodyString("intent_id"))
		}
	}
	r := newRig(t)
	r.to(protocol.StatePlanning)
	r.must(r.by(protocol.RolePlanner, protocol.TypeProposalCreated, proposal("P1", "low")))
	r.must(r.by(protocol.RolePlanner, protocol.TypeProposalCreated, proposal("P2", "low")))
	r.must(r.move(protocol.StateReviewing))
	r.must(r.by(protocol.RoleCritic, protocol.TypeProposalReviewed, review("P1", protocol.ReviewRejected)))
	r.must(r.by(protocol.RoleCritic, protocol.TypeProposalReviewed, review("P2", protocol.ReviewApproved)))
	r.must(r.move(protocol.StateExecuting))
	r.refuse(r.by(protocol.RoleExecutor, protocol.TypeToolIntentSigned, intentFor("I1", "P1", "low"), r.ref), "a rejected proposal never executes")
}

// TestP07_IntentHashRiskJustificationArtifacts: each intent cites its stored
// input, whose normalized hash it signs with a risk class and a
// justification; the gateway runs that very input; the input and output
// are stored and the result hash is the output's.
func TestP07_IntentHashRiskJustificationArtifacts(t *testing.T) {
	ctx := context.Background()
	h := openHome(t)
	res := start(t, newEngine(t, h), exampleTask(t, "vendor-check"))
	evs := events(t, h, res.Trace)
	gateway := map[string]string{}
	for _, ev := range ofType(evs, tool.TypeStarted) {
		gateway[ev.BodyString("call_id")] = ev.BodyString("input_hash")
	}
	intents := ofType(evs, protocol.TypeToolIntentSigned)
	if len(intents) != 2 {
		t.Fatalf("intents: got %d, want 2", len(intents))
	}
	for _, ev := range intents {
		var b protocol.IntentBody
		if err := json.Unmarshal(ev.Body, &b); err != nil {
			t.Fatal(err)
		}
		input, _, err := h.Artifacts.Get(ctx, ev.Refs[0].ID, scope)
		if err != nil {
			t.Fatalf("intent %s input: %v", b.IntentID, err)
		}
		hash, _ := canon.RequestHash(json.RawMessage(input))
		if b.InputHash != hash.String() || gateway[b.CallID] != b.InputHash {
			t.Errorf("intent %s: signed %s, input hashes to %s, gateway ran %s", b.IntentID, b.InputHash, hash, gateway[b.CallID])
		}
		if b.RiskClass != protocol.RiskLow || b.Justification == "" {
			t.Errorf("intent %s: risk %q, justification %q", b.IntentID, b.RiskClass, b.Justification)
		}
	}
	for _, ev := range ofType(evs, protocol.TypeToolExecutionCompleted) {
		var b protocol.ExecutionBody
		if err := json.Unmarshal(ev.Body, &b); err != nil {
			t.Fatal(err)
		}
		out, _, err := h.Artifacts.Get(ctx, b.Output, scope)
		if err != nil {
			t.Fatalf("execution of %s: output: %v", b.IntentID, err)
		}
		if _, _, err := h.Artifacts.Get(ctx, b.Input, scope); err != nil {
			t.Errorf("execution of %s: input: %v", b.IntentID, err)
		}
		if canon.Sum(out).String() != b.ResultHash {
			t.Errorf("execution of %s: result hash %s, output hashes to %s", b.IntentID, b.ResultHash, canon.Sum(out))
		}
	}
}

// TestP07_CriticApprovesRiskyIntent: with max_risk high, the critic approves
// the payment's intent, and the gateway executes it only on that approval:
// its own tool.intent and tool.approved name the critic.
func TestP07_CriticApprovesRiskyIntent(t *testing.T) {
	h := openHome(t)
	th := protocol.DefaultThresholds
	th.MaxRisk = protocol.RiskHigh
	e := newEngine(t, h, func(c *protocol.Config) { c.Thresholds = th })
	res := start(t, e, parseTask(t, `
name: pay
objectives:
  - {id: pay, objective: Pay, tool: send_external, input: {to: someone, amount: 5}, claim: {text: paid, confidence: 0.9, field: delivered, equals: true}}
`))
	wantState(t, res, protocol.StateCompleted, protocol.VerificationPass)
	evs := events(t, h, res.Trace)
	reviews := ofType(evs, protocol.TypeToolIntentReviewed)
	if len(reviews) != 1 || reviews[0].BodyString("decision") != protocol.IntentApproved {
		t.Fatalf("intent reviews: %d, want one approval", len(reviews))
	}
	approved := ofType(evs, tool.TypeApproved)
	if len(ofType(evs, tool.TypeIntent)) != 1 || len(approved) != 1 || approved[0].BodyString("critic") != protocol.DefaultRoster[protocol.RoleCritic] {
		t.Errorf("the gateway did not record the critic's approval")
	}
	if len(ofType(evs, tool.TypeCompleted)) != 1 {
		t.Errorf("the approved payment did not run")
	}
}

// TestP08_ClaimsChallengesRevisions: a claim the tool output contradicts is
// challenged and revised by a new claim; the first stays in the trace, and
// the final statement bundles the revision.
func TestP08_ClaimsChallengesRevisions(t *testing.T) {
	h := openHome(t)
	res := start(t, newEngine(t, h), parseTask(t, crashTask))
	wantState(t, res, protocol.StateCompleted, protocol.VerificationPassWithWarnings)
	evs := events(t, h, res.Trace)
	claims := ofType(evs, protocol.TypeClaimIssued)
	if len(claims) != 4 {
		t.Fatalf("claims: got %d, want 4", len(claims))
	}
	for _, c := range claims {
		if v, ok := c.BodyField("confidence"); !ok || v == nil || len(c.Refs) == 0 {
			t.Errorf("claim %s has no confidence or no evidence", c.BodyString("claim_id"))
		}
	}
	ch := ofType(evs, protocol.TypeClaimChallenged)
	if len(ch) != 1 || ch[0].BodyString("claim_id") != "C1" || ch[0].BodyString("kind") != protocol.ChallengeContradictory {
		t.Fatalf("challenges: got %d, want C1 contradictory", len(ch))
	}
	if claims[1].BodyString("revises") != "C1" || !strings.Contains(claims[1].BodyString("text"), `"suspended"`) {
		t.Errorf("C2: revises %q, text %q; want a revision of C1 stating the output", claims[1].BodyString("revises"), claims[1].BodyString("text"))
	}
	var st protocol.StatementBody
	if err := json.Unmarshal(ofType(evs, protocol.TypeFinalStatementSigned)[0].Body, &st); err != nil {
		t.Fatal(err)
	}
	var bundled []string
	for _, c := range st.Claims {
		bundled = append(bundled, c.ClaimID)
		for _, ev := range claims {
			if ev.BodyString("claim_id") == c.ClaimID && ev.Hash.String() != c.Event {
				t.Errorf("statement binds %s to %s, its event is %s", c.ClaimID, c.Event, ev.Hash)
			}
		}
	}
	if !slices.Equal(bundled, []string{"C2", "C3", "C4"}) {
		t.Errorf("final statement: got %v, want [C2 C3 C4]", bundled)
	}
}

// TestP08_WeakClaimsChallenged: a claim below min_confidence, or citing
// fewer artifacts than its proposal requires, is challenged as weak and
// left out of the final statement.
func TestP08_WeakClaimsChallenged(t *testing.T) {
	h := openHome(t)
	res := start(t, newEngine(t, h), parseTask(t, `
name: weak
fixtures: {k: {v: 1}}
objectives:
  - {id: unsure, objective: Guess, tool: lookup, input: {key: k}, claim: {text: probably 1, confidence: 0.3}}
  - {id: thin, objective: Read, tool: lookup, input: {key: k}, evidence: {min: 3}, claim: {text: it is 1, confidence: 0.9}}
  - {id: solid, objective: Sum, tool: compute, input: {op: sum, values: [1]}, claim: {text: one, confidence: 0.9, field: result, equals: 1}}
`))
	wantState(t, res, protocol.StateCompleted, protocol.VerificationPassWithWarnings)
	r := report(t, h, res)
	var kinds []string
	for _, c := range r.Claims {
		kinds = append(kinds, fmt.Sprintf("%s:%s:%v", c.ID, c.Challenge, c.Bundled))
	}
	if want := []string{"C1:weak:false", "C2:weak:false", "C3::true"}; !slices.Equal(kinds, want) {
		t.Errorf("claims: got %v, want %v", kinds, want)
	}
	evs := events(t, h, res.Trace)
	reasons := ofType(evs, protocol.TypeClaimChallenged)
	if len(reasons) != 2 || !strings.Contains(string(reasons[0].Body), "below the minimum") || !strings.Contains(string(reasons[1].Body), "at least 3") {
		t.Errorf("challenges do not say why the claims are weak")
	}
}

// TestP09_CompletesOnlyWithVerification: a session completes only after a
// verification_run_completed of pass or pass-with-warnings, whose report
// is stored; a failed verification fails it.
func TestP09_CompletesOnlyWithVerification(t *testing.T) {
	for name, want := range map[string]struct {
		state  protocol.State
		status string
	}{
		"vendor-check":     {protocol.StateCompleted, protocol.VerificationPass},
		"risky-transfer":   {protocol.StateCompleted, protocol.VerificationPassWithWarnings},
		"missing-evidence": {protocol.StateFailed, protocol.VerificationFail},
	} {
		t.Run(name, func(t *testing.T) {
			h := openHome(t)
			res := start(t, newEngine(t, h), exampleTask(t, name))
			wantState(t, res, want.state, want.status)
			evs := events(t, h, res.Trace)
			done := ofType(evs, protocol.TypeVerificationRunCompleted)
			if len(done) != 1 || done[0].BodyString("status") != want.status {
				t.Fatalf("verification_run_completed: got %d, want one with status %s", len(done), want.status)
			}
			if got := transitions(evs); got[len(got)-1] != want.state || got[len(got)-2] != protocol.StateAuditing {
				t.Errorf("states: got %v, want auditing then %s", got, want.state)
			}
			r := report(t, h, res)
			if r.Status != want.status || r.Trace != res.Trace || r.Session != res.Session {
				t.Errorf("report: status %s, trace %s; want %s, %s", r.Status, r.Trace, want.status, res.Trace)
			}
			last := evs[len(evs)-1]
			wantEnd := map[protocol.State]string{protocol.StateCompleted: runs.TypeCompleted, protocol.StateFailed: runs.TypeFailed}[want.state]
			if last.Type != wantEnd || last.Run != res.Session {
				t.Errorf("the session run ends with %s, want %s", last.Type, wantEnd)
			}
		})
	}
}

// TestP09_NothingToState: when every claim is challenged and none revised,
// there is nothing to state: the verification fails and so does the session.
func TestP09_NothingToState(t *testing.T) {
	h := openHome(t)
	res := start(t, newEngine(t, h), parseTask(t, `
name: nothing
objectives:
  - {id: guess, objective: Guess, tool: compute, input: {op: sum, values: [1]}, claim: {text: maybe, confidence: 0.1}}
`))
	wantState(t, res, protocol.StateFailed, protocol.VerificationFail)
	if len(ofType(events(t, h, res.Trace), protocol.TypeFinalStatementSigned)) != 0 {
		t.Error("a final statement was signed although the finalization guard failed")
	}
	if !slices.ContainsFunc(res.Verification.Errors, func(e string) bool { return strings.Contains(e, "nothing to state") }) {
		t.Errorf("errors: %v, want the finalization guard's", res.Verification.Errors)
	}
}

// TestP10_ParallelProposals: many proposals execute at once; the ledger
// serializes their appends into one chain that verifies, and every artifact
// an event cites was stored before it.
func TestP10_ParallelProposals(t *testing.T) {
	var b strings.Builder
	b.WriteString("name: parallel\nfixtures:\n")
	for i := range 8 {
		fmt.Fprintf(&b, "  k%d: {v: %d}\n", i, i)
	}
	b.WriteString("objectives:\n")
	for i := range 8 {
		fmt.Fprintf(&b, "  - {id: o%d, objective: Read k%d, tool: lookup, input: {key: k%d}, claim: {text: k%d is %d, confidence: 0.9, field: record.v, equals: %d}}\n", i, i, i, i, i, i)
	}
	h := openHome(t)
	res := start(t, newEngine(t, h, func(c *protocol.Config) { c.Concurrency = 4 }), parseTask(t, b.String()))
	wantState(t, res, protocol.StateCompleted, protocol.VerificationPass)
	evs := events(t, h, res.Trace)
	proposals := ofType(evs, protocol.TypeProposalCreated)
	if len(proposals) != 8 || proposals[7].Seq-proposals[0].Seq != 7 {
		t.Errorf("the eight proposals are not recorded together")
	}
	verify(t, h, res.Trace)
	for _, ev := range evs {
		for _, ref := range ev.Refs {
			if _, _, err := h.Artifacts.Get(context.Background(), ref.ID, scope); err != nil {
				t.Errorf("seq %d %s cites %s: %v", ev.Seq, ev.Type, ref.ID, err)
			}
		}
	}
}

// TestP11_MissingArtifactContinuesToFailingAudit: a claim citing an artifact
// the store lacks is recorded, says so, and the session goes on to auditing,
// which fails.
func TestP11_MissingArtifactContinuesToFailingAudit(t *testing.T) {
	h := openHome(t)
	res := start(t, newEngine(t, h), exampleTask(t, "missing-evidence"))
	wantState(t, res, protocol.StateFailed, protocol.VerificationFail)
	evs := events(t, h, res.Trace)
	claim := ofType(evs, protocol.TypeClaimIssued)[0]
	missing, _ := claim.BodyField("evidence_missing")
	if fmt.Sprint(missing) != "[sha256:e573863f8c4c31115c000820610d8993949bd6925e8dac952c4e71cafc77eb52]" {
		t.Errorf("evidence_missing: got %v", missing)
	}
	if got := transitions(evs); !slices.Contains(got, protocol.StateAuditing) {
		t.Errorf("states %v: the session did not reach auditing", got)
	}
	if errs := res.Verification.Errors; len(errs) != 1 || !strings.Contains(errs[0], "evidence guard") {
		t.Errorf("errors: got %v, want the evidence guard's", errs)
	}
}

// fallbackTask fails its first tool call (division by zero) and has a
// fallback.
const fallbackTask = `
name: fallback
policy: {allow_fallback: %v}
objectives:
  - id: ratio
    objective: Divide
    tool: compute
    input: {op: divide, values: [1, 0]}
    claim: {text: the ratio is known, confidence: 0.9}
    fallback: {tool: compute, input: {op: sum, values: [1]}, claim: {text: only the numerator is known, confidence: 0.9, field: result, equals: 1}}
  - {id: other, objective: Sum, tool: compute, input: {op: sum, values: [2]}, claim: {text: two, confidence: 0.9, field: result, equals: 2}}
`

// TestP11_ToolFailure: a tool failure is recorded with its context and, when
// policy permits, answered by a fallback proposal; when it does not, the
// objective goes without a claim.
func TestP11_ToolFailure(t *testing.T) {
	for _, allow := range []bool{true, false} {
		t.Run(fmt.Sprint("allow_fallback=", allow), func(t *testing.T) {
			h := openHome(t)
			res := start(t, newEngine(t, h), parseTask(t, fmt.Sprintf(fallbackTask, allow)))
			wantState(t, res, protocol.StateCompleted, protocol.VerificationPassWithWarnings)
			evs := events(t, h, res.Trace)
			failed := ofType(evs, protocol.TypeToolExecutionFailed)
			if len(failed) != 1 || !strings.Contains(string(failed[0].Body), "division by zero") {
				t.Fatalf("tool_execution_failed: got %d, want one with the failure", len(failed))
			}
			var fallback *ledger.Event
			for _, ev := range ofType(evs, protocol.TypeProposalCreated) {
				if ev.BodyString("cause") == "failed" {
					fallback = ev
				}
			}
			if (fallback != nil) != allow {
				t.Fatalf("fallback proposal: got %v, want %v", fallback != nil, allow)
			}
			warnings := strings.Join(res.Verification.Warnings, "; ")
			if allow != !strings.Contains(warnings, "objective ratio has no claim") {
				t.Errorf("warnings: %s", warnings)
			}
		})
	}
}

// TestP11_CriticBlockHoldsUntilRevision: a blocked intent never executes; the
// objective goes on only through a revised proposal.
func TestP11_CriticBlockHoldsUntilRevision(t *testing.T) {
	h := openHome(t)
	res := start(t, newEngine(t, h), exampleTask(t, "risky-transfer"))
	wantState(t, res, protocol.StateCompleted, protocol.VerificationPassWithWarnings)
	evs := events(t, h, res.Trace)
	for _, ev := range ofType(evs, tool.TypeStarted) {
		if ev.BodyString("tool") == protocol.ToolSendExternal {
			t.Fatal("send_external ran although its intent was blocked")
		}
	}
	started := map[string]bool{}
	for _, ev := range ofType(evs, protocol.TypeToolExecutionStarted) {
		started[ev.BodyString("intent_id")] = true
	}
	if started["I2"] {
		t.Error("the blocked intent I2 has an execution")
	}
	rev := ofType(evs, protocol.TypeProposalCreated)[2]
	if rev.BodyString("revises") != "P2" || rev.BodyString("cause") != "blocked" {
		t.Errorf("P3: revises %q (%q), want P2 (blocked)", rev.BodyString("revises"), rev.BodyString("cause"))
	}
}

// flakyEngine is an engine whose registry adds "flaky", a tool that fails
// with a retryable error on its first call and succeeds after.
func flakyEngine(t *testing.T, h *home.Home) *protocol.Engine {
	t.Helper()
	calls := 0
	specs := append(protocol.Tools(h.Artifacts), tool.Spec{
		Name: "flaky", InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(`{"type":"object"}`),
		Risk: protocol.RiskLow, SideEffect: tool.SideEffectNone, Idempotent: true,
		Func: func(context.Context, tool.Call) (json.RawMessage, error) {
			if calls++; calls == 1 {
				return nil, sanad.Errorf(sanad.CodeDependencyDown, "tool.flaky", "the service is down")
			}
			return json.RawMessage(`{"ok":true}`), nil
		},
	})
	reg, err := tool.NewRegistry(specs...)
	if err != nil {
		t.Fatal(err)
	}
	tools, _ := fs.ReadFile(protocol.PolicyFS(), "tools.yaml")
	roles, _ := fs.ReadFile(protocol.PolicyFS(), "roles.yaml")
	tools = append(tools, "  flaky:\n    roles: [executor]\n    risk: low\n"...)
	pol, err := policy.LoadFS(fstest.MapFS{"tools.yaml": {Data: tools}, "roles.yaml": {Data: roles}})
	if err != nil {
		t.Fatal(err)
	}
	return newEngine(t, h, func(c *protocol.Config) { c.Tools, c.Policy = reg, pol })
}

// TestP12_RetryIsANewIntent: retrying a failed execution signs a new intent
// and records new execution events; the failed attempt stays in the trace.
func TestP12_RetryIsANewIntent(t *testing.T) {
	h := openHome(t)
	res := start(t, flakyEngine(t, h), parseTask(t, `
name: retry
objectives:
  - {id: call, objective: Call the flaky service, tool: flaky, input: {}, claim: {text: it answered, confidence: 0.9, field: ok, equals: true}}
`))
	wantState(t, res, protocol.StateCompleted, protocol.VerificationPass)
	evs := events(t, h, res.Trace)
	intents := ofType(evs, protocol.TypeToolIntentSigned)
	if len(intents) != 2 || intents[1].BodyString("retry_of") != "I1" || intents[1].BodyString("call_id") == intents[0].BodyString("call_id") {
		t.Fatalf("intents: got %d, want I1 and a retry of it under a new call id", len(intents))
	}
	if f := ofType(evs, protocol.TypeToolExecutionFailed); len(f) != 1 || f[0].BodyString("intent_id") != "I1" {
		t.Errorf("the failed attempt is not in the trace")
	}
	if c := ofType(evs, protocol.TypeToolExecutionCompleted); len(c) != 1 || c[0].BodyString("intent_id") != "I2" {
		t.Errorf("the retry did not complete")
	}
	if got := ofType(evs, tool.TypeStarted); len(got) != 2 {
		t.Errorf("gateway attempts: got %d, want 2 (one per intent)", len(got))
	}
}

// TestP14_Invariants: every claim is one signed event under the executor's
// key; every completed execution has a stored artifact; the report names the
// trace, the head it checked and the final statement by hash.
func TestP14_Invariants(t *testing.T) {
	h := openHome(t)
	res := start(t, newEngine(t, h), parseTask(t, crashTask))
	evs := events(t, h, res.Trace)
	key, err := h.Keys.Existing(protocol.DefaultRoster[protocol.RoleExecutor])
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, c := range ofType(evs, protocol.TypeClaimIssued) {
		id := c.BodyString("claim_id")
		if ids[id] || c.Actor.Key != key.ID {
			t.Errorf("claim %s: duplicate %v, key %s (want %s)", id, ids[id], c.Actor.Key, key.ID)
		}
		ids[id] = true
	}
	for _, x := range ofType(evs, protocol.TypeToolExecutionCompleted) {
		if len(x.Refs) == 0 {
			t.Errorf("execution seq %d has no artifact", x.Seq)
		}
	}
	r := report(t, h, res)
	var head *ledger.Event
	for _, ev := range evs {
		if ev.Seq == r.Head.Seq {
			head = ev
		}
	}
	stmt := ofType(evs, protocol.TypeFinalStatementSigned)[0]
	if r.Trace != res.Trace || head == nil || head.Hash.String() != r.Head.Hash || r.FinalStatement != stmt.Hash.String() {
		t.Errorf("report: trace %s head %+v statement %s; want the trace's own identifiers", r.Trace, r.Head, r.FinalStatement)
	}
	for _, c := range r.Claims {
		if !strings.HasPrefix(c.Event, "sha256:") {
			t.Errorf("report claim %s has no event hash", c.ID)
		}
	}
}

// TestStopsWhenEveryProposalIsRejected: with no proposal to execute, the
// session stops in reviewing for an operator, who may abort it.
func TestStopsWhenEveryProposalIsRejected(t *testing.T) {
	ctx := context.Background()
	h := openHome(t)
	e := newEngine(t, h)
	res := start(t, e, parseTask(t, `
name: stuck
objectives:
  - {id: never, objective: Never run, risk: critical, tool: compute, input: {op: sum, values: [1]}, claim: {text: never, confidence: 0.9}}
`))
	if res.State != protocol.StateReviewing || res.Stopped == "" || res.Err() == nil {
		t.Fatalf("got %+v, want a stop in reviewing", res)
	}
	if _, err := e.Abort(ctx, res.Session, protocol.Operator{}, ""); sanad.ErrorCode(err) != sanad.CodeInvalidInput {
		t.Errorf("an abort naming no operator: got %v, want INVALID_INPUT", err)
	}
	res, err := e.Abort(ctx, res.Session, protocol.Operator{Agent: "ops", Role: "operator"}, "nothing to do")
	if err != nil || res.State != protocol.StateAborted {
		t.Fatalf("Abort: %+v, %v", res, err)
	}
	rec, err := h.DB.Run(ctx, res.Session)
	if err != nil || rec.Status != sanad.StatusCancelled {
		t.Errorf("session run: %s, %v; want cancelled", rec.Status, err)
	}
	if _, err := e.Abort(ctx, res.Session, protocol.Operator{Agent: "ops"}, ""); sanad.ErrorCode(err) != sanad.CodeConflict {
		t.Errorf("a second abort: got %v, want CONFLICT", err)
	}
	if _, err := e.Resume(ctx, res.Session); sanad.ErrorCode(err) != sanad.CodeConflict {
		t.Errorf("resuming an aborted session: got %v, want CONFLICT", err)
	}
	verify(t, h, res.Session)
}
