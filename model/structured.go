package model

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"iter"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/sanadhq/sanad"
)

const opStructured = "model.structured"

// Structured wraps m so that the reply to every request with an
// [OutputSchema] is checked against the schema (JSON Schema, compiled once
// per distinct schema). A reply that is not JSON, or does not match, gets
// one repair attempt: the request is sent again with the bad reply and a
// user message naming the violation appended. If the second reply fails too,
// Generate returns MODEL_OUTPUT_INVALID with a message naming the violation,
// together with the last reply, so the cost of both calls can be recorded.
// The Usage and Latency of a repaired reply are the sums of both calls.
//
// A reply that calls tools is returned unchecked: the caller runs the tools
// and asks again. Requests without an OutputSchema, and Embed, pass through.
//
// The stream of a wrapped model is checked the same way, without a repair
// (its fragments are already out): an invalid output ends the stream with
// MODEL_OUTPUT_INVALID instead of the final delta.
//
// A schema that does not compile fails the call with INVALID_INPUT before
// the model is asked. Schemas cannot load other documents: a $ref must point
// inside the schema.
func Structured(m Model) Model {
	return &structured{next: m, schemas: &schemaCache{}}
}

type structured struct {
	next    Model
	schemas *schemaCache
}

func (s *structured) Embed(ctx context.Context, texts []string) (Embeddings, error) {
	return s.next.Embed(ctx, texts)
}

func (s *structured) Generate(ctx context.Context, req Request) (Response, error) {
	if req.Output == nil {
		return s.next.Generate(ctx, req)
	}
	sch, err := s.schemas.compile(req.Output.Schema)
	if err != nil {
		return Response{}, err
	}
	first, err := s.next.Generate(ctx, req)
	if err != nil {
		return first, err
	}
	problem := check(sch, &first)
	if problem == "" {
		return first, nil
	}

	repair := req
	repair.Messages = append(append([]Message(nil), req.Messages...), repairMessages(first, req.OutputName(), problem)...)
	second, err := s.next.Generate(ctx, repair)
	second.Usage = first.Usage.Add(second.Usage)
	second.Latency += first.Latency
	if err != nil {
		return second, err
	}
	if problem = check(sch, &second); problem == "" {
		return second, nil
	}
	return second, sanad.Errorf(sanad.CodeModelOutput, opStructured,
		"the reply of %s does not match output schema %q, even after one repair: %s",
		modelName(second), req.OutputName(), problem)
}

func (s *structured) Stream(ctx context.Context, req Request) iter.Seq2[Delta, error] {
	if req.Output == nil {
		return Stream(ctx, s.next, req)
	}
	return func(yield func(Delta, error) bool) {
		sch, err := s.schemas.compile(req.Output.Schema)
		if err != nil {
			yield(Delta{}, err)
			return
		}
		for d, err := range Stream(ctx, s.next, req) {
			if err == nil && d.Response != nil {
				resp := *d.Response
				if problem := check(sch, &resp); problem != "" {
					err = sanad.Errorf(sanad.CodeModelOutput, opStructured,
						"the reply of %s does not match output schema %q: %s", modelName(resp), req.OutputName(), problem)
				}
				d.Response = &resp
			}
			if !yield(d, err) || err != nil {
				return
			}
		}
	}
}

// check validates the output of resp against sch, setting resp.Output from
// its text if the adapter did not. It returns what is wrong, or "" if
// nothing is. A reply with tool calls is not checked.
func check(sch *jsonschema.Schema, resp *Response) string {
	if len(resp.ToolCalls) > 0 {
		return ""
	}
	if len(resp.Output) == 0 {
		resp.Output = OutputJSON(resp.Text)
	}
	if len(resp.Output) == 0 {
		if strings.TrimSpace(resp.Text) == "" {
			return "the reply is empty"
		}
		return "the reply is not a JSON value"
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(resp.Output))
	if err != nil {
		return "the reply is not a JSON value"
	}
	if err := sch.Validate(inst); err != nil {
		return describe(err)
	}
	return ""
}

// repairMessages returns what is appended to the conversation to ask for a
// corrected reply: the bad reply itself and the violation.
func repairMessages(bad Response, name, problem string) []Message {
	var out []Message
	if bad.Text != "" {
		out = append(out, Message{Role: RoleAssistant, Content: bad.Text})
	}
	return append(out, Message{Role: RoleUser, Content: fmt.Sprintf(
		"Your reply does not match the JSON Schema %q: %s. Reply again with only a JSON value that matches the schema, and nothing else.",
		name, problem)})
}

func modelName(r Response) string {
	if r.Model == "" {
		return "the model"
	}
	return r.Model
}

var printer = message.NewPrinter(language.English)

// maxViolations bounds how many violations a message lists.
const maxViolations = 3

// describe turns a validation error into one line naming the violations at
// fault: "at /city: missing property 'country'".
func describe(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	var leaves []*jsonschema.ValidationError
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			leaves = append(leaves, e)
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	parts := make([]string, 0, maxViolations)
	for _, l := range leaves {
		if len(parts) == maxViolations {
			parts = append(parts, fmt.Sprintf("and %d more", len(leaves)-maxViolations))
			break
		}
		at := "/" + strings.Join(l.InstanceLocation, "/")
		parts = append(parts, fmt.Sprintf("at %s: %s", at, l.ErrorKind.LocalizedString(printer)))
	}
	return strings.Join(parts, "; ")
}

// maxSchemas bounds the schema cache. Callers use a handful of fixed
// schemas; a caller that makes a new one per call only costs recompiles.
const maxSchemas = 256

// schemaCache holds compiled schemas by the SHA-256 of their text.
type schemaCache struct {
	// mu guards byHash.
	mu     sync.Mutex
	byHash map[string]*jsonschema.Schema
}

func (c *schemaCache) compile(schema []byte) (*jsonschema.Schema, error) {
	sum := sha256.Sum256(schema)
	key := hex.EncodeToString(sum[:])
	c.mu.Lock()
	sch, ok := c.byHash[key]
	c.mu.Unlock()
	if ok {
		return sch, nil
	}
	bad := func(err error) error {
		return sanad.Wrap(err, sanad.CodeInvalidInput, opStructured, "the output schema does not compile: "+err.Error())
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, bad(err)
	}
	comp := jsonschema.NewCompiler()
	comp.UseLoader(noLoader{})
	url := "https://sanad.invalid/output/" + key + ".json"
	if err := comp.AddResource(url, doc); err != nil {
		return nil, bad(err)
	}
	if sch, err = comp.Compile(url); err != nil {
		return nil, bad(err)
	}
	c.mu.Lock()
	if c.byHash == nil || len(c.byHash) >= maxSchemas {
		c.byHash = make(map[string]*jsonschema.Schema)
	}
	c.byHash[key] = sch
	c.mu.Unlock()
	return sch, nil
}

// noLoader refuses to load any document, so a schema cannot make sanad
// read a file or fetch a URL.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("%s: schemas may not refer to other documents", url)
}
