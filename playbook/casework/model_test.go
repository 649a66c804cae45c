package casework_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/sanadhq/sanad/model"
	"github.com/sanadhq/sanad/model/modeltest"
	"github.com/sanadhq/sanad/model/provider"
	"github.com/sanadhq/sanad/playbook/casework"
	"github.com/sanadhq/sanad/runner"
)

// modelAnswers plays a reasoning model: it spots housing in an intake
// story, and links the deposit facts it is shown to the elements of
// security deposit withholding.
func modelAnswers(t *testing.T) modeltest.Script {
	return func(_ int, req modeltest.Request) modeltest.Turn {
		last := req.Messages[len(req.Messages)-1].Content
		if strings.Contains(string(req.Raw), "intake_areas") {
			return modeltest.Turn{Text: `{"areas":[{"id":"housing","confidence":0.92,"phrases":["security deposit"]}]}`}
		}
		var view struct {
			Facts []struct {
				ID   string `json:"fact_id"`
				Text string `json:"text"`
			} `json:"facts"`
		}
		if err := json.Unmarshal([]byte(last), &view); err != nil {
			t.Errorf("the mapping request is not the facts as JSON: %v", err)
			return modeltest.Turn{Text: `{"links":[]}`}
		}
		type link struct {
			FactID     string  `json:"fact_id"`
			Element    string  `json:"element"`
			Confidence float64 `json:"confidence"`
			Reason     string  `json:"reason"`
		}
		var out struct {
			Links []link `json:"links"`
		}
		out.Links = []link{}
		for _, f := range view.Facts {
			switch {
			case strings.Contains(f.Text, "paid a $1,800 security deposit"):
				out.Links = append(out.Links, link{f.ID, "security_deposit_withholding/deposit_paid", 0.9, "she paid it"})
			case strings.Contains(f.Text, "retained your entire security deposit"):
				out.Links = append(out.Links, link{f.ID, "security_deposit_withholding/deposit_withheld", 0.9, "the landlord kept it"})
			}
		}
		b, _ := json.Marshal(out)
		return modeltest.Turn{Text: string(b)}
	}
}

// TestC10_MappingWithAModelPassesTheSameChecks: with a reasoning model
// configured, intake spots the areas and mapping links the facts through
// the model (structured output restricted to the taxonomy's and the facts'
// ids); the map passes the same structural check and is written the same
// way, and each model call is a recorded model_call of the agent's run.
func TestC10_MappingWithAModelPassesTheSameChecks(t *testing.T) {
	fake := modeltest.NewOpenAI(modelAnswers(t))
	t.Cleanup(fake.Close)
	reg, err := provider.Open(model.Config{Classes: map[string]model.ClassConfig{
		"reasoning": {Provider: model.ProviderOpenAI, Model: modeltest.Model, BaseURL: fake.BaseURL()},
	}}, func(string) string { return "" }, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := runner.Open(t.Context(), runner.Config{Dir: t.TempDir(), Models: reg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	pbs, err := casework.Playbooks(casework.Config{Now: func() time.Time { return time.Date(2025, 11, 10, 0, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	for _, pb := range pbs {
		if err := r.Register(pb); err != nil {
			t.Fatal(err)
		}
	}
	pol, err := casework.Policy()
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, r: r, h: r.Home(), pol: pol}
	res := e.run(casework.Open, "c-1", casework.OpenInput{Form: read(t, "tenant-retaliation", "intake.json"), ClientSessionID: "intake-1", AsOf: "2025-11-10"})
	var in casework.IntakeOutcome
	if err := json.Unmarshal(res.Outputs["intake"], &in); err != nil {
		t.Fatal(err)
	}
	if s := in.Assessment.Summary; s.Spotter != "supplied" || len(s.Areas) != 1 || s.Areas[0].ID != "housing" {
		t.Errorf("areas %+v by %s, want housing from the model", s.Areas, s.Spotter)
	}
	e.approve(res, casework.RoleAttorney)
	e.interview("c-1", casesDir+"/tenant-retaliation/interview.vtt")
	e.add("c-1", casesDir+"/tenant-retaliation/documents", false)
	mres := e.run(casework.Map, "c-1", casework.MapInput{})
	var out casework.MapOutcome
	if err := json.Unmarshal(mres.Outputs["map"], &out); err != nil {
		t.Fatal(err)
	}
	if out.Mode != "model" {
		t.Fatalf("mode %s, want model", out.Mode)
	}
	status := map[string]string{}
	for _, c := range out.Causes {
		status[c.ID] = c.Status
	}
	if status["security_deposit_withholding"] == "weak" || status["security_deposit_withholding"] == "" {
		t.Errorf("security deposit withholding is %q, want the model's links to support its core elements", status["security_deposit_withholding"])
	}
	if status["retaliatory_eviction"] != "weak" {
		t.Errorf("retaliatory eviction is %s: the model linked nothing to it", status["retaliatory_eviction"])
	}
	calls := 0
	for _, tr := range []string{res.Trace, mres.Trace} {
		for _, ev := range e.events(tr) {
			if ev.Type == model.TypeCall {
				calls++
			}
		}
	}
	if calls != 2 {
		t.Errorf("model calls recorded: %d, want 2 (intake and mapping)", calls)
	}
	audit(t, e, mres.Trace)
}
