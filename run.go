package sanad

import (
	"errors"
	"time"
)

// ContractVersion is the agent interface contract every run pins.
const ContractVersion = "v1"

// RunKind says what a run does. Agent work happens in agent runs; anything that
// touches the outside world happens in a child run of a privileged kind.
type RunKind string

// The run kinds of contract v1 §1 and the architecture.
const (
	KindAgent       RunKind = "agent"
	KindWorkflow    RunKind = "workflow"
	KindSession     RunKind = "session"
	KindToolGateway RunKind = "tool_gateway"
	KindDBWrite     RunKind = "db_write"
	KindPromotion   RunKind = "promotion"
	KindExport      RunKind = "export"
	KindModelCall   RunKind = "model_call"
)

// Valid reports whether k is a declared kind.
func (k RunKind) Valid() bool {
	switch k {
	case KindAgent, KindWorkflow, KindSession, KindToolGateway, KindDBWrite, KindPromotion, KindExport, KindModelCall:
		return true
	}
	return false
}

// RunStatus is where a run is in its lifecycle:
// pending → running → completed | failed | denied | cancelled.
type RunStatus string

// The run statuses.
const (
	StatusPending   RunStatus = "pending"
	StatusRunning   RunStatus = "running"
	StatusCompleted RunStatus = "completed"
	StatusFailed    RunStatus = "failed"
	StatusDenied    RunStatus = "denied"
	StatusCancelled RunStatus = "cancelled"
)

// Terminal reports whether s ends a run.
func (s RunStatus) Terminal() bool {
	switch s {
	case StatusCompleted, StatusFailed, StatusDenied, StatusCancelled:
		return true
	}
	return false
}

// Outcome is the response outcome of contract v1 §2.2 for a terminal status.
func (s RunStatus) Outcome() string {
	switch s {
	case StatusCompleted:
		return "success"
	case StatusDenied:
		return "deny"
	case StatusPending, StatusRunning:
		return ""
	}
	return "failure"
}

// PolicyVersion pins one policy file: its declared version and the SHA-256 of
// its content, so a run can be re-checked against exactly the rules it ran under.
type PolicyVersion struct {
	Version string `json:"version"`
	SHA256  string `json:"sha256"`
}

// RunError is the bounded error a failed run records (contract v1 §2.2).
type RunError struct {
	Code      Code   `json:"code"`
	Message   string `json:"message"`
	Retryable bool   `json:"retryable"`
	// Stack is the stack of the panic that caused the failure (see
	// [PanicError]), bounded to MaxStackBytes; empty when none did.
	Stack string `json:"stack,omitempty"`
}

// NewRunError converts err to the bounded form a run records. A
// [PanicError] in err's chain gives its stack.
func NewRunError(err error) *RunError {
	if err == nil {
		return nil
	}
	code := ErrorCode(err)
	re := &RunError{Code: code, Message: ErrorMessage(err), Retryable: code.Retryable()}
	var pe *PanicError
	if errors.As(err, &pe) {
		re.Stack = boundTo(pe.Stack, MaxStackBytes)
	}
	return re
}

// Run is one unit of governed execution. The runs table is a projection of
// the ledger: every field here is set by a run.started event or a terminal
// event, never written directly.
type Run struct {
	ID               string                   `json:"run_id"`
	ParentID         string                   `json:"parent_run_id,omitempty"`
	RootID           string                   `json:"root_run_id"`
	CorrelationID    string                   `json:"correlation_id,omitempty"`
	Trace            string                   `json:"trace"`
	Kind             RunKind                  `json:"kind"`
	Scope            Scope                    `json:"scope"`
	Agent            string                   `json:"agent"`
	ContractVersion  string                   `json:"contract_version"`
	PolicyVersions   map[string]PolicyVersion `json:"policy_versions,omitempty"`
	TaxonomyVersions map[string]string        `json:"taxonomy_versions,omitempty"`
	Inputs           []ArtifactRef            `json:"inputs,omitempty"`
	Outputs          []ArtifactRef            `json:"outputs,omitempty"`
	RequestHash      string                   `json:"request_hash,omitempty"`
	ResponseHash     string                   `json:"response_hash,omitempty"`
	Status           RunStatus                `json:"status"`
	Error            *RunError                `json:"error,omitempty"`
	StartedAt        time.Time                `json:"started_at"`
	EndedAt          time.Time                `json:"ended_at,omitzero"`
}
