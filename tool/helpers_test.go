package tool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/artifact"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/keyring"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/runs"
	"github.com/sanadhq/sanad/sqlite"
	"github.com/sanadhq/sanad/tool"
)

const debateDir = "../examples/policies/debate"

// deal is the scope the debate tests act in.
var deal = sanad.Scope{Tenant: "fund-1", Case: "deal-42"}

// env is a durable kernel in a temporary folder with a gateway over it.
type env struct {
	Ledger    *ledger.Ledger
	DB        *sqlite.DB
	Runs      *runs.Recorder
	Artifacts *artifact.Store
	Policy    *policy.Set
	Registry  *tool.Registry
	Gateway   *tool.Gateway
}

// allTypes returns the built-in event types with the tool vocabulary, which
// home does not register yet (it is added only if it is missing, so the
// tests keep working once home does).
func allTypes(tb testing.TB) *ledger.Types {
	tb.Helper()
	vocab := home.Vocabularies()
	builtin, err := home.Types()
	if err != nil {
		tb.Fatalf("home.Types: got error %v, want nil", err)
	}
	if _, ok := builtin.Lookup(tool.TypeIntent); !ok {
		vocab = append(vocab, tool.Vocabulary())
	}
	types, err := ledger.NewTypes(vocab...)
	if err != nil {
		tb.Fatalf("ledger.NewTypes: got error %v, want nil", err)
	}
	return types
}

// openEnv opens a fresh env with the policy pol, the registry reg and the
// gateway settings that configure sets (which may be nil).
func openEnv(tb testing.TB, pol *policy.Set, reg *tool.Registry, configure func(*tool.Config)) *env {
	tb.Helper()
	ctx := context.Background()
	dir := tb.TempDir()
	db, err := sqlite.Open(ctx, sqlite.Config{Path: filepath.Join(dir, "sanad.db")})
	if err != nil {
		tb.Fatalf("sqlite.Open: got error %v, want nil", err)
	}
	keys, err := keyring.Open(filepath.Join(dir, "keys"))
	if err != nil {
		tb.Fatalf("keyring.Open: got error %v, want nil", err)
	}
	l, err := ledger.Open(ledger.Config{Store: db, Keys: keys, Types: allTypes(tb), Origin: "sanad.log/tool-test"})
	if err != nil {
		tb.Fatalf("ledger.Open: got error %v, want nil", err)
	}
	tb.Cleanup(func() {
		l.Close(context.Background())
		db.Close()
	})
	arts, err := artifact.Open(filepath.Join(dir, "blobs"), db)
	if err != nil {
		tb.Fatalf("artifact.Open: got error %v, want nil", err)
	}
	e := &env{Ledger: l, DB: db, Runs: &runs.Recorder{Ledger: l}, Artifacts: arts, Policy: pol, Registry: reg}
	cfg := tool.Config{Registry: reg, Policy: pol, Runs: e.Runs, Artifacts: arts}
	if configure != nil {
		configure(&cfg)
	}
	if e.Gateway, err = tool.New(cfg); err != nil {
		tb.Fatalf("tool.New: got error %v, want nil", err)
	}
	return e
}

// loadPolicy loads a policy folder.
func loadPolicy(tb testing.TB, dir string) *policy.Set {
	tb.Helper()
	s, err := policy.Load(dir)
	if err != nil {
		tb.Fatalf("policy.Load(%s): got error %v, want nil", dir, err)
	}
	return s
}

// policyOf loads a policy made of roles.yaml and tools.yaml contents.
func policyOf(tb testing.TB, roles, tools string) *policy.Set {
	tb.Helper()
	s, err := policy.LoadFS(fstest.MapFS{
		"roles.yaml": {Data: []byte(roles)},
		"tools.yaml": {Data: []byte(tools)},
	})
	if err != nil {
		tb.Fatalf("policy.LoadFS: got error %v, want nil", err)
	}
	return s
}

// registry returns a registry of specs.
func registry(tb testing.TB, specs ...tool.Spec) *tool.Registry {
	tb.Helper()
	r, err := tool.NewRegistry(specs...)
	if err != nil {
		tb.Fatalf("NewRegistry: got error %v, want nil", err)
	}
	return r
}

// startParent starts a root agent run for principal p in deal.
func (e *env) startParent(tb testing.TB, p policy.Principal) *runs.Run {
	tb.Helper()
	r, err := e.Runs.Start(context.Background(), runs.Spec{
		Kind: sanad.KindAgent, Scope: deal, Agent: p.Agent, Role: p.Role,
		PolicyVersions: e.Policy.Versions(),
		Decision:       runs.Decision{Allow: true, Reason: "the debate workflow runs this agent"},
	})
	if err != nil {
		tb.Fatalf("starting the parent run: got error %v, want nil", err)
	}
	return r
}

// events verifies trace with the ledger's own Verify and returns its events.
func (e *env) events(tb testing.TB, trace string) []*ledger.Event {
	tb.Helper()
	ctx := context.Background()
	if _, err := e.Ledger.Verify(ctx, trace); err != nil {
		tb.Fatalf("Verify(%s): got error %v, want nil", trace, err)
	}
	evs, err := e.Ledger.Events(ctx, trace)
	if err != nil {
		tb.Fatalf("Events(%s): got error %v, want nil", trace, err)
	}
	return evs
}

// principal returns an agent acting in role within deal.
func principal(role string) policy.Principal {
	return policy.Principal{Agent: agentOf(role), Role: role, Scope: deal}
}

// agentOf returns the agent identity of a role ("sanad_breaker" → "sanad-breaker-1").
func agentOf(role string) string {
	b := []byte(role)
	for i, c := range b {
		if c == '_' {
			b[i] = '-'
		}
	}
	return string(b) + "-1"
}

// decode decodes an event body.
func decode[T any](tb testing.TB, ev *ledger.Event) T {
	tb.Helper()
	var b T
	if err := json.Unmarshal(ev.Body, &b); err != nil {
		tb.Fatalf("%s body: got error %v, want nil", ev.Type, err)
	}
	return b
}

// ofRun returns the events of run, in order.
func ofRun(evs []*ledger.Event, run string) []*ledger.Event {
	var out []*ledger.Event
	for _, ev := range evs {
		if ev.Run == run {
			out = append(out, ev)
		}
	}
	return out
}

// typesOf returns the types of evs, in order.
func typesOf(evs []*ledger.Event) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = ev.Type
	}
	return out
}

// ofCall returns the tool.* events whose body names callID, in order.
func ofCall(tb testing.TB, evs []*ledger.Event, callID string) []*ledger.Event {
	tb.Helper()
	var out []*ledger.Event
	for _, ev := range evs {
		if len(ev.Type) < 5 || ev.Type[:5] != "tool." {
			continue
		}
		if decode[tool.CallInfo](tb, ev).CallID == callID {
			out = append(out, ev)
		}
	}
	return out
}

// refusalOf returns the tool.refused event of callID in evs and the event
// before it, failing the test if there is none.
func refusalOf(tb testing.TB, evs []*ledger.Event, callID string) (refused tool.RefusedBody, before *ledger.Event) {
	tb.Helper()
	for i, ev := range evs {
		if ev.Type == tool.TypeRefused && decode[tool.CallInfo](tb, ev).CallID == callID {
			if i > 0 {
				before = evs[i-1]
			}
			return decode[tool.RefusedBody](tb, ev), before
		}
	}
	tb.Fatalf("call %s: got no tool.refused event, want one", callID)
	return tool.RefusedBody{}, nil
}

// wantTypes fails unless got equals want.
func wantTypes(tb testing.TB, what string, got []string, want ...string) {
	tb.Helper()
	if !slices.Equal(got, want) {
		tb.Errorf("%s: got events %v, want %v", what, got, want)
	}
}

// wantCode fails unless r has code (and success exactly when code is "").
func wantCode(tb testing.TB, what string, r tool.Result, code sanad.Code) {
	tb.Helper()
	if r.Code != code || r.Success != (code == "") {
		tb.Fatalf("%s: got success %v code %q (%s), want code %q", what, r.Success, r.Code, r.Message, code)
	}
}

// counter counts the runs of a fake tool.
type counter struct{ n atomic.Int64 }

func (c *counter) count() int { return int(c.n.Load()) }

// fixed returns a Func that counts its calls and returns out.
func fixed(c *counter, out string) tool.Func {
	return func(ctx context.Context, call tool.Call) (json.RawMessage, error) {
		if c != nil {
			c.n.Add(1)
		}
		return json.RawMessage(out), nil
	}
}

// mustJSON marshals v.
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprint("mustJSON: ", err))
	}
	return b
}

// rolesYAML declares the roles of the small test policies.
const rolesYAML = `version: "1"
roles:
  worker:
    kind: agent
  other:
    kind: agent
`

// toolsYAML returns a tools.yaml with the risk classes read and write (no
// approval), critic and human, and the given tool entries.
func toolsYAML(entries ...string) string {
	return `version: "1"
risk_classes:
  read:
    approval: none
  write:
    approval: none
  critic:
    approval: critic
  human:
    approval: human
tools:
` + strings.Join(entries, "")
}

// toolEntry returns a tools.yaml entry for name in risk class risk, callable
// by roles, with extra lines (indented by four spaces) appended.
func toolEntry(name, risk string, roles []string, extra ...string) string {
	s := "  " + name + ":\n    roles: [" + strings.Join(roles, ", ") + "]\n    risk: " + risk + "\n"
	for _, x := range extra {
		s += "    " + x + "\n"
	}
	return s
}
