package agent_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/agent"
)

func TestRenderDefaultPrompt(t *testing.T) {
	p := agent.Profile{ID: "a", Name: "A", Description: "d", Role: "r", Enabled: true, Version: "1"}
	got, err := agent.Render(p, agent.Input{Task: "Check the revenue", Input: json.RawMessage(`{"target":"Acme","n":12345678901234567890}`),
		Inputs: map[string]json.RawMessage{"b": json.RawMessage(`{"text":"B said so"}`), "a": json.RawMessage(`[1,2]`)}})
	if err != nil {
		t.Fatal(err)
	}
	want := "Check the revenue\n\nThe input of this work:\n{\n  \"n\": 12345678901234567890,\n  \"target\": \"Acme\"\n}\n\nWhat the step a produced:\n[\n  1,\n  2\n]\n\nWhat the step b produced:\nB said so"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestRenderProfileTemplate(t *testing.T) {
	p := agent.Profile{ID: "a", Name: "A", Description: "d", Role: "r", Enabled: true, Version: "1",
		Prompt: `{{.Task}} for {{.Input.target}}{{with index .Input "missing"}} never{{end}}; agent {{.Agent.Name}}`}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	got, err := agent.Render(p, agent.Input{Task: "Screen", Input: json.RawMessage(`{"target":"Acme"}`)})
	if err != nil || got != "Screen for Acme; agent A" {
		t.Fatalf("got %q, %v", got, err)
	}
	// A field the input lacks is an error naming the agent.
	_, err = agent.Render(p, agent.Input{Task: "Screen", Input: json.RawMessage(`{}`)})
	if sanad.ErrorCode(err) != sanad.CodeInvalidInput || !strings.Contains(err.Error(), "agent a") {
		t.Fatalf("missing input: got %v, want INVALID_INPUT naming agent a", err)
	}
}

// A template that does not parse, or names a field prompts do not have, is
// refused when the profile is loaded, at the line of its prompt.
func TestPromptCheckedAtLoad(t *testing.T) {
	for _, tc := range []struct{ prompt, says string }{
		{`"{{.Task"`, "unclosed action"},
		{`"{{.Tsk}}"`, "can't evaluate field Tsk"},
		{`"{{nosuch .Task}}"`, `function "nosuch" not defined`},
	} {
		yaml := "id: a\nname: A\ndescription: d\nrole: r\nversion: \"1\"\nprompt: " + tc.prompt + "\n"
		_, err := agent.ParseProfile("a.yaml", []byte(yaml))
		var le *agent.LoadError
		if !errors.As(err, &le) || le.Line != 6 || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("prompt %s: got %v, want a load error at line 6 saying %q", tc.prompt, err, tc.says)
		}
	}
}
