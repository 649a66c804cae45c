package protocol_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/playbook/protocol"
	"github.com/sanadhq/sanad/runs"
)

// crashTask passes every crash point of a session that completes: a lookup
// whose output contradicts the claim (challenge, then revision), a compute,
// and a high-risk payment the critic blocks (intent review, then the
// fallback).
const crashTask = `
name: crash-course
fixtures:
  vendors/acme: {name: ACME Supplies Ltd, status: suspended}
objectives:
  - id: vendor-status
    objective: Check the status of ACME Supplies Ltd
    tool: lookup
    input: {key: vendors/acme}
    claim: {text: ACME Supplies Ltd is active, confidence: 0.9, field: record.status, equals: active}
  - id: exposure
    objective: Total the open invoices
    tool: compute
    input: {op: sum, values: [100, 250.5]}
    claim: {text: The open invoices total 350.5, confidence: 0.9, field: result, equals: 350.5}
  - id: payment
    objective: Pay the open invoices
    tool: send_external
    input: {to: NL91ABNA0417164300, amount: 350.5, currency: EUR}
    claim: {text: EUR 350.5 was paid, confidence: 0.9}
    fallback:
      tool: compute
      input: {op: sum, values: [100, 250.5]}
      claim: {text: A payment of EUR 350.5 is prepared for a person to approve, confidence: 0.9}
`

// failingTask fails its audit: its claim cites an attachment the store
// does not hold.
const failingTask = `
name: crash-fails
fixtures:
  contracts/msa: {status: signed}
attachments:
  - {name: contract, media_type: application/pdf, sha256: e573863f8c4c31115c000820610d8993949bd6925e8dac952c4e71cafc77eb52, size_bytes: 10}
objectives:
  - id: contract
    objective: Confirm the contract is signed
    tool: lookup
    input: {key: contracts/msa}
    evidence: {cite: [contract]}
    claim: {text: The contract is signed, confidence: 0.9, field: record.status, equals: signed}
`

// runChild runs the test binary as a session child with args and reports
// its output and whether it was killed by SIGKILL.
func runChild(tb testing.TB, args ...string) (string, bool) {
	tb.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"--"}, args...)...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			return string(out), true
		}
	}
	if err != nil {
		tb.Fatalf("child %v: %v\n%s%s", args, err, out, stderr.String())
	}
	return string(out), false
}

// onlyTrace returns the one trace of a home a single session was started in.
func onlyTrace(tb testing.TB, h *home.Home) string {
	tb.Helper()
	traces, err := ledger.WorkTraces(context.Background(), h.DB)
	if err != nil || len(traces) != 1 {
		tb.Fatalf("Traces: got %v, %v; want one trace", traces, err)
	}
	return traces[0]
}

// normalize reduces a session's trace to what a crash must not change: the
// sequence of protocol events with their role and key body fields, and the
// session run's end. Timestamps, ids of runs, calls and intents, and the
// events of a retried attempt (an intent another retries, its review and
// execution) are left out.
func normalize(evs []*ledger.Event) []string {
	retried := map[string]bool{}
	for _, ev := range evs {
		if ev.Type == protocol.TypeToolIntentSigned && ev.BodyString("retry_of") != "" {
			retried[ev.BodyString("retry_of")] = true
		}
	}
	var out []string
	for _, ev := range evs {
		f := func(keys ...string) string {
			var parts []string
			for _, k := range keys {
				v, _ := ev.BodyField(k)
				parts = append(parts, fmt.Sprintf("%s=%v", k, v))
			}
			return strings.Join(parts, " ")
		}
		var fields string
		switch ev.Type {
		case runs.TypeCompleted, runs.TypeFailed, runs.TypeCancelled:
			if ev.Run == ev.Trace {
				out = append(out, ev.Type)
			}
			continue
		case protocol.TypeSessionInitialized:
			fields = f("mode")
		case protocol.TypeStateTransition:
			fields = f("from", "to")
		case protocol.TypeProposalCreated:
			fields = f("proposal_id", "objective_id", "required_tools", "risk", "revises", "cause")
		case protocol.TypeProposalReviewed:
			fields = f("proposal_id", "status")
		case protocol.TypeToolIntentSigned, protocol.TypeToolIntentReviewed, protocol.TypeToolExecutionStarted,
			protocol.TypeToolExecutionCompleted, protocol.TypeToolExecutionFailed:
			if retried[ev.BodyString("intent_id")] {
				continue
			}
			fields = f("proposal_id", "tool", "input_hash", "risk_class", "decision", "result_hash", "error")
		case protocol.TypeClaimIssued:
			fields = f("claim_id", "proposal_id", "text", "confidence", "evidence", "revises")
		case protocol.TypeClaimChallenged:
			fields = f("claim_id", "kind", "reasons")
		case protocol.TypeFinalStatementSigned:
			fields = f("statement_id", "verification_id")
		case protocol.TypeVerificationRunStarted:
			fields = f("verification_id", "reason")
		case protocol.TypeVerificationRunCompleted:
			fields = f("verification_id", "status", "errors", "warnings")
		default:
			continue
		}
		out = append(out, ev.Type+" "+ev.Actor.Role+" "+fields)
	}
	return out
}

// reference runs task without a crash and returns its normalized trace.
func reference(tb testing.TB, task string) []string {
	tb.Helper()
	h := openHome(tb)
	res := start(tb, newEngine(tb, h), parseTask(tb, task))
	return normalize(events(tb, h, res.Trace))
}

// TestP12_CrashRecovery kills the session process (SIGKILL, in a child
// process) at each named crash point, in every state, and resumes the
// session: it must end as a run that never crashed does, with a trace that
// verifies and equals the crash-free one apart from timestamps, ids and
// the events of retried attempts (seed 002, Retry and Recovery Rules).
func TestP12_CrashRecovery(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for name, task := range map[string]string{"completes": crashTask, "fails": failingTask} {
		files[name] = filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(files[name], []byte(task), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string][]string{"completes": reference(t, crashTask), "fails": reference(t, failingTask)}
	wantState := map[string]protocol.State{"completes": protocol.StateCompleted, "fails": protocol.StateFailed}
	type kill struct {
		task, point string
		n           int
	}
	var kills []kill
	for _, p := range protocol.Points {
		switch p {
		case protocol.PointEnterFailed:
			kills = append(kills, kill{"fails", p, 1})
		case protocol.PointResumeLoaded:
		default:
			kills = append(kills, kill{"completes", p, 1})
		}
	}
	kills = append(kills,
		kill{"completes", protocol.PointAfterIntent, 2}, kill{"completes", protocol.PointAfterExecutionStarted, 3},
		kill{"completes", protocol.PointAfterToolCall, 2}, kill{"completes", protocol.PointAfterClaim, 3},
		kill{"fails", protocol.PointAfterVerification, 1}, kill{"fails", protocol.PointBeforeEnd, 1},
		kill{"completes", ledger.PointBeforeCommit, 9}, kill{"completes", ledger.PointAfterCommit, 13},
		kill{"completes", ledger.PointBeforeCommit, 17}, kill{"completes", "sqlite.inside_transaction", 21},
	)
	for _, k := range kills {
		t.Run(fmt.Sprintf("%s/%s:%d", k.task, k.point, k.n), func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			out, killed := runChild(t, "-home", home, "-task", files[k.task], "-crash-at", fmt.Sprintf("%s:%d", k.point, k.n))
			if !killed {
				t.Fatalf("the session never reached %s (pass %d): %s", k.point, k.n, out)
			}
			// A second process crashes right after loading the trace.
			h := openHomeAt(t, home)
			trace := onlyTrace(t, h)
			h.Close()
			if _, killed := runChild(t, "-home", home, "-resume", trace, "-crash-at", protocol.PointResumeLoaded+":1"); !killed {
				t.Fatalf("the resumed session did not reach %s", protocol.PointResumeLoaded)
			}
			h = openHomeAt(t, home)
			res, err := newEngine(t, h).Resume(context.Background(), trace)
			if err != nil {
				t.Fatalf("Resume: %v", err)
			}
			if res.State != wantState[k.task] {
				t.Fatalf("state after resume: got %s (%+v), want %s", res.State, res, wantState[k.task])
			}
			verify(t, h, trace)
			verify(t, h, "")
			got := normalize(events(t, h, trace))
			if !slices.Equal(got, want[k.task]) {
				t.Errorf("the resumed trace differs from the crash-free one:\n got: %s\nwant: %s", strings.Join(got, "\n      "), strings.Join(want[k.task], "\n      "))
			}
		})
	}
}

// TestP12_CrashDuringAbort: an operator's abort killed after the session
// moved to aborted and before its run ended is finished by a resume.
func TestP12_CrashDuringAbort(t *testing.T) {
	dir := t.TempDir()
	task := filepath.Join(dir, "stuck.yaml")
	stuck := "name: stuck\nobjectives:\n  - {id: a, objective: A, risk: critical, tool: compute, input: {op: sum, values: [1]}, claim: {text: t, confidence: 0.9}}\n"
	if err := os.WriteFile(task, []byte(stuck), 0o644); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(dir, "home")
	if out, killed := runChild(t, "-home", home, "-task", task); killed || !strings.Contains(out, "reviewing") {
		t.Fatalf("the session did not stop in reviewing: %s", out)
	}
	h := openHomeAt(t, home)
	id := onlyTrace(t, h)
	h.Close()
	if _, killed := runChild(t, "-home", home, "-abort", id, "-crash-at", protocol.PointBeforeEnd+":1"); !killed {
		t.Fatal("the abort did not reach its end")
	}
	h = openHomeAt(t, home)
	res, err := newEngine(t, h).Resume(context.Background(), id)
	if err != nil || res.State != protocol.StateAborted {
		t.Fatalf("Resume: %+v, %v; want aborted", res, err)
	}
	if rec, err := h.DB.Run(context.Background(), id); err != nil || rec.Status != "cancelled" {
		t.Errorf("session run: %s, %v; want cancelled", rec.Status, err)
	}
	verify(t, h, id)
}
