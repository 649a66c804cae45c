package tool

import (
	"bytes"
	"encoding/json"

	"github.com/sanadhq/sanad"
)

// Result is the outcome of one [Gateway.Call], returned by value. Its fields
// are copies; the output is held privately and read with [Result.Output],
// which returns a fresh copy each time, so nothing a caller does to what it
// got can change what is stored or what a later call of Output returns
// (INV-TOOL-002).
type Result struct {
	Success bool       `json:"success"`
	Code    sanad.Code `json:"code,omitempty"` // empty on success
	// Message says why the call did not succeed, bounded.
	Message string `json:"message,omitempty"`
	Tool    string `json:"tool"`
	CallID  string `json:"call_id,omitempty"`
	// Run is the tool_gateway run the call executed in; empty for a call
	// refused before it was let through.
	Run string `json:"run_id,omitempty"`
	// InputHash is the normalized hash of the input, when it was JSON.
	InputHash string `json:"input_hash,omitempty"`
	// ResultHash is the hash of the canonical output ("sha256:…"), on
	// success.
	ResultHash string `json:"result_hash,omitempty"`
	// InputRef and OutputRef are the artifacts holding the canonical input
	// and output; zero when not stored.
	InputRef  sanad.ArtifactRef `json:"-"`
	OutputRef sanad.ArtifactRef `json:"-"`
	// Attempts is how many times the tool's code ran.
	Attempts int `json:"attempts,omitempty"`

	output []byte // canonical JSON; never handed out, only copies of it
	cause  error  // the error behind a failure, when there is one: for Err
}

// Output returns the tool's output in canonical JSON, a new copy on each
// call; nil unless the call succeeded.
func (r Result) Output() json.RawMessage { return bytes.Clone(r.output) }

// Err returns nil for a successful call, and otherwise a *sanad.Error with
// the result's code and message. Its cause is the error the call failed
// with (the tool's own, a context's, a *sanad.PanicError…), for errors.Is and
// errors.As; a call refused by the gateway's own checks has none.
func (r Result) Err() error {
	if r.Success {
		return nil
	}
	return sanad.Wrap(r.cause, r.Code, "tool.call", r.Message)
}

// because returns r with cause as the error behind its failure.
func (r Result) because(cause error) Result {
	r.cause = cause
	return r
}

// MarshalJSON encodes the result with its output, as an API returns it:
// {"success":false,"code":"TOOL_NOT_FOUND","tool":"…",…}.
func (r Result) MarshalJSON() ([]byte, error) {
	type plain Result // without the method
	return json.Marshal(struct {
		plain
		Output json.RawMessage `json:"output,omitempty"`
	}{plain(r), r.output})
}
