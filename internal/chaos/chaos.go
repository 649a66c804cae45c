// Package chaos proves that a crash loses nothing: it runs a long workflow
// in a child process, kills it with SIGKILL at random moments and at named
// crash points, resumes it each time, and compares what is left with a run
// that never crashed. It counts acknowledged events lost, broken chains,
// effects that happened twice, completed steps executed again, and runs
// whose outputs or effects differ from the crash-free run.
package chaos

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/gate"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/runs"
	"github.com/sanadhq/sanad/sqlite"
	"github.com/sanadhq/sanad/workflow"
)

// DefaultSteps is the length of the harness's workflow.
const DefaultSteps = 40

// Points are the named crash points the harness aims at: the workflow
// engine's, the ledger's and the store's around and inside a commit, and
// the tools' around their effect.
func Points() []string {
	p := []string{ledger.PointBeforeCommit, ledger.PointAfterCommit, sqlite.PointBeforeCommit, PointToolBeforeEffect, PointToolAfterEffect}
	return append(p, workflow.Points...)
}

// needsInterrupted are the points passed only when a resume finds a tool
// call interrupted in its attempt: the harness first kills a child inside
// a tool.
var needsInterrupted = map[string]bool{workflow.PointBeforeRetry: true, workflow.PointAfterGateOpen: true}

// needsStart are the points passed only by a child that starts a run.
var needsStart = map[string]bool{workflow.PointBeforeStart: true, workflow.PointAfterStart: true}

// oncePerProcess are the points a child passes at most once.
var oncePerProcess = map[string]bool{
	workflow.PointBeforeStart: true, workflow.PointAfterStart: true, workflow.PointBeforeEnd: true,
	workflow.PointAfterEnd: true, workflow.PointResumeLoaded: true, workflow.PointResumeOrphansClosed: true,
}

// Config configures Run.
type Config struct {
	// Dir is an empty folder for the homes and worlds.
	Dir string
	// Kills is how many times a child is killed.
	Kills int
	// Steps is the length of the workflow (DefaultSteps when zero).
	Steps int
	// Seed makes the kill schedule repeatable.
	Seed uint64
	// Command returns a command that runs Child with args, its stdout the
	// given writer's reader end left to Run.
	Command func(args []string) *exec.Cmd
	// MaxDelay bounds the random wait before a kill (default 25ms).
	MaxDelay time.Duration
}

// Report is what Run found. Every count but Kills, GatesOpened, Runs,
// Resumes, RandomKills and PointsHit must be zero.
type Report struct {
	Kills            int            `json:"kills"`
	LostEvents       int            `json:"lost_events"`
	ChainBreaks      int            `json:"chain_breaks"`
	DuplicateEffects int            `json:"duplicate_effects"`
	ReexecutedSteps  int            `json:"reexecuted_steps"`
	StateMismatches  int            `json:"state_mismatches"`
	GatesOpened      int            `json:"gates_opened"`
	Runs             int            `json:"runs"`
	Resumes          int            `json:"resumes"`
	RandomKills      int            `json:"random_kills"`
	PointsHit        map[string]int `json:"points_hit"`
	Acknowledged     int            `json:"acknowledged_events"`
	// Problems describes the first things found wrong.
	Problems []string `json:"problems,omitempty"`
}

func (r *Report) problem(format string, args ...any) {
	if len(r.Problems) < 20 {
		r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
	}
}

// OK reports whether every count that must be zero is.
func (r Report) OK() bool {
	return r.LostEvents == 0 && r.ChainBreaks == 0 && r.DuplicateEffects == 0 && r.ReexecutedSteps == 0 && r.StateMismatches == 0
}

// ack is an event a child reported durable.
type ack struct {
	trace string
	seq   uint64
	hash  string
	typ   string
	step  string
}

// harness is one Run in progress.
type harness struct {
	cfg       Config
	rng       *rand.Rand
	homeDir   string
	worldDir  string
	acks      []ack
	completed map[string]bool // run/step whose step.completed was acknowledged
	execRead  int             // lines of execs.log already examined
	started   int             // runs started
	rep       Report
}

// Run runs the harness and returns its report. An error means the harness
// itself could not work (a child failed to start, a home did not open), not
// that a crash lost something: that is in the report.
func Run(ctx context.Context, cfg Config) (Report, error) {
	if cfg.Steps == 0 {
		cfg.Steps = DefaultSteps
	}
	if cfg.MaxDelay == 0 {
		cfg.MaxDelay = 25 * time.Millisecond
	}
	if cfg.Command == nil || cfg.Dir == "" {
		return Report{}, errors.New("chaos: Config needs Dir and Command")
	}
	h := &harness{
		cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x5eed)),
		homeDir: filepath.Join(cfg.Dir, "home"), worldDir: filepath.Join(cfg.Dir, "world"),
		completed: map[string]bool{}, rep: Report{PointsHit: map[string]int{}},
	}
	points := Points()
	target, tries := 0, 0
	current, lastHit, lastSetup := "", "", false
	for attempt := 0; h.rep.Kills < cfg.Kills; attempt++ {
		if attempt > cfg.Kills*20+100 {
			return h.rep, fmt.Errorf("chaos: %d children for %d kills: the children do not get killed", attempt, h.rep.Kills)
		}
		crashAt, run, setup := "", current, false
		// Two children in three aim at a named point; the third is killed
		// at a random moment. A child that set up a point aims at it next.
		if attempt%3 != 2 || lastSetup {
			// Named points take turns, each tried until it is hit (at
			// most three times: some are only passed in some runs). The
			// pass at which to stop is random, so that points passed many
			// times are hit at different steps.
			p := points[target%len(points)]
			n := 1
			if !oncePerProcess[p] && !needsInterrupted[p] {
				n += h.rng.IntN(12)
			}
			if needsInterrupted[p] && lastHit != PointToolAfterEffect {
				p, n, setup = PointToolAfterEffect, 1+h.rng.IntN(6), true
			}
			if needsStart[p] {
				run = "" // a new run; the current one is resumed later
			}
			crashAt = p + ":" + strconv.Itoa(n)
		}
		lastSetup = setup
		out, killed, err := h.child(ctx, run, crashAt, crashAt == "")
		if err != nil {
			return h.rep, err
		}
		lastHit = ""
		if killed {
			h.rep.Kills++
			if p := hitPoint(out); p != "" {
				h.rep.PointsHit[p]++
				lastHit = p
			} else {
				h.rep.RandomKills++
			}
		}
		if crashAt != "" && !setup {
			if tries++; killed || tries == 3 {
				target, tries = target+1, 0
			}
		}
		if current, err = h.settle(ctx, current); err != nil {
			return h.rep, err
		}
	}
	// Finish the runs left without killing them.
	for i := 0; current != "" && i < 20; i++ {
		if _, _, err := h.child(ctx, current, "", false); err != nil {
			return h.rep, err
		}
		var err error
		if current, err = h.settle(ctx, current); err != nil {
			return h.rep, err
		}
	}
	if current != "" {
		return h.rep, fmt.Errorf("chaos: run %s does not finish", current)
	}
	return h.rep, h.check(ctx)
}

// child runs one child to its end or its kill: at crashAt, or with
// randomKill after a random delay once it is ready (if it has not finished
// by then).
func (h *harness) child(ctx context.Context, run, crashAt string, randomKill bool) (out []string, killed bool, err error) {
	args := []string{"-home", h.homeDir, "-world", h.worldDir, "-steps", strconv.Itoa(h.cfg.Steps)}
	if run != "" {
		args = append(args, "-run", run)
		h.rep.Resumes++
	} else {
		if h.started%2 == 1 {
			args = append(args, "-rollback")
		}
		h.started++
	}
	if crashAt != "" {
		args = append(args, "-crash-at", crashAt)
	}
	completedBefore := make(map[string]bool, len(h.completed))
	for k := range h.completed {
		completedBefore[k] = true
	}
	cmd := h.cfg.Command(args)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, false, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, false, fmt.Errorf("chaos: start child: %w", err)
	}
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	for l := range lines {
		out = append(out, l)
		if l == "ready" && randomKill {
			delay := time.Duration(h.rng.Int64N(int64(h.cfg.MaxDelay)))
			kill := time.AfterFunc(delay, func() { _ = cmd.Process.Signal(syscall.SIGKILL) })
			defer kill.Stop()
		}
		h.take(l)
	}
	werr := cmd.Wait()
	var ee *exec.ExitError
	if errors.As(werr, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			killed = true
			werr = nil
		}
	}
	if werr != nil {
		return out, false, fmt.Errorf("chaos: child %v: %w: %s", args, werr, stderr.String())
	}
	if err := h.examineExecs(completedBefore); err != nil {
		return out, killed, err
	}
	return out, killed, nil
}

// take reads one line of a child's output.
func (h *harness) take(l string) {
	f := strings.Fields(l)
	if len(f) < 5 || f[0] != "ack" {
		return
	}
	seq, err := strconv.ParseUint(f[2], 10, 64)
	if err != nil {
		return
	}
	a := ack{trace: f[1], seq: seq, hash: f[3], typ: f[4]}
	if len(f) > 5 {
		a.step = f[5]
	}
	h.acks = append(h.acks, a)
	h.rep.Acknowledged++
	if a.typ == workflow.TypeStepCompleted {
		h.completed[a.trace+" "+a.step] = true
	}
}

func hitPoint(out []string) string {
	for _, l := range out {
		if p, ok := strings.CutPrefix(l, "hit "); ok {
			return p
		}
	}
	return ""
}

// examineExecs counts the steps the last child executed although their
// completion had been acknowledged before it started.
func (h *harness) examineExecs(completedBefore map[string]bool) error {
	lines, err := readLines(filepath.Join(h.worldDir, "execs.log"))
	if err != nil {
		return err
	}
	for _, l := range lines[min(h.execRead, len(lines)):] {
		if completedBefore[l] {
			h.rep.ReexecutedSteps++
			h.rep.problem("step executed again after its completion was acknowledged: %s", l)
		}
	}
	h.execRead = len(lines)
	return nil
}

// settle opens the home after a child ended, answers the gates it left as
// an operator would (looking at the world to see whether the effect took
// place) and returns the run still to finish ("" when none).
func (h *harness) settle(ctx context.Context, current string) (string, error) {
	hm, err := home.Open(ctx, home.Config{Dir: h.homeDir})
	if err != nil {
		return "", err
	}
	defer hm.Close()
	pol, err := policySet()
	if err != nil {
		return "", err
	}
	svc := &gate.Service{Runs: hm.Runs, Store: hm.DB, Roles: pol}
	open, err := hm.DB.Gates(ctx, gate.StatusOpen)
	if err != nil {
		return "", err
	}
	effects, err := readLines(filepath.Join(h.worldDir, "effects.log"))
	if err != nil {
		return "", err
	}
	applied := map[string]bool{}
	for _, l := range effects {
		applied[l] = true
	}
	for _, g := range open {
		if g.Kind != gate.KindAmbiguousEffect {
			continue
		}
		key, _, _ := strings.Cut(g.Subject, "#") // the effect's key, "#", its re-runs so far
		took := applied[ToolNotify+" "+key] || applied[ToolCount+" "+key]
		note := ""
		if took {
			note = string(output(ToolNotify, key))
		}
		by := runs.Principal{Agent: "chaos-operator", Role: "operator"}
		if _, err := svc.Resolve(ctx, g.GateID, by, !took, note); err != nil {
			return "", err
		}
	}
	traces, err := ledger.WorkTraces(ctx, hm.DB)
	if err != nil {
		return "", err
	}
	for _, t := range traces {
		r, err := hm.DB.Run(ctx, t)
		if err != nil {
			return "", err
		}
		if r.Kind == sanad.KindWorkflow && r.Status == sanad.StatusRunning {
			return r.ID, nil
		}
	}
	return "", nil
}

// check compares the home and the world with a crash-free run and fills in
// the report.
func (h *harness) check(ctx context.Context) error {
	ref, err := h.reference(ctx)
	if err != nil {
		return err
	}
	hm, err := home.Open(ctx, home.Config{Dir: h.homeDir})
	if err != nil {
		return err
	}
	defer hm.Close()
	if _, err := hm.Ledger.Verify(ctx, ""); err != nil {
		h.rep.ChainBreaks++
		h.rep.problem("verify: %v", err)
	}
	traces, err := ledger.WorkTraces(ctx, hm.DB)
	if err != nil {
		return err
	}
	events := map[string]map[uint64]string{}
	for _, t := range traces {
		evs, err := hm.Ledger.Events(ctx, t)
		if err != nil {
			h.rep.ChainBreaks++
			continue
		}
		m := make(map[uint64]string, len(evs))
		for _, ev := range evs {
			m[ev.Seq] = hex.EncodeToString(ev.Hash[:])
		}
		events[t] = m
	}
	for _, a := range h.acks {
		if events[a.trace][a.seq] != a.hash {
			h.rep.LostEvents++
			h.rep.problem("acknowledged %s %d (%s) is not in the log", a.trace, a.seq, a.typ)
		}
	}
	effects, err := readLines(filepath.Join(h.worldDir, "effects.log"))
	if err != nil {
		return err
	}
	seen := map[string]int{}
	for _, l := range effects {
		seen[l]++
		if seen[l] > 1 {
			h.rep.DuplicateEffects++
			h.rep.problem("effect took place twice: %s", l)
		}
	}
	for _, t := range traces {
		r, err := hm.DB.Run(ctx, t)
		if err != nil {
			return err
		}
		if r.Kind != sanad.KindWorkflow {
			continue
		}
		h.rep.Runs++
		name, got, err := summarize(ctx, hm, r, effects)
		if err != nil {
			return err
		}
		if got != ref[name] {
			h.rep.StateMismatches++
			h.rep.problem("run %s (%s) ended otherwise than the crash-free run:\n%s", r.ID, name, got)
		}
	}
	gates, err := hm.DB.Gates(ctx, "")
	if err != nil {
		return err
	}
	h.rep.GatesOpened = len(gates)
	return nil
}

// reference runs each variant of the workflow once, in process, in a home
// of its own, with no crash, and returns their summaries by workflow name.
func (h *harness) reference(ctx context.Context) (map[string]string, error) {
	dir := filepath.Join(h.cfg.Dir, "reference")
	home0, world0 := filepath.Join(dir, "home"), filepath.Join(dir, "world")
	for _, variant := range [][]string{nil, {"-rollback"}} {
		args := append([]string{"-home", home0, "-world", world0, "-steps", strconv.Itoa(h.cfg.Steps)}, variant...)
		if err := Child(ctx, args, io.Discard); err != nil {
			return nil, fmt.Errorf("chaos: reference run: %w", err)
		}
	}
	hm, err := home.Open(ctx, home.Config{Dir: home0})
	if err != nil {
		return nil, err
	}
	defer hm.Close()
	effects, err := readLines(filepath.Join(world0, "effects.log"))
	if err != nil {
		return nil, err
	}
	traces, err := ledger.WorkTraces(ctx, hm.DB)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, t := range traces {
		r, err := hm.DB.Run(ctx, t)
		if err != nil {
			return nil, err
		}
		name, sum, err := summarize(ctx, hm, r, effects)
		if err != nil {
			return nil, err
		}
		out[name] = sum
	}
	if len(out) != 2 {
		return nil, fmt.Errorf("chaos: reference runs: got %d workflows, want 2", len(out))
	}
	return out, nil
}

// summarize describes a finished run independently of its id: its status,
// its step outputs and the effects taken under its keys, with the run id
// replaced by RUN.
func summarize(ctx context.Context, hm *home.Home, r sanad.Run, effects []string) (name, summary string, err error) {
	evs, err := hm.Ledger.Events(ctx, r.Trace)
	if err != nil {
		return "", "", err
	}
	var outs []string
	for _, ev := range evs {
		if ev.Run != r.ID {
			continue
		}
		switch ev.Type {
		case workflow.TypeDefined:
			var b workflow.DefinedBody
			if err := json.Unmarshal(ev.Body, &b); err != nil {
				return "", "", err
			}
			name = b.Name
		case workflow.TypeStepCompleted, workflow.TypeStepFailed, workflow.TypeStepCompensated, workflow.TypeStepSkipped:
			var b workflow.StepBody
			if err := json.Unmarshal(ev.Body, &b); err != nil {
				return "", "", err
			}
			outs = append(outs, ev.Type+" "+b.StepID+"="+string(b.Output))
		}
	}
	var mine []string
	for _, l := range effects {
		if strings.Contains(l, r.ID+"/") {
			mine = append(mine, l)
		}
	}
	sort.Strings(mine)
	s := string(r.Status) + "\n" + strings.Join(outs, "\n") + "\n" + strings.Join(mine, "\n")
	return name, strings.ReplaceAll(s, r.ID, "RUN"), nil
}

// ChildMain is the entry point of a child process: it runs Child with the
// process's arguments and exits 0, or 2 with the error on stderr.
func ChildMain(args []string) {
	if err := Child(context.Background(), args, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "chaos child:", err)
		os.Exit(2)
	}
	os.Exit(0)
}
