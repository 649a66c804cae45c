package model_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"log/slog"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/model"
	"github.com/sanadhq/sanad/model/modeltest"
	"github.com/sanadhq/sanad/model/provider"
	"github.com/sanadhq/sanad/runs"
)

const (
	testKey    = "sk-test-SECRET-1234567890"
	testKeyEnv = "SANAD_TEST_MODEL_KEY"
)

// recorderEnv is a home with a model recorder over one class, "reasoning",
// served by srv, and a root agent run to make calls for.
type recorderEnv struct {
	home *home.Home
	rec  *model.Recorder
	root *runs.Run
	logs *bytes.Buffer
}

func openRecorder(tb testing.TB, srv *modeltest.Server, dir string) *recorderEnv {
	tb.Helper()
	ctx := context.Background()
	h, err := home.Open(ctx, home.Config{Dir: dir})
	if err != nil {
		tb.Fatalf("home.Open: got error %v, want nil", err)
	}
	tb.Cleanup(func() { h.Close() })
	logs := &bytes.Buffer{}
	cfg := model.Config{
		Classes: map[string]model.ClassConfig{model.ClassReasoning: {
			Provider: model.ProviderOpenAI, Model: modeltest.Model, BaseURL: srv.BaseURL(), APIKeyEnv: testKeyEnv,
			Prices: model.Prices{InputPerMTok: 1, OutputPerMTok: 2},
		}},
		Retry:  model.Retry{MaxRetries: -1},
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	reg, err := provider.Open(cfg, env{testKeyEnv: testKey}.get, srv.Client())
	if err != nil {
		tb.Fatalf("provider.Open: got error %v, want nil", err)
	}
	root, err := h.Runs.Start(ctx, runs.Spec{
		Kind: sanad.KindAgent, Scope: sanad.Scope{Tenant: "fund-1", Case: "deal-42"}, Agent: "analyst",
		Decision: runs.Decision{Allow: true, Reason: "test"},
	})
	if err != nil {
		tb.Fatalf("Start: got error %v, want nil", err)
	}
	return &recorderEnv{home: h, rec: &model.Recorder{Runs: h.Runs, Artifacts: h.Artifacts, Registry: reg}, root: root, logs: logs}
}

type env map[string]string

func (e env) get(k string) string { return e[k] }

// calls returns the model.call events of the trace of e's root run.
func (e *recorderEnv) calls(tb testing.TB) []*ledger.Event {
	tb.Helper()
	evs, err := e.home.Ledger.Events(context.Background(), e.root.Record.Trace)
	if err != nil {
		tb.Fatalf("Events: got error %v, want nil", err)
	}
	var out []*ledger.Event
	for _, ev := range evs {
		if ev.Type == model.TypeCall {
			out = append(out, ev)
		}
	}
	return out
}

var okRequest = model.Request{System: "You are an analyst.", Messages: []model.Message{{Role: model.RoleUser, Content: "Reply with OK"}}, MaxTokens: 16}

// A full audited call, then one whose key is refused: both are model_call
// child runs with their model.call events, and the key is nowhere in the
// home folder (database, WAL, blobs, keys) nor in the logs, although the
// server quoted it in its 401.
func TestRecorderAuditsCallsWithoutTheKey(t *testing.T) {
	ctx := t.Context()
	srv := modeltest.NewServer(func(n int, key string, _ []byte) (int, string) {
		if key != testKey {
			return http.StatusBadRequest, `{"error":{"message":"wrong key sent"}}`
		}
		if n == 2 {
			return http.StatusUnauthorized, modeltest.Unauthorized(key)
		}
		return http.StatusOK, modeltest.Completion(n, "OK")
	})
	defer srv.Close()
	dir := t.TempDir()
	e := openRecorder(t, srv, dir)

	resp, err := e.rec.Generate(ctx, e.root, "analyst", model.ClassReasoning, okRequest)
	if err != nil {
		t.Fatalf("Generate: got error %v, want nil", err)
	}
	if resp.Text != "OK" || resp.Usage.TotalTokens != 13 {
		t.Errorf("Generate: got %q with %+v, want OK with 13 tokens", resp.Text, resp.Usage)
	}
	_, err = e.rec.Generate(ctx, e.root, "analyst", model.ClassReasoning, okRequest)
	if sanad.ErrorCode(err) != sanad.CodeModelAuth || !strings.Contains(sanad.ErrorMessage(err), testKeyEnv) {
		t.Fatalf("Generate with a refused key: got %v, want MODEL_AUTH naming %s", err, testKeyEnv)
	}
	if strings.Contains(err.Error(), testKey) {
		t.Errorf("the error holds the key: %v", err)
	}
	if err := e.root.Complete(ctx, nil, nil); err != nil {
		t.Fatal(err)
	}

	calls := e.calls(t)
	if len(calls) != 2 {
		t.Fatalf("model.call events: got %d, want 2", len(calls))
	}
	var ok, failed model.CallBody
	if err := json.Unmarshal(calls[0].Body, &ok); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(calls[1].Body, &failed); err != nil {
		t.Fatal(err)
	}
	prompt, err := model.RequestJSON(okRequest)
	if err != nil {
		t.Fatal(err)
	}
	if ok.Status != model.CallOK || ok.Class != model.ClassReasoning || ok.Provider != model.ProviderOpenAI || ok.Model != modeltest.Model || ok.Agent != "analyst" {
		t.Errorf("model.call: got %+v, want an ok call of %s by analyst", ok, modeltest.Model)
	}
	if ok.PromptHash != canon.Sum(prompt).String() || ok.Response == nil || ok.ResponseHash != "sha256:"+ok.Response.SHA256 {
		t.Errorf("model.call hashes: got prompt %s, response %s; want the artifacts' digests", ok.PromptHash, ok.ResponseHash)
	}
	if ok.Usage != (model.UsageJSON{InputTokens: 12, OutputTokens: 1, TotalTokens: 13}) || math.Abs(ok.Cost-14e-6) > 1e-12 {
		t.Errorf("model.call usage and cost: got %+v, %v; want 12+1 tokens costing 0.000014", ok.Usage, ok.Cost)
	}
	if ok.ResponseID != "chatcmpl-test-1" || ok.FinishReason != model.FinishStop {
		t.Errorf("model.call ids: got %q, %q; want chatcmpl-test-1, stop", ok.ResponseID, ok.FinishReason)
	}
	if calls[0].Actor.Agent != ledger.DefaultRuntimeIdentity {
		t.Errorf("model.call signed by %q, want the runtime", calls[0].Actor.Agent)
	}
	if failed.Status != model.CallFailed || failed.Error == nil || failed.Error.Code != sanad.CodeModelAuth || failed.Response != nil {
		t.Errorf("failed model.call: got %+v, want MODEL_AUTH and no response", failed)
	}

	// The artifacts hold the canonical prompt and reply.
	data, _, err := e.home.Artifacts.Get(ctx, ok.Prompt.ID, e.root.Record.Scope)
	if err != nil || !bytes.Equal(data, prompt) {
		t.Errorf("prompt artifact: got %s, %v; want %s", data, err, prompt)
	}
	data, _, err = e.home.Artifacts.Get(ctx, ok.Response.ID, e.root.Record.Scope)
	if err != nil {
		t.Fatalf("response artifact: %v", err)
	}
	got, err := model.ParseResponse(data)
	resp.Latency = 0
	if err != nil || !reflect.DeepEqual(got, resp) {
		t.Errorf("response artifact: got %+v, %v; want %+v", got, err, resp)
	}

	// Each call is a model_call child run of the root, completed or
	// failed with the call's code.
	for i, want := range []sanad.RunStatus{sanad.StatusCompleted, sanad.StatusFailed} {
		r, err := e.home.DB.Run(ctx, calls[i].Run)
		if err != nil {
			t.Fatal(err)
		}
		if r.Kind != sanad.KindModelCall || r.ParentID != e.root.Record.ID || r.Status != want {
			t.Errorf("run of call %d: got %s child of %s, %s; want model_call child of %s, %s", i, r.Kind, r.ParentID, r.Status, e.root.Record.ID, want)
		}
		if want == sanad.StatusFailed && (r.Error == nil || r.Error.Code != sanad.CodeModelAuth) {
			t.Errorf("failed run's error: got %+v, want MODEL_AUTH", r.Error)
		}
	}
	if _, err := e.home.Ledger.Verify(ctx, e.root.Record.Trace); err != nil {
		t.Errorf("Verify: got error %v, want nil", err)
	}

	if bytes.Contains(e.logs.Bytes(), []byte(testKey)) {
		t.Errorf("the logs hold the key:\n%s", e.logs)
	}
	checkNoKey(t, dir)
	e.home.Close()
	checkNoKey(t, dir)
}

// checkNoKey fails if any file under dir holds the test key.
func checkNoKey(t *testing.T, dir string) {
	t.Helper()
	files := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		if bytes.Contains(data, []byte(testKey)) {
			t.Errorf("%s holds the API key", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 4 {
		t.Fatalf("walked %d files under %s, want the database, the keys and the blobs", files, dir)
	}
}

// A class with no model is refused before anything is recorded.
func TestRecorderUnknownClass(t *testing.T) {
	srv := modeltest.NewServer(nil)
	defer srv.Close()
	e := openRecorder(t, srv, t.TempDir())
	_, err := e.rec.Generate(t.Context(), e.root, "analyst", model.ClassFast, okRequest)
	if sanad.ErrorCode(err) != sanad.CodeNotFound {
		t.Errorf("Generate of an unconfigured class: got %v, want NOT_FOUND", err)
	}
	_, err = e.rec.Generate(t.Context(), nil, "analyst", model.ClassReasoning, okRequest)
	if sanad.ErrorCode(err) != sanad.CodeInvalidInput {
		t.Errorf("Generate without a parent run: got %v, want INVALID_INPUT", err)
	}
	if n := srv.Requests(); n != 0 {
		t.Errorf("requests: got %d, want 0", n)
	}
	if len(e.calls(t)) != 0 {
		t.Errorf("model.call events recorded for refused calls")
	}
}

// model.call belongs in a model_call run and nowhere else.
func TestCallEventOnlyInModelCallRuns(t *testing.T) {
	srv := modeltest.NewServer(nil)
	defer srv.Close()
	e := openRecorder(t, srv, t.TempDir())
	ctx := t.Context()
	ref, err := e.home.Artifacts.Put(ctx, e.root.Record.Scope, e.root.Record.ID, model.MediaType, []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	body := model.CallBody{
		Agent: "analyst", Class: "reasoning", Provider: model.ProviderOpenAI, Model: "m", Status: model.CallFailed,
		PromptHash: "sha256:" + ref.SHA256, Prompt: ref, Error: &sanad.RunError{Code: sanad.CodeModelAuth, Message: "refused"},
	}
	if _, err := e.root.Append(ctx, model.TypeCall, "", body, nil); err == nil || !strings.Contains(err.Error(), "not a model_call run") {
		t.Errorf("model.call in an agent run: got %v, want the placement rule's refusal", err)
	}
	body.Status = model.CallOK
	if _, err := e.root.Append(ctx, model.TypeCall, "", body, nil); err == nil {
		t.Errorf("ok model.call without its response: got nil error, want a schema violation")
	}
}

func TestResponseJSONRoundTrip(t *testing.T) {
	resp := model.Response{
		Text:         "done",
		ToolCalls:    []model.ToolCall{{ID: "c1", Name: "lookup", Arguments: json.RawMessage(`{"q":"acme"}`)}},
		Output:       json.RawMessage(`{"ok":true}`),
		FinishReason: model.FinishToolCalls,
		Usage:        model.Usage{InputTokens: 3, OutputTokens: 4, TotalTokens: 7},
		Model:        "m", Provider: model.ProviderAnthropic, ID: "msg_1", RequestID: "req_1",
		Latency: 1234,
	}
	data, err := model.ResponseJSON(resp)
	if err != nil {
		t.Fatal(err)
	}
	if err := canon.Check(data); err != nil {
		t.Errorf("ResponseJSON is not canonical: %v", err)
	}
	got, err := model.ParseResponse(data)
	resp.Latency = 0
	if err != nil || !reflect.DeepEqual(got, resp) {
		t.Errorf("ParseResponse(ResponseJSON(r)): got %+v, %v; want %+v", got, err, resp)
	}
	if _, err := model.ParseResponse([]byte(`[1]`)); sanad.ErrorCode(err) != sanad.CodeIntegrity {
		t.Errorf("ParseResponse of a list: got %v, want INTEGRITY", err)
	}
	temp := 0.0
	req := model.Request{
		System: "s", Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}},
		Tools: []model.Tool{{Name: "lookup", Parameters: json.RawMessage(`{"type": "object"}`)}}, ToolChoice: model.UseTool("lookup"),
		Output: &model.OutputSchema{Schema: json.RawMessage(`{"type":"object"}`)}, Temperature: &temp,
	}
	prompt, err := model.RequestJSON(req)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"messages":[{"content":"hi","role":"user"}],"output":{"schema":{"type":"object"}},"system":"s","temperature":0,` +
		`"tool_choice":{"mode":"tool","name":"lookup"},"tools":[{"name":"lookup","parameters":{"type":"object"}}]}`
	if string(prompt) != want {
		t.Errorf("RequestJSON:\n got %s\nwant %s", prompt, want)
	}
}
