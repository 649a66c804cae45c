package agent

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"text/template"

	"github.com/sanadhq/sanad"
)

// DefaultPrompt is the prompt template of a profile that has none: the task,
// then the work's input, then what each step the task depends on produced.
const DefaultPrompt = `{{.Task}}
{{- with .Input}}

The input of this work:
{{json .}}
{{- end}}
{{- range $step, $out := .Inputs}}

What the step {{$step}} produced:
{{text $out}}
{{- end}}`

// MaxPromptTemplateBytes bounds a profile's prompt template.
const MaxPromptTemplateBytes = 16 << 10

// PromptData is what a prompt template is rendered with. Input and the
// values of Inputs are the JSON values decoded, numbers kept as written, so
// a template reads a workflow input's field as {{.Input.target}} and a step's
// output as {{index .Inputs "research"}}.
type PromptData struct {
	Agent  Profile
	Task   string
	Input  map[string]any
	Inputs map[string]any
	// Chain is the delegation path that led to the task, its last element
	// the agent itself.
	Chain []string
}

// promptFuncs are the functions a prompt template may call:
//
//	json  the value as indented JSON
//	text  a step's output as text: its "text" or "summary" member when it
//	      has one, else the value as indented JSON
var promptFuncs = template.FuncMap{
	"json": indentJSON,
	"text": outputText,
}

func indentJSON(v any) (string, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	return string(b), err
}

func outputText(v any) (string, error) {
	if m, ok := v.(map[string]any); ok {
		for _, k := range []string{"text", "summary"} {
			if s, ok := m[k].(string); ok && strings.TrimSpace(s) != "" {
				return s, nil
			}
		}
	}
	if s, ok := v.(string); ok {
		return s, nil
	}
	return indentJSON(v)
}

// parsePrompt parses the prompt template of p (DefaultPrompt when it has
// none).
func parsePrompt(p Profile) (*template.Template, error) {
	text := p.Prompt
	if text == "" {
		text = DefaultPrompt
	}
	return template.New(p.ID).Funcs(promptFuncs).Option("missingkey=error").Parse(text)
}

// checkPrompt reports a prompt template that does not parse, or that names
// a field PromptData does not have: it is rendered once on empty data.
func checkPrompt(p Profile) error {
	if len(p.Prompt) > MaxPromptTemplateBytes {
		return &LoadError{File: "profile " + p.ID, Reason: "prompt: the template is longer than 16 KiB"}
	}
	t, err := parsePrompt(p)
	if err == nil {
		// Map lookups of absent keys are what real data may supply; on
		// empty data only a misspelt field of PromptData fails.
		err = t.Option("missingkey=zero").Execute(io.Discard, PromptData{Agent: p, Input: map[string]any{}, Inputs: map[string]any{}})
	}
	if err != nil {
		return &LoadError{File: "profile " + p.ID, Reason: "prompt: " + err.Error()}
	}
	return nil
}

// Render renders p's prompt template for in: the task with the work's input
// and the outputs it depends on. A template that reads an input the task
// was not given is INVALID_INPUT, naming the agent and what is missing.
func Render(p Profile, in Input) (string, error) {
	const op = "agent.prompt"
	t, err := parsePrompt(p)
	if err != nil {
		return "", sanad.Wrap(err, sanad.CodeInvalidInput, op, "agent "+p.ID+": prompt template: "+err.Error())
	}
	data := PromptData{Agent: p, Task: in.Task, Input: map[string]any{}, Inputs: make(map[string]any, len(in.Inputs)), Chain: in.Chain.Agents}
	if len(bytes.TrimSpace(in.Input)) > 0 {
		v, err := decodeJSON(in.Input)
		m, ok := v.(map[string]any)
		if err != nil || !ok {
			return "", sanad.Errorf(sanad.CodeInvalidInput, op, "agent %s: the input of its task is not a JSON object", p.ID)
		}
		data.Input = m
	}
	for step, raw := range in.Inputs {
		v, err := decodeJSON(raw)
		if err != nil {
			return "", sanad.Wrap(err, sanad.CodeInvalidInput, op, "agent "+p.ID+": the output of step "+step+" is not JSON")
		}
		data.Inputs[step] = v
	}
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		return "", sanad.Wrap(err, sanad.CodeInvalidInput, op, "agent "+p.ID+": its prompt template cannot be rendered for this task: "+err.Error())
	}
	return b.String(), nil
}

// decodeJSON decodes one JSON value, numbers as json.Number so that they
// print as written.
func decodeJSON(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}
