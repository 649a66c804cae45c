// Package runs records governed runs in the ledger and projects them back.
//
// A run starts with a run.started event carrying its full record and an
// authz.decision event, and ends with exactly one terminal event
// (run.completed, run.failed, run.denied or run.cancelled). The runs table a
// store keeps is a projection of those events ([Project]); it can be dropped
// and rebuilt from the ledger at any time.
package runs

import (
	"encoding/json"
	"fmt"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/ledger"
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

// Project applies a run event to the run's projected record. cur is the
// record so far (nil before run.started). It returns the new record and
// whether ev concerned a run at all.
func Project(cur *sanad.Run, ev *ledger.Event) (*sanad.Run, bool, error) {
	switch ev.Type {
	case TypeStarted:
		var b StartedBody
		if err := json.Unmarshal(ev.Body, &b); err != nil {
			return nil, true, fmt.Errorf("runs: %s body: %w", ev.Type, err)
		}
		r := b.Run
		return &r, true, nil
	case TypeCompleted, TypeFailed, TypeDenied, TypeCancelled:
		if cur == nil {
			return nil, true, fmt.Errorf("runs: %s for unknown run %s", ev.Type, ev.Run)
		}
		var b EndedBody
		if err := json.Unmarshal(ev.Body, &b); err != nil {
			return nil, true, fmt.Errorf("runs: %s body: %w", ev.Type, err)
		}
		r := *cur
		r.Status, r.Outputs, r.ResponseHash, r.Error, r.EndedAt = b.Status, b.Outputs, b.ResponseHash, b.Error, ev.Time
		return &r, true, nil
	}
	return cur, false, nil
}
