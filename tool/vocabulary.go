package tool

import (
	"encoding/json"
	"fmt"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/policy"
)

// Event types of the tool gateway.
const (
	TypeIntent    = "tool.intent"    // the acting agent asks to call a risky tool
	TypeApproved  = "tool.approved"  // a critic approved the intent
	TypeBlocked   = "tool.blocked"   // a critic blocked the intent; the call never runs
	TypeStarted   = "tool.started"   // an attempt of the call begins
	TypeCompleted = "tool.completed" // the attempt succeeded; the call is done
	TypeFailed    = "tool.failed"    // the attempt failed; retried or done
	TypeRefused   = "tool.refused"   // the gateway refused the call before it ran
)

// Statuses recorded in tool.* bodies besides error codes (seed 000 §6.1
// result_status).
const (
	StatusSuccess  = "SUCCESS"
	StatusApproved = "APPROVED"
	StatusBlocked  = "BLOCKED"
)

// The stages of a call, as tool.refused records which one refused it.
const (
	StageResolve   = "resolve"   // the tool is not registered
	StageValidate  = "validate"  // the request or its input is invalid
	StageAuthorize = "authorize" // policy denied the call
	StageAbuse     = "abuse"     // an abuse rule refused it, or its call id was used
	StageApproval  = "approval"  // it needs an approval it did not get
	StageRecord    = "record"    // it could not be recorded or stored, so it did not run
	StageExecute   = "execute"   // its (next) attempt did not start: the caller's context ended
)

// CallInfo identifies a call in every tool.* body, with the fields of a tool
// call audit event (seed 000 §6.1).
type CallInfo struct {
	CallID string `json:"call_id"`
	// Key is the idempotency key (parent run id "/" call id); it is what the
	// ordering rule follows a call by. A refusal of a request whose call id
	// is not valid has none.
	Key   string `json:"idempotency_key,omitempty"`
	Tool  string `json:"tool"`
	Agent string `json:"agent"`
	Role  string `json:"role,omitempty"`
	// InputHash is the normalized hash of the input (canon.RequestHash).
	InputHash string `json:"input_hash,omitempty"`
	Round     int    `json:"round,omitempty"`
	DebateID  string `json:"debate_id,omitempty"`
}

// IntentBody is the body of tool.intent, signed by the acting agent.
type IntentBody struct {
	CallInfo
	Risk          string          `json:"risk"`
	Approval      policy.Approval `json:"approval"`
	Justification string          `json:"justification"`
}

// VerdictBody is the body of tool.approved and tool.blocked.
type VerdictBody struct {
	CallInfo
	Status string `json:"status"` // APPROVED or BLOCKED
	Critic string `json:"critic"`
	Reason string `json:"reason"`
}

// StartedBody is the body of tool.started: one attempt and the settings it
// runs under.
type StartedBody struct {
	CallInfo
	Attempt     int             `json:"attempt"`
	MaxAttempts int             `json:"max_attempts"`
	Risk        string          `json:"risk,omitempty"`
	Approval    policy.Approval `json:"approval"`
	SideEffect  SideEffect      `json:"side_effect"`
	Idempotent  bool            `json:"idempotent"`
	TimeoutMS   int64           `json:"timeout_ms"`
}

// CompletedBody is the body of tool.completed.
type CompletedBody struct {
	CallInfo
	Attempt    int               `json:"attempt"`
	Status     string            `json:"status"` // SUCCESS
	ResultHash string            `json:"result_hash"`
	Input      sanad.ArtifactRef `json:"input"`
	Output     sanad.ArtifactRef `json:"output"`
	ElapsedUS  int64             `json:"elapsed_us"`
}

// FailedBody is the body of tool.failed. Retry says whether the gateway tries
// again, after BackoffMS.
type FailedBody struct {
	CallInfo
	Attempt   int            `json:"attempt"`
	Status    sanad.Code     `json:"status"` // the error code
	Error     sanad.RunError `json:"error"`
	Retry     bool           `json:"retry"`
	BackoffMS int64          `json:"backoff_ms,omitempty"`
	ElapsedUS int64          `json:"elapsed_us"`
	// Abandoned says the attempt outlived its deadline and the grace after
	// it and was left running: it may still take effect.
	Abandoned bool `json:"abandoned,omitempty"`
}

// RefusedBody is the body of tool.refused: the code, the stage that refused
// and why.
type RefusedBody struct {
	CallInfo
	Status sanad.Code `json:"status"`
	Stage  string     `json:"stage"`
	Rule   string     `json:"rule,omitempty"`
	Reason string     `json:"reason"`
}

const refSchema = `{"type":"object","required":["artifact_id","sha256","media_type","size_bytes","scope"],
 "properties":{"artifact_id":{"type":"string"},"sha256":{"type":"string","pattern":"^[0-9a-f]{64}$"},
  "media_type":{"type":"string","minLength":1},"size_bytes":{"type":"integer","minimum":0},
  "uri":{"type":"string"},"created_by_run":{"type":"string"},
  "scope":{"type":"object","required":["tenant"],"properties":{"tenant":{"type":"string"},"case":{"type":"string"}},"additionalProperties":false}},
 "additionalProperties":false}`

const hashPattern = `"type":"string","pattern":"^sha256:[0-9a-f]{64}$"`

// callProps are the CallInfo properties. Strict ones (every event of a call
// that was let through) need a call id, a key, the agent and the input hash.
func callProps(strict bool) string {
	min := ""
	if strict {
		min = `"minLength":1,`
	}
	return `"call_id":{"type":"string",` + min + `"maxLength":128},
 "idempotency_key":{"type":"string",` + min + `"maxLength":300},
 "tool":{"type":"string",` + min + `"maxLength":128},
 "agent":{"type":"string",` + min + `"maxLength":128},
 "role":{"type":"string","maxLength":128},
 "input_hash":{` + hashPattern + `},
 "round":{"type":"integer","minimum":0},
 "debate_id":{"type":"string","maxLength":128}`
}

const callRequired = `"call_id","idempotency_key","tool","agent","input_hash"`

func bodySchema(required, props string) string {
	return `{"type":"object","additionalProperties":false,"required":[` + required + `],"properties":{` + callProps(true) + `,` + props + `}}`
}

var (
	approvalSchema = `{"enum":["none","critic","human"]}`
	intentSchema   = bodySchema(callRequired+`,"risk","approval","justification"`,
		`"risk":{"type":"string","maxLength":128},"approval":{"enum":["critic","human"]},
		 "justification":{"type":"string","minLength":1,"maxLength":`+fmt.Sprint(MaxJustification)+`}`)
	verdictSchema = func(status string) string {
		return bodySchema(callRequired+`,"status","critic","reason"`,
			`"status":{"const":"`+status+`"},"critic":{"type":"string","minLength":1,"maxLength":128},"reason":{"type":"string","maxLength":1024}`)
	}
	startedSchema = bodySchema(callRequired+`,"attempt","max_attempts","approval","side_effect","idempotent","timeout_ms"`,
		`"attempt":{"type":"integer","minimum":1},"max_attempts":{"type":"integer","minimum":1},
		 "risk":{"type":"string","maxLength":128},"approval":`+approvalSchema+`,
		 "side_effect":{"enum":["none","internal","external"]},"idempotent":{"type":"boolean"},
		 "timeout_ms":{"type":"integer","minimum":0}`)
	completedSchema = bodySchema(callRequired+`,"attempt","status","result_hash","input","output","elapsed_us"`,
		`"attempt":{"type":"integer","minimum":1},"status":{"const":"SUCCESS"},"result_hash":{`+hashPattern+`},
		 "input":`+refSchema+`,"output":`+refSchema+`,"elapsed_us":{"type":"integer","minimum":0}`)
	errorSchema = `{"type":"object","required":["code","message","retryable"],"additionalProperties":false,
		"properties":{"code":{"type":"string","minLength":1},"message":{"type":"string","maxLength":512},"retryable":{"type":"boolean"},
		 "stack":{"type":"string","maxLength":8192}}}`
	failedSchema = bodySchema(callRequired+`,"attempt","status","error","retry","elapsed_us"`,
		`"attempt":{"type":"integer","minimum":1},"status":{"type":"string","minLength":1},"error":`+errorSchema+`,
		 "retry":{"type":"boolean"},"backoff_ms":{"type":"integer","minimum":0},"elapsed_us":{"type":"integer","minimum":0},"abandoned":{"type":"boolean"}`)
	// A refusal may name no valid call id, agent or tool, and may have no
	// input hash: it records the request as it came, bounded.
	refusedSchema = `{"type":"object","additionalProperties":false,"required":["call_id","tool","agent","status","stage","reason"],
		"properties":{` + callProps(false) + `,"status":{"type":"string","minLength":1},
		 "stage":{"enum":["resolve","validate","authorize","abuse","approval","record","execute"]},
		 "rule":{"type":"string","maxLength":128},"reason":{"type":"string","minLength":1,"maxLength":1024}}}`
)

// Vocabulary declares the tool.* events and the rule that orders them. Who
// signs: tool.intent the acting agent (seed 002: the executor signs its
// intent); the critic's verdicts, the execution events and refusals the
// runtime, which is what decided or observed them.
func Vocabulary() ledger.Vocabulary {
	return ledger.Vocabulary{
		Types: []ledger.TypeDef{
			{Name: TypeIntent, Schema: intentSchema, Signer: ledger.SignedByAgent, Doc: "the acting agent's signed intent to call a risky tool: input hash, risk class, justification"},
			{Name: TypeApproved, Schema: verdictSchema(StatusApproved), Signer: ledger.SignedByRuntime, Doc: "a critic approved a tool intent"},
			{Name: TypeBlocked, Schema: verdictSchema(StatusBlocked), Signer: ledger.SignedByRuntime, Doc: "a critic blocked a tool intent; the call never runs"},
			{Name: TypeStarted, Schema: startedSchema, Signer: ledger.SignedByRuntime, Doc: "an attempt of a tool call begins"},
			{Name: TypeCompleted, Schema: completedSchema, Signer: ledger.SignedByRuntime, Doc: "a tool call succeeded: result hash, input and output artifacts"},
			{Name: TypeFailed, Schema: failedSchema, Signer: ledger.SignedByRuntime, Doc: "an attempt of a tool call failed, with its bounded error and whether it is retried"},
			{Name: TypeRefused, Schema: refusedSchema, Signer: ledger.SignedByRuntime, Doc: "the gateway refused a tool call before it ran: code, stage, reason"},
		},
		Rules: []ledger.RuleFunc{func() ledger.Rule { return &ordering{} }},
	}
}

// callState is what the ordering rule knows of one call.
type callState struct {
	intent   bool   // a tool.intent was recorded
	decided  bool   // tool.approved or tool.blocked followed it
	approved bool   //
	blocked  bool   //
	attempt  int    // the last attempt started
	open     bool   // that attempt has no outcome yet
	done     bool   // the call has its final outcome
	run      string // the run of the open attempt
}

// ordering enforces, per call (by idempotency key) within a trace:
//   - at most one tool.intent, before any execution event of the call;
//   - tool.approved or tool.blocked only after the intent, once, before any
//     attempt;
//   - tool.started never after tool.blocked, and, when it says the call
//     needs approval, only after tool.approved; attempts numbered 1, 2, …,
//     one at a time, none after the call is done;
//   - tool.completed and tool.failed only for the open attempt, in its run;
//     tool.completed, and tool.failed without retry, end the call;
//   - tool.refused for want of approval (stage approval) only after the
//     intent and before any verdict or attempt; it ends the call. Refusals
//     at other stages come before a call is let through (its call id may be
//     a reused one) and do not touch the call's state.
type ordering struct {
	calls map[string]*callState // made on a trace's first call
}

// ruleBody is what the rule reads of a tool.* body.
type ruleBody struct {
	Key      string `json:"idempotency_key"`
	Attempt  int    `json:"attempt"`
	Retry    bool   `json:"retry"`
	Approval string `json:"approval"`
	Stage    string `json:"stage"`
}

// readRuleBody reads the fields the rule needs from the event's parsed body.
func readRuleBody(e *ledger.Event) (ruleBody, error) {
	b := ruleBody{Key: e.BodyString("idempotency_key"), Approval: e.BodyString("approval"), Stage: e.BodyString("stage")}
	if v, ok := e.BodyField("attempt"); ok {
		n, isNum := v.(json.Number)
		i, err := n.Int64()
		if !isNum || err != nil {
			return b, fmt.Errorf("attempt %v is not an integer", v)
		}
		b.Attempt = int(i)
	}
	if v, ok := e.BodyField("retry"); ok {
		r, isBool := v.(bool)
		if !isBool {
			return b, fmt.Errorf("retry %v is not a boolean", v)
		}
		b.Retry = r
	}
	return b, nil
}

func (o *ordering) Check(e *ledger.Event) error {
	switch e.Type {
	case TypeIntent, TypeApproved, TypeBlocked, TypeStarted, TypeCompleted, TypeFailed, TypeRefused:
	default:
		return nil
	}
	b, err := readRuleBody(e)
	if err != nil {
		return fmt.Errorf("%s body: %w", e.Type, err)
	}
	if b.Key == "" {
		if e.Type == TypeRefused {
			return nil // a refusal of a request with no valid call id
		}
		return fmt.Errorf("%s names no call", e.Type)
	}
	if o.calls == nil {
		o.calls = make(map[string]*callState)
	}
	st := o.calls[b.Key]
	switch e.Type {
	case TypeIntent:
		if st != nil {
			return fmt.Errorf("call %s has a second tool.intent or one after its execution", b.Key)
		}
		o.calls[b.Key] = &callState{intent: true}
	case TypeApproved, TypeBlocked:
		switch {
		case st == nil || !st.intent:
			return fmt.Errorf("%s for call %s without its tool.intent", e.Type, b.Key)
		case st.decided || st.done:
			return fmt.Errorf("%s for call %s, which is already decided", e.Type, b.Key)
		case st.attempt > 0:
			return fmt.Errorf("%s for call %s after it started", e.Type, b.Key)
		}
		st.decided = true
		st.approved = e.Type == TypeApproved
		st.blocked = e.Type == TypeBlocked
	case TypeStarted:
		if st == nil {
			st = &callState{}
			o.calls[b.Key] = st
		}
		switch {
		case st.blocked:
			return fmt.Errorf("tool.started for call %s, whose intent was blocked", b.Key)
		case st.intent && !st.approved:
			return fmt.Errorf("tool.started for call %s before its intent was approved", b.Key)
		case b.Approval != string(policy.ApprovalNone) && !st.approved:
			return fmt.Errorf("tool.started for call %s, which needs %s approval, without an approved tool.intent", b.Key, b.Approval)
		case st.done:
			return fmt.Errorf("tool.started for call %s after it ended", b.Key)
		case st.open:
			return fmt.Errorf("tool.started for call %s while attempt %d is open", b.Key, st.attempt)
		case b.Attempt != st.attempt+1:
			return fmt.Errorf("tool.started for call %s is attempt %d, want %d", b.Key, b.Attempt, st.attempt+1)
		}
		st.attempt, st.open, st.run = b.Attempt, true, e.Run
	case TypeCompleted, TypeFailed:
		switch {
		case st == nil || !st.open:
			return fmt.Errorf("%s for call %s without an open tool.started", e.Type, b.Key)
		case b.Attempt != st.attempt:
			return fmt.Errorf("%s for call %s names attempt %d, but attempt %d is open", e.Type, b.Key, b.Attempt, st.attempt)
		case e.Run != st.run:
			return fmt.Errorf("%s for call %s in run %s, but the attempt runs in %s", e.Type, b.Key, e.Run, st.run)
		}
		st.open = false
		st.done = e.Type == TypeCompleted || !b.Retry
	case TypeRefused:
		if b.Stage != StageApproval {
			return nil // refused before it was let through: not (yet) a call of this key
		}
		switch {
		case st == nil || !st.intent:
			return fmt.Errorf("tool.refused for want of approval for call %s without its tool.intent", b.Key)
		case st.decided || st.done || st.attempt > 0:
			return fmt.Errorf("tool.refused for want of approval for call %s, which is already decided or started", b.Key)
		}
		st.done = true
	}
	return nil
}

// Finish accepts calls still in progress: a trace is verified while it is
// being written.
func (o *ordering) Finish() error { return nil }
