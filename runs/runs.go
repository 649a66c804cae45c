// Package runs records governed runs in the ledger and projects them back.
//
// A run starts with a run.started event carrying its full record and an
// authz.decision event, and ends with exactly one terminal event
// (run.completed, run.failed, run.denied or run.cancelled). The runs table a
// store keeps is a projection of those events ([Compose]); it can be dropped
// and rebuilt from the ledger at any time.
package runs

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/sanadhq/sanad"
)

// Event types of the run lifecycle.
const (
	TypeStarted   = "run.started"
	TypeAuthz     = "authz.decision"
	TypeCompleted = "run.completed"
	TypeFailed    = "run.failed"
	TypeDenied    = "run.denied"
	TypeCancelled = "run.cancelled"
)

// TerminalType returns the event type that ends a run with status s.
func TerminalType(s sanad.RunStatus) (string, bool) {
	switch s {
	case sanad.StatusCompleted:
		return TypeCompleted, true
	case sanad.StatusFailed:
		return TypeFailed, true
	case sanad.StatusDenied:
		return TypeDenied, true
	case sanad.StatusCancelled:
		return TypeCancelled, true
	}
	return "", false
}

// StartedBody is the body of run.started: the run's record as it starts.
type StartedBody struct {
	Run sanad.Run `json:"run"`
}

// Decision is the body of authz.decision: who asked to do what, and the
// answer with its reason and the policy versions it was made under.
type Decision struct {
	Allow          bool                           `json:"allow"`
	Reason         string                         `json:"reason"`
	Rule           string                         `json:"rule,omitempty"`
	Principal      Principal                      `json:"principal"`
	Action         string                         `json:"action"`
	Resource       string                         `json:"resource,omitempty"`
	PolicyVersions map[string]sanad.PolicyVersion `json:"policy_versions,omitempty"`
}

// Principal is the subject of a decision.
type Principal struct {
	Agent string `json:"agent"`
	Role  string `json:"role,omitempty"`
}

// EndedBody is the body of a terminal event.
type EndedBody struct {
	Status       sanad.RunStatus     `json:"status"`
	Outcome      string              `json:"outcome"`
	Outputs      []sanad.ArtifactRef `json:"outputs,omitempty"`
	ResponseHash string              `json:"response_hash,omitempty"`
	Error        *sanad.RunError     `json:"error,omitempty"`
}

// Compose builds a run's record from the body of its run.started event and,
// once it has ended, the body and time of its terminal event (ended nil
// otherwise). Stores keep these two bodies and compose on read.
func Compose(started, ended json.RawMessage, endedAt time.Time) (sanad.Run, error) {
	var b StartedBody
	if err := json.Unmarshal(started, &b); err != nil {
		return sanad.Run{}, fmt.Errorf("runs: run.started body: %w", err)
	}
	r := b.Run
	if ended == nil {
		return r, nil
	}
	var e EndedBody
	if err := json.Unmarshal(ended, &e); err != nil {
		return sanad.Run{}, fmt.Errorf("runs: terminal body: %w", err)
	}
	r.Status, r.Outputs, r.ResponseHash, r.Error, r.EndedAt = e.Status, e.Outputs, e.ResponseHash, e.Error, endedAt.UTC()
	return r, nil
}

// StatusOf returns the status a run event leaves its run in, and whether the
// event type is a run lifecycle event at all.
func StatusOf(eventType string) (sanad.RunStatus, bool) {
	switch eventType {
	case TypeStarted:
		return sanad.StatusRunning, true
	case TypeCompleted:
		return sanad.StatusCompleted, true
	case TypeFailed:
		return sanad.StatusFailed, true
	case TypeDenied:
		return sanad.StatusDenied, true
	case TypeCancelled:
		return sanad.StatusCancelled, true
	}
	return "", false
}
