package protocol

import (
	"context"
	"fmt"
	"slices"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/ledger"
)

// Report is a verification's report, stored as a JSON artifact that
// protocol.verification_run_completed cites. It names the trace, the head
// it checked, the final statement and every claim by the hash of its event:
// identifiers no later event can change.
type Report struct {
	Session        string                         `json:"session"`
	Trace          string                         `json:"trace"`
	Verification   string                         `json:"verification,omitempty"`
	Reason         string                         `json:"reason"`
	Mode           string                         `json:"mode,omitempty"`
	Task           string                         `json:"task,omitempty"`
	Status         string                         `json:"status"`
	Head           Head                           `json:"head"`
	FinalStatement string                         `json:"final_statement,omitempty"`
	Thresholds     Thresholds                     `json:"thresholds"`
	PolicyVersions map[string]sanad.PolicyVersion `json:"policy_versions,omitempty"`
	Checks         []Check                        `json:"checks"`
	Errors         []string                       `json:"errors"`
	Warnings       []string                       `json:"warnings"`
	Proposals      []ProposalSummary              `json:"proposals"`
	Intents        []IntentSummary                `json:"intents"`
	Claims         []ClaimSummary                 `json:"claims"`
}

// Head is the last event of a trace.
type Head struct {
	Seq  uint64 `json:"seq"`
	Hash string `json:"hash"`
}

// Check is one mandatory check of a verification.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
}

// ProposalSummary, IntentSummary and ClaimSummary are what the report lists
// of the session's proposals, intents and claims. An intent's Execution is
// "", "started", "completed" or "failed".
type (
	ProposalSummary struct {
		ID        string `json:"id"`
		Objective string `json:"objective"`
		Status    string `json:"status"`
		Revises   string `json:"revises,omitempty"`
		Revised   bool   `json:"revised,omitempty"`
	}
	IntentSummary struct {
		ID        string `json:"id"`
		Proposal  string `json:"proposal"`
		Tool      string `json:"tool"`
		Risk      string `json:"risk"`
		Review    string `json:"review,omitempty"`
		Execution string `json:"execution,omitempty"`
		Retried   bool   `json:"retried,omitempty"`
		Error     string `json:"error,omitempty"`
	}
	ClaimSummary struct {
		ID         string   `json:"id"`
		Proposal   string   `json:"proposal"`
		Event      string   `json:"event"`
		Confidence float64  `json:"confidence"`
		Evidence   int      `json:"evidence"`
		Missing    []string `json:"missing,omitempty"`
		Challenge  string   `json:"challenge,omitempty"`
		Revised    bool     `json:"revised,omitempty"`
		Bundled    bool     `json:"bundled,omitempty"`
	}
)

// Warn adds a warning.
func (r *Report) Warn(format string, args ...any) {
	r.Warnings = append(r.Warnings, fmt.Sprintf(format, args...))
}

// Fail adds an error: the verification fails.
func (r *Report) Fail(format string, args ...any) {
	r.Errors = append(r.Errors, fmt.Sprintf(format, args...))
}

// check records a mandatory check and its failures.
func (r *Report) check(name, ok string, failures []string) {
	c := Check{Name: name, OK: len(failures) == 0, Detail: ok}
	if !c.OK {
		c.Detail = failures[0]
	}
	r.Checks, r.Errors = append(r.Checks, c), append(r.Errors, failures...)
}

// settle sets the status from the findings.
func (r *Report) settle() {
	r.Status = VerificationPass
	if len(r.Errors) > 0 {
		r.Status = VerificationFail
	} else if len(r.Warnings) > 0 {
		r.Status = VerificationPassWithWarnings
	}
}

var execNames = map[int]string{execStarted: "started", execCompleted: "completed", execFailed: "failed"}

// bundle returns the claims a final statement may hold: the current
// revision of each, with no open challenge, in the order they were issued.
func (t *tracker) bundle() []*claim {
	var out []*claim
	for _, id := range t.claimSeq {
		if c := t.claims[id]; !c.superseded && c.challenge == nil {
			out = append(out, c)
		}
	}
	return out
}

// verify is the auditor's verification run: it starts one (or goes on with
// the open one), runs the mandatory checks, has the planner sign the final
// statement if they pass (the finalization guard), stores the report and
// records the outcome. An integrity verification, run because the trace was
// found damaged, never passes.
func (s *session) verify(ctx context.Context, reason string) (*Report, error) {
	s.mu.Lock()
	open := s.t.verif
	s.mu.Unlock()
	if open != nil {
		reason = open.Reason
	} else {
		seq, head, err := s.e.cfg.Runs.Ledger.Store().TraceHead(ctx, s.run.Record.Trace)
		if err != nil {
			return nil, err
		}
		if _, err := s.record(ctx, func() ([]ledger.Draft, error) {
			b := VerificationStartedBody{VerificationID: nextID("V", s.t.verifications), Reason: reason, HeadSeq: seq, HeadHash: head.String()}
			return []ledger.Draft{s.draft(TypeVerificationRunStarted, RoleAuditor, b, nil)}, nil
		}); err != nil {
			return nil, err
		}
		s.e.crash(PointAfterVerificationStarted)
	}
	r, err := s.check(ctx, reason)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	signed, stmt := s.t.verif.statement, s.t.verif.statementHash
	s.mu.Unlock()
	if reason == ReasonAudit && r.Status != VerificationFail && !signed {
		evs, err := s.record(ctx, func() ([]ledger.Draft, error) {
			b := StatementBody{StatementID: nextID("S", s.t.statements), VerificationID: s.t.verif.VerificationID}
			for _, c := range s.t.bundle() {
				b.Claims = append(b.Claims, BundledClaim{ClaimID: c.ClaimID, Event: c.event.String(), Text: c.Text, Confidence: c.Confidence})
			}
			return []ledger.Draft{s.draft(TypeFinalStatementSigned, RolePlanner, b, nil)}, nil
		})
		switch {
		case err == nil:
			signed, stmt = true, evs[0].Hash
			s.e.crash(PointAfterFinalStatement)
		case sanad.ErrorCode(err) == sanad.CodeInvalidInput:
			r.Fail("finalization guard: the final statement was refused: %s", sanad.ErrorMessage(err))
			r.settle()
		default:
			return nil, err
		}
	}
	if signed {
		r.FinalStatement = stmt.String()
	}
	ref, err := s.e.store(ctx, s.run.Record, r)
	if err != nil {
		return nil, err
	}
	if _, err := s.record(ctx, func() ([]ledger.Draft, error) {
		b := VerificationCompletedBody{VerificationID: s.t.verif.VerificationID, Status: r.Status, Report: ref.ID, HeadSeq: r.Head.Seq,
			HeadHash: r.Head.Hash, FinalStatement: r.FinalStatement, Errors: len(r.Errors), Warnings: len(r.Warnings)}
		return []ledger.Draft{s.draft(TypeVerificationRunCompleted, RoleAuditor, b, []sanad.ArtifactRef{ref})}, nil
	}); err != nil {
		return nil, err
	}
	s.e.crash(PointAfterVerification)
	return r, nil
}

// store stores a report as an artifact of the session run rec.
func (e *Engine) store(ctx context.Context, rec sanad.Run, r *Report) (sanad.ArtifactRef, error) {
	data, err := canon.Marshal(r)
	if err != nil {
		return sanad.ArtifactRef{}, sanad.Wrap(err, sanad.CodeInternal, "protocol.verify", "report")
	}
	return e.cfg.Artifacts.Put(ctx, rec.Scope, rec.ID, "application/json", data)
}

// check runs the mandatory checks on the trace as it stands:
//
//   - integrity: every event's hash, signature, signer and schema, the
//     chain, the Merkle inclusion, and the ordering rules, which include the
//     role, action and finalization guards (ledger.Ledger.Verify);
//   - evidence: every artifact a claim cites is in the store, within the
//     session's scope, and each claim that can be stated cites at least the
//     evidence its proposal requires;
//   - executions: every completed tool execution has its stored artifacts;
//   - finalization: at least one claim stands, revised where challenged.
//
// Then the auditor assesses the session; its findings add to the checks'.
func (s *session) check(ctx context.Context, reason string) (*Report, error) {
	rec := s.run.Record
	r, err := s.e.newReport(ctx, rec, reason)
	if err != nil {
		return nil, err
	}
	type cited struct {
		claim int // index in r.Claims, or -1 for an execution
		ref   sanad.ArtifactRef
	}
	var refs []cited
	var evidence, executions, final []string
	s.mu.Lock()
	t := s.t
	r.Mode, r.Task, r.Thresholds = t.init.Mode, t.init.Task.Name, t.init.Thresholds
	if t.verif != nil {
		r.Verification = t.verif.VerificationID
	}
	need := map[string]int{}
	for _, id := range t.order {
		p := t.proposals[id]
		need[id] = max(p.MinEvidence, t.init.Thresholds.MinEvidence)
		r.Proposals = append(r.Proposals, ProposalSummary{ID: id, Objective: p.ObjectiveID, Status: p.status, Revises: p.Revises, Revised: p.revised})
	}
	for _, id := range t.intentSeq {
		in := t.intents[id]
		is := IntentSummary{ID: id, Proposal: in.ProposalID, Tool: in.Tool, Risk: in.RiskClass, Review: in.review.Decision, Execution: execNames[in.exec], Retried: in.retried}
		if e := in.result.Error; e != nil {
			is.Error = string(e.Code) + ": " + e.Message
		}
		r.Intents = append(r.Intents, is)
		if in.exec == execCompleted && len(in.refs) == 0 {
			executions = append(executions, "execution of intent "+id+" has no stored artifact")
		}
		for _, ref := range in.refs {
			refs = append(refs, cited{-1, ref})
		}
	}
	bundle := t.bundle()
	for _, id := range t.claimSeq {
		c := t.claims[id]
		cs := ClaimSummary{ID: id, Proposal: c.ProposalID, Event: c.event.String(), Confidence: c.Confidence, Evidence: len(c.refs),
			Revised: c.superseded, Bundled: slices.Contains(bundle, c)}
		if c.challenge != nil {
			cs.Challenge = c.challenge.Kind
		}
		if n := need[c.ProposalID]; cs.Bundled && len(c.refs) < n {
			evidence = append(evidence, fmt.Sprintf("evidence guard: claim %s cites %d artifact(s); its proposal requires %d", id, len(c.refs), n))
		}
		for _, ref := range c.refs {
			refs = append(refs, cited{len(r.Claims), ref})
		}
		r.Claims = append(r.Claims, cs)
	}
	s.mu.Unlock()

	var integrity []string
	if _, err := s.e.cfg.Runs.Ledger.Verify(ctx, rec.Trace); err != nil {
		integrity = append(integrity, "integrity: "+sanad.ErrorMessage(err))
	} else if reason == ReasonIntegrity {
		integrity = append(integrity, "integrity: the trace failed its check when the session was resumed")
	}
	r.check("integrity", "signatures, hash chain, Merkle inclusion and protocol ordering rules hold", integrity)
	for _, c := range refs {
		if _, err := s.env.Read(ctx, c.ref); err != nil {
			msg := fmt.Sprintf("cites %s, which is not in the artifact store of %s", c.ref.ID, s.env.Scope)
			if c.claim < 0 {
				executions = append(executions, "a tool execution "+msg)
				continue
			}
			evidence = append(evidence, "evidence guard: claim "+r.Claims[c.claim].ID+" "+msg)
			r.Claims[c.claim].Missing = append(r.Claims[c.claim].Missing, c.ref.ID)
		}
	}
	r.check("evidence", "every cited artifact is stored, and every stated claim has its minimum evidence", evidence)
	r.check("executions", "every completed execution has its stored artifacts", executions)
	if len(bundle) == 0 {
		final = append(final, "finalization guard: no claim stands unchallenged: there is nothing to state")
	}
	r.check("finalization", fmt.Sprintf("%d claim(s) can be stated", len(bundle)), final)
	kept := slices.Clone(r.Errors)
	if err := s.e.cfg.Auditor.Assess(ctx, s.env, r); err != nil {
		return nil, err
	}
	for _, e := range kept {
		if !slices.Contains(r.Errors, e) {
			r.Errors = append(r.Errors, e)
		}
	}
	r.settle()
	return r, nil
}

// newReport starts the report of a verification of session run rec, at the
// head of its trace.
func (e *Engine) newReport(ctx context.Context, rec sanad.Run, reason string) (*Report, error) {
	seq, head, err := e.cfg.Runs.Ledger.Store().TraceHead(ctx, rec.Trace)
	return &Report{Session: rec.ID, Trace: rec.Trace, Reason: reason, Head: Head{Seq: seq, Hash: head.String()},
		PolicyVersions: rec.PolicyVersions, Errors: []string{}, Warnings: []string{}}, err
}

// unrecorded fails a session whose trace can take no more events (its chain
// is broken, or its events break the protocol): the report is stored, but
// no event can record it.
func (e *Engine) unrecorded(ctx context.Context, rec sanad.Run, cause error) (Result, error) {
	r, err := e.broken(ctx, rec, cause)
	if err != nil {
		return Result{}, err
	}
	ref, err := e.store(ctx, rec, r)
	if err != nil {
		return Result{}, err
	}
	return Result{Session: rec.ID, Trace: rec.Trace, State: StateFailed, Mode: e.cfg.Mode,
		Verification: &Outcome{Status: r.Status, Report: ref.ID, Errors: r.Errors}}, nil
}

func (e *Engine) broken(ctx context.Context, rec sanad.Run, cause error) (*Report, error) {
	r, err := e.newReport(ctx, rec, ReasonIntegrity)
	if err != nil {
		return nil, err
	}
	failures := []string{"integrity: " + sanad.ErrorMessage(cause)}
	if _, verr := e.cfg.Runs.Ledger.Verify(ctx, rec.Trace); verr != nil && sanad.ErrorMessage(verr) != sanad.ErrorMessage(cause) {
		failures = append(failures, "integrity: "+sanad.ErrorMessage(verr))
	}
	r.check("integrity", "", failures)
	r.Fail("the trace can take no more events: the session's failure is recorded in this report only")
	r.settle()
	return r, nil
}

// Audit runs the verifier's checks on session id as its trace stands,
// recording nothing: a session can be audited again at any time, and one
// whose trace was tampered with fails.
func (e *Engine) Audit(ctx context.Context, id string) (*Report, error) {
	rec, err := e.record(ctx, id)
	if err != nil {
		return nil, err
	}
	evs, err := e.cfg.Runs.Ledger.Events(ctx, rec.Trace)
	var s *session
	if err == nil {
		s, err = e.load(ctx, rec, evs)
	}
	if err != nil {
		return e.broken(ctx, rec, err)
	}
	return s.check(ctx, ReasonAudit)
}
