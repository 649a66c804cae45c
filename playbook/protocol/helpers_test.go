package protocol_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/playbook/protocol"
)

// scope is where the tests' sessions act.
var scope = sanad.Scope{Tenant: "acme", Case: "session-test"}

// openHome opens a fresh home in a temporary folder, closed when the test
// ends.
func openHome(tb testing.TB) *home.Home {
	tb.Helper()
	return openHomeAt(tb, tb.TempDir())
}

func openHomeAt(tb testing.TB, dir string) *home.Home {
	tb.Helper()
	h, err := home.Open(context.Background(), home.Config{Dir: dir})
	if err != nil {
		tb.Fatalf("home.Open: %v", err)
	}
	tb.Cleanup(func() { h.Close() })
	return h
}

// newEngine returns a session engine over h, with cfg's settings changed by
// mods.
func newEngine(tb testing.TB, h *home.Home, mods ...func(*protocol.Config)) *protocol.Engine {
	tb.Helper()
	cfg := protocol.Config{Runs: h.Runs, Store: h.DB, Artifacts: h.Artifacts}
	for _, m := range mods {
		m(&cfg)
	}
	e, err := protocol.New(cfg)
	if err != nil {
		tb.Fatalf("protocol.New: %v", err)
	}
	return e
}

// exampleTask reads examples/sessions/NAME.yaml.
func exampleTask(tb testing.TB, name string) *protocol.Task {
	tb.Helper()
	file := filepath.Join("..", "..", "examples", "sessions", name+".yaml")
	data, err := os.ReadFile(file)
	if err != nil {
		tb.Fatalf("reading %s: %v", file, err)
	}
	t, err := protocol.ParseTask(file, data)
	if err != nil {
		tb.Fatalf("ParseTask(%s): %v", file, err)
	}
	return t
}

// parseTask parses a task written in a test.
func parseTask(tb testing.TB, yaml string) *protocol.Task {
	tb.Helper()
	t, err := protocol.ParseTask("task.yaml", []byte(yaml))
	if err != nil {
		tb.Fatalf("ParseTask: %v", err)
	}
	return t
}

// start runs task to its end in a new session.
func start(tb testing.TB, e *protocol.Engine, task *protocol.Task) protocol.Result {
	tb.Helper()
	res, err := e.Start(context.Background(), task, protocol.Options{Scope: scope})
	if err != nil {
		tb.Fatalf("Start(%s): %v", task.Name, err)
	}
	return res
}

// events returns the events of trace.
func events(tb testing.TB, h *home.Home, trace string) []*ledger.Event {
	tb.Helper()
	evs, err := h.Ledger.Events(context.Background(), trace)
	if err != nil {
		tb.Fatalf("Events(%s): %v", trace, err)
	}
	return evs
}

// verify requires trace to pass ledger verification.
func verify(tb testing.TB, h *home.Home, trace string) {
	tb.Helper()
	if _, err := h.Ledger.Verify(context.Background(), trace); err != nil {
		tb.Fatalf("Verify(%s): %v", trace, err)
	}
}
