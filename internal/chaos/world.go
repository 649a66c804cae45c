package chaos

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/sanadhq/sanad/tool"
)

// The tools of the harness's workflow.
const (
	// ToolCount is idempotent: it takes effect once per idempotency key,
	// however often it is called.
	ToolCount = "count"
	// ToolNotify is not: every call takes effect, like sending a message.
	ToolNotify = "notify"
	// ToolFail always fails: the rollback variant ends with it.
	ToolFail = "fail"
)

// Crash points inside the tools.
const (
	PointToolBeforeEffect = "tool.before_effect" // a tool's attempt runs; its effect has not happened
	PointToolAfterEffect  = "tool.after_effect"  // the effect happened; the tool has not returned
)

// world is the outside world the tools act on: a folder with an append-only
// log of effects (one line per effect: tool, key) and of step executions.
// A line is one write(2) on a file opened with O_APPEND, so a SIGKILL leaves
// it whole or absent.
type world struct {
	dir   string
	crash func(string)

	mu      sync.Mutex // guards applied and the files' writes
	applied map[string]bool
	effects *os.File
	execs   *os.File
}

func openWorld(dir string, crash func(string)) (*world, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	w := &world{dir: dir, crash: crash, applied: map[string]bool{}}
	lines, err := readLines(filepath.Join(dir, "effects.log"))
	if err != nil {
		return nil, err
	}
	for _, l := range lines {
		w.applied[l] = true
	}
	flags := os.O_CREATE | os.O_WRONLY | os.O_APPEND
	if w.effects, err = os.OpenFile(filepath.Join(dir, "effects.log"), flags, 0o644); err != nil {
		return nil, err
	}
	if w.execs, err = os.OpenFile(filepath.Join(dir, "execs.log"), flags, 0o644); err != nil {
		return nil, err
	}
	return w, nil
}

func (w *world) close() {
	w.effects.Close()
	w.execs.Close()
}

// executed notes that a step's action runs in this process.
func (w *world) executed(run, step string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	fmt.Fprintf(w.execs, "%s %s\n", run, step)
}

// output is what a tool returns for a key: the same on every call, so that
// an operator who confirms an effect can record it.
func output(name, key string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"key": key, "tool": name})
	return b
}

func (w *world) tool(name string, idempotent bool) tool.Func {
	return func(_ context.Context, c tool.Call) (json.RawMessage, error) {
		w.crash(PointToolBeforeEffect)
		w.mu.Lock()
		line := name + " " + c.Key
		if !idempotent || !w.applied[line] {
			if _, err := fmt.Fprintln(w.effects, line); err != nil {
				w.mu.Unlock()
				return nil, err
			}
			w.applied[line] = true
		}
		w.mu.Unlock()
		w.crash(PointToolAfterEffect)
		return output(name, c.Key), nil
	}
}

func readLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			out = append(out, l)
		}
	}
	return out, sc.Err()
}
