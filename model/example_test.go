package model_test

import (
	"context"
	"fmt"

	"github.com/sanadhq/sanad/model"
)

func ExampleParseConfig() {
	cfg, err := model.ParseConfig("sanad.yaml", []byte(`
models:
  reasoning:
    provider: openai
    model: gpt-4o-mini
    base_url: "http://127.0.0.1:8080/v1"
    api_key_env: OPENAI_API_KEY
    prices: {input_per_mtok: 0.15, output_per_mtok: 0.60}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	r := cfg.Classes[model.ClassReasoning]
	fmt.Println(r.Provider, r.Model, r.BaseURL, r.APIKeyEnv)
	fmt.Printf("%.5f\n", model.Cost(model.Usage{InputTokens: 1000, OutputTokens: 500}, r.Prices))

	_, err = model.ParseConfig("sanad.yaml", []byte("models:\n  fast:\n    provider: openai\n    modle: gpt-4o-mini\n"))
	fmt.Println(err)
	// Output:
	// openai gpt-4o-mini http://127.0.0.1:8080/v1 OPENAI_API_KEY
	// 0.00045
	// model.config: INVALID_INPUT: sanad.yaml:4:5: models.fast: unknown key "modle"; did you mean "model"?
}

func ExampleHashEmbedder() {
	e, _ := model.HashEmbedder{Dim: 64}.Embed(context.Background(), []string{
		"the tenant pays the rent",
		"rent is paid by the tenant",
		"revenue grew eight percent",
	})
	sim := func(a, b []float32) float64 {
		var dot float64
		for i := range a {
			dot += float64(a[i] * b[i])
		}
		return dot
	}
	fmt.Printf("shared words %.2f, none shared %.2f\n", sim(e.Vectors[0], e.Vectors[1]), sim(e.Vectors[0], e.Vectors[2]))
	// Output: shared words 0.62, none shared 0.00
}

// scripted answers each call with the next of its replies.
type scripted struct{ replies []string }

func (s *scripted) Generate(ctx context.Context, req model.Request) (model.Response, error) {
	text := s.replies[0]
	s.replies = s.replies[1:]
	return model.Response{Text: text, Model: "scripted"}, nil
}

func (s *scripted) Embed(context.Context, []string) (model.Embeddings, error) {
	return model.Embeddings{}, nil
}

func ExampleStructured() {
	m := model.Structured(&scripted{replies: []string{
		`{"city": "Mexico City"}`,
		`{"city": "Mexico City", "country": "Mexico"}`,
	}})
	resp, err := m.Generate(context.Background(), model.Request{
		Messages: []model.Message{{Role: model.RoleUser, Content: "Largest city of Mexico?"}},
		Output: &model.OutputSchema{Name: "city", Schema: []byte(`{
			"type": "object",
			"properties": {"city": {"type": "string"}, "country": {"type": "string"}},
			"required": ["city", "country"]
		}`)},
	})
	fmt.Println(string(resp.Output), err)
	// Output: {"city": "Mexico City", "country": "Mexico"} <nil>
}
