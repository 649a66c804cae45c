package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing/fstest"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/runs"
	"github.com/sanadhq/sanad/shape"
	"github.com/sanadhq/sanad/tool"
)

// GatewayConfig configures [Gateway].
type GatewayConfig struct {
	Dir   string // an empty folder for the benchmark's home
	Calls int    // gateway calls to time (default 300)
}

// GatewayResult is what `sanad bench gateway` prints.
type GatewayResult struct {
	// CallP50us is a call of the no-op tool, declared as reading only: its
	// start and outcome commit together at the end of the call.
	CallP50us float64 `json:"call_p50_us"`
	CallP99us float64 `json:"call_p99_us"`
	// WriteAheadP50us is a call of the same tool declared with external
	// side effects: its start is durable before it runs, a second commit.
	WriteAheadP50us float64 `json:"call_write_ahead_p50_us"`
	DecisionP50us   float64 `json:"decision_p50_us"`
	// SchemaValidateP50us is the gateway's input check (parse included);
	// SchemaGeneralP50us the general JSON Schema validator's alone.
	SchemaValidateP50us float64 `json:"schema_validate_p50_us"`
	SchemaGeneralP50us  float64 `json:"schema_validate_general_p50_us"`
	Calls               int     `json:"calls"`
	EventsPerCall       float64 `json:"events_per_call"`
}

const benchInputSchema = `{"type":"object","required":["claim_id","include_sanad","include_evidence"],"additionalProperties":false,
 "properties":{"claim_id":{"type":"string","pattern":"^C-[0-9]+$"},"include_sanad":{"type":"boolean"},"include_evidence":{"type":"boolean"},
 "deal_id":{"type":"string"},"round":{"type":"integer","minimum":1}}}`

// Gateway measures, in one run: a durable gateway call of a no-op tool
// (resolve, validate, authorize, abuse limits, child run, artifacts, signed
// events), declared as reading only and then as having external side
// effects; a policy decision alone; and an input schema validation alone.
func Gateway(ctx context.Context, cfg GatewayConfig) (GatewayResult, error) {
	if cfg.Calls <= 0 {
		cfg.Calls = 300
	}
	res := GatewayResult{Calls: cfg.Calls}
	h, err := home.Open(ctx, home.Config{Dir: cfg.Dir})
	if err != nil {
		return res, err
	}
	defer h.Close()
	pol, err := policy.LoadFS(fstest.MapFS{
		"roles.yaml": {Data: []byte("version: \"1\"\nroles:\n  analyst:\n    kind: agent\n")},
		"tools.yaml": {Data: []byte("version: \"1\"\nrisk_classes:\n  read:\n    approval: none\ntools:\n  lookup_claim:\n    roles: [analyst]\n    risk: read\n  notify_claim:\n    roles: [analyst]\n    risk: read\n")},
	})
	if err != nil {
		return res, err
	}
	noop := func(context.Context, tool.Call) (json.RawMessage, error) {
		return json.RawMessage(`{"found":true}`), nil
	}
	reg, err := tool.NewRegistry(
		tool.Spec{Name: "lookup_claim", InputSchema: json.RawMessage(benchInputSchema), OutputSchema: json.RawMessage(`{"type":"object"}`),
			Idempotent: true, SideEffect: tool.SideEffectNone, Func: noop},
		tool.Spec{Name: "notify_claim", InputSchema: json.RawMessage(benchInputSchema), OutputSchema: json.RawMessage(`{"type":"object"}`),
			Idempotent: true, SideEffect: tool.SideEffectExternal, Func: noop},
	)
	if err != nil {
		return res, err
	}
	gw, err := tool.New(tool.Config{Registry: reg, Policy: pol, Runs: h.Runs, Artifacts: h.Artifacts})
	if err != nil {
		return res, err
	}
	scope := sanad.Scope{Tenant: "bench", Case: "deal-1"}
	p := policy.Principal{Agent: "analyst-1", Role: "analyst", Scope: scope}
	parent, err := h.Runs.Start(ctx, runs.Spec{Kind: sanad.KindAgent, Scope: scope, Agent: p.Agent, Role: p.Role, Decision: runs.Decision{Allow: true, Reason: "benchmark"}})
	if err != nil {
		return res, err
	}
	input := json.RawMessage(`{"claim_id":"C-17","include_sanad":true,"include_evidence":false,"deal_id":"deal-1","round":1}`)
	timeCalls := func(name string) ([]time.Duration, error) {
		calls := make([]time.Duration, cfg.Calls)
		for i := range calls {
			start := time.Now()
			r := gw.Call(ctx, parent, p, tool.Request{Tool: name, CallID: fmt.Sprint(name, i), Input: input, Round: 1})
			calls[i] = time.Since(start)
			if !r.Success {
				return nil, r.Err()
			}
		}
		return calls, nil
	}
	before, _ := h.DB.TreeSize(ctx)
	calls, err := timeCalls("lookup_claim")
	if err != nil {
		return res, err
	}
	after, _ := h.DB.TreeSize(ctx)
	res.EventsPerCall = float64(after-before) / float64(cfg.Calls)
	res.CallP50us, res.CallP99us = percentile(calls, 50), percentile(calls, 99)
	if calls, err = timeCalls("notify_claim"); err != nil {
		return res, err
	}
	res.WriteAheadP50us = percentile(calls, 50)

	decisions := make([]time.Duration, 10000)
	for i := range decisions {
		start := time.Now()
		d := pol.Decide(p, policy.ToolCall("lookup_claim"), policy.Resource{Scope: scope})
		decisions[i] = time.Since(start)
		if !d.Allow {
			return res, fmt.Errorf("bench: decision denied: %s", d.Reason)
		}
	}
	res.DecisionP50us = percentile(decisions, 50)

	c := jsonschema.NewCompiler()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(benchInputSchema))
	if err != nil {
		return res, err
	}
	if err := c.AddResource("bench.json", doc); err != nil {
		return res, err
	}
	schema, err := c.Compile("bench.json")
	if err != nil {
		return res, err
	}
	// The gateway's check (shape's compiled form, the general validator
	// explaining failures) and the general validator alone, each on an
	// input parsed in the timing.
	checked, err := shape.NewSchema([]byte(benchInputSchema), schema)
	if err != nil {
		return res, err
	}
	timeValidate := func(validate func(any) error) ([]time.Duration, error) {
		ds := make([]time.Duration, 10000)
		for i := range ds {
			start := time.Now()
			v, err := canon.Parse(input)
			if err == nil {
				err = validate(v)
			}
			ds[i] = time.Since(start)
			if err != nil {
				return nil, err
			}
		}
		return ds, nil
	}
	general, err := timeValidate(schema.Validate)
	if err != nil {
		return res, err
	}
	res.SchemaGeneralP50us = percentile(general, 50)
	validations, err := timeValidate(checked.Validate)
	if err != nil {
		return res, err
	}
	res.SchemaValidateP50us = percentile(validations, 50)
	return res, nil
}

func percentile(ds []time.Duration, p int) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[(len(s)-1)*p/100].Nanoseconds()) / 1000
}
