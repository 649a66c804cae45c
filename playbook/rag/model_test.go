package rag_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/sanadhq/sanad/model"
	"github.com/sanadhq/sanad/model/modeltest"
	"github.com/sanadhq/sanad/model/provider"
	"github.com/sanadhq/sanad/playbook/rag"
	"github.com/sanadhq/sanad/runner"
)

var passageRE = regexp.MustCompile(`(?m)^\[(\d+)\]`)

// cite returns the number of the passage of a tailor request that holds
// needle.
func cite(req modeltest.Request, needle string) (int, string) {
	if len(req.Messages) == 0 {
		return 0, ""
	}
	text := req.Messages[0].Content
	locs := passageRE.FindAllStringSubmatchIndex(text, -1)
	for k, loc := range locs {
		end := len(text)
		if k+1 < len(locs) {
			end = locs[k+1][0]
		}
		if body := text[loc[1]:end]; strings.Contains(body, needle) {
			var n int
			fmt.Sscan(text[loc[2]:loc[3]], &n)
			return n, body
		}
	}
	return 0, ""
}

func modelRig(t *testing.T, script modeltest.Script) (*rig, *modeltest.Fake) {
	t.Helper()
	g := newRig(t)
	fake := modeltest.NewOpenAI(script)
	t.Cleanup(fake.Close)
	reg, err := provider.Open(model.Config{Classes: map[string]model.ClassConfig{
		"reasoning": {Provider: model.ProviderOpenAI, Model: modeltest.Model, BaseURL: fake.BaseURL()},
	}}, func(string) string { return "" }, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := runner.Open(context.Background(), runner.Config{Home: g.h, Models: reg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	svc, err := rag.Register(r, rag.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return &rig{h: g.h, r: r, svc: svc}, fake
}

// TestR05_ModelProseIsCheckedAgainstItsCitations: with a model the tailor
// writes prose; a reply whose sentences its cited passages support is the
// answer, recorded as a model call of the run.
func TestR05_ModelProseIsCheckedAgainstItsCitations(t *testing.T) {
	g, fake := modelRig(t, func(n int, req modeltest.Request) modeltest.Turn {
		i, _ := cite(req, "Pemberton Audit LLP")
		if i == 0 {
			return modeltest.Turn{Text: "NO_ANSWER"}
		}
		return modeltest.Turn{Text: fmt.Sprintf("The auditor, Pemberton Audit LLP, signed an unqualified opinion on 28 March 2025 [%d].", i)}
	})
	rep := g.ask(t, rag.Question{Text: "Who is the auditor of Harbor Freight Analytics?"})
	if rep.Mode != "model" || rep.Refused || !strings.Contains(rep.Answer, "Pemberton Audit LLP") {
		t.Fatalf("answer: %+v", rep)
	}
	checkCited(t, rep)
	if len(fake.Requests()) != 1 {
		t.Errorf("%d model calls, want 1", len(fake.Requests()))
	}
}

// TestR05_UnsupportedModelProseIsRetriedThenRefused: a reply that states
// what its passage does not (ERR_TAILOR_HALLUCINATION) gets one strict
// retry; a second unsupported reply becomes "I don't know".
func TestR05_UnsupportedModelProseIsRetriedThenRefused(t *testing.T) {
	g, fake := modelRig(t, func(n int, req modeltest.Request) modeltest.Turn {
		i, _ := cite(req, "Pemberton Audit LLP")
		return modeltest.Turn{Text: fmt.Sprintf("Pemberton Audit LLP resigned in 2026 after finding a fraud of £40m [%d].", max(i, 1))}
	})
	rep := g.ask(t, rag.Question{Text: "Who is the auditor of Harbor Freight Analytics?"})
	if !rep.Refused || len(rep.Citations) != 0 || strings.Contains(rep.Answer, "fraud") {
		t.Fatalf("unsupported prose was released: %+v", rep)
	}
	reqs := fake.Requests()
	if len(reqs) != 2 || !strings.Contains(reqs[1].System, "strict") {
		t.Fatalf("%d model calls, want the first and one strict retry", len(reqs))
	}
}
