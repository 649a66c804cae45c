package coa_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/casework/coa"
	"github.com/sanadhq/sanad/model"
	"github.com/sanadhq/sanad/model/modeltest"
	"github.com/sanadhq/sanad/model/provider"
)

// openModel returns the model of a fake OpenAI-compatible server that
// answers every request with reply, through model/provider as a run would.
func openModel(tb testing.TB, reply func(body []byte) string) (model.Model, *modeltest.Server) {
	tb.Helper()
	srv := modeltest.NewServer(func(n int, _ string, body []byte) (int, string) {
		return http.StatusOK, modeltest.Completion(n, reply(body))
	})
	tb.Cleanup(srv.Close)
	cfg := model.Config{
		Classes: map[string]model.ClassConfig{model.ClassFast: {Provider: model.ProviderOpenAI, Model: modeltest.Model, BaseURL: srv.BaseURL()}},
		Retry:   model.Retry{MaxRetries: -1},
	}
	reg, err := provider.Open(cfg, nil, srv.Client())
	if err != nil {
		tb.Fatalf("provider.Open: got error %v, want nil", err)
	}
	m, ok := reg.Model(model.ClassFast)
	if !ok {
		tb.Fatal("the registry has no fast model")
	}
	return m, srv
}

// answer is the JSON a model gives: links from facts, found by a piece of
// their text, to "cause/element" ids.
func answer(tb testing.TB, facts []coa.Fact, links map[string][]string) string {
	tb.Helper()
	type link struct {
		FactID     string  `json:"fact_id"`
		Element    string  `json:"element"`
		Confidence float64 `json:"confidence"`
		Reason     string  `json:"reason"`
	}
	out := struct {
		Links []link `json:"links"`
	}{Links: []link{}}
	for piece, elements := range links {
		id := ""
		for _, f := range facts {
			if strings.Contains(f.Text, piece) {
				id = f.ID
				break
			}
		}
		if id == "" {
			id = piece // an id the test makes up
		}
		for _, e := range elements {
			out.Links = append(out.Links, link{FactID: id, Element: e, Confidence: 0.9, Reason: "the fact states it"})
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

func tenantMatter(tb testing.TB) matter {
	tb.Helper()
	for _, m := range matters(tb) {
		if m.name == "tenant_deposit" {
			return m
		}
	}
	tb.Fatal("no tenant_deposit matter")
	return matter{}
}

// TestC10_MapWithModel: the model's links become the same kind of Map as
// MapFacts makes, pinned to the taxonomy, and pass the same Check.
func TestC10_MapWithModel(t *testing.T) {
	tax := coa.Default()
	mt := tenantMatter(t)
	facts := coa.ExtractFacts(mt.sources)
	reply := answer(t, facts, map[string][]string{
		"I paid a security deposit of $1,800":  {"security_deposit_withholding/deposit_paid"},
		"I moved out on April 30, 2024":        {"security_deposit_withholding/tenancy_ended"},
		"They never returned my $1,800":        {"security_deposit_withholding/deposit_withheld", "security_deposit_withholding/no_itemized_statement"},
		"Black mould started growing":          {"implied_warranty_of_habitability/uninhabitable_condition"},
		"I reported the mould to Mr. Kessler":  {"implied_warranty_of_habitability/notice", "retaliatory_eviction/protected_activity"},
		"Eleven days after the inspection":     {"retaliatory_eviction/adverse_action", "retaliatory_eviction/causal_connection"},
		"I rented Apartment 3B at 42 Elm":      {"implied_warranty_of_habitability/tenancy"},
		"They never fixed it.":                 {"implied_warranty_of_habitability/failure_to_repair"},
		"My son's asthma got worse":            {"implied_warranty_of_habitability/damages"},
		"The property manager is Mr. Dale Kes": {"defamation/publication"}, // a weak cause keeps no links
	})
	m, srv := openModel(t, func([]byte) string { return reply })
	got, err := coa.MapWithModel(context.Background(), m, tax, facts, coa.Options{})
	if err != nil {
		t.Fatalf("MapWithModel: got %v, want nil", err)
	}
	if err := got.Check(tax, mt.sources); err != nil {
		t.Fatalf("Check: got %v, want nil", err)
	}
	if got.Method != coa.MethodModel || got.COAVersion != tax.Version {
		t.Errorf("method and version: got %s %s, want model %s", got.Method, got.COAVersion, tax.Version)
	}
	want := map[string]string{
		"security_deposit_withholding":     coa.StatusSupported,
		"implied_warranty_of_habitability": coa.StatusSupported,
		"retaliatory_eviction":             coa.StatusSupported,
		"defamation":                       coa.StatusWeak,
	}
	for id, status := range want {
		if c, _ := causeByID(t, got, id); c.Status != status {
			t.Errorf("%s: got %s (gaps %v), want %s", id, c.Status, c.Gaps, status)
		}
	}
	for _, l := range got.Evidence {
		if l.CauseID == "defamation" {
			t.Errorf("a weak cause kept link %+v", l)
		}
		if l.Reason == "" || len(l.Signals) != 1 || l.Signals[0] != coa.MethodModel {
			t.Errorf("link %+v: want the model's reason and signal %q", l, coa.MethodModel)
		}
	}

	// The request restricts the answer to the taxonomy's elements and the
	// facts given.
	bodies := srv.Bodies()
	if len(bodies) != 1 {
		t.Fatalf("requests: got %d, want 1", len(bodies))
	}
	var body struct {
		ResponseFormat struct {
			JSONSchema struct {
				Name   string          `json:"name"`
				Schema json.RawMessage `json:"schema"`
			} `json:"json_schema"`
		} `json:"response_format"`
	}
	if err := json.Unmarshal(bodies[0], &body); err != nil {
		t.Fatal(err)
	}
	schema := string(body.ResponseFormat.JSONSchema.Schema)
	if body.ResponseFormat.JSONSchema.Name != coa.OutputName {
		t.Errorf("schema name: got %q, want %q", body.ResponseFormat.JSONSchema.Name, coa.OutputName)
	}
	for _, wantIn := range []string{`"security_deposit_withholding/no_itemized_statement"`, `"fdcpa_debt_collection/debt_collector"`, `"` + facts[0].ID + `"`, `"enum"`} {
		if !strings.Contains(schema, wantIn) {
			t.Errorf("schema lacks %s", wantIn)
		}
	}
}

// An answer naming an id outside the taxonomy or the facts is
// MODEL_OUTPUT_INVALID, whether the schema check of model.Structured or
// MapWithModel's own check catches it.
func TestMapWithModelRejectsUnknownIDs(t *testing.T) {
	tax := coa.Default()
	mt := tenantMatter(t)
	facts := coa.ExtractFacts(mt.sources)
	tests := []struct {
		name  string
		reply string
	}{
		{"unknown element", answer(t, facts, map[string][]string{"Black mould": {"implied_warranty_of_habitability/smell"}})},
		{"unknown cause", answer(t, facts, map[string][]string{"Black mould": {"nuisance/odour"}})},
		{"unknown fact", answer(t, facts, map[string][]string{"fact-ffffffffffffffff": {"implied_warranty_of_habitability/uninhabitable_condition"}})},
		{"not json", "I think the tenant has a good case."},
		{"extra field", `{"links": [], "verdict": "win"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/provider", func(t *testing.T) {
			m, srv := openModel(t, func([]byte) string { return tt.reply })
			_, err := coa.MapWithModel(context.Background(), m, tax, facts, coa.Options{})
			if got := sanad.ErrorCode(err); got != sanad.CodeModelOutput {
				t.Errorf("got %v, want %s", err, sanad.CodeModelOutput)
			}
			if srv.Requests() != 2 {
				t.Errorf("requests: got %d, want 2 (one repair)", srv.Requests())
			}
		})
		t.Run(tt.name+"/unchecked", func(t *testing.T) {
			g := generatorFunc(func(context.Context, model.Request) (model.Response, error) {
				return model.Response{Text: tt.reply}, nil
			})
			_, err := coa.MapWithModel(context.Background(), g, tax, facts, coa.Options{})
			if got := sanad.ErrorCode(err); got != sanad.CodeModelOutput {
				t.Errorf("got %v, want %s", err, sanad.CodeModelOutput)
			}
		})
	}
}

func TestMapWithModelErrors(t *testing.T) {
	tax := coa.Default()
	facts := coa.ExtractFacts(tenantMatter(t).sources)
	g := generatorFunc(func(context.Context, model.Request) (model.Response, error) {
		return model.Response{}, sanad.Errorf(sanad.CodeModelRateLimit, "test", "slow down")
	})
	if _, err := coa.MapWithModel(context.Background(), g, tax, facts, coa.Options{}); sanad.ErrorCode(err) != sanad.CodeModelRateLimit {
		t.Errorf("a failed call: got %v, want %s kept", err, sanad.CodeModelRateLimit)
	}
	called := false
	none := generatorFunc(func(context.Context, model.Request) (model.Response, error) {
		called = true
		return model.Response{}, nil
	})
	m, err := coa.MapWithModel(context.Background(), none, tax, nil, coa.Options{})
	if err != nil || called {
		t.Errorf("no facts: got err %v, called %v; want nil, no call", err, called)
	}
	if err := m.Check(tax, nil); err != nil {
		t.Errorf("Check of the empty map: %v", err)
	}
}

type generatorFunc func(context.Context, model.Request) (model.Response, error)

func (f generatorFunc) Generate(ctx context.Context, req model.Request) (model.Response, error) {
	return f(ctx, req)
}
