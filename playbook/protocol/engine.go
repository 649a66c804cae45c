package protocol

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/artifact"
	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/runs"
	"github.com/sanadhq/sanad/tool"
)

// RunStore reads the projected records of runs.
type RunStore interface {
	Run(ctx context.Context, id string) (sanad.Run, error)
	Runs(ctx context.Context, trace string) ([]sanad.Run, error)
}

// Config configures an [Engine].
type Config struct {
	Runs      *runs.Recorder
	Store     RunStore
	Artifacts *artifact.Store
	// Policy governs the gateway's tool calls ([DefaultPolicy] when nil);
	// Tools are what sessions may call ([Tools] when nil).
	Policy *policy.Set
	Tools  *tool.Registry
	// Thresholds are the critic's and auditor's policy ([DefaultThresholds]
	// when zero). A task may tighten them, never loosen them.
	Thresholds Thresholds
	// Roster names each role's identity; a role it leaves out gets the one
	// of [DefaultRoster].
	Roster Roster
	// The roles; nil ones are the deterministic ones ([TaskPlanner],
	// [ThresholdCritic], [TaskExecutor], [CoverageAuditor]), and Mode, which
	// is recorded and reported, is then [ModeDeterministic].
	Planner  Planner
	Executor Executor
	Critic   Critic
	Auditor  Auditor
	Mode     string
	// Generate, when set, makes a nil Planner a [ModelPlanner] and a nil
	// Critic a [ModelCritic] that ask a model through it, and the mode
	// [ModeModel]. Nil keeps the deterministic roles.
	Generate Generate
	// Concurrency bounds how many approved proposals execute at once (1
	// when zero: one after the other, in proposal order).
	Concurrency int
	// Crash is called at each named crash point (the Point constants);
	// nil does nothing.
	Crash func(point string)
}

// Engine runs protocol sessions. A session is a run of kind session whose
// trace records every proposal, review, intent, execution, claim, challenge
// and verification as a signed event, within the protocol's transitions and
// ordering rules (see [Vocabulary]); its tool calls go through a tool
// gateway in the session run. It is safe for concurrent use.
type Engine struct {
	cfg Config
	gw  *tool.Gateway

	mu     sync.Mutex // guards active
	active map[string]*session
}

// New returns an engine over cfg.
func New(cfg Config) (*Engine, error) {
	if cfg.Runs == nil || cfg.Runs.Ledger == nil || cfg.Store == nil || cfg.Artifacts == nil {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, "protocol.new", "a session engine needs a run recorder with a ledger, a run store and an artifact store")
	}
	var err error
	if cfg.Policy == nil {
		if cfg.Policy, err = DefaultPolicy(); err != nil {
			return nil, err
		}
	}
	if cfg.Tools == nil {
		if cfg.Tools, err = tool.NewRegistry(Tools(cfg.Artifacts)...); err != nil {
			return nil, err
		}
	}
	if cfg.Thresholds == (Thresholds{}) {
		cfg.Thresholds = DefaultThresholds
	}
	if err := cfg.Thresholds.Validate(); err != nil {
		return nil, err
	}
	roster := Roster{}
	for _, r := range Roles {
		roster[r] = cmp.Or(cfg.Roster[r], DefaultRoster[r])
	}
	if cfg.Generate != nil && (cfg.Planner == nil || cfg.Critic == nil) {
		if cfg.Planner == nil {
			cfg.Planner = ModelPlanner{Generate: cfg.Generate}
		}
		if cfg.Critic == nil {
			cfg.Critic = ModelCritic{Generate: cfg.Generate}
		}
		cfg.Mode = cmp.Or(cfg.Mode, ModeModel)
	}
	cfg.Roster, cfg.Mode = roster, cmp.Or(cfg.Mode, ModeDeterministic)
	cfg.Planner, cfg.Executor = cmp.Or[Planner](cfg.Planner, TaskPlanner{}), cmp.Or[Executor](cfg.Executor, TaskExecutor{})
	cfg.Critic, cfg.Auditor = cmp.Or[Critic](cfg.Critic, ThresholdCritic{}), cmp.Or[Auditor](cfg.Auditor, CoverageAuditor{})
	cfg.Concurrency = max(cfg.Concurrency, 1)
	e := &Engine{cfg: cfg, active: map[string]*session{}}
	e.gw, err = tool.New(tool.Config{Registry: cfg.Tools, Policy: cfg.Policy, Runs: cfg.Runs, Artifacts: cfg.Artifacts, Approver: tool.ApproverFunc(e.approve)})
	return e, err
}

// Options are the settings of one session.
type Options struct {
	Scope sanad.Scope
	// Decision authorizes the session run (allowed, "started by its
	// caller", when zero).
	Decision runs.Decision
}

// Outcome is a verification's result. Report is the artifact id of its
// JSON report. Recorded says the outcome is in the session's trace: it is
// not when the trace is so damaged that the ledger takes no more events.
type Outcome struct {
	ID       string   `json:"id,omitempty"`
	Status   string   `json:"status"`
	Report   string   `json:"report"`
	Recorded bool     `json:"recorded"`
	Errors   []string `json:"errors,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

// Result is where a session stands when Start, Resume or Abort returns.
// Stopped says why a session stopped in an active state it cannot leave
// without an operator, who may abort it.
type Result struct {
	Session      string   `json:"session"`
	Trace        string   `json:"trace"`
	State        State    `json:"state"`
	Mode         string   `json:"mode"`
	Verification *Outcome `json:"verification,omitempty"`
	Stopped      string   `json:"stopped,omitempty"`
}

// Err returns nil for a completed session, else an error that says why it
// is not.
func (r Result) Err() error {
	const op = "protocol.session"
	switch {
	case r.State == StateCompleted:
		return nil
	case r.Stopped != "":
		return sanad.Errorf(sanad.CodeConflict, op, "session %s stopped in state %s: %s", r.Session, r.State, r.Stopped)
	case r.Verification != nil && len(r.Verification.Errors) > 0:
		return sanad.Errorf(sanad.CodeIntegrity, op, "session %s %s: verification %s: %s", r.Session, r.State, r.Verification.Status, strings.Join(r.Verification.Errors, "; "))
	}
	return sanad.Errorf(sanad.CodeCancelled, op, "session %s is %s", r.Session, r.State)
}

func (e *Engine) crash(point string) {
	if e.cfg.Crash != nil {
		e.cfg.Crash(point)
	}
}

// Start records a new session of task and runs it until it ends, or stops
// in a state it cannot leave without an operator. The session's failure is
// in the Result; the error is for a session that could not be recorded, or
// stopped being recorded (resume it).
func (e *Engine) Start(ctx context.Context, task *Task, opt Options) (Result, error) {
	const op = "protocol.start"
	if err := task.Validate(); err != nil {
		return Result{}, err
	}
	if err := opt.Scope.Validate(); err != nil {
		return Result{}, err
	}
	for _, o := range task.Objectives {
		for _, p := range []*Plan{&o.Plan, o.Fallback} {
			if p == nil {
				continue
			}
			if _, ok := e.cfg.Tools.Lookup(p.Tool); !ok {
				var names []string
				for _, s := range e.cfg.Tools.List() {
					names = append(names, s.Name)
				}
				return Result{}, sanad.Errorf(sanad.CodeInvalidInput, op, "objective %q needs tool %q, which is not registered (tools: %s)", o.ID, p.Tool, strings.Join(names, ", "))
			}
		}
	}
	// The task, its fixtures and its inline attachments are the run's inputs.
	var inputs []sanad.ArtifactRef
	put := func(mediaType string, data []byte) (string, error) {
		ref, err := e.cfg.Artifacts.Put(ctx, opt.Scope, "", mediaType, data)
		inputs = append(inputs, ref)
		return ref.ID, err
	}
	taskJSON, err := canon.Marshal(task)
	if err != nil {
		return Result{}, sanad.Wrap(err, sanad.CodeInvalidInput, op, "the task is not JSON")
	}
	info := TaskInfo{Name: task.Name, Objectives: len(task.Objectives)}
	if info.Artifact, err = put(tool.MediaType, taskJSON); err != nil {
		return Result{}, err
	}
	if len(task.Fixtures) > 0 {
		data, _ := canon.Marshal(task.Fixtures)
		if info.Dataset, err = put(tool.MediaType, data); err != nil {
			return Result{}, err
		}
	}
	for _, a := range task.Attachments {
		if a.Content == "" {
			continue
		}
		if _, err := put(a.MediaType, []byte(a.Content)); err != nil {
			return Result{}, err
		}
	}
	dec := opt.Decision
	if dec.Reason == "" {
		dec = runs.Decision{Allow: true, Reason: "session " + task.Name + " started by its caller"}
	}
	init := InitializedBody{Mode: e.cfg.Mode, Task: info, Roster: e.cfg.Roster, Thresholds: e.cfg.Thresholds.Tighten(task.Policy)}
	run, err := e.cfg.Runs.Start(ctx, runs.Spec{
		Kind: sanad.KindSession, Scope: opt.Scope, Agent: e.cfg.Runs.Ledger.RuntimeIdentity(), Role: "session",
		PolicyVersions: e.cfg.Policy.Versions(), Inputs: inputs, Request: json.RawMessage(taskJSON), Decision: dec,
		Also: []runs.Event{{Type: TypeSessionInitialized, Body: init}},
	})
	if err != nil {
		if run != nil { // denied
			return Result{Session: run.Record.ID, Trace: run.Record.Trace, Mode: e.cfg.Mode}, err
		}
		return Result{}, err
	}
	evs, err := e.cfg.Runs.Ledger.Events(ctx, run.Record.Trace)
	var s *session
	if err == nil {
		s, err = e.load(ctx, run.Record, evs)
	}
	if err != nil {
		return Result{Session: run.Record.ID, Trace: run.Record.Trace, State: StateInitialized, Mode: e.cfg.Mode}, err
	}
	s.run, s.env.Session = run, run
	e.crash(PointInitialized)
	return e.drive(ctx, s)
}

// Resume goes on with a session that stopped before its end (a crash, a
// cancelled context): it reloads the trace, checks it (signatures, chain,
// ordering rules), settles the tool calls the stopped process left open,
// and resumes at the next valid transition. A trace that fails the check
// fails the session: the auditor records a failed verification if the
// trace can still take events, and otherwise returns its report unrecorded.
func (e *Engine) Resume(ctx context.Context, id string) (Result, error) {
	rec, err := e.record(ctx, id)
	if err != nil {
		return Result{}, err
	}
	led := e.cfg.Runs.Ledger
	evs, lerr := led.Events(ctx, rec.Trace)
	_, verr := led.Verify(ctx, rec.Trace)
	var s *session
	if lerr == nil {
		s, lerr = e.load(ctx, rec, evs)
	}
	if lerr != nil {
		return e.unrecorded(ctx, rec, lerr)
	}
	if rec.Status != sanad.StatusRunning {
		return s.result(), sanad.Errorf(sanad.CodeConflict, "protocol.resume", "session %s has ended (%s): there is nothing to resume", id, s.t.state)
	}
	if s.t.init.Mode != e.cfg.Mode {
		// Resuming with other roles would switch the session's mode without
		// a word in its trace.
		return s.result(), sanad.Errorf(sanad.CodeConflict, "protocol.resume", "session %s runs in mode %s, and this engine's roles are %s: resume it with roles of its mode", id, s.t.init.Mode, e.cfg.Mode)
	}
	e.crash(PointResumeLoaded)
	if err := s.attach(ctx, rec, evs); err != nil {
		return s.result(), err
	}
	s.cause, s.env.Session = verr, s.run
	return e.drive(ctx, s)
}

// Abort ends a session that no process is running as aborted, on an
// operator's word.
func (e *Engine) Abort(ctx context.Context, id string, by Operator, reason string) (Result, error) {
	const op = "protocol.abort"
	rec, err := e.record(ctx, id)
	if err != nil {
		return Result{}, err
	}
	evs, err := e.cfg.Runs.Ledger.Events(ctx, rec.Trace)
	if err != nil {
		return Result{}, err
	}
	s, err := e.load(ctx, rec, evs)
	switch {
	case err != nil:
		return Result{}, err
	case rec.Status != sanad.StatusRunning || s.t.state.Terminal():
		return s.result(), sanad.Errorf(sanad.CodeConflict, op, "session %s has ended (%s): there is nothing to abort", id, s.t.state)
	case by.Agent == "":
		return s.result(), sanad.Errorf(sanad.CodeInvalidInput, op, "an abort names the operator who asks for it")
	}
	reason = cmp.Or(reason, "aborted by an operator")
	if err := s.attach(ctx, rec, evs); err != nil {
		return s.result(), err
	}
	if _, err := s.record(ctx, func() ([]ledger.Draft, error) {
		return []ledger.Draft{s.draft(TypeStateTransition, "", TransitionBody{From: s.t.state, To: StateAborted, Reason: reason, By: &by}, nil)}, nil
	}); err != nil {
		return s.result(), err
	}
	e.crash(PointBeforeEnd)
	return s.result(), s.run.Cancel(ctx, reason)
}

// record returns the record of session id.
func (e *Engine) record(ctx context.Context, id string) (sanad.Run, error) {
	rec, err := e.cfg.Store.Run(ctx, id)
	if err == nil && (rec.Kind != sanad.KindSession || rec.ID != rec.Trace) {
		err = sanad.Errorf(sanad.CodeInvalidInput, "protocol.session", "run %s is a %s run, not a session", id, rec.Kind)
	}
	return rec, err
}

// load builds a session from the events of its trace: the tracker, what
// the gateway recorded of its calls, and its roles' environment.
func (e *Engine) load(ctx context.Context, rec sanad.Run, evs []*ledger.Event) (*session, error) {
	const op = "protocol.load"
	s := &session{e: e, t: &tracker{}, run: &runs.Run{Record: rec}, outcomes: map[string]outcome{}, declined: map[string]bool{}, reviewed: map[string]bool{}}
	for _, ev := range evs {
		if err := s.t.apply(ev); err != nil {
			return nil, sanad.Wrap(err, sanad.CodeIntegrity, op, fmt.Sprintf("trace %s seq %d: %v", ev.Trace, ev.Seq, err))
		}
		s.observe(ev)
	}
	if s.t.run != rec.ID {
		return nil, sanad.Errorf(sanad.CodeIntegrity, op, "run %s has no protocol.session_initialized", rec.ID)
	}
	init := s.t.init
	data, _, err := e.cfg.Artifacts.Get(ctx, init.Task.Artifact, rec.Scope)
	if err != nil {
		return nil, err
	}
	var task Task
	if err := json.Unmarshal(data, &task); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeIntegrity, op, "the recorded task")
	}
	env := &Env{Task: &task, Thresholds: init.Thresholds, Scope: rec.Scope, Attachments: map[string]sanad.ArtifactRef{},
		Session: s.run, Roster: init.Roster}
	inputs := map[string]sanad.ArtifactRef{}
	for _, r := range rec.Inputs {
		inputs[r.ID] = r
	}
	env.Dataset = inputs[init.Task.Dataset]
	for _, a := range task.Attachments {
		sum := a.SHA256
		if a.Content != "" {
			sum = canon.Sum([]byte(a.Content)).Hex()
		}
		ref, ok := inputs[sanad.ArtifactID(sum)]
		if !ok { // declared, expected in the store already
			ref = sanad.ArtifactRef{ID: sanad.ArtifactID(sum), SHA256: sum, MediaType: a.MediaType, SizeBytes: a.SizeBytes, Scope: rec.Scope}
		}
		env.Attachments[a.Name] = ref
	}
	executor := policy.Principal{Agent: init.Roster[RoleExecutor], Role: string(RoleExecutor), Scope: rec.Scope}
	env.Risk = func(name string) (string, bool) {
		t, ok := e.cfg.Policy.Tool(name)
		_, registered := e.cfg.Tools.Lookup(name)
		allowed := e.cfg.Policy.Decide(executor, policy.ToolCall(name), policy.Resource{Scope: rec.Scope}).Allow
		return t.Risk, ok && registered && allowed && riskRank(t.Risk) >= 0
	}
	env.Read = func(ctx context.Context, ref sanad.ArtifactRef) ([]byte, error) {
		data, _, err := e.cfg.Artifacts.Get(ctx, ref.ID, rec.Scope)
		return data, err
	}
	env.Input = func(ctx context.Context, intent string) ([]byte, error) {
		s.mu.Lock()
		in := s.t.intents[intent]
		s.mu.Unlock()
		if in == nil {
			return nil, sanad.Errorf(sanad.CodeNotFound, op, "the session has no intent %s", intent)
		}
		return env.Read(ctx, in.input)
	}
	s.env = env
	return s, nil
}

// approve is the gateway's critic for session calls: it approves a call
// only if the session's critic approved its signed intent, on that input.
func (e *Engine) approve(_ context.Context, in tool.Intent) (tool.Verdict, error) {
	id, call, _ := strings.Cut(in.Key, "/")
	e.mu.Lock()
	s := e.active[id]
	e.mu.Unlock()
	if s == nil {
		return tool.Verdict{Critic: "protocol", Reason: "no running session holds call " + in.Key}, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	v := tool.Verdict{Critic: s.t.init.Roster[RoleCritic]}
	switch it := s.t.calls[call]; {
	case it == nil:
		v.Reason = "the session has no signed intent for call " + call
	case it.InputHash != in.InputHash:
		v.Reason = "the call's input is not the one intent " + it.IntentID + " signed"
	case it.review.Decision != IntentApproved:
		v.Reason = "the critic did not approve intent " + it.IntentID
	default:
		v.Approve, v.Reason = true, it.review.Reason
	}
	return v, nil
}
