package model_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/model"
)

// fake is a Model whose behaviour is a func; the zero fake answers "ok".
type fake struct {
	generate func(req model.Request, n int) (model.Response, error)
	requests []model.Request
}

func (f *fake) Generate(ctx context.Context, req model.Request) (model.Response, error) {
	f.requests = append(f.requests, req)
	if f.generate == nil {
		return model.Response{Text: "ok", FinishReason: model.FinishStop}, nil
	}
	return f.generate(req, len(f.requests))
}

func (f *fake) Embed(context.Context, []string) (model.Embeddings, error) {
	return model.Embeddings{}, nil
}

func user(s string) model.Message { return model.Message{Role: model.RoleUser, Content: s} }

func TestRequestValidate(t *testing.T) {
	obj := json.RawMessage(`{"type":"object"}`)
	tool := model.Tool{Name: "get_weather", Parameters: obj}
	tests := []struct {
		name string
		req  model.Request
		want string // part of the message; "" for valid
	}{
		{"minimal", model.Request{Messages: []model.Message{user("hi")}}, ""},
		{"full", model.Request{
			System:   "sys",
			Messages: []model.Message{user("hi"), {Role: model.RoleAssistant, ToolCalls: []model.ToolCall{{ID: "c", Name: "get_weather"}}}, {Role: model.RoleTool, ToolCallID: "c"}},
			Tools:    []model.Tool{tool, {Name: "no-params_2"}}, ToolChoice: model.UseTool("get_weather"),
			Output: &model.OutputSchema{Name: "out", Schema: obj}, MaxTokens: 10, Temperature: new(0.0),
		}, ""},
		{"no messages", model.Request{System: "sys"}, "no messages"},
		{"unknown role", model.Request{Messages: []model.Message{{Role: "bot", Content: "x"}}}, "unknown role"},
		{"empty user", model.Request{Messages: []model.Message{user("")}}, "no content"},
		{"empty assistant", model.Request{Messages: []model.Message{{Role: model.RoleAssistant}}}, "neither content nor tool calls"},
		{"tool without id", model.Request{Messages: []model.Message{{Role: model.RoleTool, Content: "x"}}}, "does not name the tool call"},
		{"tool call without id", model.Request{Messages: []model.Message{{Role: model.RoleAssistant, ToolCalls: []model.ToolCall{{Name: "f"}}}}}, "needs an id and a name"},
		{"arguments not an object", model.Request{Messages: []model.Message{{Role: model.RoleAssistant, ToolCalls: []model.ToolCall{{ID: "c", Name: "f", Arguments: json.RawMessage(`[1]`)}}}}}, "not a JSON object"},
		{"tool calls on a user message", model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "x", ToolCalls: []model.ToolCall{{ID: "c", Name: "f"}}}}}, "only assistant"},
		{"tool call id on a user message", model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "x", ToolCallID: "c"}}}, "only tool messages"},
		{"bad tool name", model.Request{Messages: []model.Message{user("hi")}, Tools: []model.Tool{{Name: "get weather"}}}, "name"},
		{"duplicate tool", model.Request{Messages: []model.Message{user("hi")}, Tools: []model.Tool{tool, tool}}, "twice"},
		{"parameters not an object", model.Request{Messages: []model.Message{user("hi")}, Tools: []model.Tool{{Name: "f", Parameters: json.RawMessage(`"x"`)}}}, "parameters"},
		{"required without tools", model.Request{Messages: []model.Message{user("hi")}, ToolChoice: model.ToolChoice{Mode: model.ToolChoiceRequired}}, "needs tools"},
		{"unknown tool chosen", model.Request{Messages: []model.Message{user("hi")}, Tools: []model.Tool{tool}, ToolChoice: model.UseTool("other")}, "not one of"},
		{"unknown tool choice", model.Request{Messages: []model.Message{user("hi")}, ToolChoice: model.ToolChoice{Mode: "any"}}, "unknown tool choice"},
		{"output not an object", model.Request{Messages: []model.Message{user("hi")}, Output: &model.OutputSchema{Schema: json.RawMessage(`true`)}}, "output schema"},
		{"output bad name", model.Request{Messages: []model.Message{user("hi")}, Output: &model.OutputSchema{Name: "a b", Schema: obj}}, "output schema name"},
		{"negative max tokens", model.Request{Messages: []model.Message{user("hi")}, MaxTokens: -1}, "max tokens"},
		{"temperature too high", model.Request{Messages: []model.Message{user("hi")}, Temperature: new(2.5)}, "temperature"},
		{"temperature NaN", model.Request{Messages: []model.Message{user("hi")}, Temperature: new(math.NaN())}, "temperature"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.req.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("got %v, want valid", err)
				}
				return
			}
			if sanad.ErrorCode(err) != sanad.CodeInvalidInput || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want INVALID_INPUT saying %q", err, tt.want)
			}
		})
	}
}

func TestOutputJSON(t *testing.T) {
	tests := []struct{ text, want string }{
		{`{"a":1}`, `{"a":1}`},
		{"  [1, 2]\n", `[1, 2]`},
		{"```json\n{\"a\":1}\n```", `{"a":1}`},
		{"```\n{\"a\":1}\n```", `{"a":1}`},
		{"```{\"a\":1}```", `{"a":1}`},
		{`"text"`, `"text"`},
		{"Here it is: {\"a\":1}", ""},
		{`{"a":`, ""},
		{"", ""},
		{"``````", ""},
	}
	for _, tt := range tests {
		if got := string(model.OutputJSON(tt.text)); got != tt.want {
			t.Errorf("OutputJSON(%q): got %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestResponseMessage(t *testing.T) {
	resp := model.Response{Text: "t", ToolCalls: []model.ToolCall{{ID: "c", Name: "f", Arguments: json.RawMessage(`{}`)}}, Model: "m"}
	want := model.Message{Role: model.RoleAssistant, Content: "t", ToolCalls: resp.ToolCalls}
	if got := resp.Message(); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestUsageAdd(t *testing.T) {
	got := model.Usage{InputTokens: 1, OutputTokens: 2, TotalTokens: 3}.Add(model.Usage{InputTokens: 10, OutputTokens: 20, TotalTokens: 35})
	if want := (model.Usage{InputTokens: 11, OutputTokens: 22, TotalTokens: 38}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestAccumulator(t *testing.T) {
	var a model.Accumulator
	for _, d := range []model.Delta{
		{Text: "Hel"}, {Text: "lo"},
		{ToolCall: &model.ToolCallDelta{Index: 1, ID: "c2", Name: "g"}},
		{ToolCall: &model.ToolCallDelta{Index: 0, ID: "c1", Name: "f", Arguments: `{"a"`}},
		{ToolCall: &model.ToolCallDelta{Index: 0, Arguments: `:1}`}},
	} {
		a.Add(d)
	}
	calls, err := a.ToolCalls()
	if err != nil {
		t.Fatal(err)
	}
	want := []model.ToolCall{{ID: "c1", Name: "f", Arguments: json.RawMessage(`{"a":1}`)}, {ID: "c2", Name: "g", Arguments: json.RawMessage(`{}`)}}
	if a.Text() != "Hello" || !reflect.DeepEqual(calls, want) {
		t.Errorf("got %q %+v, want Hello %+v", a.Text(), calls, want)
	}

	var bad model.Accumulator
	bad.Add(model.Delta{ToolCall: &model.ToolCallDelta{Index: 0, Name: "f", Arguments: `{"a":`}})
	if _, err := bad.ToolCalls(); sanad.ErrorCode(err) != sanad.CodeModelOutput {
		t.Errorf("unfinished arguments: got %v, want MODEL_OUTPUT_INVALID", err)
	}
	var far model.Accumulator
	far.Add(model.Delta{ToolCall: &model.ToolCallDelta{Index: 1 << 40, Name: "f"}})
	if _, err := far.ToolCalls(); sanad.ErrorCode(err) != sanad.CodeModelOutput {
		t.Errorf("an index far out: got %v, want MODEL_OUTPUT_INVALID", err)
	}
	var nameless model.Accumulator
	nameless.Add(model.Delta{ToolCall: &model.ToolCallDelta{Index: 0, Arguments: `{}`}})
	if _, err := nameless.ToolCalls(); sanad.ErrorCode(err) != sanad.CodeModelOutput {
		t.Errorf("a call without a name: got %v, want MODEL_OUTPUT_INVALID", err)
	}
}

// TestStreamFallback streams a model that cannot stream: its one reply
// comes back as deltas that add up to it.
func TestStreamFallback(t *testing.T) {
	reply := model.Response{Text: "Paris", ToolCalls: []model.ToolCall{{ID: "c", Name: "f", Arguments: json.RawMessage(`{"x":1}`)}}, FinishReason: model.FinishToolCalls}
	m := &fake{generate: func(model.Request, int) (model.Response, error) { return reply, nil }}
	var a model.Accumulator
	n := 0
	var final *model.Response
	for d, err := range model.Stream(context.Background(), m, model.Request{}) {
		if err != nil {
			t.Fatal(err)
		}
		a.Add(d)
		final = d.Response
		n++
	}
	calls, _ := a.ToolCalls()
	if n != 3 || final == nil || !reflect.DeepEqual(*final, reply) || a.Text() != reply.Text || !reflect.DeepEqual(calls, reply.ToolCalls) {
		t.Errorf("got %d deltas adding up to %q %+v and final %+v, want 3 adding up to %+v", n, a.Text(), calls, final, reply)
	}
	got, err := model.Collect(model.Stream(context.Background(), m, model.Request{}))
	if err != nil || !reflect.DeepEqual(got, reply) {
		t.Errorf("Collect: got %+v, %v; want %+v", got, err, reply)
	}

	failing := &fake{generate: func(model.Request, int) (model.Response, error) {
		return model.Response{}, sanad.Errorf(sanad.CodeTimeout, "x", "slow")
	}}
	if _, err := model.Collect(model.Stream(context.Background(), failing, model.Request{})); sanad.ErrorCode(err) != sanad.CodeTimeout {
		t.Errorf("got %v, want the model's ERR_TIMEOUT", err)
	}
}

func TestCollectWithoutFinal(t *testing.T) {
	stream := func(yield func(model.Delta, error) bool) { yield(model.Delta{Text: "cut"}, nil) }
	if _, err := model.Collect(stream); sanad.ErrorCode(err) != sanad.CodeModelOutput {
		t.Errorf("got %v, want MODEL_OUTPUT_INVALID", err)
	}
}

func TestSecret(t *testing.T) {
	s := model.Secret("sk-very-secret-value")
	type holder struct{ Key model.Secret }
	for _, out := range []string{s.String(), s.GoString(), s.LogValue().String(), fmtAll(holder{s}), mustMarshal(t, holder{s})} {
		if strings.Contains(out, "very-secret") {
			t.Errorf("%q shows the secret", out)
		}
	}
	if got := s.Redact("key sk-very-secret-value!"); got != "key [redacted]!" {
		t.Errorf("Redact: got %q", got)
	}
	if got := model.Secret("ollama").Redact("ollama server"); got != "ollama server" {
		t.Errorf("a placeholder key was redacted: %q", got)
	}
}

// TestDomainPackageHasNoHTTP keeps HTTP in the adapters.
func TestDomainPackageHasNoHTTP(t *testing.T) {
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "net/http" || strings.Contains(dep, "openai-go") || strings.Contains(dep, "anthropic-sdk-go") {
			t.Errorf("package model depends on %s, want no HTTP and no provider SDK", dep)
		}
	}
}

func fmtAll(v any) string { return fmt.Sprintf("%v %+v %#v", v, v, v) }

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
