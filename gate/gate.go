// Package gate implements human review gates: points where a run waits for a
// person. A gate is opened (by request_human_review, a blocked tool intent, or
// an effect whose outcome is unknown after a crash), listed, and resolved by a
// principal whose role satisfies the gate's required role. Opening and
// resolving are gate.created and gate.resolved events in the run's trace; the
// gates a store lists are a projection of those events.
package gate

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/runs"
)

// Event types.
const (
	TypeCreated  = "gate.created"
	TypeResolved = "gate.resolved"
)

// Kind says why a gate was opened.
type Kind string

// Gate kinds.
const (
	KindHumanReview     Kind = "human_review"     // request_human_review (debate §4.5)
	KindBlockedIntent   Kind = "blocked_intent"   // a critic blocked a risky tool intent
	KindAmbiguousEffect Kind = "ambiguous_effect" // an effect's outcome is unknown after a crash
	KindPromotion       Kind = "promotion"        // a promotion ticket awaiting approval
	KindToolApproval    Kind = "tool_approval"    // a tool call that policy says a person must approve
)

// Status is where a gate is.
type Status string

// Gate statuses.
const (
	StatusOpen     Status = "open"
	StatusApproved Status = "approved"
	StatusRejected Status = "rejected"
)

// Created is the body of gate.created.
type Created struct {
	GateID       string   `json:"gate_id"`
	Kind         Kind     `json:"kind"`
	Reason       string   `json:"reason"`
	RequiredRole string   `json:"required_role"`
	Priority     string   `json:"priority,omitempty"`
	ClaimIDs     []string `json:"claim_ids,omitempty"`
	// Subject names what the gate is about when it is not a claim: for an
	// ambiguous effect, the effect's idempotency key.
	Subject string `json:"subject,omitempty"`
	// FailOnReject makes a rejection end the waiting run as failed.
	FailOnReject bool `json:"fail_on_reject"`
}

// Resolved is the body of gate.resolved.
type Resolved struct {
	GateID   string          `json:"gate_id"`
	Decision Status          `json:"decision"`
	By       runs.Principal  `json:"by"`
	Note     string          `json:"note,omitempty"`
	Run      sanad.RunStatus `json:"run_status,omitempty"`
}

// Gate is a gate as a store projects it.
type Gate struct {
	Created
	Trace    string      `json:"trace"`
	Run      string      `json:"run"`
	Scope    sanad.Scope `json:"scope"`
	Status   Status      `json:"status"`
	OpenedAt time.Time   `json:"opened_at"`
	Resolved *Resolved   `json:"resolved,omitempty"`
}

// Store lists and finds projected gates.
type Store interface {
	Gate(ctx context.Context, id string) (Gate, error)
	Gates(ctx context.Context, status Status) ([]Gate, error)
	Run(ctx context.Context, id string) (sanad.Run, error)
}

// Roles answers whether a role satisfies a required role (policy.Set does).
type Roles interface {
	Satisfies(role, required string) bool
}

// Service opens and resolves gates. It is safe for concurrent use.
type Service struct {
	Runs  *runs.Recorder
	Store Store
	Roles Roles
	// NewID returns a fresh gate id (runs.NewID with a "g" prefix if nil).
	NewID func() string
}

// Spec describes a gate to open.
type Spec struct {
	Kind         Kind
	Reason       string
	RequiredRole string
	Priority     string
	ClaimIDs     []string
	Subject      string
	FailOnReject bool
}

// Open records gate.created in run's trace and returns the gate id.
func (s *Service) Open(ctx context.Context, run *runs.Run, spec Spec) (string, error) {
	const op = "gate.open"
	if spec.Reason == "" || spec.RequiredRole == "" {
		return "", sanad.Errorf(sanad.CodeInvalidInput, op, "a gate needs a reason and a required role")
	}
	id := "g" + runs.NewID()[1:]
	if s.NewID != nil {
		id = s.NewID()
	}
	body := Created{GateID: id, Kind: spec.Kind, Reason: spec.Reason, RequiredRole: spec.RequiredRole,
		Priority: spec.Priority, ClaimIDs: spec.ClaimIDs, Subject: spec.Subject, FailOnReject: spec.FailOnReject}
	if _, err := run.Append(ctx, TypeCreated, "", body, nil); err != nil {
		return "", err
	}
	return id, nil
}

// Resolve approves or rejects an open gate as principal. The principal's role
// must satisfy the gate's required role, or the answer is POLICY_DENIED and
// nothing is recorded. A rejected gate with FailOnReject ends its run as
// failed.
func (s *Service) Resolve(ctx context.Context, id string, by runs.Principal, approve bool, note string) (Gate, error) {
	const op = "gate.resolve"
	g, err := s.Store.Gate(ctx, id)
	if err != nil {
		return g, err
	}
	if g.Status != StatusOpen {
		return g, sanad.Errorf(sanad.CodeInvalidInput, op, "gate %s is already %s", id, g.Status)
	}
	if by.Agent == "" || !s.Roles.Satisfies(by.Role, g.RequiredRole) {
		return g, sanad.Errorf(sanad.CodePolicyDenied, op, "gate %s needs role %s; %q with role %q may not resolve it", id, g.RequiredRole, by.Agent, by.Role)
	}
	rec, err := s.Store.Run(ctx, g.Run)
	if err != nil {
		return g, err
	}
	run, err := s.Runs.Attach(rec, "")
	if err != nil {
		return g, sanad.Wrap(err, sanad.CodeInvalidInput, op, fmt.Sprintf("gate %s: %v", id, sanad.ErrorMessage(err)))
	}
	body := Resolved{GateID: id, Decision: StatusApproved, By: by, Note: note}
	if !approve {
		body.Decision = StatusRejected
		if g.FailOnReject {
			body.Run = sanad.StatusFailed
		}
	}
	if _, err := run.Append(ctx, TypeResolved, "", body, nil); err != nil {
		return g, err
	}
	if body.Run == sanad.StatusFailed {
		cause := sanad.Errorf(sanad.CodePolicyDenied, op, "gate %s was rejected by %s: %s", id, by.Agent, note)
		if err := run.Fail(ctx, cause); err != nil {
			return g, err
		}
	}
	return s.Store.Gate(ctx, id)
}

// Wait polls until the gate is resolved or ctx ends, and returns it.
func (s *Service) Wait(ctx context.Context, id string, every time.Duration) (Gate, error) {
	for {
		g, err := s.Store.Gate(ctx, id)
		if err != nil || g.Status != StatusOpen {
			return g, err
		}
		select {
		case <-ctx.Done():
			code := sanad.CodeTimeout
			if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
				code = sanad.CodeCancelled
			}
			return g, sanad.Wrap(ctx.Err(), code, "gate.wait", fmt.Sprintf("gate %s is still open", id))
		case <-time.After(every):
		}
	}
}

// Vocabulary declares the gate events and their ordering rule: a gate is
// resolved at most once, after it was created, in the same run.
func Vocabulary() ledger.Vocabulary {
	const created = `{"type":"object","required":["gate_id","kind","reason","required_role","fail_on_reject"],"additionalProperties":false,"properties":{
  "gate_id":{"type":"string","minLength":1},"kind":{"enum":["human_review","blocked_intent","ambiguous_effect","promotion","tool_approval"]},
  "reason":{"type":"string","minLength":1,"maxLength":2048},"required_role":{"type":"string","minLength":1},
  "priority":{"enum":["low","normal","high","urgent"]},"claim_ids":{"type":"array","items":{"type":"string"}},"subject":{"type":"string","maxLength":512},"fail_on_reject":{"type":"boolean"}}}`
	const resolved = `{"type":"object","required":["gate_id","decision","by"],"additionalProperties":false,"properties":{
  "gate_id":{"type":"string","minLength":1},"decision":{"enum":["approved","rejected"]},
  "by":{"type":"object","required":["agent","role"],"additionalProperties":false,"properties":{"agent":{"type":"string","minLength":1},"role":{"type":"string","minLength":1}}},
  "note":{"type":"string","maxLength":2048},"run_status":{"enum":["failed"]}}}`
	return ledger.Vocabulary{
		Types: []ledger.TypeDef{
			{Name: TypeCreated, Schema: created, Signer: ledger.SignedByRuntime, Doc: "a run waits for a person"},
			{Name: TypeResolved, Schema: resolved, Signer: ledger.SignedByRuntime, Doc: "a person approved or rejected a gate"},
		},
		Rules: []ledger.RuleFunc{func() ledger.Rule { return &rule{} }},
	}
}

// rule's maps are made on a trace's first gate.
type rule struct {
	open map[string]string // gate id → run
	done map[string]bool
}

func (r *rule) Check(e *ledger.Event) error {
	switch e.Type {
	case TypeCreated, TypeResolved:
	default:
		return nil
	}
	id, err := gateID(e)
	if err != nil {
		return err
	}
	if e.Type == TypeCreated {
		if _, dup := r.open[id]; dup || r.done[id] {
			return fmt.Errorf("gate %s created twice", id)
		}
		if r.open == nil {
			r.open, r.done = make(map[string]string), make(map[string]bool)
		}
		r.open[id] = e.Run
		return nil
	}
	run, ok := r.open[id]
	if !ok {
		if r.done[id] {
			return fmt.Errorf("gate %s resolved twice", id)
		}
		return fmt.Errorf("gate %s resolved before it was created", id)
	}
	if run != e.Run {
		return fmt.Errorf("gate %s resolved in run %s, opened in %s", id, e.Run, run)
	}
	delete(r.open, id)
	r.done[id] = true
	return nil
}

func (r *rule) Finish() error { return nil }
