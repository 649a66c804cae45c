package intake_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/casework/intake"
	"github.com/sanadhq/sanad/casework/issues"
	"github.com/sanadhq/sanad/model"
	"github.com/sanadhq/sanad/model/modeltest"
	"github.com/sanadhq/sanad/model/provider"
)

// openModel opens the fast class of model/provider on a fake
// OpenAI-compatible server answering with reply, without retries.
func openModel(tb testing.TB, reply modeltest.Reply) (model.Model, *modeltest.Server) {
	tb.Helper()
	srv := modeltest.NewServer(reply)
	tb.Cleanup(srv.Close)
	reg, err := provider.Open(model.Config{
		Classes: map[string]model.ClassConfig{model.ClassFast: {Provider: model.ProviderOpenAI, Model: modeltest.Model, BaseURL: srv.BaseURL()}},
		Retry:   model.Retry{MaxRetries: -1},
	}, nil, srv.Client())
	if err != nil {
		tb.Fatalf("provider.Open: got error %v, want nil", err)
	}
	m, _ := reg.Model(model.ClassFast)
	return m, srv
}

func answer(text string) modeltest.Reply {
	return func(n int, _ string, _ []byte) (int, string) { return http.StatusOK, modeltest.Completion(n, text) }
}

// TestC08_SpotWithModel: the model chooses areas from the taxonomy's ids
// through a structured output; its phrases not in the story are dropped,
// and the areas feed Assess.
func TestC08_SpotWithModel(t *testing.T) {
	f := readForm(t, "good_contractor_fraud.json")
	m, srv := openModel(t, answer(`{"areas":[`+
		`{"id":"business","confidence":0.2,"phrases":["company"]},`+
		`{"id":"consumer","confidence":0.93,"phrases":["never had a contractor licence","scammed","invented quote"]}]}`))
	areas, err := intake.SpotWithModel(context.Background(), m, f.Narrative, nil)
	if err != nil {
		t.Fatalf("SpotWithModel: got error %v, want nil", err)
	}
	if len(areas) != 2 || areas[0].ID != "consumer" || !areas[0].Likely || areas[1].Likely {
		t.Fatalf("areas: got %+v, want consumer likely, then business not", areas)
	}
	if want := []string{"never had a contractor licence", "scammed"}; !slices.Equal(areas[0].Signals, want) {
		t.Errorf("signals: got %v, want %v (the invented phrase dropped)", areas[0].Signals, want)
	}
	if err := intake.CheckAreas(areas, nil); err != nil {
		t.Errorf("CheckAreas: got %v, want nil", err)
	}
	body := string(srv.Bodies()[0])
	for _, want := range []string{`"json_schema"`, `"enum":["benefits"`, `"housing"`, "intake_areas"} {
		if !strings.Contains(body, want) {
			t.Errorf("request body lacks %s: %s", want, body)
		}
	}

	a := intake.Assess(f, intake.Options{AsOf: asOf, Areas: areas})
	if primary, possible := primaryAreas(a.Summary); !slices.Equal(primary, []string{"consumer"}) || possible != nil {
		t.Errorf("areas: got %v %v, want [consumer] only (business is not likely)", primary, possible)
	}
	if a.Summary.Spotter != "supplied" || a.Triage.Recommendation != intake.Accept {
		t.Errorf("got spotter %s, triage %s, want supplied and accept", a.Summary.Spotter, a.Triage.Recommendation)
	}
}

// TestC08_SpotWithModelRefusesBadOutput: an id outside the taxonomy, a
// reply that is not JSON, or one that repeats an area is
// MODEL_OUTPUT_INVALID, after the one repair the provider makes.
func TestC08_SpotWithModelRefusesBadOutput(t *testing.T) {
	for name, reply := range map[string]string{
		"unknown id":       `{"areas":[{"id":"maritime","confidence":0.9,"phrases":[]}]}`,
		"not JSON":         `The story raises consumer law.`,
		"confidence range": `{"areas":[{"id":"consumer","confidence":7,"phrases":[]}]}`,
		"named twice":      `{"areas":[{"id":"consumer","confidence":0.9,"phrases":[]},{"id":"consumer","confidence":0.8,"phrases":[]}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			m, _ := openModel(t, answer(reply))
			_, err := intake.SpotWithModel(context.Background(), m, "We were scammed by a contractor.", nil)
			if sanad.ErrorCode(err) != sanad.CodeModelOutput {
				t.Errorf("got %v, want %s", err, sanad.CodeModelOutput)
			}
		})
	}
}

// TestC08_SpotWithModelDependencyDown: a model that cannot be reached is
// DEPENDENCY_DOWN, retryable.
func TestC08_SpotWithModelDependencyDown(t *testing.T) {
	m, srv := openModel(t, nil)
	srv.Close()
	_, err := intake.SpotWithModel(context.Background(), m, "We were scammed by a contractor.", nil)
	if sanad.ErrorCode(err) != sanad.CodeDependencyDown || !sanad.ErrorCode(err).Retryable() {
		t.Errorf("got %v, want %s", err, sanad.CodeDependencyDown)
	}
}

// TestCheckAreasAppliesToOfflineSpotting: the structural checks hold for
// the offline spotter's areas too, and catch a foreign or renamed area.
func TestCheckAreasAppliesToOfflineSpotting(t *testing.T) {
	tax := issues.Default()
	f := readForm(t, "good_tenant_eviction.json")
	if err := intake.CheckAreas(tax.Spot(f.Narrative), tax); err != nil {
		t.Errorf("offline areas: got %v, want nil", err)
	}
	for name, bad := range map[string][]issues.Area{
		"foreign": {{ID: "maritime", Name: "Maritime", Score: 0.5}},
		"renamed": {{ID: "housing", Name: "Landlords", Score: 0.5}},
		"twice":   {{ID: "housing", Name: "Housing and tenancy"}, {ID: "housing", Name: "Housing and tenancy"}},
	} {
		if err := intake.CheckAreas(bad, tax); sanad.ErrorCode(err) != sanad.CodeInvalidInput {
			t.Errorf("%s: got %v, want %s", name, err, sanad.CodeInvalidInput)
		}
	}
}
