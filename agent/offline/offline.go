// Package offline is the agent that works with no model (deterministic
// mode): it reads the evidence its task was given — the work's input and
// the outputs of the steps it depends on — and reports what it finds there
// by rules: the passages that bear on the task, the figures, dates and
// names they state, where sources agree and where they contradict each
// other. It calls nothing, and its output depends only on its profile and
// its input, so a replay gets the same.
package offline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/agent"
	"github.com/sanadhq/sanad/canon"
)

// Mode is the mode an output of the agent records.
const Mode = "deterministic"

// Agent is an [agent.Node] that analyses its evidence by rules. It is safe
// for concurrent use.
type Agent struct {
	profile agent.Profile
}

var _ agent.Node = (*Agent)(nil)

// New returns the offline agent of profile p.
func New(p agent.Profile) *Agent { return &Agent{profile: p} }

// Profile implements [agent.Node].
func (a *Agent) Profile() agent.Profile { return a.profile }

// Output is the content of the agent's output.
type Output struct {
	Mode      string   `json:"mode"` // Mode
	Agent     string   `json:"agent"`
	Role      string   `json:"role"`
	Task      string   `json:"task"`
	Abilities []string `json:"abilities"`
	// Text is the findings, for people.
	Text string `json:"text"`
	// Findings are what the evidence shows, each with its sources.
	Findings []Finding `json:"findings"`
	// Inputs are the evidence read: each source with the SHA-256 and size
	// of its canonical JSON.
	Inputs []Source `json:"inputs"`
}

// Source is one piece of evidence the agent read.
type Source struct {
	Step   string `json:"step"` // "input" for the work's input
	SHA256 string `json:"sha256"`
	Bytes  int    `json:"bytes"`
}

// keys are the members every output holds.
var keys = []string{"mode", "agent", "role", "task", "abilities", "text", "findings", "inputs"}

// Execute implements [agent.Node].
func (a *Agent) Execute(ctx context.Context, in agent.Input) (agent.Output, error) {
	const op = "agent.offline"
	p := a.profile
	if err := ctx.Err(); err != nil {
		code := sanad.CodeCancelled
		if errors.Is(err, context.DeadlineExceeded) {
			code = sanad.CodeTimeout
		}
		return agent.Output{}, sanad.Wrap(err, code, op, "agent "+p.ID+" stopped: "+err.Error())
	}
	docs := map[string]json.RawMessage{}
	for step, raw := range in.Inputs {
		docs[step] = raw
	}
	if len(in.Input) > 0 {
		docs[InputSource] = in.Input
	}
	out := Output{Mode: Mode, Agent: p.ID, Role: p.Role, Task: in.Task, Abilities: append([]string{}, in.Abilities...), Inputs: []Source{}}
	var ev []passage
	for _, step := range sortedKeys(docs) {
		c, err := canon.Transform(docs[step])
		if err != nil {
			return agent.Output{}, sanad.Wrap(err, sanad.CodeInvalidInput, op, "the evidence from "+step+" is not valid JSON")
		}
		sum := sha256.Sum256(c)
		out.Inputs = append(out.Inputs, Source{Step: step, SHA256: hex.EncodeToString(sum[:]), Bytes: len(c)})
		ev = append(ev, passages(step, docs[step])...)
	}
	out.Findings = analyse(in.Task, ev)
	out.Text = report(p, in.Task, out.Findings, len(out.Inputs))
	content, err := json.Marshal(out)
	if err != nil {
		return agent.Output{}, sanad.Wrap(err, sanad.CodeInternal, op, "output")
	}
	summary := fmt.Sprintf("%s (%s) read %d input(s) offline for %q: %d finding(s)", p.ID, p.Role, len(out.Inputs), in.Task, len(out.Findings))
	return agent.Output{Content: content, Summary: summary}, nil
}

// ValidateOutput implements [agent.Node]: the content is a JSON object with
// every member of an [Output], and a summary.
func (a *Agent) ValidateOutput(out agent.Output) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(out.Content, &m); err != nil || m == nil {
		return errors.New("the content is not a JSON object")
	}
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			return fmt.Errorf("the content has no %q", k)
		}
	}
	if out.Summary == "" {
		return errors.New("the output has no summary")
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
