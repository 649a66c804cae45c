package tool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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

func ExampleGateway_Call() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "sanad-tool-example")
	defer os.RemoveAll(dir)

	// The kernel: a durable ledger that knows the tool events, and an
	// artifact store.
	db, _ := sqlite.Open(ctx, sqlite.Config{Path: filepath.Join(dir, "sanad.db")})
	defer db.Close()
	keys, _ := keyring.Open(filepath.Join(dir, "keys"))
	types, _ := home.Types()
	if _, ok := types.Lookup(tool.TypeIntent); !ok { // until home registers tool.Vocabulary
		types, _ = ledger.NewTypes(append(home.Vocabularies(), tool.Vocabulary())...)
	}
	l, _ := ledger.Open(ledger.Config{Store: db, Keys: keys, Types: types, Origin: "sanad.log/example"})
	defer l.Close(context.Background())
	arts, _ := artifact.Open(filepath.Join(dir, "blobs"), db)

	// A policy that lets analysts call lookup_claim, and the tool itself.
	pol, _ := policy.LoadFS(fstest.MapFS{
		"roles.yaml": {Data: []byte("version: \"1\"\nroles:\n  analyst:\n    kind: agent\n")},
		"tools.yaml": {Data: []byte("version: \"1\"\nrisk_classes:\n  read:\n    approval: none\ntools:\n  lookup_claim:\n    roles: [analyst]\n    risk: read\n")},
	})
	reg, _ := tool.NewRegistry(tool.Spec{
		Name:         "lookup_claim",
		InputSchema:  json.RawMessage(`{"type":"object","required":["claim_id"],"properties":{"claim_id":{"type":"string"}}}`),
		OutputSchema: json.RawMessage(`{"type":"object","required":["claim_id"]}`),
		SideEffect:   tool.SideEffectNone,
		Func: func(ctx context.Context, call tool.Call) (json.RawMessage, error) {
			return json.RawMessage(`{"claim_id": "c-1", "verdict": "VERIFIED"}`), nil
		},
	})
	recorder := &runs.Recorder{Ledger: l}
	gw, _ := tool.New(tool.Config{Registry: reg, Policy: pol, Runs: recorder, Artifacts: arts})

	// An agent's run, and its calls.
	scope := sanad.Scope{Tenant: "fund-1", Case: "deal-42"}
	agent := policy.Principal{Agent: "analyst-1", Role: "analyst", Scope: scope}
	run, _ := recorder.Start(ctx, runs.Spec{Kind: sanad.KindAgent, Scope: scope, Agent: agent.Agent, Role: agent.Role,
		Decision: runs.Decision{Allow: true, Reason: "the workflow runs the analyst"}})

	r := gw.Call(ctx, run, agent, tool.Request{Tool: "lookup_claim", CallID: "call-1", Input: json.RawMessage(`{"claim_id":"c-1"}`)})
	fmt.Println(r.Success, string(r.Output()))
	r = gw.Call(ctx, run, agent, tool.Request{Tool: "delete_claim", CallID: "call-2", Input: json.RawMessage(`{"claim_id":"c-1"}`)})
	b, _ := json.Marshal(struct {
		Success bool       `json:"success"`
		Code    sanad.Code `json:"code"`
		Tool    string     `json:"tool"`
	}{r.Success, r.Code, r.Tool})
	fmt.Println(string(b))

	_ = run.Complete(ctx, nil, nil)
	evs, _ := l.Events(ctx, run.Record.Trace)
	for _, ev := range evs {
		fmt.Println(ev.Type)
	}
	// Output:
	// true {"claim_id":"c-1","verdict":"VERIFIED"}
	// {"success":false,"code":"TOOL_NOT_FOUND","tool":"delete_claim"}
	// run.started
	// authz.decision
	// run.started
	// authz.decision
	// tool.started
	// tool.completed
	// run.completed
	// tool.refused
	// run.completed
}
