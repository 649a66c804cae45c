package llmagent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/agent"
	"github.com/sanadhq/sanad/agent/llmagent"
	"github.com/sanadhq/sanad/model"
)

var profile = agent.Profile{ID: "a", Name: "A", Description: "Tests.", Role: "tester", ModelClass: "reasoning", Enabled: true, Version: "1"}

// fakeModel answers with replies in turn and keeps the requests.
type fakeModel struct {
	replies []model.Response
	reqs    []model.Request
}

func (m *fakeModel) Generate(_ context.Context, req model.Request) (model.Response, error) {
	m.reqs = append(m.reqs, req)
	if len(m.reqs) > len(m.replies) {
		return model.Response{Text: "final"}, nil
	}
	return m.replies[len(m.reqs)-1], nil
}
func (m *fakeModel) Class() string    { return "reasoning" }
func (m *fakeModel) Provider() string { return "fake" }

// fakeTools offers tools and answers calls with answer.
type fakeTools struct {
	infos  []agent.ToolInfo
	answer func(name string, in json.RawMessage) (json.RawMessage, error)
	calls  []string
}

func (f *fakeTools) Tools() []agent.ToolInfo { return f.infos }
func (f *fakeTools) Call(_ context.Context, name string, in json.RawMessage) (json.RawMessage, error) {
	f.calls = append(f.calls, name)
	return f.answer(name, in)
}

func TestToolNamesAreDeclaredWithoutDots(t *testing.T) {
	m := &fakeModel{replies: []model.Response{{ToolCalls: []model.ToolCall{{ID: "c1", Name: "hash_sha256", Arguments: json.RawMessage(`{"text":"x"}`)}}}}}
	tools := &fakeTools{infos: []agent.ToolInfo{{Name: "hash.sha256", InputSchema: json.RawMessage(`{"type":"object"}`)}},
		answer: func(string, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(`{"sha256":"ab"}`), nil }}
	out, err := llmagent.New(profile, llmagent.Config{}).Execute(context.Background(), agent.Input{Prompt: "go", Model: m, Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.reqs[0].Tools[0].Name; got != "hash_sha256" {
		t.Errorf("declared as %q, want hash_sha256", got)
	}
	if strings.Join(tools.calls, ",") != "hash.sha256" {
		t.Errorf("called %v, want hash.sha256", tools.calls)
	}
	last := m.reqs[1].Messages
	if r := last[len(last)-1]; r.Role != model.RoleTool || r.ToolCallID != "c1" || r.Content != `{"sha256":"ab"}` {
		t.Errorf("the tool's result was fed back as %+v", r)
	}
	if err := llmagent.New(profile, llmagent.Config{}).ValidateOutput(out); err != nil {
		t.Error(err)
	}
}

func TestToolsThatCollideAreRefused(t *testing.T) {
	tools := &fakeTools{infos: []agent.ToolInfo{{Name: "a.b"}, {Name: "a_b"}}}
	_, err := llmagent.New(profile, llmagent.Config{}).Execute(context.Background(), agent.Input{Prompt: "go", Model: &fakeModel{}, Tools: tools})
	if sanad.ErrorCode(err) != sanad.CodeInvalidInput || !strings.Contains(err.Error(), "would both be declared") {
		t.Fatalf("got %v, want INVALID_INPUT", err)
	}
}

// A refusal is an answer for the model; any other error of the toolbox
// (the run stopped, waits on a gate, cannot be recorded) stops the agent.
func TestOnlyToolErrorsGoBackToTheModel(t *testing.T) {
	call := []model.Response{{ToolCalls: []model.ToolCall{{ID: "c1", Name: "t"}}}}
	stop := errors.New("the run waits on gate g1")
	tools := &fakeTools{infos: []agent.ToolInfo{{Name: "t"}}, answer: func(string, json.RawMessage) (json.RawMessage, error) { return nil, stop }}
	_, err := llmagent.New(profile, llmagent.Config{}).Execute(context.Background(), agent.Input{Prompt: "go", Model: &fakeModel{replies: call}, Tools: tools})
	if !errors.Is(err, stop) {
		t.Fatalf("got %v, want the toolbox's error", err)
	}
	tools.answer = func(string, json.RawMessage) (json.RawMessage, error) {
		return nil, &agent.ToolError{Tool: "t", Code: sanad.CodePolicyDenied, Message: "no"}
	}
	m := &fakeModel{replies: call}
	if _, err := llmagent.New(profile, llmagent.Config{}).Execute(context.Background(), agent.Input{Prompt: "go", Model: m, Tools: tools}); err != nil {
		t.Fatal(err)
	}
	if got := m.reqs[1].Messages[2].Content; !strings.Contains(got, `"code":"POLICY_DENIED"`) || !strings.Contains(got, `"success":false`) {
		t.Errorf("the refusal was fed back as %s", got)
	}
}

func TestNoModelNoAnswer(t *testing.T) {
	_, err := llmagent.New(profile, llmagent.Config{}).Execute(context.Background(), agent.Input{Prompt: "go"})
	if sanad.ErrorCode(err) != sanad.CodeInvalidInput {
		t.Fatalf("got %v, want INVALID_INPUT", err)
	}
	empty, _ := json.Marshal(llmagent.Output{Mode: llmagent.Mode})
	if err := llmagent.New(profile, llmagent.Config{}).ValidateOutput(agent.Output{Content: empty}); err == nil {
		t.Fatal("an output with no text is valid")
	}
}
