package protocol_test

import (
	"context"
	"fmt"
	"os"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/playbook/protocol"
)

// A session of a task file, run in deterministic mode: the planner proposes,
// the critic reviews, the executor calls the tools through the gateway and
// claims, and the auditor verifies the trace before the session completes.
func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "sanad-example")
	defer os.RemoveAll(dir)
	h, err := home.Open(ctx, home.Config{Dir: dir})
	if err != nil {
		panic(err)
	}
	defer h.Close()
	data, _ := os.ReadFile("../../examples/sessions/vendor-check.yaml")
	task, err := protocol.ParseTask("vendor-check.yaml", data)
	if err != nil {
		panic(err)
	}
	e, err := protocol.New(protocol.Config{Runs: h.Runs, Store: h.DB, Artifacts: h.Artifacts})
	if err != nil {
		panic(err)
	}
	res, err := e.Start(ctx, task, protocol.Options{Scope: sanad.Scope{Tenant: "acme", Case: "vendors"}})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Mode, res.State, res.Verification.Status)
	// Output: deterministic completed pass
}
