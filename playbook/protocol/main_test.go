package protocol_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/internal/chaos"
	"github.com/sanadhq/sanad/playbook/protocol"
)

// The test binary is its own child: with childEnv set it runs a session
// (or resumes one) and kills itself at a named crash point.
const childEnv = "SANAD_PROTOCOL_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		if err := child(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "protocol child:", err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// child starts the session of a task file in a home, or resumes one, and
// with -crash-at point:n kills itself with SIGKILL at the n-th pass through
// that crash point (of the session engine, the ledger or the store), after
// printing "hit point".
func child(args []string) error {
	fs := flag.NewFlagSet("protocol-child", flag.ContinueOnError)
	dir := fs.String("home", "", "home folder")
	taskFile := fs.String("task", "", "task file of a new session")
	resume := fs.String("resume", "", "session to resume")
	abort := fs.String("abort", "", "session to abort")
	crashAt := fs.String("crash-at", "", "point:n")
	if err := fs.Parse(args); err != nil {
		return err
	}
	crash, err := chaos.KillAt(*crashAt, func(p string) { fmt.Println("hit", p) })
	if err != nil {
		return err
	}
	ctx := context.Background()
	h, err := home.Open(ctx, home.Config{Dir: *dir, Crash: crash})
	if err != nil {
		return err
	}
	defer h.Close()
	e, err := protocol.New(protocol.Config{Runs: h.Runs, Store: h.DB, Artifacts: h.Artifacts, Crash: crash})
	if err != nil {
		return err
	}
	var res protocol.Result
	switch {
	case *abort != "":
		res, err = e.Abort(ctx, *abort, protocol.Operator{Agent: "ops", Role: "operator"}, "test")
	case *resume != "":
		res, err = e.Resume(ctx, *resume)
	default:
		data, rerr := os.ReadFile(*taskFile)
		if rerr != nil {
			return rerr
		}
		task, perr := protocol.ParseTask(*taskFile, data)
		if perr != nil {
			return perr
		}
		res, err = e.Start(ctx, task, protocol.Options{Scope: scope})
	}
	if err != nil {
		return err
	}
	fmt.Println("done", res.Session, res.State)
	return nil
}
