package tool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/tool"
)

// benchEnv opens an env over a durable SQLite ledger with a no-op tool
// "noop" that worker may call and "closed" that it may not.
func benchEnv(b *testing.B) *env {
	b.Helper()
	noop := func(name string) tool.Spec {
		return tool.Spec{
			Name: name, InputSchema: json.RawMessage(`{"type":"object","required":["claim_id"],"properties":{"claim_id":{"type":"string"}}}`),
			OutputSchema: json.RawMessage(`{"type":"object"}`), SideEffect: tool.SideEffectNone, Idempotent: true,
			Func: func(context.Context, tool.Call) (json.RawMessage, error) { return json.RawMessage(`{}`), nil },
		}
	}
	pol := policyOf(b, rolesYAML, toolsYAML(
		toolEntry("noop", "read", []string{"worker"}),
		toolEntry("closed", "read", []string{"other"}),
	))
	return openEnv(b, pol, registry(b, noop("noop"), noop("closed")), nil)
}

// p50 reports the median of lat in microseconds.
func p50(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "p50_us")
}

// BenchmarkGatewayCall measures Gateway.Call end to end with a no-op tool
// over a durable ledger (SQLite, synchronous NORMAL, in a temp folder). Sub
// benchmarks: allowed is a call let through, run and recorded (input and
// output artifacts; run.started, authz.decision, tool.started,
// tool.completed, run.completed), one after another in one parent run;
// denied is a call the tool matrix refuses (authz.decision, tool.refused);
// parallel is allowed calls from concurrent callers, each in its own parent
// run, sharing ledger commits. Run it with
//
//	go test ./tool -run '^$' -bench GatewayCall -benchtime 2s
func BenchmarkGatewayCall(b *testing.B) {
	in := json.RawMessage(`{"claim_id":"c-1"}`)
	p := policy.Principal{Agent: "worker-1", Role: "worker", Scope: deal}
	for _, name := range []string{"allowed", "denied"} {
		b.Run(name, func(b *testing.B) {
			e := benchEnv(b)
			ctx := context.Background()
			parent := e.startParent(b, p)
			target := map[string]string{"allowed": "noop", "denied": "closed"}[name]
			lat := make([]time.Duration, 0, 1024)
			i := 0
			for b.Loop() {
				t0 := time.Now()
				r := e.Gateway.Call(ctx, parent, p, tool.Request{Tool: target, CallID: "c" + strconv.Itoa(i), Input: in})
				lat = append(lat, time.Since(t0))
				if r.Success != (name == "allowed") {
					b.Fatalf("call %d: got %v %s (%s)", i, r.Success, r.Code, r.Message)
				}
				i++
			}
			p50(b, lat)
		})
	}
	b.Run("parallel", func(b *testing.B) {
		e := benchEnv(b)
		ctx := context.Background()
		var n atomic.Int64
		b.SetParallelism(16)
		b.RunParallel(func(pb *testing.PB) {
			parent := e.startParent(b, p)
			for pb.Next() {
				i := n.Add(1)
				r := e.Gateway.Call(ctx, parent, p, tool.Request{Tool: "noop", CallID: fmt.Sprintf("c%d", i), Input: in})
				if !r.Success {
					b.Errorf("call %d: got %s (%s)", i, r.Code, r.Message)
					return
				}
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
	})
}
