package runs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/ledger"
)

// Recorder starts and ends runs in a ledger. It is safe for concurrent use.
type Recorder struct {
	Ledger *ledger.Ledger
	// NewID returns a fresh run id (NewID when nil).
	NewID func() string
	// Now returns the time (time.Now when nil).
	Now func() time.Time
}

// NewID returns a random, time-ordered run id: "r" and 26 hex digits, the
// first 10 from the clock in milliseconds.
func NewID() string {
	var b [13]byte
	ms := uint64(time.Now().UnixMilli())
	for i := 4; i >= 0; i-- {
		b[i] = byte(ms)
		ms >>= 8
	}
	_, _ = rand.Read(b[5:])
	return "r" + hex.EncodeToString(b[:])
}

// Spec describes a run to start.
type Spec struct {
	Kind   sanad.RunKind
	Parent *Run // nil for a root run, which starts a new trace
	Scope  sanad.Scope
	// Agent is the acting identity; Role its role.
	Agent         string
	Role          string
	CorrelationID string
	// PolicyVersions pinned for the run (contract v1 §1).
	PolicyVersions   map[string]sanad.PolicyVersion
	TaxonomyVersions map[string]string
	Inputs           []sanad.ArtifactRef
	// Request is the hashable request (parameters); its normalized hash is
	// recorded as request_hash. Nil records no request hash.
	Request any
	// Decision is the authorization decision for starting the run. Action
	// defaults to "run:<kind>".
	Decision Decision
	// Also are events of the run recorded in the same commit as its start,
	// after the decision, when it allows the run: what the run must never
	// exist without (a workflow's definition).
	Also []Event
	// Hold has Begin queue the start with ledger.Hold: the caller will wait
	// for a later event of the run, and the start commits with it.
	Hold bool
}

// Event is an event of a run before it is recorded: its type, the agent that
// signs it ("" for the runtime), its body and the artifacts it cites.
type Event struct {
	Type  string
	Agent string
	Body  any
	Refs  []sanad.ArtifactRef
}

// Run is a started run. Its methods append to the run's trace.
type Run struct {
	rec    *Recorder
	Record sanad.Run
	role   string
	ended  bool
	// attached says the run was started before this Run was made (by
	// Attach, for a resume): what it did so far is in the ledger, not in
	// this process's memory.
	attached bool
}

// Attached reports whether the run was started before this Run was made:
// a run resumed, whose earlier work only the ledger knows.
func (r *Run) Attached() bool { return r.attached }

// Start records run.started and the run's authz.decision. If the decision
// denies, it also records run.denied and returns the run (ended) with an
// error of code POLICY_DENIED.
func (r *Recorder) Start(ctx context.Context, s Spec) (*Run, error) {
	run, p, err := r.start(ctx, s, true)
	if err == nil && p != nil {
		// The outcome is awaited even if ctx ends: an error must mean
		// the start was not recorded.
		err = p.Wait(context.WithoutCancel(ctx))
	}
	if err != nil && run == nil {
		return nil, err
	}
	return run, err
}

// Begin is Start for a run that is allowed, without waiting for its start
// to be durable: the run's next events chain on it, and the caller waits
// for the returned Pending before anything depends on the start (an
// effect, a report). A denied run is recorded as Start records it, and
// waited for.
func (r *Recorder) Begin(ctx context.Context, s Spec) (*Run, *ledger.Pending, error) {
	return r.start(ctx, s, false)
}

func (r *Recorder) start(ctx context.Context, s Spec, wait bool) (*Run, *ledger.Pending, error) {
	const op = "runs.start"
	if !s.Kind.Valid() {
		return nil, nil, sanad.Errorf(sanad.CodeInvalidInput, op, "run kind %q is not valid", s.Kind)
	}
	if s.Agent == "" {
		return nil, nil, sanad.Errorf(sanad.CodeInvalidInput, op, "a run needs an acting agent")
	}
	newID := r.NewID
	if newID == nil {
		newID = NewID
	}
	now := r.Now
	if now == nil {
		now = time.Now
	}
	id := newID()
	rec := sanad.Run{
		ID: id, CorrelationID: s.CorrelationID, Kind: s.Kind, Scope: s.Scope, Agent: s.Agent,
		ContractVersion: sanad.ContractVersion, PolicyVersions: s.PolicyVersions, TaxonomyVersions: s.TaxonomyVersions,
		Inputs: s.Inputs, Status: sanad.StatusRunning, StartedAt: now().UTC(),
	}
	if s.Parent != nil {
		p := s.Parent.Record
		rec.ParentID, rec.RootID, rec.Trace = p.ID, p.RootID, p.Trace
		if rec.CorrelationID == "" {
			rec.CorrelationID = p.CorrelationID
		}
		if rec.PolicyVersions == nil {
			rec.PolicyVersions = p.PolicyVersions
		}
	} else {
		rec.RootID, rec.Trace = id, id
	}
	if s.Request != nil {
		h, err := canon.RequestHash(s.Request)
		if err != nil {
			return nil, nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, "request is not hashable JSON")
		}
		rec.RequestHash = h.String()
	}
	run := &Run{rec: r, Record: rec, role: s.Role}
	d := s.Decision
	d.Principal = Principal{Agent: s.Agent, Role: s.Role}
	if d.Action == "" {
		d.Action = "run:" + string(s.Kind)
	}
	if d.Reason == "" {
		d.Reason = "no reason given"
	}
	if d.PolicyVersions == nil {
		d.PolicyVersions = rec.PolicyVersions
	}
	// The start, the decision and, for a denial, the end commit together.
	drafts := []ledger.Draft{
		run.draft(TypeStarted, "", StartedBody{Run: rec}, s.Inputs, s.Parent == nil),
		run.draft(TypeAuthz, "", d, nil, false),
	}
	var derr error
	if d.Allow {
		for _, e := range s.Also {
			drafts = append(drafts, run.draft(e.Type, e.Agent, e.Body, e.Refs, false))
		}
	}
	if !d.Allow {
		derr = sanad.Errorf(sanad.CodePolicyDenied, op, "%s", d.Reason)
		body := EndedBody{Status: sanad.StatusDenied, Outcome: sanad.StatusDenied.Outcome(), Error: sanad.NewRunError(derr)}
		drafts = append(drafts, run.draft(TypeDenied, "", body, nil, false))
	}
	if wait || derr != nil {
		evs, err := r.Ledger.AppendAll(ctx, drafts...)
		if err != nil {
			return nil, nil, err
		}
		if derr != nil {
			run.ended = true
			run.Record.Status, run.Record.Error, run.Record.EndedAt = sanad.StatusDenied, sanad.NewRunError(derr), evs[2].Time
			return run, nil, derr
		}
		return run, nil, nil
	}
	enqueue := r.Ledger.Enqueue
	if s.Hold {
		enqueue = r.Ledger.Hold
	}
	p, err := enqueue(ctx, drafts...)
	if err != nil {
		return nil, nil, err
	}
	return run, p, nil
}

// Append records an event of this run, signed by agent ("" for the runtime).
func (run *Run) Append(ctx context.Context, typ, agent string, body any, refs []sanad.ArtifactRef) (*ledger.Event, error) {
	if run.ended {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, "runs.append", "run %s has ended", run.Record.ID)
	}
	return run.append(ctx, typ, agent, body, refs)
}

// AppendAll records events of this run together: all are durable when it
// returns, or none is written.
func (run *Run) AppendAll(ctx context.Context, events ...Event) ([]*ledger.Event, error) {
	if run.ended {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, "runs.append", "run %s has ended", run.Record.ID)
	}
	drafts := make([]ledger.Draft, len(events))
	for i, e := range events {
		drafts[i] = run.draft(e.Type, e.Agent, e.Body, e.Refs, false)
	}
	return run.rec.Ledger.AppendAll(ctx, drafts...)
}

// Enqueue seals events of this run and queues them for commit without
// waiting; see ledger.Ledger.Enqueue.
func (run *Run) Enqueue(ctx context.Context, events ...Event) (*ledger.Pending, error) {
	return run.enqueue(ctx, run.rec.Ledger.Enqueue, events)
}

// Hold is Enqueue for events the caller follows with one it waits for; see
// ledger.Ledger.Hold.
func (run *Run) Hold(ctx context.Context, events ...Event) (*ledger.Pending, error) {
	return run.enqueue(ctx, run.rec.Ledger.Hold, events)
}

func (run *Run) enqueue(ctx context.Context, enqueue func(context.Context, ...ledger.Draft) (*ledger.Pending, error), events []Event) (*ledger.Pending, error) {
	if run.ended {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, "runs.append", "run %s has ended", run.Record.ID)
	}
	drafts := make([]ledger.Draft, len(events))
	for i, e := range events {
		drafts[i] = run.draft(e.Type, e.Agent, e.Body, e.Refs, false)
	}
	return enqueue(ctx, drafts...)
}

func (run *Run) append(ctx context.Context, typ, agent string, body any, refs []sanad.ArtifactRef) (*ledger.Event, error) {
	return run.appendDraft(ctx, typ, agent, body, refs, false)
}

func (run *Run) appendDraft(ctx context.Context, typ, agent string, body any, refs []sanad.ArtifactRef, newTrace bool) (*ledger.Event, error) {
	return run.rec.Ledger.Append(ctx, run.draft(typ, agent, body, refs, newTrace))
}

// draft is an event of this run, signed by agent ("" for the runtime).
func (run *Run) draft(typ, agent string, body any, refs []sanad.ArtifactRef, newTrace bool) ledger.Draft {
	rec := run.Record
	role := ""
	if agent == rec.Agent {
		role = run.role
	}
	return ledger.Draft{
		Trace: rec.Trace, Type: typ, Run: rec.ID, Parent: rec.ParentID, Root: rec.RootID,
		Agent: agent, Role: role, Scope: rec.Scope, Body: body, Refs: refs, NewTrace: newTrace,
	}
}

// Complete ends the run with its outputs and the normalized hash of its
// response payload (nil for none). The acting agent signs the outputs.
func (run *Run) Complete(ctx context.Context, outputs []sanad.ArtifactRef, response any) error {
	return run.end(ctx, sanad.StatusCompleted, outputs, response, nil)
}

// Fail ends the run as failed with err's bounded form.
func (run *Run) Fail(ctx context.Context, cause error) error {
	return run.end(ctx, sanad.StatusFailed, nil, nil, cause)
}

// Cancel ends the run as cancelled.
func (run *Run) Cancel(ctx context.Context, reason string) error {
	return run.end(ctx, sanad.StatusCancelled, nil, nil, sanad.Errorf(sanad.CodeCancelled, "runs.cancel", "%s", reason))
}

var agentKinds = map[sanad.RunKind]bool{sanad.KindAgent: true, sanad.KindWorkflow: true, sanad.KindSession: true}

// Ended reports whether the run has its terminal event.
func (run *Run) Ended() bool { return run.ended }

func (run *Run) end(ctx context.Context, status sanad.RunStatus, outputs []sanad.ArtifactRef, response any, cause error) error {
	p, err := run.Conclude(ctx, status, outputs, response, cause)
	if err != nil {
		return err
	}
	// As in Start: an error must mean the end was not recorded.
	return p.Wait(context.WithoutCancel(ctx))
}

// Conclude queues the run's terminal event with status (completed, failed
// or cancelled), its outputs, the normalized hash of its response (nil for
// none) and the cause of a failure, without waiting for it: the run counts
// as ended, and the caller waits for the returned Pending before it reports
// the end. If the Pending fails, the end was not recorded and this handle
// must not be used again.
func (run *Run) Conclude(ctx context.Context, status sanad.RunStatus, outputs []sanad.ArtifactRef, response any, cause error) (*ledger.Pending, error) {
	const op = "runs.end"
	if run.ended {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "run %s has already ended", run.Record.ID)
	}
	typ, ok := TerminalType(status)
	if !ok || status == sanad.StatusDenied {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "status %q does not end a run this way", status)
	}
	body := EndedBody{Status: status, Outcome: status.Outcome(), Outputs: outputs, Error: sanad.NewRunError(cause)}
	if response != nil {
		h, err := canon.RequestHash(response)
		if err != nil {
			return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, "response is not hashable JSON")
		}
		body.ResponseHash = h.String()
	}
	// An agent signs the outputs of its own run; the outcome of a privileged
	// child run (tool_gateway, db_write, promotion, export, model_call) is
	// what the runtime did, and the runtime signs it.
	signer := ""
	if status == sanad.StatusCompleted && agentKinds[run.Record.Kind] {
		signer = run.Record.Agent
		if signer == run.rec.Ledger.RuntimeIdentity() {
			signer = ""
		}
	}
	p, err := run.rec.Ledger.Enqueue(ctx, run.draft(typ, signer, body, outputs, false))
	if err != nil {
		return nil, err
	}
	run.ended = true
	run.Record.Status, run.Record.Outputs, run.Record.ResponseHash, run.Record.Error, run.Record.EndedAt = status, outputs, body.ResponseHash, body.Error, p.Events()[0].Time
	return p, nil
}

// Attach returns a handle on a run that is still running, from its projected
// record, so another process (an operator resolving a gate, a resumed
// workflow) can append to it. The ledger's lifecycle rule refuses appends if
// the run has in fact ended.
func (r *Recorder) Attach(rec sanad.Run, role string) (*Run, error) {
	if rec.Status != sanad.StatusRunning {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, "runs.attach", "run %s is %s, not running", rec.ID, rec.Status)
	}
	return &Run{rec: r, Record: rec, role: role, attached: true}, nil
}
