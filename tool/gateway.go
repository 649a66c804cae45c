package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/artifact"
	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/keyring"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/runs"
	"github.com/sanadhq/sanad/shape"
)

// Limits and defaults of a [Gateway].
const (
	// DefaultMaxInputBytes bounds a call's input (1 MiB).
	DefaultMaxInputBytes = 1 << 20
	// DefaultMaxOutputBytes bounds a tool's output (16 MiB).
	DefaultMaxOutputBytes = 16 << 20
	// MaxJustification bounds a request's justification, in bytes.
	MaxJustification = 2000
	// DefaultGrace is how long an attempt may take to return once its
	// deadline has passed and its context is cancelled.
	DefaultGrace = 250 * time.Millisecond
	// maxName bounds a name taken from a request (tool, call id, agent) as
	// it is recorded, in bytes.
	maxName = 128
	// maxReason bounds a recorded reason, in bytes.
	maxReason = 1024
)

// MediaType is the media type of the input and output artifacts.
const MediaType = "application/json"

// Config configures a [Gateway].
type Config struct {
	Registry  *Registry
	Policy    *policy.Set
	Runs      *runs.Recorder
	Artifacts *artifact.Store
	// Approver approves or blocks the intents of tools that need a critic's
	// approval. Without one, such calls are refused with APPROVAL_REQUIRED.
	Approver Approver
	// Humans gets a person's approval for tools whose approval is human, in
	// the call's own run (a [GateApprover] opens a gate and waits). Without
	// one, such calls are refused with APPROVAL_REQUIRED.
	Humans HumanApprover
	// Now measures how long attempts take (time.Now when nil).
	Now func() time.Time
	// Sleep waits between attempts, returning early with ctx's error when
	// ctx ends (a timer when nil).
	Sleep func(ctx context.Context, d time.Duration) error
	// Grace is how long an attempt whose deadline has passed may take to
	// return (DefaultGrace when zero). One that does not return within it is
	// abandoned, recorded as timed out, and never retried: it may still be
	// running.
	Grace time.Duration
	// MaxInputBytes and MaxOutputBytes bound inputs and outputs
	// (DefaultMaxInputBytes, DefaultMaxOutputBytes when zero).
	MaxInputBytes  int
	MaxOutputBytes int
}

// Validate reports a missing or malformed setting.
func (c *Config) Validate() error {
	const op = "tool.config"
	switch {
	case c.Registry == nil || c.Policy == nil || c.Runs == nil || c.Runs.Ledger == nil || c.Artifacts == nil:
		return sanad.Errorf(sanad.CodeInvalidInput, op, "a tool gateway needs a Registry, a Policy, a Runs recorder with a Ledger, and an Artifacts store")
	case c.MaxInputBytes < 0 || c.MaxOutputBytes < 0 || c.Grace < 0:
		return sanad.Errorf(sanad.CodeInvalidInput, op, "Grace, MaxInputBytes and MaxOutputBytes cannot be negative")
	}
	return nil
}

// Gateway mediates every tool call: it resolves, validates, authorizes,
// rate-limits, gets approval for, executes and records it. It is safe for
// concurrent use, also by calls in the same parent run.
type Gateway struct {
	cfg      Config
	versions map[string]sanad.PolicyVersion // of cfg.Policy; never changed
	infos    sync.Map                       // *entry → toolInfo, what cfg.Policy says of each tool

	mu    sync.Mutex        // guards usage
	usage map[string]*usage // by parent run id; dropped when the parent run is collected
}

// usage is what the gateway has let through in one parent run.
type usage struct {
	round    int
	perRound map[string]int      // calls by tool in round
	perRun   map[string]int      // calls by tool in the run
	calls    map[string]struct{} // call ids let through
}

// toolInfo is a tool's risk class and approval under the gateway's policy.
type toolInfo struct {
	risk     string
	approval policy.Approval
}

// New returns a gateway over cfg.
func New(cfg Config) (*Gateway, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Sleep == nil {
		cfg.Sleep = sleep
	}
	if cfg.Grace == 0 {
		cfg.Grace = DefaultGrace
	}
	if cfg.MaxInputBytes == 0 {
		cfg.MaxInputBytes = DefaultMaxInputBytes
	}
	if cfg.MaxOutputBytes == 0 {
		cfg.MaxOutputBytes = DefaultMaxOutputBytes
	}
	return &Gateway{cfg: cfg, versions: cfg.Policy.Versions(), usage: make(map[string]*usage)}, nil
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Request is one tool call as a caller asks for it.
type Request struct {
	Tool string
	// CallID names the call within its parent run, so that the idempotency
	// key (parent run id "/" call id) is stable across attempts. Required:
	// 1–128 letters, digits, '.', '_', ':' or '-', starting with a letter or
	// digit. A call id is let through once per parent run.
	CallID string
	// Key is the idempotency key the tool receives; empty means the
	// parent run's id, "/", the call id. A workflow gives its own (its run
	// id and the call id), so that a call keeps its key whichever run of
	// the step's agent makes it.
	Key string
	// Input is the tool's arguments: a JSON object.
	Input json.RawMessage
	// Round is the debate round (0 when the workflow has none). It is set
	// by the orchestrator, not by the agent: a higher round resets the
	// per-round limits, a lower one than the current is refused.
	Round int
	// Justification says why the call is needed; required for a tool that
	// needs approval, and recorded in its intent.
	Justification string
	// DebateID is recorded with the call when given (seed 000 §6.1).
	DebateID string
	// Scope is the tenant and case the call acts on; zero means the parent
	// run's. Fields and Tags are the scope fields the request provides and
	// the tags of the content it touches, judged by policy.
	Scope  sanad.Scope
	Fields map[string]string
	Tags   []string
	// PriorAttempts is how many attempts an interrupted earlier execution of
	// this call made (see [Interrupt]); this execution numbers its attempts
	// after them, under the same idempotency key. Zero for a new call.
	PriorAttempts int
}

// call is one Call in progress.
type call struct {
	g      *Gateway
	parent *runs.Run
	p      policy.Principal
	req    Request
	rctx   context.Context // for recording: not cancelled with the caller's ctx

	e     *entry
	ti    toolInfo
	info  CallInfo
	tree  map[string]any // the parsed input
	input []byte         // the canonical input
	scope sanad.Scope
	res   Result
}

// Call makes one tool call for principal p within the run parent and returns
// its result; see the package documentation for the steps. It never panics
// and reports every failure in the Result's code:
//
//   - TOOL_NOT_FOUND: no tool of that name is registered;
//   - INVALID_INPUT: the request, the principal's agent or the input is
//     invalid, or the parent run is nil or has ended (the one case that
//     leaves no event);
//   - CONFLICT: the call id was already let through in this parent run;
//   - POLICY_DENIED, TOOL_ABUSE_RULES: policy refused the call;
//   - APPROVAL_REQUIRED, BLOCKED: the call needs an approval it did not get;
//   - ERR_TIMEOUT, CANCELLED: an attempt outlived its timeout, or ctx ended;
//   - TOOL_FAILED, or the code of a *sanad.Error the tool returned: the tool
//     failed (after its retries, if any);
//   - any code of the ledger or artifact store: the call could not be
//     recorded, and nothing ran that was not recorded.
//
// Cancelling ctx stops the call (and its tool, through the context it gets),
// but not the recording of what happened.
func (g *Gateway) Call(ctx context.Context, parent *runs.Run, p policy.Principal, req Request) Result {
	c := &call{g: g, parent: parent, p: p, req: req, res: Result{Tool: req.Tool, CallID: req.CallID}}
	if parent == nil {
		return c.result(sanad.CodeInvalidInput, "a tool call is made within a running run; no parent run was given")
	}
	if parent.Ended() {
		return c.result(sanad.CodeInvalidInput, fmt.Sprintf("run %s has ended: no tool call can be made or recorded in it", parent.Record.ID))
	}
	c.rctx = context.WithoutCancel(ctx)
	c.info = CallInfo{
		CallID: clip(req.CallID, maxName), Tool: clip(req.Tool, maxName),
		Agent: clip(p.Agent, maxName), Role: clip(p.Role, maxName),
		Round: max(req.Round, 0), DebateID: clip(req.DebateID, maxName),
	}
	// 1. Resolve.
	e, ok := g.cfg.Registry.lookup(req.Tool)
	if !ok {
		return c.refuse(StageResolve, sanad.CodeToolNotFound, "", "tool "+quote(req.Tool)+" is not registered", nil)
	}
	c.e, c.ti = e, g.info(e)
	// 2. Validate.
	if reason := c.validate(); reason != "" {
		return c.refuse(StageValidate, sanad.CodeInvalidInput, "", reason, nil)
	}
	// 3. Authorize.
	c.scope = req.Scope
	if c.scope == (sanad.Scope{}) {
		c.scope = parent.Record.Scope
	}
	d := c.authorize()
	if !d.Allow {
		return c.refuse(StageAuthorize, sanad.CodePolicyDenied, string(d.Rule), d.Reason, c.decision(false, string(d.Rule), d.Reason))
	}
	// 4. Abuse rules, and the call id.
	if err := g.admit(ctx, parent, req.Tool, req.CallID, req.Round, req.PriorAttempts, c.tree); err != nil {
		code := sanad.ErrorCode(err)
		var v *policy.Violation
		if !errors.As(err, &v) {
			return c.refuse(StageValidate, code, "", sanad.ErrorMessage(err), nil).because(err)
		}
		return c.refuse(StageAbuse, code, v.Rule, v.Reason, c.decision(false, v.Rule, v.Reason)).because(err)
	}
	// 5–8. Approval, execution, recording.
	return c.execute(ctx, d)
}

// authorize judges the call: by its tool's lane when it has one (and by
// the tool matrix too when tools.yaml names the tool), else by the tool
// matrix. Deny wins.
func (c *call) authorize() policy.Decision {
	pol, req := c.g.cfg.Policy, &c.req
	lane := c.e.spec.Lane
	if lane == "" {
		return pol.Decide(c.p, policy.ToolCall(req.Tool), policy.Resource{Scope: c.scope, Fields: req.Fields, Tags: req.Tags})
	}
	d := pol.Decide(c.p, policy.LaneAction(lane, req.Tool), policy.Resource{Scope: c.scope, Fields: c.laneFields(lane), Tags: req.Tags})
	if !d.Allow {
		return d
	}
	if _, named := pol.Tool(req.Tool); named {
		return pol.Decide(c.p, policy.ToolCall(req.Tool), policy.Resource{Scope: c.scope, Fields: req.Fields, Tags: req.Tags})
	}
	return d
}

// laneFields are the scope fields a lane call provides: the run it is made
// in, its case, the request's fields, and the input's top-level string
// arguments named as the lane's required scope fields.
func (c *call) laneFields(lane string) map[string]string {
	fields := map[string]string{}
	if l, ok := c.g.cfg.Policy.Lane(lane); ok {
		for _, name := range l.RequiredScope {
			if v, ok := c.tree[name].(string); ok && v != "" {
				fields[name] = v
			}
		}
	}
	for k, v := range c.req.Fields {
		fields[k] = v
	}
	// A case_id the caller gives must agree with the call's case (policy
	// refuses a mismatch); the run is always the one the call is made in.
	if _, given := fields["case_id"]; !given && c.scope.Case != "" {
		fields["case_id"] = c.scope.Case
	}
	fields["run_id"] = c.parent.Record.ID
	return fields
}

// Approval returns the approval a call of the tool name needs under the
// gateway's policy: the stricter of its Spec's and its risk class's. An
// unknown tool needs none (the gateway refuses it before asking).
func (g *Gateway) Approval(name string) policy.Approval {
	e, ok := g.cfg.Registry.lookup(name)
	if !ok {
		return policy.ApprovalNone
	}
	return g.info(e).approval
}

// info returns what the gateway's policy says of e's tool: the risk class of
// tools.yaml (else the Spec's), and the stricter of the two approvals.
func (g *Gateway) info(e *entry) toolInfo {
	if v, ok := g.infos.Load(e); ok {
		return v.(toolInfo)
	}
	ti := toolInfo{risk: e.spec.Risk, approval: e.spec.Approval}
	if t, ok := g.cfg.Policy.Tool(e.spec.Name); ok {
		if t.Risk != "" {
			ti.risk = t.Risk
		}
		if approvalRank(t.Approval) > approvalRank(ti.approval) {
			ti.approval = t.Approval
		}
	}
	g.infos.Store(e, ti)
	return ti
}

// validate checks the request and parses the input; it returns the reason
// the request is invalid, or "".
func (c *call) validate() string {
	req, g := &c.req, c.g
	switch {
	case !ledger.ValidID(req.CallID):
		return "call id " + quote(req.CallID) + " is not valid: 1-128 letters, digits, '.', '_', ':' or '-', starting with a letter or digit"
	case !keyring.ValidIdentity(c.p.Agent):
		return "the principal's agent " + quote(c.p.Agent) + " is not a valid identity"
	case c.p.Agent == g.cfg.Runs.Ledger.RuntimeIdentity():
		return "the runtime identity cannot act as the principal of a tool call"
	case req.Round < 0:
		return "round " + strconv.Itoa(req.Round) + " is negative"
	case req.PriorAttempts < 0:
		return "prior attempts " + strconv.Itoa(req.PriorAttempts) + " is negative"
	case len(req.Justification) > MaxJustification:
		return fmt.Sprintf("the justification has %d bytes; at most %d are allowed", len(req.Justification), MaxJustification)
	case !utf8.ValidString(req.Justification):
		return "the justification is not valid UTF-8"
	case c.ti.approval != policy.ApprovalNone && req.Justification == "":
		return "tool " + c.e.spec.Name + " needs " + string(c.ti.approval) + " approval: the call must give a justification"
	}
	c.info.Key = c.parent.Record.ID + "/" + req.CallID
	if req.Key != "" {
		if len(req.Key) > 2*maxName+1 || !utf8.ValidString(req.Key) {
			return "the idempotency key " + quote(req.Key) + " is not valid: at most " + strconv.Itoa(2*maxName+1) + " bytes of UTF-8"
		}
		c.info.Key = req.Key
	}
	if len(req.Input) > g.cfg.MaxInputBytes {
		return fmt.Sprintf("the input has %d bytes; at most %d are allowed", len(req.Input), g.cfg.MaxInputBytes)
	}
	if len(bytes.TrimSpace(req.Input)) == 0 {
		return "the input is empty: tool arguments are a JSON object, {} for none"
	}
	in, tree, hash, reason := parseInput(c.e, req.Input)
	c.info.InputHash = hash
	if reason != "" {
		return reason
	}
	c.input, c.tree = in, tree
	return ""
}

// parseInput parses raw as a JSON object, hashes it and checks it against
// e's input schema. It returns the canonical input, the parsed object, the
// normalized hash (when raw is JSON) and the reason it is invalid, or "".
func parseInput(e *entry, raw []byte) (canonical []byte, tree map[string]any, hash, reason string) {
	v, err := canon.Parse(raw)
	if err != nil {
		return nil, nil, "", "the input is not valid JSON: " + err.Error()
	}
	canonical, err = canon.AppendCanonical(make([]byte, 0, len(raw)), v)
	if err != nil {
		return nil, nil, "", "the input cannot be canonicalized: " + err.Error()
	}
	if h, err := canon.RequestHash(json.RawMessage(canonical)); err == nil {
		hash = h.String()
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, nil, hash, "the input must be a JSON object of named arguments"
	}
	if err := e.input.Validate(obj); err != nil {
		return nil, nil, hash, "the input does not match the input schema of " + e.spec.Name + ": " + shape.Explain(err)
	}
	return canonical, obj, hash, ""
}

// admit applies the abuse rules with the counts of the parent run and, if the
// call may proceed, counts it and takes its call id.
func (g *Gateway) admit(ctx context.Context, parent *runs.Run, tool, callID string, round, prior int, input map[string]any) error {
	const op = "tool.admit"
	id := parent.Record.ID
	g.mu.Lock()
	_, known := g.usage[id]
	g.mu.Unlock()
	var recorded *usage
	if !known && parent.Attached() {
		// A resumed run's earlier calls are in the ledger, not in memory:
		// its limits go on from what it was let through before.
		var err error
		if recorded, err = g.recordedUsage(ctx, parent); err != nil {
			return err
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	u, ok := g.usage[id]
	if !ok {
		u = recorded
		if u == nil {
			u = newUsage()
		}
		g.usage[id] = u
		runtime.AddCleanup(parent, g.forget, id)
	}
	if round < u.round {
		return sanad.Errorf(sanad.CodeInvalidInput, op, "round %d is over: run %s is in round %d", round, id, u.round)
	}
	// A call continued after an interruption (prior attempts) reuses its
	// call id on purpose.
	if _, used := u.calls[callID]; used && prior == 0 {
		return sanad.Errorf(sanad.CodeConflict, op, "call id %s was already used in run %s: a new call needs a new call id", quote(callID), id)
	}
	inRound := u.perRound[tool]
	if round > u.round {
		inRound = 0
	}
	if err := g.cfg.Policy.CheckAbuse(tool, policy.Usage{Round: inRound, Run: u.perRun[tool]}, input); err != nil {
		return err
	}
	if round > u.round {
		u.round = round
		clear(u.perRound)
	}
	u.perRound[tool]++
	u.perRun[tool]++
	u.calls[callID] = struct{}{}
	return nil
}

func newUsage() *usage {
	return &usage{perRound: make(map[string]int), perRun: make(map[string]int), calls: make(map[string]struct{})}
}

// recordedUsage reads from the ledger what the gateway let through in
// parent: every call that started a tool_gateway child run of it, by the
// tool.* events of that run.
func (g *Gateway) recordedUsage(ctx context.Context, parent *runs.Run) (*usage, error) {
	evs, err := g.cfg.Runs.Ledger.Events(ctx, parent.Record.Trace)
	if err != nil {
		return nil, err
	}
	type admitted struct {
		tool  string
		round int
	}
	calls := map[string]admitted{}
	var order []string
	for _, ev := range evs {
		if ev.Parent != parent.Record.ID || !strings.HasPrefix(ev.Type, "tool.") {
			continue
		}
		var info CallInfo
		if err := json.Unmarshal(ev.Body, &info); err != nil {
			return nil, sanad.Wrap(err, sanad.CodeIntegrity, "tool.admit", ev.Type+" body")
		}
		if _, seen := calls[info.CallID]; !seen {
			order = append(order, info.CallID)
		}
		calls[info.CallID] = admitted{info.Tool, info.Round}
	}
	u := newUsage()
	for _, id := range order {
		c := calls[id]
		u.calls[id] = struct{}{}
		u.perRun[c.tool]++
		u.round = max(u.round, c.round)
	}
	for _, id := range order {
		if c := calls[id]; c.round == u.round {
			u.perRound[c.tool]++
		}
	}
	return u, nil
}

// forget drops the usage of a parent run that can no longer be called in.
func (g *Gateway) forget(id string) {
	g.mu.Lock()
	delete(g.usage, id)
	g.mu.Unlock()
}

// decision returns the authz.decision body of the policy's answer on the
// call.
func (c *call) decision(allow bool, rule, reason string) *runs.Decision {
	if reason == "" {
		reason = "no reason given"
	}
	return &runs.Decision{
		Allow: allow, Reason: clip(reason, maxReason), Rule: rule,
		Principal: runs.Principal{Agent: c.p.Agent, Role: c.p.Role},
		Action:    "tool:" + c.info.Tool, Resource: c.scope.String(),
		PolicyVersions: c.g.versions,
	}
}

// refuse records a refusal in the parent run (an authz.decision first when d
// is not nil) and returns it.
func (c *call) refuse(stage string, code sanad.Code, rule, reason string, d *runs.Decision) Result {
	var err error
	if d != nil {
		_, err = c.parent.Append(c.rctx, runs.TypeAuthz, "", d, nil)
	}
	if err == nil {
		_, err = c.parent.Append(c.rctx, TypeRefused, "", c.refusal(stage, code, rule, reason), nil)
	}
	if err != nil {
		reason += " (the refusal could not be recorded: " + sanad.ErrorMessage(err) + ")"
	}
	return c.result(code, reason)
}

func (c *call) refusal(stage string, code sanad.Code, rule, reason string) RefusedBody {
	return RefusedBody{CallInfo: c.info, Status: code, Stage: stage, Rule: clip(rule, maxName), Reason: clip(reason, maxReason)}
}

// result returns the call's Result with a failure.
func (c *call) result(code sanad.Code, message string) Result {
	r := c.res
	r.Code, r.Message, r.InputHash = code, clip(message, sanad.MaxMessageBytes), c.info.InputHash
	return r
}

// fail ends child as failed with err, and returns the failure.
func (c *call) fail(child *runs.Run, err error) Result {
	if ferr := child.Fail(c.rctx, err); ferr != nil {
		return c.result(sanad.ErrorCode(err), sanad.ErrorMessage(err)+" (the run's failure could not be recorded: "+sanad.ErrorMessage(ferr)+")").because(errors.Join(err, ferr))
	}
	return c.result(sanad.ErrorCode(err), sanad.ErrorMessage(err)).because(err)
}

// execute runs a call that was let through, in its own tool_gateway run.
func (c *call) execute(ctx context.Context, d policy.Decision) Result {
	g := c.g
	// The input and output are staged, not indexed: the events citing them
	// (run.started, tool.completed) index them in the commits the call
	// waits for anyway.
	inRef, err := g.cfg.Artifacts.Stage(c.scope, c.parent.Record.ID, MediaType, c.input)
	if err != nil {
		return c.refuse(StageRecord, sanad.ErrorCode(err), "", "the input could not be stored, so the call did not run: "+sanad.ErrorMessage(err), nil).because(err)
	}
	c.res.InputRef = inRef
	dec := c.decision(true, string(d.Rule), d.Reason)
	// The child run's start is held, not awaited: it commits with the next
	// record of the call that is (its intent, its first attempt's start
	// for a tool with side effects, its outcome otherwise).
	child, _, err := g.cfg.Runs.Begin(c.rctx, runs.Spec{
		Hold: true,
		Kind: sanad.KindToolGateway, Parent: c.parent, Scope: c.scope,
		Agent: c.p.Agent, Role: c.p.Role, PolicyVersions: g.versions,
		Inputs:   []sanad.ArtifactRef{inRef},
		Request:  gatewayRequest{Tool: c.e.spec.Name, InputHash: c.info.InputHash},
		Decision: *dec,
	})
	if err != nil {
		return c.refuse(StageRecord, sanad.ErrorCode(err), "", "the call's run could not be started, so the call did not run: "+sanad.ErrorMessage(err), nil).because(err)
	}
	c.res.Run = child.Record.ID
	if c.ti.approval != policy.ApprovalNone {
		if r, ok := c.approve(ctx, child); !ok {
			return r
		}
	}
	return c.attempts(ctx, child, inRef)
}

// gatewayRequest is what a tool_gateway run's request hash covers: the tool
// and the normalized hash of its input, which stands for the input without
// encoding and parsing it once more.
type gatewayRequest struct {
	Tool      string `json:"tool"`
	InputHash string `json:"input_hash"`
}

// approve records the signed intent and gets the approval it needs. It
// returns ok true once the intent is approved, or the failed result.
func (c *call) approve(ctx context.Context, child *runs.Run) (Result, bool) {
	const op = "tool.approve"
	intent := IntentBody{CallInfo: c.info, Risk: c.ti.risk, Approval: c.ti.approval, Justification: c.req.Justification}
	if _, err := child.Append(c.rctx, TypeIntent, c.p.Agent, intent, nil); err != nil {
		return c.fail(child, err), false
	}
	// refuse records the refusal and fails the call's run with it; cause,
	// when not nil, is the approver's error, kept in the run's failure (a
	// critic's panic leaves its stack there).
	refuse := func(code sanad.Code, reason string, cause error) (Result, bool) {
		if _, err := child.Append(c.rctx, TypeRefused, "", c.refusal(StageApproval, code, "", reason), nil); err != nil {
			return c.fail(child, err), false
		}
		return c.fail(child, sanad.Wrap(cause, code, op, reason)), false
	}
	var v Verdict
	var err error
	switch {
	case c.ti.approval == policy.ApprovalHuman && c.g.cfg.Humans == nil:
		return refuse(sanad.CodeApprovalRequired, "tool "+c.e.spec.Name+" needs a person's approval, and no human approver is configured", nil)
	case c.ti.approval == policy.ApprovalHuman:
		v, err = c.g.cfg.Humans.ApproveByHuman(ctx, child, c.intent())
	case c.g.cfg.Approver == nil:
		return refuse(sanad.CodeApprovalRequired, "tool "+c.e.spec.Name+" needs a critic's approval, and no critic is configured", nil)
	default:
		v, err = c.ask(ctx)
	}
	if err != nil {
		code := sanad.ErrorCode(err)
		if !code.Known() {
			code = sanad.CodeInternal
		}
		return refuse(code, "the critic gave no decision, so the call did not run: "+sanad.ErrorMessage(err), err)
	}
	body := VerdictBody{CallInfo: c.info, Critic: clip(v.Critic, maxName), Reason: clip(v.Reason, maxReason)}
	if body.Critic == "" {
		body.Critic = "critic"
	}
	if !v.Approve {
		body.Status = StatusBlocked
		if _, err := child.Append(c.rctx, TypeBlocked, "", body, nil); err != nil {
			return c.fail(child, err), false
		}
		reason := body.Critic + " blocked the call"
		if body.Reason != "" {
			reason += ": " + body.Reason
		}
		return c.fail(child, sanad.Errorf(sanad.CodeBlocked, op, "%s", reason)), false
	}
	body.Status = StatusApproved
	if _, err := child.Append(c.rctx, TypeApproved, "", body, nil); err != nil {
		return c.fail(child, err), false
	}
	return Result{}, true
}

// ask calls the Approver; a panic in it is an error, not a crash, with the
// panic's value in its message and its stack in its cause.
func (c *call) ask(ctx context.Context) (v Verdict, err error) {
	defer func() {
		if r := recover(); r != nil {
			pe := sanad.NewPanicError(r)
			err = sanad.Wrap(pe, sanad.CodeInternal, "tool.approve", "the critic panicked: "+pe.Value)
		}
	}()
	return c.g.cfg.Approver.Approve(ctx, c.intent())
}

// intent is the call as an approver judges it.
func (c *call) intent() Intent {
	return Intent{
		Tool: c.e.spec.Name, CallID: c.req.CallID, Key: c.info.Key, Principal: c.p,
		InputHash: c.info.InputHash, Input: bytes.Clone(c.input),
		Risk: c.ti.risk, Approval: c.ti.approval, Justification: c.req.Justification,
		Round: c.req.Round, DebateID: c.req.DebateID,
	}
}

// attempts runs the tool until it succeeds, fails for good, or runs out of
// attempts, recording each attempt.
func (c *call) attempts(ctx context.Context, child *runs.Run, inRef sanad.ArtifactRef) Result {
	spec, g := &c.e.spec, c.g
	for attempt := 1 + c.req.PriorAttempts; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return c.stop(child, ctxError(err, spec.Name))
		}
		started := StartedBody{
			CallInfo: c.info, Attempt: attempt, MaxAttempts: spec.Retry.MaxAttempts,
			Risk: c.ti.risk, Approval: c.ti.approval, SideEffect: spec.SideEffect,
			Idempotent: spec.Idempotent, TimeoutMS: spec.Timeout.Milliseconds(),
		}
		if err := c.recordStart(child, started, inRef); err != nil {
			return c.fail(child, err)
		}
		c.res.Attempts = attempt
		t0 := g.cfg.Now()
		out, returned, err := c.invoke(ctx, attempt, child.Record.ID)
		var canonical []byte
		if err == nil {
			canonical, err = c.checkOutput(out)
		}
		stored := true
		var outRef sanad.ArtifactRef
		if err == nil {
			if outRef, err = g.cfg.Artifacts.Stage(c.scope, child.Record.ID, MediaType, canonical); err != nil {
				stored = false
				err = sanad.Wrap(err, sanad.ErrorCode(err), "tool.store", "the tool ran but its output could not be stored: "+sanad.ErrorMessage(err))
			}
		}
		elapsed := max(g.cfg.Now().Sub(t0).Microseconds(), 0)
		if err == nil {
			return c.complete(child, attempt, inRef, outRef, canonical, elapsed)
		}
		retry := returned && stored && attempt < spec.Retry.MaxAttempts+c.req.PriorAttempts && sanad.IsRetryable(err) &&
			(spec.Idempotent || spec.SideEffect == SideEffectNone) && ctx.Err() == nil
		// An attempt the caller's context ended is not the tool's failure:
		// the call stays open for a later execution under the same key
		// (Request.PriorAttempts), which its caller decides on; here it
		// stops at the next step (stop).
		interrupted := ctx.Err() != nil
		failed := FailedBody{CallInfo: c.info, Attempt: attempt, Status: sanad.ErrorCode(err), Error: *sanad.NewRunError(err), Retry: retry || interrupted, ElapsedUS: elapsed, Abandoned: !returned}
		var wait time.Duration
		if retry {
			wait = spec.Retry.Backoff(attempt)
			failed.BackoffMS = wait.Milliseconds()
		}
		if _, aerr := child.Append(c.rctx, TypeFailed, "", failed, nil); aerr != nil {
			return c.fail(child, aerr)
		}
		if interrupted {
			return c.stop(child, err)
		}
		if !retry {
			return c.fail(child, err)
		}
		if serr := g.cfg.Sleep(ctx, wait); serr != nil {
			return c.stop(child, ctxError(serr, spec.Name))
		}
	}
}

// recordStart records an attempt's start. It is durable before a tool with
// side effects runs (write-ahead: a crash leaves a record of the attempt). A
// tool that only reads leaves nothing half done if the process dies, so its
// start is only sealed and queued: the attempt's outcome, which the call
// waits for, commits with it or after it, and every commit takes the queue
// in order, so anything that later leaves the process through a tool with
// side effects finds this call recorded first. Both are held (runs.Run.Hold):
// they do not start their batch's clock, so the call's records commit once,
// when the call waits for its outcome.
func (c *call) recordStart(child *runs.Run, started StartedBody, inRef sanad.ArtifactRef) error {
	ev := runs.Event{Type: TypeStarted, Body: started, Refs: []sanad.ArtifactRef{inRef}}
	if c.e.spec.SideEffect == SideEffectNone {
		_, err := child.Hold(c.rctx, ev)
		return err
	}
	_, err := child.AppendAll(c.rctx, ev)
	return err
}

// stop records that the call's next attempt did not start because ctx
// ended, so that the call's last tool.* event has its final status, and
// fails the run.
func (c *call) stop(child *runs.Run, err error) Result {
	code := sanad.ErrorCode(err)
	if _, aerr := child.Append(c.rctx, TypeRefused, "", c.refusal(StageExecute, code, "", sanad.ErrorMessage(err)), nil); aerr != nil {
		return c.fail(child, aerr)
	}
	return c.fail(child, err)
}

// complete records the successful attempt and ends the run.
func (c *call) complete(child *runs.Run, attempt int, inRef, outRef sanad.ArtifactRef, canonical []byte, elapsed int64) Result {
	// The output is canonical JSON, so the artifact's SHA-256 is its
	// canonical hash.
	body := CompletedBody{
		CallInfo: c.info, Attempt: attempt, Status: StatusSuccess, ResultHash: "sha256:" + outRef.SHA256,
		Input: inRef, Output: outRef, ElapsedUS: elapsed,
	}
	// The outcome and the run's end are queued together and awaited once.
	done, err := child.Hold(c.rctx, runs.Event{Type: TypeCompleted, Body: body, Refs: []sanad.ArtifactRef{inRef, outRef}})
	if err != nil {
		return c.fail(child, err)
	}
	end, err := child.Conclude(c.rctx, sanad.StatusCompleted, []sanad.ArtifactRef{outRef}, nil, nil)
	if err == nil {
		err = done.Wait(c.rctx)
	} else if werr := done.Wait(c.rctx); werr != nil {
		err = werr
	}
	if err == nil {
		err = end.Wait(c.rctx)
	}
	if err != nil {
		return c.result(sanad.ErrorCode(err), "the tool succeeded but its outcome could not be recorded: "+sanad.ErrorMessage(err)).because(err)
	}
	r := c.res
	r.Success, r.InputHash, r.ResultHash, r.OutputRef, r.output = true, c.info.InputHash, body.ResultHash, outRef, canonical
	return r
}

// outcome is what a tool's goroutine hands back.
type outcome struct {
	out json.RawMessage
	err error
}

// invoke runs one attempt of the tool within its timeout. returned is false
// when the attempt was abandoned, still running after its deadline and the
// grace period.
func (c *call) invoke(ctx context.Context, attempt int, run string) (out json.RawMessage, returned bool, err error) {
	spec := &c.e.spec
	actx, cancel := context.WithTimeout(ctx, spec.Timeout)
	defer cancel()
	in := Call{
		Tool: spec.Name, CallID: c.req.CallID, Key: c.info.Key, Attempt: attempt,
		Input: bytes.Clone(c.input), Run: run, Principal: c.p, Round: c.req.Round, DebateID: c.req.DebateID,
	}
	done := make(chan outcome, 1) // buffered: an abandoned attempt can still hand back and exit
	go func() {
		defer func() {
			if r := recover(); r != nil {
				pe := sanad.NewPanicError(r)
				done <- outcome{err: sanad.Wrap(pe, sanad.CodeToolFailed, "tool."+spec.Name, fmt.Sprintf("tool %s panicked: %s", spec.Name, pe.Value))}
			}
		}()
		o, e := spec.Func(actx, in)
		done <- outcome{o, e}
	}()
	select {
	case o := <-done:
		return o.out, true, c.classify(ctx, actx, o.err)
	case <-actx.Done():
		grace := time.NewTimer(c.g.cfg.Grace)
		defer grace.Stop()
		select {
		case o := <-done:
			return o.out, true, c.classify(ctx, actx, o.err)
		case <-grace.C:
		}
		return nil, false, c.classify(ctx, actx, actx.Err())
	}
}

// classify gives a tool's error its code: a timeout or cancellation by its
// context, the code of a *sanad.Error, or TOOL_FAILED.
func (c *call) classify(ctx, actx context.Context, err error) error {
	name := c.e.spec.Name
	if err == nil {
		return nil
	}
	if actx.Err() != nil {
		switch {
		case errors.Is(ctx.Err(), context.Canceled):
			return sanad.Wrap(err, sanad.CodeCancelled, "tool."+name, "the call of "+name+" was cancelled")
		case ctx.Err() != nil:
			return sanad.Wrap(err, sanad.CodeTimeout, "tool."+name, "the caller's deadline passed before tool "+name+" finished")
		}
		return sanad.Wrap(err, sanad.CodeTimeout, "tool."+name, fmt.Sprintf("tool %s did not finish within its deadline (%v per attempt)", name, c.e.spec.Timeout))
	}
	var se *sanad.Error
	if errors.As(err, &se) && se.Code.Known() {
		return err
	}
	return sanad.Wrap(err, sanad.CodeToolFailed, "tool."+name, "tool "+name+" failed: "+sanad.ErrorMessage(err))
}

// ctxError is the error of a call whose ctx ended between attempts.
func ctxError(err error, name string) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return sanad.Wrap(err, sanad.CodeTimeout, "tool."+name, "the call of "+name+" ran out of time")
	}
	return sanad.Wrap(err, sanad.CodeCancelled, "tool."+name, "the call of "+name+" was cancelled")
}

// checkOutput checks a tool's output (bounded, JSON, matching its output
// schema) and returns its canonical form.
func (c *call) checkOutput(out json.RawMessage) ([]byte, error) {
	name := c.e.spec.Name
	op := "tool." + name
	if len(out) > c.g.cfg.MaxOutputBytes {
		return nil, sanad.Errorf(sanad.CodeToolFailed, op, "tool %s returned %d bytes; at most %d are allowed", name, len(out), c.g.cfg.MaxOutputBytes)
	}
	b, err := canon.AppendTransform(make([]byte, 0, len(out)), out)
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeToolFailed, op, "tool "+name+" returned JSON with no canonical form: "+err.Error())
	}
	if err := c.e.output.ValidateCanonical(b); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeToolFailed, op, "the output of "+name+" does not match its output schema: "+shape.Explain(err))
	}
	return b, nil
}

// clip bounds s to n bytes on a UTF-8 boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// quote quotes a name taken from a request, bounded.
func quote(s string) string { return strconv.Quote(clip(s, 64)) }
