package protocol

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/tool"
)

// execute runs the tool calls of the approved proposals, revises the
// rejected, blocked and failed ones, and moves on to claiming once every
// intent is executed to an outcome or blocked.
func (s *session) execute(ctx context.Context) (string, error) {
	for {
		if err := s.reviewProposals(ctx); err != nil {
			return "", err
		}
		if work := s.pending(); len(work) > 0 {
			if err := s.pipelines(ctx, work); err != nil {
				return "", err
			}
			continue
		}
		n, err := s.revise(ctx, "rejected", "blocked", "failed")
		if err != nil {
			return "", err
		}
		if n == 0 {
			break
		}
	}
	s.mu.Lock()
	err := s.t.canEnter(TransitionBody{To: StateClaiming})
	s.mu.Unlock()
	if err != nil {
		return "the session cannot move on to claiming: " + err.Error(), nil
	}
	return "", s.transition(ctx, StateClaiming, "every tool intent is executed or blocked")
}

// pending returns the approved proposals whose execution is not settled.
func (s *session) pending() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for _, id := range s.t.order {
		p := s.t.proposals[id]
		in := s.t.latest(p)
		if p.approved() && (in == nil || in.review.Decision != IntentBlocked && in.exec != execCompleted && (in.exec != execFailed || s.shouldRetry(in))) {
			ids = append(ids, id)
		}
	}
	return ids
}

// shouldRetry says whether a failed intent is retried with a new intent:
// it was interrupted or failed with a retryable error, its tool is safe to
// repeat, and the policy's retries are not used up. The caller holds s.mu.
func (s *session) shouldRetry(in *intent) bool {
	if in.exec != execFailed || in.retried || in.Attempt > s.t.init.Thresholds.MaxRetries {
		return false
	}
	if r := in.result; !r.Interrupted && (r.Error == nil || !r.Error.Retryable) {
		return false
	}
	spec, ok := s.e.cfg.Tools.Lookup(in.Tool)
	return ok && (spec.Idempotent || spec.SideEffect == tool.SideEffectNone)
}

// pipelines runs the execution of each proposal in work, at most
// Concurrency at once, in order; the ledger serializes their appends.
func (s *session) pipelines(ctx context.Context, work []string) error {
	sem := make(chan struct{}, s.e.cfg.Concurrency)
	errs := make([]error, len(work))
	var wg sync.WaitGroup
	for i, id := range work {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.pipeline(ctx, id)
			<-sem
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// pipeline takes one proposal's execution from where the trace leaves it
// to an outcome: intent, the critic's review where the action guard asks
// for one, execution through the gateway, retries.
func (s *session) pipeline(ctx context.Context, pid string) error {
	for {
		if err := ctx.Err(); err != nil {
			return sanad.Wrap(err, sanad.CodeCancelled, "protocol.execute", "session stopped before its end: resume it")
		}
		s.mu.Lock()
		p := s.t.proposals[pid]
		pb, last := p.ProposalBody, s.t.latest(p)
		var in intent
		have, retry, needs := last != nil, false, false
		if have {
			in, retry, needs = *last, s.shouldRetry(last), s.t.needsApproval(last)
		}
		s.mu.Unlock()
		var err error
		switch {
		case !have:
			err = s.intend(ctx, pb, nil)
		case in.review.Decision == IntentBlocked || in.exec == execCompleted || in.exec == execFailed && !retry:
			return nil
		case in.exec == execFailed:
			err = s.intend(ctx, pb, &in.IntentBody)
		case in.exec == execStarted:
			err = s.recover(ctx, in)
		case in.review.Decision == "" && needs:
			err = s.reviewIntent(ctx, in.IntentBody)
		default:
			err = s.call(ctx, in)
		}
		if err != nil {
			return err
		}
	}
}

// intend records the executor's signed intent for proposal p, citing its
// stored input; a retry names the intent it replaces.
func (s *session) intend(ctx context.Context, p ProposalBody, retryOf *IntentBody) error {
	const op = "protocol.intend"
	call, err := s.e.cfg.Executor.Intend(ctx, s.env, p)
	if err != nil {
		return err
	}
	if !slices.Contains(p.RequiredTools, call.Tool) {
		return sanad.Errorf(sanad.CodeInvalidInput, op, "the executor intends to call %s, which proposal %s does not require", call.Tool, p.ProposalID)
	}
	input, err := canon.Transform(call.Input)
	if err != nil || len(input) == 0 || input[0] != '{' {
		return sanad.Errorf(sanad.CodeInvalidInput, op, "the input of %s for proposal %s is not a JSON object", call.Tool, p.ProposalID)
	}
	hash, err := canon.RequestHash(json.RawMessage(input))
	if err != nil {
		return sanad.Wrap(err, sanad.CodeInvalidInput, op, "input hash")
	}
	risk, ok := s.env.Risk(call.Tool)
	if !ok {
		return sanad.Errorf(sanad.CodePolicyDenied, op, "tool %s is not open to the executor", call.Tool)
	}
	ref, err := s.e.cfg.Artifacts.Put(ctx, s.env.Scope, s.run.Record.ID, tool.MediaType, input)
	if err != nil {
		return err
	}
	why := clip(call.Justification, tool.MaxJustification)
	if why == "" {
		why = "proposal " + p.ProposalID + ": " + clip(p.Objective, tool.MaxJustification-32)
	}
	_, err = s.record(ctx, func() ([]ledger.Draft, error) {
		id := nextID("I", len(s.t.intentSeq))
		b := IntentBody{IntentID: id, ProposalID: p.ProposalID, Tool: call.Tool, CallID: id, InputHash: hash.String(), RiskClass: risk, Justification: why, Attempt: 1}
		if retryOf != nil {
			b.Attempt, b.RetryOf = retryOf.Attempt+1, retryOf.IntentID
		}
		return []ledger.Draft{s.draft(TypeToolIntentSigned, RoleExecutor, b, []sanad.ArtifactRef{ref})}, nil
	})
	if err == nil {
		s.e.crash(PointAfterIntent)
	}
	return err
}

// clip cuts s to at most n bytes on a UTF-8 boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// reviewIntent records the critic's review of a risky intent.
func (s *session) reviewIntent(ctx context.Context, in IntentBody) error {
	r, err := s.e.cfg.Critic.ReviewIntent(ctx, s.env, in)
	if err != nil {
		return err
	}
	r.IntentID = in.IntentID
	if err := s.append(ctx, TypeToolIntentReviewed, RoleCritic, r, nil); err != nil {
		return err
	}
	s.e.crash(PointAfterIntentReview)
	return nil
}

// call executes an approved intent through the gateway, in the session run,
// and records its outcome.
func (s *session) call(ctx context.Context, in intent) error {
	input, err := s.env.Read(ctx, in.input)
	if err != nil {
		return err
	}
	x := ExecutionBody{IntentID: in.IntentID, CallID: in.CallID, Tool: in.Tool}
	if err := s.append(ctx, TypeToolExecutionStarted, RoleExecutor, x, nil); err != nil {
		return err
	}
	s.e.crash(PointAfterExecutionStarted)
	p := policy.Principal{Agent: s.t.init.Roster[RoleExecutor], Role: string(RoleExecutor), Scope: s.env.Scope}
	res := s.e.gw.Call(ctx, s.run, p, tool.Request{Tool: in.Tool, CallID: in.CallID, Input: input, Justification: in.Justification})
	s.e.crash(PointAfterToolCall)
	if err := ctx.Err(); err != nil {
		// Stopped: a resume settles the call from what the gateway recorded.
		return sanad.Wrap(err, sanad.CodeCancelled, "protocol.execute", "session stopped during a tool call: resume it")
	}
	x.Run, x.Attempts = res.Run, res.Attempts
	typ, refs := TypeToolExecutionCompleted, []sanad.ArtifactRef{}
	for _, r := range []sanad.ArtifactRef{res.InputRef, res.OutputRef} {
		if r.ID != "" {
			refs = append(refs, r)
		}
	}
	x.Input = res.InputRef.ID
	if res.Success {
		x.ResultHash, x.Output = res.ResultHash, res.OutputRef.ID
	} else {
		typ, x.Error = TypeToolExecutionFailed, sanad.NewRunError(res.Err())
	}
	return s.executed(ctx, typ, x, refs)
}

func (s *session) executed(ctx context.Context, typ string, x ExecutionBody, refs []sanad.ArtifactRef) error {
	if err := s.append(ctx, typ, RoleExecutor, x, refs); err != nil {
		return err
	}
	s.e.crash(PointAfterExecution)
	return nil
}

// recover settles an execution a stopped process left open, from what the
// gateway recorded of the call: its outcome if it has one (the tool is not
// run again), else a failure marked interrupted, which a retry may follow.
func (s *session) recover(ctx context.Context, in intent) error {
	s.mu.Lock()
	o, ok := s.outcomes[in.CallID]
	s.mu.Unlock()
	if !ok {
		o = outcome{typ: TypeToolExecutionFailed, body: ExecutionBody{Interrupted: true, Error: sanad.NewRunError(sanad.Errorf(sanad.CodeCancelled,
			"protocol.resume", "the call was interrupted: the process running it stopped before its outcome was recorded"))}}
	}
	o.body.IntentID, o.body.CallID, o.body.Tool = in.IntentID, in.CallID, in.Tool
	return s.executed(ctx, o.typ, o.body, o.refs)
}

// claiming has the executor claim what each completed execution shows, the
// critic review each claim, the executor revise challenged ones, and moves
// on to auditing once there is a claim.
func (s *session) claiming(ctx context.Context) (string, error) {
	s.mu.Lock()
	var ids []string
	for _, id := range s.t.order {
		if in := s.t.latest(s.t.proposals[id]); in != nil && in.exec == execCompleted {
			ids = append(ids, id)
		}
	}
	s.mu.Unlock()
	for _, id := range ids {
		if err := s.claimFor(ctx, id); err != nil {
			return "", err
		}
	}
	s.mu.Lock()
	n := len(s.t.claimSeq)
	s.mu.Unlock()
	if n == 0 {
		return "no claim can be issued: no tool execution completed", nil
	}
	return "", s.transition(ctx, StateAuditing, "claims issued and reviewed")
}

// claimFor takes the claims of proposal pid from where the trace leaves
// them to a claim the critic let stand, or one it challenged and the
// executor cannot revise.
func (s *session) claimFor(ctx context.Context, pid string) error {
	for {
		s.mu.Lock()
		p := s.t.proposals[pid]
		pb, last := p.ProposalBody, s.t.latest(p)
		x := Execution{Intent: last.IntentBody, Result: last.result, Refs: last.refs}
		var cur *claim
		for _, cid := range s.t.claimSeq {
			if c := s.t.claims[cid]; c.ProposalID == pid && !c.superseded {
				cur = c
			}
		}
		var c claim
		if cur != nil {
			c = *cur
		}
		reviewed, declined := cur != nil && s.reviewed[c.ClaimID], cur != nil && s.declined[c.ClaimID]
		s.mu.Unlock()
		for _, r := range x.Refs {
			if r.ID == x.Result.Output {
				x.Output, _ = s.env.Read(ctx, r)
			}
		}
		switch {
		case cur == nil:
			d, err := s.e.cfg.Executor.Claim(ctx, s.env, pb, x)
			if err != nil || d == nil {
				return err
			}
			if err := s.issue(ctx, pb, x, d, ""); err != nil {
				return err
			}
		case c.challenge == nil && reviewed:
			return nil
		case c.challenge == nil:
			ch, err := s.e.cfg.Critic.ReviewClaim(ctx, s.env, pb, c.ClaimBody, &x)
			if err != nil {
				return err
			}
			if ch == nil {
				s.mark(s.reviewed, c.ClaimID)
				continue
			}
			ch.ClaimID = c.ClaimID
			if err := s.append(ctx, TypeClaimChallenged, RoleCritic, *ch, nil); err != nil {
				return err
			}
			s.e.crash(PointAfterChallenge)
		case declined:
			return nil
		default:
			d, err := s.e.cfg.Executor.ReviseClaim(ctx, s.env, c.ClaimBody, *c.challenge, x)
			if err != nil {
				return err
			}
			if d == nil {
				s.mark(s.declined, c.ClaimID)
				return nil
			}
			if err := s.issue(ctx, pb, x, d, c.ClaimID); err != nil {
				return err
			}
		}
	}
}

// issue records a claim. Evidence missing from the artifact store does not
// stop it: the claim says so, and the audit that follows fails.
func (s *session) issue(ctx context.Context, p ProposalBody, x Execution, d *ClaimDraft, revises string) error {
	ids, missing := make([]string, len(d.Evidence)), []string(nil)
	for i, r := range d.Evidence {
		ids[i] = r.ID
		if _, err := s.env.Read(ctx, r); err != nil {
			missing = append(missing, r.ID)
		}
	}
	_, err := s.record(ctx, func() ([]ledger.Draft, error) {
		b := ClaimBody{
			ClaimID: nextID("C", len(s.t.claimSeq)), ProposalID: p.ProposalID, Intents: []string{x.Intent.IntentID},
			Text: d.Text, Confidence: d.Confidence, Evidence: ids, Assertion: d.Assertion, Revises: revises, EvidenceMissing: missing,
		}
		return []ledger.Draft{s.draft(TypeClaimIssued, RoleExecutor, b, d.Evidence)}, nil
	})
	if err == nil {
		s.e.crash(PointAfterClaim)
	}
	return err
}
