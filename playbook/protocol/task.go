package protocol

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/goccy/go-yaml"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sanadhq/sanad"
)

// MaxTaskBytes is the largest task file ParseTask accepts.
const MaxTaskBytes = 4 << 20

// Task is what a session works on: objectives, each with the tool it needs
// and its input, the claim it expects to support and the evidence that
// claim needs; the records the lookup tool returns; and the attachments
// claims may cite.
type Task struct {
	Name        string                     `json:"name"`
	Description string                     `json:"description,omitempty"`
	Policy      *TaskPolicy                `json:"policy,omitempty"`
	Fixtures    map[string]json.RawMessage `json:"fixtures,omitempty"`
	Attachments []Attachment               `json:"attachments,omitempty"`
	Objectives  []Objective                `json:"objectives"`
}

// TaskPolicy holds the thresholds a task asks for. They can only tighten
// the runtime's (see [Thresholds.Tighten]).
type TaskPolicy struct {
	MaxRisk       string  `json:"max_risk,omitempty"`
	MinEvidence   int     `json:"min_evidence,omitempty"`
	MinConfidence float64 `json:"min_confidence,omitempty"`
	AllowFallback *bool   `json:"allow_fallback,omitempty"`
	MaxRetries    *int    `json:"max_retries,omitempty"`
}

// Attachment is a document claims may cite: given inline (stored as an
// artifact when the session starts), or declared by its digest and size as
// one the artifact store is expected to hold already.
type Attachment struct {
	Name      string `json:"name"`
	MediaType string `json:"media_type"`
	Content   string `json:"content,omitempty"`
	SHA256    string `json:"sha256,omitempty"`
	SizeBytes int64  `json:"size_bytes,omitempty"`
}

// Plan is a tool call and the claim its output should support.
type Plan struct {
	Tool  string          `json:"tool"`
	Input json.RawMessage `json:"input"`
	Claim ClaimSpec       `json:"claim"`
}

// ClaimSpec is the claim a plan expects to make: its text and confidence,
// and optionally the value a field of the tool output must hold for it to
// stand (Field, a dotted path, and Equals).
type ClaimSpec struct {
	Text       string          `json:"text"`
	Confidence float64         `json:"confidence"`
	Field      string          `json:"field,omitempty"`
	Equals     json.RawMessage `json:"equals,omitempty"`
}

// Evidence is what an objective's claim must cite: at least Min artifacts
// (the tool output counts as one), the attachments named in Cite, and what
// Expect describes.
type Evidence struct {
	Min    int      `json:"min,omitempty"`
	Cite   []string `json:"cite,omitempty"`
	Expect []string `json:"expect,omitempty"`
}

// Objective is one thing the task asks for. Fallback is the plan a
// revision uses when the first is rejected, blocked or fails.
type Objective struct {
	ID          string   `json:"id"`
	Objective   string   `json:"objective"`
	Assumptions []string `json:"assumptions,omitempty"`
	Risk        string   `json:"risk,omitempty"`
	Plan
	Evidence Evidence `json:"evidence,omitzero"`
	Fallback *Plan    `json:"fallback,omitempty"`
}

// Objective returns the objective with id, or nil.
func (t *Task) Objective(id string) *Objective {
	for i := range t.Objectives {
		if t.Objectives[i].ID == id {
			return &t.Objectives[i]
		}
	}
	return nil
}

// Attachment returns the attachment named name, or nil.
func (t *Task) Attachment(name string) *Attachment {
	for i := range t.Attachments {
		if t.Attachments[i].Name == name {
			return &t.Attachments[i]
		}
	}
	return nil
}

//go:embed schema/task.schema.json
var taskSchemaJSON []byte

var taskSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(taskSchemaJSON))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	const url = "https://sanad.dev/schema/protocol/task.schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
})

// ParseTask reads a task file (YAML or JSON), checks it against the task
// schema and the rules a schema cannot state, and returns the task. Every
// failure is an INVALID_INPUT error that names the file and what to fix.
func ParseTask(file string, data []byte) (*Task, error) {
	const op = "protocol.parse"
	if len(data) > MaxTaskBytes {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "%s: %d bytes; a task file has at most %d", file, len(data), MaxTaskBytes)
	}
	raw, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, file+": not valid YAML: "+firstLine(err.Error()))
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, file+": "+firstLine(err.Error()))
	}
	s, err := taskSchema()
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInternal, op, "the task schema does not compile")
	}
	if err := s.Validate(doc); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, file+": "+schemaMessage(err))
	}
	var t Task
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, file+": "+err.Error())
	}
	if err := t.Validate(); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, file+": "+sanad.ErrorMessage(err))
	}
	return &t, nil
}

// Validate checks what the schema cannot: unique objective and attachment
// names, and citations of declared attachments.
func (t *Task) Validate() error {
	const op = "protocol.task"
	if len(t.Objectives) == 0 {
		return sanad.Errorf(sanad.CodeInvalidInput, op, "a task needs at least one objective")
	}
	names := map[string]bool{}
	for _, a := range t.Attachments {
		if names[a.Name] {
			return sanad.Errorf(sanad.CodeInvalidInput, op, "two attachments are named %q", a.Name)
		}
		if (a.Content == "") == (a.SHA256 == "") {
			return sanad.Errorf(sanad.CodeInvalidInput, op, "attachment %q gives either content or sha256 and size_bytes", a.Name)
		}
		names[a.Name] = true
	}
	ids := map[string]bool{}
	for _, o := range t.Objectives {
		if ids[o.ID] {
			return sanad.Errorf(sanad.CodeInvalidInput, op, "two objectives are named %q", o.ID)
		}
		ids[o.ID] = true
		for _, c := range o.Evidence.Cite {
			if !names[c] {
				return sanad.Errorf(sanad.CodeInvalidInput, op, "objective %q cites attachment %q, which the task does not declare", o.ID, c)
			}
		}
		for _, p := range []*Plan{&o.Plan, o.Fallback} {
			if p == nil {
				continue
			}
			if len(bytes.TrimSpace(p.Input)) == 0 || bytes.TrimSpace(p.Input)[0] != '{' {
				return sanad.Errorf(sanad.CodeInvalidInput, op, "objective %q: a tool input is a JSON object", o.ID)
			}
			if (p.Claim.Field == "") != (len(p.Claim.Equals) == 0) {
				return sanad.Errorf(sanad.CodeInvalidInput, op, "objective %q: a claim's field and equals go together", o.ID)
			}
		}
	}
	return nil
}

// Thresholds are the critic's and the auditor's policy in a session.
type Thresholds struct {
	// MaxRisk is the highest risk class the critic may approve; an intent
	// above it is blocked.
	MaxRisk string `json:"max_risk"`
	// ReviewFrom is the lowest risk class whose intents need the critic's
	// approval before they execute (the action guard).
	ReviewFrom string `json:"review_from"`
	// MinEvidence is the fewest artifacts a claim cites; MinConfidence the
	// lowest confidence a claim states without being challenged as weak.
	MinEvidence   int     `json:"min_evidence"`
	MinConfidence float64 `json:"min_confidence"`
	// AllowFallback permits a fallback proposal after a tool failure.
	AllowFallback bool `json:"allow_fallback"`
	// MaxRetries bounds the retries of one proposal's tool execution.
	MaxRetries int `json:"max_retries"`
}

// DefaultThresholds are the thresholds of a session whose runtime sets none.
var DefaultThresholds = Thresholds{
	MaxRisk: RiskMedium, ReviewFrom: RiskMedium, MinEvidence: 1, MinConfidence: 0.6,
	AllowFallback: true, MaxRetries: 1,
}

// Validate reports a threshold out of range.
func (th Thresholds) Validate() error {
	const op = "protocol.thresholds"
	switch {
	case riskRank(th.MaxRisk) < 0 || riskRank(th.ReviewFrom) < 0:
		return sanad.Errorf(sanad.CodeInvalidInput, op, "max_risk and review_from are risk levels (%s)", strings.Join(RiskLevels, ", "))
	case th.MinEvidence < 1 || th.MinEvidence > 100:
		return sanad.Errorf(sanad.CodeInvalidInput, op, "min_evidence %d: want 1 to 100", th.MinEvidence)
	case th.MinConfidence < 0 || th.MinConfidence > 1:
		return sanad.Errorf(sanad.CodeInvalidInput, op, "min_confidence %v: want 0 to 1", th.MinConfidence)
	case th.MaxRetries < 0 || th.MaxRetries > 10:
		return sanad.Errorf(sanad.CodeInvalidInput, op, "max_retries %d: want 0 to 10", th.MaxRetries)
	}
	return nil
}

// Tighten returns th made stricter by what p asks for; nothing in p can
// loosen th.
func (th Thresholds) Tighten(p *TaskPolicy) Thresholds {
	if p == nil {
		return th
	}
	if r := riskRank(p.MaxRisk); r >= 0 && r < riskRank(th.MaxRisk) {
		th.MaxRisk = p.MaxRisk
	}
	th.MinEvidence = max(th.MinEvidence, p.MinEvidence)
	th.MinConfidence = max(th.MinConfidence, p.MinConfidence)
	if p.AllowFallback != nil {
		th.AllowFallback = th.AllowFallback && *p.AllowFallback
	}
	if p.MaxRetries != nil {
		th.MaxRetries = min(th.MaxRetries, *p.MaxRetries)
	}
	return th
}

// schemaMessage words a schema violation as "at /objectives/2/id: …", for
// the innermost cause.
func schemaMessage(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	at := "/" + strings.Join(ve.InstanceLocation, "/")
	bare := &jsonschema.ValidationError{SchemaURL: ve.SchemaURL, ErrorKind: ve.ErrorKind}
	return "at " + at + ": " + strings.TrimPrefix(bare.Error(), "at '': ")
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// fieldAt returns the value at the dotted path in the JSON document doc.
func fieldAt(doc json.RawMessage, path string) (json.RawMessage, error) {
	cur := doc
	for _, k := range strings.Split(path, ".") {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(cur, &m); err != nil {
			return nil, fmt.Errorf("%s: not an object at %q", path, k)
		}
		v, ok := m[k]
		if !ok {
			return nil, fmt.Errorf("%s: no field %q", path, k)
		}
		cur = v
	}
	return cur, nil
}
