package sanad

import (
	"errors"
	"fmt"
)

// Code classifies an [Error]. The set is closed: every code a component may
// return is declared here, with whether a retry may succeed. Codes named by the
// specifications keep their exact spelling.
type Code string

// Codes shared by every component.
const (
	CodeInternal       Code = "INTERNAL"        // a bug or an invariant broken inside sanad
	CodeInvalidInput   Code = "INVALID_INPUT"   // the caller's input is malformed or fails its schema
	CodeNotFound       Code = "NOT_FOUND"       // the named run, trace, artifact or event does not exist
	CodeConflict       Code = "CONFLICT"        // the write raced another, or the id is taken
	CodePolicyDenied   Code = "POLICY_DENIED"   // policy refused the action
	CodeDependencyDown Code = "DEPENDENCY_DOWN" // a store, model or service could not be reached
	CodeTimeout        Code = "ERR_TIMEOUT"     // a deadline passed
	CodeCancelled      Code = "CANCELLED"       // the caller or an operator cancelled the work
	CodeIntegrity      Code = "INTEGRITY"       // stored or received data failed a hash, signature or chain check
	CodeUnavailable    Code = "UNAVAILABLE"     // the resource is busy or locked by another process
)

// Codes of the tool gateway (agent domain and debate specifications).
const (
	CodeToolNotFound     Code = "TOOL_NOT_FOUND"
	CodeToolAbuse        Code = "TOOL_ABUSE_RULES"
	CodeToolFailed       Code = "TOOL_FAILED"
	CodeApprovalRequired Code = "APPROVAL_REQUIRED"
	CodeBlocked          Code = "BLOCKED"
	CodeClaimNotFound    Code = "CLAIM_NOT_FOUND"
	CodeTenantAccess     Code = "TENANT_ACCESS"
	CodeMuhasabahGate    Code = "MUHASABAH_GATE"
	CodeDelegation       Code = "DELEGATION_REFUSED"
)

// Codes of the retrieval agents (RAG specification), spelled as it spells them.
const (
	CodeGuardrailInjection  Code = "ERR_GUARDRAIL_INJECTION"
	CodeGuardrailUnsafe     Code = "ERR_GUARDRAIL_UNSAFE"
	CodeConnectorAuth       Code = "ERR_CONNECTOR_AUTH"
	CodeConnectorNotFound   Code = "ERR_CONNECTOR_NOT_FOUND"
	CodeParserEncrypted     Code = "ERR_PARSER_ENCRYPTED"
	CodeParserUnsupported   Code = "ERR_PARSER_UNSUPPORTED"
	CodeMemoryNoResults     Code = "ERR_MEMORY_NO_RESULTS"
	CodeTailorHallucination Code = "ERR_TAILOR_HALLUCINATION"
)

// Codes of model providers.
const (
	CodeModelAuth      Code = "MODEL_AUTH"
	CodeModelRateLimit Code = "MODEL_RATE_LIMIT"
	CodeModelOutput    Code = "MODEL_OUTPUT_INVALID"
	// CodeTurnLimit: an agent's model asked for tools in every turn it was
	// allowed and never gave its answer.
	CodeTurnLimit Code = "AGENT_TURN_LIMIT"
)

var retryable = map[Code]bool{
	CodeInternal:            false,
	CodeInvalidInput:        false,
	CodeNotFound:            false,
	CodeConflict:            true,
	CodePolicyDenied:        false,
	CodeDependencyDown:      true,
	CodeTimeout:             true,
	CodeCancelled:           false,
	CodeIntegrity:           false,
	CodeUnavailable:         true,
	CodeToolNotFound:        false,
	CodeToolAbuse:           false,
	CodeToolFailed:          false,
	CodeApprovalRequired:    false,
	CodeBlocked:             false,
	CodeClaimNotFound:       false,
	CodeTenantAccess:        false,
	CodeMuhasabahGate:       false,
	CodeDelegation:          false,
	CodeGuardrailInjection:  false,
	CodeGuardrailUnsafe:     true,
	CodeConnectorAuth:       false,
	CodeConnectorNotFound:   false,
	CodeParserEncrypted:     false,
	CodeParserUnsupported:   false,
	CodeMemoryNoResults:     false,
	CodeTailorHallucination: true,
	CodeModelAuth:           false,
	CodeModelRateLimit:      true,
	CodeModelOutput:         true,
	CodeTurnLimit:           false,
}

// Codes returns every declared code, for documentation and exhaustive tests.
func Codes() []Code {
	out := make([]Code, 0, len(retryable))
	for c := range retryable {
		out = append(out, c)
	}
	return out
}

// Known reports whether c is one of the declared codes.
func (c Code) Known() bool { _, ok := retryable[c]; return ok }

// Retryable reports whether an operation that failed with c may succeed when
// tried again unchanged. Unknown codes are not retryable.
func (c Code) Retryable() bool { return retryable[c] }

// MaxMessageBytes bounds [Error.Message], so an error recorded in a run never
// carries a document or a stack with it.
const MaxMessageBytes = 512

// Error is the one application error type of sanad. Code says what kind of
// failure it is, Op where it happened, Message what a user should read, and Err
// the underlying cause (kept for errors.Is and logs, never shown verbatim).
type Error struct {
	Code    Code
	Op      string
	Message string
	Err     error
}

// Errorf returns an *Error with a formatted message. Wrapped errors in args
// are formatted, not chained: use [Wrap] to keep a cause.
func Errorf(code Code, op, format string, args ...any) *Error {
	return &Error{Code: code, Op: op, Message: bound(fmt.Sprintf(format, args...))}
}

// Wrap returns an *Error with code and message that keeps err as its cause.
func Wrap(err error, code Code, op, message string) *Error {
	return &Error{Code: code, Op: op, Message: bound(message), Err: err}
}

func (e *Error) Error() string {
	msg := e.Message
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	if e.Op == "" {
		return fmt.Sprintf("%s: %s", e.Code, msg)
	}
	return fmt.Sprintf("%s: %s: %s", e.Op, e.Code, msg)
}

func (e *Error) Unwrap() error { return e.Err }

// Retryable reports whether the failure may pass on a retry.
func (e *Error) Retryable() bool { return e.Code.Retryable() }

// ErrorCode returns the code of the first *Error in err's chain, CodeInternal
// for any other non-nil error, and "" for nil.
func ErrorCode(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// ErrorMessage returns the user-facing message of err: the message of its
// first *Error, or a generic text for errors sanad did not classify.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		if e.Message != "" {
			return e.Message
		}
		if e.Err != nil {
			return bound(e.Err.Error())
		}
	}
	if err == nil {
		return ""
	}
	return bound(err.Error())
}

// IsRetryable reports whether err is an *Error with a retryable code.
func IsRetryable(err error) bool { return ErrorCode(err).Retryable() }

// bound truncates s to MaxMessageBytes on a UTF-8 boundary.
func bound(s string) string { return boundTo(s, MaxMessageBytes) }

// boundTo truncates s to n bytes on a UTF-8 boundary, ending it with "…".
func boundTo(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
