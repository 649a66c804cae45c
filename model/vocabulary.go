package model

import (
	"fmt"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/runs"
)

// TypeCall is the event that records one model call, in the model_call run
// of the call, signed by the runtime.
const TypeCall = "model.call"

// The statuses of a model.call event.
const (
	CallOK     = "ok"
	CallFailed = "failed"
)

// CallBody is the body of model.call: which model answered whom, the hashes
// of the prompt and of the reply (the SHA-256 of their canonical JSON, also
// the artifacts' digests), the tokens it used, how long it took and what it
// cost at the class's prices. A failed call has its error and no response;
// the usage of a failed call is what the provider reported before it failed
// (a reply that failed its schema twice, for one), often nothing.
type CallBody struct {
	Agent    string `json:"agent"`
	Class    string `json:"class"`
	Provider string `json:"provider"`
	Model    string `json:"model"`
	Status   string `json:"status"` // CallOK or CallFailed

	PromptHash   string             `json:"prompt_hash"`
	Prompt       sanad.ArtifactRef  `json:"prompt"`
	ResponseHash string             `json:"response_hash,omitempty"`
	Response     *sanad.ArtifactRef `json:"response,omitempty"`
	// ResponseID and RequestID are the provider's ids of the reply and of
	// the HTTP request, when it sent them.
	ResponseID   string       `json:"response_id,omitempty"`
	RequestID    string       `json:"request_id,omitempty"`
	FinishReason FinishReason `json:"finish_reason,omitempty"`

	Usage     UsageJSON `json:"usage"`
	LatencyMS int64     `json:"latency_ms"`
	// Cost is what the call cost at the prices of its class, in the
	// currency they are given in (0 when the class has none).
	Cost  float64         `json:"cost"`
	Error *sanad.RunError `json:"error,omitempty"`
}

const refSchema = `{"type":"object","required":["artifact_id","sha256","media_type","size_bytes","scope"],
 "properties":{"artifact_id":{"type":"string"},"sha256":{"type":"string","pattern":"^[0-9a-f]{64}$"},
  "media_type":{"type":"string","minLength":1},"size_bytes":{"type":"integer","minimum":0},
  "uri":{"type":"string"},"created_by_run":{"type":"string"},
  "scope":{"type":"object","required":["tenant"],"properties":{"tenant":{"type":"string"},"case":{"type":"string"}},"additionalProperties":false}},
 "additionalProperties":false}`

const hashSchema = `{"type":"string","pattern":"^sha256:[0-9a-f]{64}$"}`

const tokensSchema = `{"type":"integer","minimum":0}`

var callSchema = `{"type":"object","additionalProperties":false,
 "required":["agent","class","provider","model","status","prompt_hash","prompt","usage","latency_ms","cost"],
 "properties":{
  "agent":{"type":"string","minLength":1,"maxLength":128},
  "class":{"type":"string","minLength":1,"maxLength":32},
  "provider":{"enum":["` + ProviderOpenAI + `","` + ProviderAnthropic + `"]},
  "model":{"type":"string","minLength":1,"maxLength":256},
  "status":{"enum":["` + CallOK + `","` + CallFailed + `"]},
  "prompt_hash":` + hashSchema + `,"prompt":` + refSchema + `,
  "response_hash":` + hashSchema + `,"response":` + refSchema + `,
  "response_id":{"type":"string","maxLength":256},"request_id":{"type":"string","maxLength":256},
  "finish_reason":{"type":"string","maxLength":64},
  "usage":{"type":"object","additionalProperties":false,"required":["input_tokens","output_tokens","total_tokens"],
   "properties":{"input_tokens":` + tokensSchema + `,"output_tokens":` + tokensSchema + `,"total_tokens":` + tokensSchema + `}},
  "latency_ms":{"type":"integer","minimum":0},
  "cost":{"type":"number","minimum":0},
  "error":{"type":"object","required":["code","message","retryable"],"additionalProperties":false,
   "properties":{"code":{"type":"string","minLength":1},"message":{"type":"string","maxLength":512},"retryable":{"type":"boolean"},"stack":{"type":"string","maxLength":8192}}}},
 "if":{"properties":{"status":{"const":"` + CallOK + `"}}},
 "then":{"required":["response_hash","response"],"not":{"required":["error"]}},
 "else":{"required":["error"],"not":{"anyOf":[{"required":["response_hash"]},{"required":["response"]}]}}}`

// Vocabulary declares the model.call event and the rule that places it: in a
// model_call run, once.
func Vocabulary() ledger.Vocabulary {
	return ledger.Vocabulary{
		Types: []ledger.TypeDef{
			{Name: TypeCall, Schema: callSchema, Signer: ledger.SignedByRuntime,
				Doc: "a model call: class, provider and model, prompt and response hashes, token usage, latency and cost, or the error"},
		},
		Rules: []ledger.RuleFunc{func() ledger.Rule { return &placement{} }},
	}
}

// placement enforces, within a trace, that model.call is recorded only in a
// run of kind model_call, at most once per run.
type placement struct {
	calls map[string]bool // model_call run → has its model.call
}

func (p *placement) Check(e *ledger.Event) error {
	switch e.Type {
	case runs.TypeStarted:
		if kind, _ := e.BodyPath("run", "kind"); kind == string(sanad.KindModelCall) {
			if p.calls == nil {
				p.calls = make(map[string]bool)
			}
			p.calls[e.Run] = false
		}
	case TypeCall:
		done, ok := p.calls[e.Run]
		switch {
		case !ok:
			return fmt.Errorf("model.call in run %s, which is not a model_call run", e.Run)
		case done:
			return fmt.Errorf("model_call run %s has a second model.call", e.Run)
		}
		p.calls[e.Run] = true
	}
	return nil
}

// Finish accepts calls still in progress: a trace is verified while it is
// being written.
func (p *placement) Finish() error { return nil }
