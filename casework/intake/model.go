package intake

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/casework/issues"
	"github.com/sanadhq/sanad/model"
)

// Generator is the model [SpotWithModel] asks: a model.Model, or one of a
// registry's classes.
type Generator interface {
	Generate(ctx context.Context, req model.Request) (model.Response, error)
}

// ModelLikelyScore is the confidence at or above which a model's area is
// Likely.
const ModelLikelyScore = 0.5

// spotSystem is the instruction of [SpotWithModel]; the areas follow it.
const spotSystem = `You screen a prospective client's story for a law firm's intake. ` +
	`Name the areas of law the story raises, choosing only from the areas listed below by their id. ` +
	`For each, give your confidence from 0 to 1 and quote the phrases of the story that show it, word for word. ` +
	`Name no area the story does not raise; an empty list is a valid answer. This is a screen for an attorney, not advice.`

// spotReply is the reply SpotWithModel asks for.
type spotReply struct {
	Areas []struct {
		ID         string   `json:"id"`
		Confidence float64  `json:"confidence"`
		Phrases    []string `json:"phrases"`
	} `json:"areas"`
}

// SpotWithModel asks g which areas of t (nil means [Taxonomy]) text raises,
// with a structured output whose schema lists the area ids to choose from.
// It returns the areas highest confidence first; an area is Likely at
// [ModelLikelyScore] or more, and its Signals are the phrases the model
// quoted that are in text (others are dropped). text beyond
// issues.MaxTextBytes is not sent.
//
// An error of g is returned as it is (DEPENDENCY_DOWN when the model cannot
// be reached). A reply that is not the JSON asked for, names an area t
// lacks, names one twice or gives a confidence outside [0, 1] is
// MODEL_OUTPUT_INVALID. The result passes [CheckAreas].
func SpotWithModel(ctx context.Context, g Generator, text string, t *issues.Taxonomy) ([]issues.Area, error) {
	const op = "intake.SpotWithModel"
	if t == nil {
		t = issues.Default()
	}
	if len(text) > issues.MaxTextBytes {
		text = strings.ToValidUTF8(text[:issues.MaxTextBytes], "")
	}
	ids := make([]string, len(t.Areas))
	var list strings.Builder
	for i, s := range t.Areas {
		ids[i] = s.ID
		fmt.Fprintf(&list, "- %s: %s. %s\n", s.ID, s.Name, strings.TrimSpace(s.Description))
	}
	schema, err := spotSchema(ids)
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInternal, op, "the output schema")
	}
	temp := 0.0
	resp, err := g.Generate(ctx, model.Request{
		System:      spotSystem + "\n\nAreas:\n" + list.String(),
		Messages:    []model.Message{{Role: model.RoleUser, Content: text}},
		Output:      &model.OutputSchema{Name: "intake_areas", Schema: schema},
		Temperature: &temp,
	})
	if err != nil {
		return nil, err
	}
	raw := resp.Output
	if len(raw) == 0 {
		raw = json.RawMessage(resp.Text)
	}
	var reply spotReply
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&reply); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeModelOutput, op, "the model's reply is not the JSON object of areas asked for")
	}
	lower := strings.ToLower(text)
	out := make([]issues.Area, 0, len(reply.Areas))
	names := map[string]string{}
	for _, s := range t.Areas {
		names[s.ID] = s.Name
	}
	for _, r := range reply.Areas {
		if !(r.Confidence >= 0 && r.Confidence <= 1) {
			return nil, sanad.Errorf(sanad.CodeModelOutput, op, "the model gave area %q a confidence of %v, outside [0, 1]", r.ID, r.Confidence)
		}
		var signals []string
		for _, p := range r.Phrases {
			if p = strings.TrimSpace(p); p != "" && strings.Contains(lower, strings.ToLower(p)) && !slices.Contains(signals, p) {
				signals = append(signals, p)
			}
		}
		slices.Sort(signals)
		out = append(out, issues.Area{ID: r.ID, Name: names[r.ID], Score: r.Confidence, Likely: r.Confidence >= ModelLikelyScore, Signals: signals})
	}
	if err := CheckAreas(out, t); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeModelOutput, op, "the model's reply: "+err.Error())
	}
	slices.SortStableFunc(out, func(a, b issues.Area) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// CheckAreas checks spotted areas against t, however they were spotted:
// every id is one of t's, named once, with t's name, and a score in [0, 1].
// The error is INVALID_INPUT and names the first area at fault.
func CheckAreas(areas []issues.Area, t *issues.Taxonomy) error {
	const op = "intake.CheckAreas"
	if t == nil {
		t = issues.Default()
	}
	names := map[string]string{}
	for _, s := range t.Areas {
		names[s.ID] = s.Name
	}
	seen := map[string]bool{}
	for i, a := range areas {
		name, ok := names[a.ID]
		switch {
		case !ok:
			return sanad.Errorf(sanad.CodeInvalidInput, op, "area %d: %q is not an area of the taxonomy", i, a.ID)
		case seen[a.ID]:
			return sanad.Errorf(sanad.CodeInvalidInput, op, "area %d: %q is named twice", i, a.ID)
		case a.Name != name:
			return sanad.Errorf(sanad.CodeInvalidInput, op, "area %d: %q is called %q, not %q", i, a.ID, name, a.Name)
		case math.IsNaN(a.Score) || a.Score < 0 || a.Score > 1:
			return sanad.Errorf(sanad.CodeInvalidInput, op, "area %d: %q has score %v, outside [0, 1]", i, a.ID, a.Score)
		}
		seen[a.ID] = true
	}
	return nil
}

// spotSchema is the JSON Schema of the reply: areas chosen from ids.
func spotSchema(ids []string) (json.RawMessage, error) {
	return json.Marshal(map[string]any{
		"type":                 "object",
		"additionalProperties": false,
		"required":             []string{"areas"},
		"properties": map[string]any{
			"areas": map[string]any{
				"type":     "array",
				"maxItems": len(ids),
				"items": map[string]any{
					"type":                 "object",
					"additionalProperties": false,
					"required":             []string{"id", "confidence", "phrases"},
					"properties": map[string]any{
						"id":         map[string]any{"enum": ids},
						"confidence": map[string]any{"type": "number", "minimum": 0, "maximum": 1},
						"phrases":    map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
					},
				},
			},
		},
	})
}
