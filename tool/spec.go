package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"sync"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/shape"
)

// Defaults applied by [Registry.Register] to a [Spec] that leaves a setting
// zero.
const (
	DefaultTimeout   = 30 * time.Second
	DefaultBaseDelay = 100 * time.Millisecond
	DefaultMaxDelay  = 5 * time.Second
)

// SideEffect says what a tool changes when it runs.
type SideEffect string

// The side-effect classes. Only a tool that is idempotent, or has no side
// effect, is retried.
const (
	SideEffectNone     SideEffect = "none"     // reads only; safe to repeat
	SideEffectInternal SideEffect = "internal" // writes sanad's own stores
	SideEffectExternal SideEffect = "external" // reaches outside: mail, payments, third-party APIs
)

func (s SideEffect) valid() bool {
	return s == SideEffectNone || s == SideEffectInternal || s == SideEffectExternal
}

// Retry is a tool's retry policy: at most MaxAttempts attempts, waiting
// BaseDelay before the second, doubling each time up to MaxDelay. Only errors
// that [sanad.IsRetryable] reports are retried.
type Retry struct {
	MaxAttempts int
	BaseDelay   time.Duration
	MaxDelay    time.Duration
}

// Backoff returns the wait after the failed attempt n (1-based): BaseDelay
// times 2^(n-1), at most MaxDelay. There is no jitter, so a trace can be
// replayed exactly.
func (r Retry) Backoff(n int) time.Duration {
	d := r.BaseDelay
	for i := 1; i < n && d < r.MaxDelay; i++ {
		d *= 2
	}
	return min(d, r.MaxDelay)
}

// Func is a tool's code. It receives the validated input and the call's
// identity, and returns the tool's output as JSON. It must honour ctx: its
// deadline is the tool's timeout. An error that is a *sanad.Error keeps its
// code (a retryable code may lead to a retry); any other error is recorded as
// TOOL_FAILED. A panic is TOOL_FAILED too, and never retried: tool.failed
// records its value and stack ([sanad.PanicError]).
type Func func(ctx context.Context, call Call) (json.RawMessage, error)

// Call is what a tool's [Func] receives.
type Call struct {
	Tool   string
	CallID string
	// Key is the idempotency key: the parent run id, "/", the call id. It is
	// the same on every attempt of one call, so a tool with side effects can
	// make a repeated attempt harmless.
	Key string
	// Attempt counts from 1.
	Attempt int
	// Input is the validated input in canonical JSON, a copy the tool may
	// keep or change.
	Input json.RawMessage
	// Run is the id of the tool_gateway run the call executes in.
	Run       string
	Principal policy.Principal
	Round     int
	// DebateID is the debate the call is part of, when the caller gave one.
	DebateID string
}

// Spec describes a tool.
type Spec struct {
	// Name is what callers and tools.yaml call the tool: lower case letters,
	// digits, '_', '.' and '-', starting with a letter, at most 64 bytes.
	Name        string
	Description string
	// InputSchema and OutputSchema are JSON Schemas (draft 2020-12 unless
	// they say otherwise) compiled once by Register. Both are required; {}
	// accepts anything. References are resolved only within the schema:
	// nothing is loaded from files or the network.
	InputSchema  json.RawMessage
	OutputSchema json.RawMessage
	// Lane, when set, is the lane of lanes.yaml the tool acts through
	// (seed 001 §5): a call is then judged by the lane (its callers, the
	// tool's name among its actions, its required scope fields and
	// prohibitions) and, when tools.yaml names the tool, by the tool
	// matrix too. The scope fields come from the request's Fields, the
	// parent run (run_id, case_id) and the input's top-level string
	// arguments of the same names.
	Lane string
	// Risk is the tool's risk class. tools.yaml, when it declares the tool,
	// says the class that is recorded.
	Risk string
	// Approval is the approval the tool itself asks for before each call
	// (none when empty). The gateway applies the stricter of it and the one
	// tools.yaml gives the tool's risk class.
	Approval policy.Approval
	// Approver is the role a person must hold to approve a call of the
	// tool when it needs a human's approval (the workflow's gate role when
	// empty): an attorney confirms a triage, an administrator a promotion.
	Approver string
	// SideEffect is what the tool changes (external when empty: the most
	// careful assumption).
	SideEffect SideEffect
	// Idempotent says that repeating a call with the same idempotency key
	// has the effect of one call.
	Idempotent bool
	// Timeout bounds each attempt (DefaultTimeout when zero).
	Timeout time.Duration
	// Retry is the retry policy; MaxAttempts 0 means 1 (no retry), zero
	// delays mean DefaultBaseDelay and DefaultMaxDelay.
	Retry Retry
	Func  Func
}

// clone returns s with its schema bytes copied.
func (s Spec) clone() Spec {
	s.InputSchema = bytes.Clone(s.InputSchema)
	s.OutputSchema = bytes.Clone(s.OutputSchema)
	return s
}

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9_.-]{0,63}$`)

// entry is a registered tool: its Spec with defaults applied and its
// compiled schemas.
type entry struct {
	spec   Spec
	input  *shape.Schema
	output *shape.Schema
}

// Registry holds the tools a gateway can call, by name. The zero value is an
// empty registry ready to use. It is safe for concurrent use.
type Registry struct {
	mu    sync.RWMutex // guards tools
	tools map[string]*entry
}

// NewRegistry returns a registry holding specs, or the first error
// [Registry.Register] returns.
func NewRegistry(specs ...Spec) (*Registry, error) {
	r := &Registry{}
	for _, s := range specs {
		if err := r.Register(s); err != nil {
			return nil, err
		}
	}
	return r, nil
}

const opRegister = "tool.register"

// Register checks s, applies the defaults, compiles its schemas and adds it.
// A bad spec or a schema that does not compile is INVALID_INPUT; a name
// already registered is CONFLICT.
func (r *Registry) Register(s Spec) error {
	e, err := compile(s)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.tools[s.Name]; dup {
		return sanad.Errorf(sanad.CodeConflict, opRegister, "tool %s is already registered", s.Name)
	}
	if r.tools == nil {
		r.tools = make(map[string]*entry)
	}
	r.tools[s.Name] = e
	return nil
}

func compile(s Spec) (*entry, error) {
	bad := func(format string, args ...any) error {
		return sanad.Errorf(sanad.CodeInvalidInput, opRegister, "tool %q: "+format, append([]any{s.Name}, args...)...)
	}
	switch {
	case !nameRE.MatchString(s.Name):
		return nil, bad("a tool name is lower case letters, digits, '_', '.' or '-', starting with a letter, at most 64 bytes")
	case s.Func == nil:
		return nil, bad("no Func")
	case s.Timeout < 0 || s.Retry.MaxAttempts < 0 || s.Retry.BaseDelay < 0 || s.Retry.MaxDelay < 0:
		return nil, bad("timeout and retry settings cannot be negative")
	}
	s = s.clone()
	if s.Approval == "" {
		s.Approval = policy.ApprovalNone
	}
	if approvalRank(s.Approval) < 0 {
		return nil, bad("approval %q is not none, critic or human", s.Approval)
	}
	if s.SideEffect == "" {
		s.SideEffect = SideEffectExternal
	}
	if !s.SideEffect.valid() {
		return nil, bad("side effect %q is not none, internal or external", s.SideEffect)
	}
	if s.Timeout == 0 {
		s.Timeout = DefaultTimeout
	}
	if s.Retry.MaxAttempts == 0 {
		s.Retry.MaxAttempts = 1
	}
	if s.Retry.BaseDelay == 0 {
		s.Retry.BaseDelay = DefaultBaseDelay
	}
	if s.Retry.MaxDelay == 0 {
		s.Retry.MaxDelay = DefaultMaxDelay
	}
	if s.Retry.MaxDelay < s.Retry.BaseDelay {
		return nil, bad("retry MaxDelay %v is below BaseDelay %v", s.Retry.MaxDelay, s.Retry.BaseDelay)
	}
	e := &entry{spec: s}
	var err error
	if e.input, err = compileSchema(s.Name, "input", s.InputSchema); err != nil {
		return nil, err
	}
	if e.output, err = compileSchema(s.Name, "output", s.OutputSchema); err != nil {
		return nil, err
	}
	return e, nil
}

// noLoader refuses every external reference, so compiling a schema never
// reads a file or the network.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("schema references are resolved only within the schema, not from %s", url)
}

var _ jsonschema.URLLoader = noLoader{}

func compileSchema(name, which string, raw json.RawMessage) (*shape.Schema, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, opRegister, "tool %s has no %s schema; use {} to accept anything", name, which)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, opRegister, fmt.Sprintf("tool %s: %s schema is not JSON: %v", name, which, err))
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	url := "sanad:/tools/" + name + "/" + which + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, opRegister, fmt.Sprintf("tool %s: %s schema: %v", name, which, err))
	}
	sch, err := c.Compile(url)
	if err == nil {
		var checked *shape.Schema
		if checked, err = shape.NewSchema(raw, sch); err == nil {
			return checked, nil
		}
	}
	return nil, sanad.Wrap(err, sanad.CodeInvalidInput, opRegister, fmt.Sprintf("tool %s: %s schema does not compile: %v", name, which, err))
}

// lookup returns the entry of name.
func (r *Registry) lookup(name string) (*entry, bool) {
	r.mu.RLock()
	e, ok := r.tools[name]
	r.mu.RUnlock()
	return e, ok
}

// Lookup returns the registered spec of name, with defaults applied.
func (r *Registry) Lookup(name string) (Spec, bool) {
	e, ok := r.lookup(name)
	if !ok {
		return Spec{}, false
	}
	return e.spec.clone(), true
}

// List returns the registered specs, sorted by name.
func (r *Registry) List() []Spec {
	r.mu.RLock()
	out := make([]Spec, 0, len(r.tools))
	for _, e := range r.tools {
		out = append(out, e.spec.clone())
	}
	r.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// approvalRank orders approvals from the least to the most demanding; -1 for
// an unknown one.
func approvalRank(a policy.Approval) int {
	switch a {
	case policy.ApprovalNone:
		return 0
	case policy.ApprovalCritic:
		return 1
	case policy.ApprovalHuman:
		return 2
	}
	return -1
}
