package coa

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/model"
)

const opModel = "coa.MapWithModel"

// OutputName is the name of the output schema MapWithModel asks for.
const OutputName = "coa_evidence_map"

// Generator is the model call MapWithModel makes: a [model.Model] or a
// recorder that journals each call. MapWithModel makes one call.
type Generator interface {
	Generate(ctx context.Context, req model.Request) (model.Response, error)
}

const classifySystem = `You map the facts of a legal matter to the elements of civil causes of action, as a screening aid for an attorney.
You are given the causes, each element named "cause_id/element_id" with the description a jury instruction would give, and the facts, each with an id.
Link a fact to an element only when the fact itself is evidence of that element; do not link a fact to an element it merely mentions the topic of, and do not guess.
A negated statement ("I did not sign") is not evidence of what it denies.
Answer with JSON only: {"links": [{"fact_id": ..., "element": "cause_id/element_id", "confidence": 0..1, "reason": one short sentence}]}. An empty list is a valid answer.`

// modelLink is one link of the model's answer.
type modelLink struct {
	FactID     string  `json:"fact_id"`
	Element    string  `json:"element"`
	Confidence float64 `json:"confidence"`
	Reason     string  `json:"reason"`
}

// maxReasonBytes bounds a model's reason kept in a link.
const maxReasonBytes = 300

// MapWithModel asks g which facts evidence which elements of t's causes,
// under a JSON Schema that admits only t's element ids and the given fact
// ids, and builds the [Map] from the answer as [MapFacts] does: a link
// counts when its confidence reaches opts.MinScore, and a cause whose core
// elements are not all supported is weak. An answer that is not JSON of the
// schema, or names an unknown fact or element, is CodeModelOutput; an error
// of g keeps its code. Without facts no call is made.
func MapWithModel(ctx context.Context, g Generator, t *Taxonomy, facts []Fact, opts Options) (Map, error) {
	if len(facts) == 0 {
		return assemble(t, facts, nil, opts, MethodModel), nil
	}
	req, err := classifyRequest(t, facts)
	if err != nil {
		return Map{}, err
	}
	resp, err := g.Generate(ctx, req)
	if err != nil {
		return Map{}, sanad.Wrap(err, sanad.ErrorCode(err), opModel, "the model call to map facts failed: "+sanad.ErrorMessage(err))
	}
	out := resp.Output
	if len(out) == 0 {
		out = model.OutputJSON(resp.Text)
	}
	var answer struct {
		Links []modelLink `json:"links"`
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&answer); err != nil {
		return Map{}, sanad.Wrap(err, sanad.CodeModelOutput, opModel, "the model's answer is not the JSON object of schema "+OutputName)
	}
	known := make(map[string]bool, len(facts))
	for _, f := range facts {
		known[f.ID] = true
	}
	min := opts.minScore()
	type key struct{ fact, cause, element string }
	best := map[key]int{}
	var links []EvidenceLink
	for _, ml := range answer.Links {
		if !known[ml.FactID] {
			return Map{}, sanad.Errorf(sanad.CodeModelOutput, opModel, "the model linked unknown fact %q", ml.FactID)
		}
		causeID, elementID, ok := strings.Cut(ml.Element, "/")
		c, okCause := t.Cause(causeID)
		if ok && okCause {
			_, ok = c.Element(elementID)
		}
		if !ok || !okCause {
			return Map{}, sanad.Errorf(sanad.CodeModelOutput, opModel, "the model named unknown element %q", ml.Element)
		}
		if !(ml.Confidence >= 0 && ml.Confidence <= 1) {
			return Map{}, sanad.Errorf(sanad.CodeModelOutput, opModel, "the model gave confidence %v, outside [0, 1]", ml.Confidence)
		}
		if ml.Confidence < min {
			continue
		}
		l := EvidenceLink{FactID: ml.FactID, CauseID: causeID, ElementID: elementID, Score: round(ml.Confidence),
			Signals: []string{MethodModel}, Reason: clip(strings.TrimSpace(ml.Reason), maxReasonBytes)}
		k := key{l.FactID, l.CauseID, l.ElementID}
		if i, dup := best[k]; dup {
			if l.Score > links[i].Score {
				links[i] = l
			}
			continue
		}
		best[k] = len(links)
		links = append(links, l)
	}
	return assemble(t, facts, links, opts, MethodModel), nil
}

// classifyRequest is the one request MapWithModel sends: the causes and
// facts as JSON, and the output schema.
func classifyRequest(t *Taxonomy, facts []Fact) (model.Request, error) {
	type elementView struct {
		ID          string `json:"id"`
		Name        string `json:"name"`
		Description string `json:"description"`
	}
	type causeView struct {
		ID          string        `json:"id"`
		Name        string        `json:"name"`
		Description string        `json:"description"`
		Elements    []elementView `json:"elements"`
	}
	type factView struct {
		ID      string   `json:"fact_id"`
		Text    string   `json:"text"`
		Kind    string   `json:"source_kind"`
		Dates   []string `json:"dates,omitempty"`
		Amounts []string `json:"amounts,omitempty"`
		Parties []string `json:"parties,omitempty"`
	}
	var view struct {
		Causes []causeView `json:"causes"`
		Facts  []factView  `json:"facts"`
	}
	var elementIDs, factIDs []string
	for _, c := range t.Causes {
		cv := causeView{ID: c.ID, Name: c.Name, Description: c.Description}
		for _, e := range c.Elements {
			id := c.ID + "/" + e.ID
			cv.Elements = append(cv.Elements, elementView{ID: id, Name: e.Name, Description: e.Description})
			elementIDs = append(elementIDs, id)
		}
		view.Causes = append(view.Causes, cv)
	}
	for _, f := range facts {
		view.Facts = append(view.Facts, factView{ID: f.ID, Text: oneLine(f.Text), Kind: f.Kind, Dates: f.Dates, Amounts: f.Amounts, Parties: f.Parties})
		factIDs = append(factIDs, f.ID)
	}
	var msg bytes.Buffer
	enc := json.NewEncoder(&msg)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(view); err != nil {
		return model.Request{}, sanad.Wrap(err, sanad.CodeInternal, opModel, "the facts could not be encoded for the model")
	}
	schema, err := json.Marshal(map[string]any{
		"type":                 "object",
		"additionalProperties": false,
		"required":             []string{"links"},
		"properties": map[string]any{
			"links": map[string]any{
				"type": "array",
				"items": map[string]any{
					"type":                 "object",
					"additionalProperties": false,
					"required":             []string{"fact_id", "element", "confidence", "reason"},
					"properties": map[string]any{
						"fact_id":    map[string]any{"type": "string", "enum": factIDs},
						"element":    map[string]any{"type": "string", "enum": elementIDs},
						"confidence": map[string]any{"type": "number", "minimum": 0, "maximum": 1},
						"reason":     map[string]any{"type": "string"},
					},
				},
			},
		},
	})
	if err != nil {
		return model.Request{}, sanad.Wrap(err, sanad.CodeInternal, opModel, "the output schema could not be encoded")
	}
	temperature := 0.0
	return model.Request{
		System:      classifySystem,
		Messages:    []model.Message{{Role: model.RoleUser, Content: strings.TrimSpace(msg.String())}},
		Output:      &model.OutputSchema{Name: OutputName, Schema: schema},
		Temperature: &temperature,
	}, nil
}

// clip cuts s to at most n bytes on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
