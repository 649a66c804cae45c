package tool

import (
	"context"
	"encoding/json"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/runs"
)

// Open is a call's attempt that has a tool.started event and no outcome: the
// process running it stopped. Its run is still running.
type Open struct {
	Started StartedBody
	Run     string // the tool_gateway run of the attempt
}

// Interrupted reports the attempt of a tool call that started but has no
// outcome among events, the events of one trace in order: the calls a
// process left open when it stopped. The result is keyed by idempotency key.
func Interrupted(events []*ledger.Event) (map[string]Open, error) {
	open := make(map[string]Open)
	for _, e := range events {
		switch e.Type {
		case TypeStarted:
			var b StartedBody
			if err := json.Unmarshal(e.Body, &b); err != nil {
				return nil, sanad.Wrap(err, sanad.CodeIntegrity, "tool.interrupted", "tool.started body")
			}
			open[b.Key] = Open{Started: b, Run: e.Run}
		case TypeCompleted, TypeFailed:
			var b CallInfo
			if err := json.Unmarshal(e.Body, &b); err != nil {
				return nil, sanad.Wrap(err, sanad.CodeIntegrity, "tool.interrupted", e.Type+" body")
			}
			delete(open, b.Key)
		}
	}
	return open, nil
}

// Interrupt ends an interrupted attempt in its run, still running: it records
// tool.failed for the attempt, CANCELLED and marked for retry so that the
// call may be executed again under the same idempotency key (with
// Request.PriorAttempts set to its attempt), and fails the run. Whether to
// execute it again is the caller's decision: an idempotent tool may be
// retried; any other needs a person's word that the effect did not happen.
func Interrupt(ctx context.Context, run *runs.Run, o Open) error {
	err := sanad.Errorf(sanad.CodeCancelled, "tool."+o.Started.Tool,
		"attempt %d of %s was interrupted: the process running it stopped before its outcome was recorded", o.Started.Attempt, o.Started.Tool)
	body := FailedBody{CallInfo: o.Started.CallInfo, Attempt: o.Started.Attempt, Status: sanad.CodeCancelled, Error: *sanad.NewRunError(err), Retry: true}
	if _, aerr := run.Append(ctx, TypeFailed, "", body, nil); aerr != nil {
		return aerr
	}
	return run.Fail(ctx, err)
}
