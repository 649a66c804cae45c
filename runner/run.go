package runner

import (
	"context"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/runs"
	"github.com/sanadhq/sanad/workflow"
)

// Options are the settings of one run.
type Options struct {
	// Scope is the tenant and case the run acts for and on ({default,
	// default} when zero).
	Scope         sanad.Scope
	CorrelationID string
	// Caller and Reason say who started the run and how, recorded in its
	// authorization ("runner" and "started through the runner" when
	// empty).
	Caller string
	Reason string
	// TaxonomyVersions are the taxonomies the run pins (contract v1 §2.1:
	// coa, tags, entities), recorded on it and on its agents' runs with
	// the playbook's policy versions.
	TaxonomyVersions map[string]string
}

// Result is where a workflow run stands when Run, Resume or Replay returns.
type Result struct {
	workflow.Result
	Playbook string `json:"playbook"`
	// Mode is the mode its agents ran in.
	Mode string `json:"mode"`
}

// Run records a run of the workflow of the playbook name, with input (a JSON
// object, or a Go value that encodes as one; nil for the workflow's own),
// and runs it to its end or to a gate it waits on. The run's failure is in
// the Result (see [workflow.Result.Err]); the error is for a run that could
// not be recorded or was denied.
func (r *Runner) Run(ctx context.Context, name string, input any, opt Options) (_ Result, err error) {
	var res workflow.Result
	const op = "runner.run"
	b, err := r.book(name)
	if err != nil {
		return Result{}, err
	}
	if b.pb.Workflow == nil {
		return Result{}, sanad.Errorf(sanad.CodeInvalidInput, op, "playbook %s runs as a session, not a workflow: start it with StartSession", name)
	}
	in, err := inputJSON(input)
	if err != nil {
		return Result{}, err
	}
	if err := b.wire(); err != nil {
		return Result{}, err
	}
	scope := opt.Scope
	if scope == (sanad.Scope{}) {
		scope = sanad.Scope{Tenant: "default", Case: "default"}
	}
	caller, reason := opt.Caller, opt.Reason
	if caller == "" {
		caller = "runner"
	}
	if reason == "" {
		reason = "playbook " + name + " started through the runner"
	}
	var release func(ended bool)
	defer func() {
		if release != nil {
			release(ended(res.Status))
		}
	}()
	res, err = b.engine.Start(ctx, b.pb.Workflow, in, workflow.Options{
		Scope: scope, CorrelationID: opt.CorrelationID, Playbook: name,
		PolicyVersions: b.policy.Versions(), TaxonomyVersions: opt.TaxonomyVersions,
		Decision: runs.Decision{Allow: true, Rule: caller, Reason: reason, PolicyVersions: b.policy.Versions()},
		Started: func(id string) (err error) {
			release, err = r.hold(id)
			return err
		},
	})
	return Result{Result: res, Playbook: name, Mode: b.mode()}, err
}

// bookOf returns the playbook a workflow run was started as, from its
// record.
func (r *Runner) bookOf(ctx context.Context, runID string) (*book, error) {
	d, err := r.Describe(ctx, runID)
	if err != nil {
		return nil, err
	}
	name := d.Playbook
	if name == "" {
		name = d.Name
	}
	b, err := r.book(name)
	if err != nil {
		return nil, sanad.Errorf(sanad.CodeNotFound, "runner", "run %s belongs to the playbook %s, which this runner does not have: register it first", runID, name)
	}
	return b, nil
}

// Describe returns what a workflow run's record says it is: its playbook,
// workflow definition and input. A run that is not a workflow run is
// INVALID_INPUT; an unknown one NOT_FOUND.
func (r *Runner) Describe(ctx context.Context, runID string) (workflow.DefinedBody, error) {
	rec, err := r.home.DB.Run(ctx, runID)
	if err != nil {
		return workflow.DefinedBody{}, err
	}
	if rec.Kind != sanad.KindWorkflow {
		return workflow.DefinedBody{}, sanad.Errorf(sanad.CodeInvalidInput, "runner.describe", "run %s is a %s run, not a workflow run", runID, rec.Kind)
	}
	evs, err := r.events(ctx, rec.Trace)
	if err != nil {
		return workflow.DefinedBody{}, err
	}
	return workflow.Defined(evs, rec.ID)
}

// Resume goes on with a workflow run that stopped before its end (a crash,
// an interrupt, a gate now resolved), from its latest checkpoint: no step
// that completed runs again, and no recorded tool or model call is made
// again. Its playbook must be registered. A run that has ended is CONFLICT.
func (r *Runner) Resume(ctx context.Context, runID string) (Result, error) {
	b, err := r.bookOf(ctx, runID)
	if err != nil {
		return Result{}, err
	}
	if err := b.wire(); err != nil {
		return Result{}, err
	}
	release, err := r.hold(runID)
	if err != nil {
		return Result{}, err
	}
	res, err := b.engine.Resume(ctx, runID)
	release(ended(res.Status))
	return Result{Result: res, Playbook: b.pb.Name, Mode: b.mode()}, err
}

// Replay runs a workflow run again from its record, recording nothing and
// calling no tool or model: every effect's result is read from the record.
// A step that gives another output than the recorded one is INTEGRITY.
func (r *Runner) Replay(ctx context.Context, runID string) (Result, error) {
	b, err := r.bookOf(ctx, runID)
	if err != nil {
		return Result{}, err
	}
	if err := b.wire(); err != nil {
		return Result{}, err
	}
	res, err := b.engine.Replay(ctx, runID)
	return Result{Result: res, Playbook: b.pb.Name, Mode: b.mode()}, err
}

// Cancel ends a workflow run that no process is running (stopped by a
// crash, or waiting on a gate) as cancelled.
func (r *Runner) Cancel(ctx context.Context, runID, reason string) error {
	b, err := r.bookOf(ctx, runID)
	if err != nil {
		return err
	}
	if err := b.wire(); err != nil {
		return err
	}
	release, err := r.hold(runID)
	if err != nil {
		return err
	}
	err = b.engine.Cancel(ctx, runID, reason)
	release(err == nil)
	return err
}

// ended reports whether status is one a run ends in.
func ended(status sanad.RunStatus) bool {
	switch status {
	case sanad.StatusCompleted, sanad.StatusFailed, sanad.StatusDenied, sanad.StatusCancelled:
		return true
	}
	return false
}
