package debate

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/ledger"
)

var evidence = Evidence{
	Claims: map[string]ClaimInfo{
		"clm-rev-audited": {Grade: "A"},
		"clm-rev-deck":    {Grade: "C", Ahad: true},
		"clm-cash":        {Grade: "A"},
		"clm-arr-press":   {Grade: "D", Ahad: true},
	},
	Calcs: map[string]bool{"calc-runway": true},
}

// good is an output that meets every rule.
func good() Output {
	return Output{AgentID: "advocate-1", Role: RoleAdvocate, RoundNumber: 1,
		Content:   "Audited revenue was £48.2m in FY2024, up 18.4%.",
		ClaimRefs: []string{"clm-rev-audited"},
		Muhasabah: MuhasabahRecord{SupportedClaimIDs: []string{"clm-rev-audited"}, Confidence: 0.7,
			FalsifiabilityTests: []FalsifiabilityTest{{TestDescription: "the audited accounts give another revenue", RequiredEvidence: "audited statements", PassFailRule: "differs by more than 1%"}}}}
}

func rules(vs []Violation) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Rule)
	}
	return out
}

func TestD15_MuhasabahRules(t *testing.T) {
	cases := []struct {
		name string
		edit func(*Output)
		want string
	}{
		{"a valid output", func(*Output) {}, ""},
		{"a figure without claim ids", func(o *Output) { o.Muhasabah.SupportedClaimIDs = nil }, RuleNoFreeFacts},
		{"a figure citing a claim not in the registry", func(o *Output) { o.Muhasabah.SupportedClaimIDs = []string{"clm-made-up"} }, RuleNoFreeFacts},
		{"no figure, no claim ids", func(o *Output) {
			o.Content = "The thesis rests on the quality of the recurring revenue."
			o.Muhasabah.SupportedClaimIDs = nil
		}, ""},
		{"a figure resting on a calc", func(o *Output) {
			o.Content = "Runway is 9 months at the current burn."
			o.Muhasabah.SupportedClaimIDs, o.Muhasabah.SupportedCalcIDs = nil, []string{"calc-runway"}
		}, ""},
		{"confidence above 0.50 without falsifiability", func(o *Output) { o.Muhasabah.FalsifiabilityTests = nil }, RuleFalsifiabilityMissing},
		{"confidence 0.50 needs no falsifiability", func(o *Output) { o.Muhasabah.FalsifiabilityTests, o.Muhasabah.Confidence = nil, 0.5 }, ""},
		{"a weak grade without uncertainties", func(o *Output) { o.Muhasabah.SupportedClaimIDs = []string{"clm-rev-deck"} }, RuleUncertaintiesMissing},
		{"Āḥād without uncertainties", func(o *Output) { o.Muhasabah.SupportedClaimIDs = []string{"clm-arr-press"} }, RuleUncertaintiesMissing},
		{"a weak grade with an uncertainty", func(o *Output) {
			o.Muhasabah.SupportedClaimIDs = []string{"clm-rev-deck"}
			o.Muhasabah.Uncertainties = []Uncertainty{{Uncertainty: "the deck is unaudited"}}
		}, ""},
		{"above 0.80 without uncertainty or counter-hypothesis", func(o *Output) { o.Muhasabah.Confidence = 0.9 }, RuleOverconfidence},
		{"above 0.80 with a counter-hypothesis", func(o *Output) {
			o.Muhasabah.Confidence, o.Muhasabah.CounterHypothesis = 0.9, "the growth is a one-off contract"
		}, ""},
		{"confidence outside [0, 1]", func(o *Output) { o.Muhasabah.Confidence = 1.2 }, RuleSchema},
		{"an unknown role", func(o *Output) { o.Role = "cheerleader" }, RuleSchema},
	}
	for _, c := range cases {
		o := good()
		c.edit(&o)
		got := rules(Check(o, evidence))
		switch {
		case c.want == "" && len(got) > 0:
			t.Errorf("%s: rejected for %v", c.name, got)
		case c.want != "" && !strings.Contains(strings.Join(got, " "), c.want):
			t.Errorf("%s: violations %v, want %s", c.name, got, c.want)
		}
	}
}

// TestD15_NoFreeFactsToTheFigure: with what each claim states known, rule
// 1 checks every figure of an output against the claims it cites, and every
// id it cites against the registry.
func TestD15_NoFreeFactsToTheFigure(t *testing.T) {
	ev := evidence
	ev.States = map[string]string{
		"clm-rev-audited": "Revenue for FY2024 was £48.2 million, up 18.4% on the year. £48.2m 48200000 FY2024",
		"calc-runway":     "9.00 months",
	}
	cases := []struct {
		name string
		edit func(*Output)
		want string
	}{
		{"every figure stated by a cited claim", func(*Output) {}, ""},
		{"a figure no cited claim states", func(o *Output) { o.Content = "Audited revenue was £52.0m in FY2024." }, "the figure 52.0"},
		{"a year no cited claim states", func(o *Output) { o.Content = "Audited revenue was £48.2m in FY2023." }, "the figure 2023"},
		{"thousands separators do not matter", func(o *Output) { o.Content = "Audited revenue was £48,200,000 in FY2024." }, ""},
		{"a round number is not a figure", func(o *Output) { o.Content = "In round 2 the audited revenue stands at £48.2m." }, ""},
		{"a claim ref the registry does not hold", func(o *Output) { o.ClaimRefs = append(o.ClaimRefs, "clm-made-up") }, "clm-made-up"},
		{"a calc ref the registry does not hold", func(o *Output) { o.CalcRefs = []string{"calc-made-up"} }, "calc-made-up"},
	}
	for _, c := range cases {
		o := good()
		c.edit(&o)
		var got []string
		for _, v := range Check(o, ev) {
			got = append(got, v.Rule+": "+v.Detail)
		}
		switch {
		case c.want == "" && len(got) > 0:
			t.Errorf("%s: rejected for %v", c.name, got)
		case c.want != "" && !strings.Contains(strings.Join(got, " "), c.want):
			t.Errorf("%s: violations %v, want one naming %s", c.name, got, c.want)
		}
		if c.want == "" && len(Check(o, evidence)) > 0 {
			t.Errorf("%s: rejected without States", c.name)
		}
	}
}

func TestD16_GateIsFailClosed(t *testing.T) {
	var recorded []Rejection
	record := func(r Rejection) error { recorded = append(recorded, r); return nil }
	if err := Gate(good(), evidence, record); err != nil || len(recorded) != 0 {
		t.Fatalf("a valid output: %v, %d rejections", err, len(recorded))
	}
	bad := good()
	bad.Muhasabah.SupportedClaimIDs = nil
	err := Gate(bad, evidence, record)
	var ge *GateError
	if sanad.ErrorCode(err) != sanad.CodeMuhasabahGate || !errors.As(err, &ge) || ge.Violations[0].Rule != RuleNoFreeFacts {
		t.Fatalf("gate: %v", err)
	}
	if len(recorded) != 1 || recorded[0].AgentID != "advocate-1" || recorded[0].Violations[0].Rule != RuleNoFreeFacts {
		t.Fatalf("rejections recorded: %+v", recorded)
	}
	// A rejection that cannot be recorded still rejects.
	err = Gate(bad, evidence, func(Rejection) error { return errors.New("disk full") })
	if sanad.ErrorCode(err) != sanad.CodeMuhasabahGate {
		t.Fatalf("an unrecorded rejection let the output through: %v", err)
	}
}

// genValid draws outputs that meet every rule; genBroken draws outputs
// built to break one rule.
func genValid(t *rapid.T) Output {
	o := Output{AgentID: rapid.StringMatching(`[a-z]{3,8}-[0-9]`).Draw(t, "agent"), Role: rapid.SampledFrom(Roles).Draw(t, "role"), RoundNumber: rapid.IntRange(1, 5).Draw(t, "round")}
	ids := []string{"clm-rev-audited", "clm-rev-deck", "clm-cash", "clm-arr-press"}
	cited := rapid.SliceOfNDistinct(rapid.SampledFrom(ids), 1, 3, rapid.ID[string]).Draw(t, "cited")
	o.ClaimRefs = cited
	o.Muhasabah.SupportedClaimIDs = cited
	o.Content = fmt.Sprintf("%s reported %s of £%d.%dm in FY20%d.", rapid.SampledFrom([]string{"The company", "Management", "The auditor"}).Draw(t, "who"),
		rapid.SampledFrom([]string{"revenue", "EBITDA", "cash"}).Draw(t, "metric"), rapid.IntRange(1, 999).Draw(t, "m"), rapid.IntRange(0, 9).Draw(t, "d"), rapid.IntRange(20, 25).Draw(t, "y"))
	o.Muhasabah.Confidence = rapid.Float64Range(0, 1).Draw(t, "confidence")
	if o.Muhasabah.Confidence > 0.5 {
		o.Muhasabah.FalsifiabilityTests = []FalsifiabilityTest{{TestDescription: "another source states a different figure"}}
	}
	o.Muhasabah.Uncertainties = []Uncertainty{{Uncertainty: "the figure may be restated"}}
	return o
}

func TestD18_GatePassesValidOutputsAndRejectsEveryBrokenRule(t *testing.T) {
	passed, total := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		o := genValid(t)
		raw, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		if err := ValidateJSON(SchemaOutput, raw); err != nil {
			t.Fatalf("a generated output does not meet the schema: %v", err)
		}
		total++
		if vs := Check(o, evidence); len(vs) == 0 {
			passed++
		} else {
			t.Fatalf("a valid output was rejected: %v\n%+v", vs, o)
		}
	})
	if total == 0 || float64(passed)/float64(total) < 0.98 {
		t.Fatalf("pass rate %d/%d", passed, total)
	}
	breakers := map[string]func(*Output){
		RuleNoFreeFacts:           func(o *Output) { o.Muhasabah.SupportedClaimIDs, o.Muhasabah.SupportedCalcIDs = nil, nil },
		RuleFalsifiabilityMissing: func(o *Output) { o.Muhasabah.Confidence, o.Muhasabah.FalsifiabilityTests = 0.75, nil },
		RuleUncertaintiesMissing: func(o *Output) {
			o.Muhasabah.SupportedClaimIDs = append(o.Muhasabah.SupportedClaimIDs, "clm-arr-press")
			o.Muhasabah.Uncertainties = nil
		},
		RuleOverconfidence: func(o *Output) {
			o.Muhasabah.Confidence, o.Muhasabah.Uncertainties, o.Muhasabah.CounterHypothesis = 0.95, nil, ""
			o.Muhasabah.FalsifiabilityTests = []FalsifiabilityTest{{TestDescription: "x"}}
			o.Muhasabah.SupportedClaimIDs = []string{"clm-rev-audited"}
		},
	}
	for rule, breakIt := range breakers {
		rapid.Check(t, func(t *rapid.T) {
			o := genValid(t)
			breakIt(&o)
			if got := rules(Check(o, evidence)); !strings.Contains(strings.Join(got, " "), rule) {
				t.Fatalf("an output built to break %s was not rejected for it: %v", rule, got)
			}
		})
	}
}

func TestD14_FrivolousChallenges(t *testing.T) {
	ok := Challenge{ChallengeID: "ch-1", ClaimRefs: []string{"clm-rev-deck"}, DefectType: "SINGLE_SOURCE", EvidenceRefs: []string{"clm-rev-audited"}}
	if why := Frivolous(ok); why != "" {
		t.Fatalf("a grounded challenge was frivolous: %s", why)
	}
	for name, edit := range map[string]func(*Challenge){
		"no claim":       func(c *Challenge) { c.ClaimRefs = nil },
		"blank claim":    func(c *Challenge) { c.ClaimRefs = []string{" "} },
		"no defect type": func(c *Challenge) { c.DefectType = "" },
		"no evidence":    func(c *Challenge) { c.EvidenceRefs = nil },
	} {
		c := ok
		edit(&c)
		if Frivolous(c) == "" {
			t.Errorf("%s: heard", name)
		}
	}
}

func TestD02_D03_D04_Schemas(t *testing.T) {
	out, _ := json.Marshal(good())
	if err := ValidateJSON(SchemaOutput, out); err != nil {
		t.Fatalf("a valid output: %v", err)
	}
	st, _ := json.Marshal(State{DealID: "deal-1", RoundNumber: 1, ClaimRegistryRef: "claims", Messages: []Message{{RoundNumber: 1, Output: good()}}})
	if err := ValidateJSON(SchemaState, st); err != nil {
		t.Fatalf("a valid state: %v", err)
	}
	for name, c := range map[string]struct{ schema, doc string }{
		"record without confidence":  {SchemaMuhasabah, `{"supported_claim_ids":[]}`},
		"confidence above one":       {SchemaMuhasabah, `{"supported_claim_ids":[],"confidence":1.5}`},
		"output without record":      {SchemaOutput, `{"agent_id":"a","role":"advocate","content":"x","claim_refs":[]}`},
		"output of an unknown role":  {SchemaOutput, `{"agent_id":"a","role":"judge","content":"x","claim_refs":[],"muhasabah_record":{"supported_claim_ids":[],"confidence":0}}`},
		"state at round zero":        {SchemaState, `{"deal_id":"d","round_number":0,"messages":[],"claim_registry_ref":"c"}`},
		"state with an unknown stop": {SchemaState, `{"deal_id":"d","round_number":1,"messages":[],"claim_registry_ref":"c","stop_reason":"TIRED"}`},
		"not JSON":                   {SchemaState, `{`},
	} {
		if err := ValidateJSON(c.schema, []byte(c.doc)); sanad.ErrorCode(err) != sanad.CodeInvalidInput {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestFactualAssertions(t *testing.T) {
	for text, want := range map[string]int{
		"Revenue was £48.2m in FY2024.":                         1,
		"In round 2 the advocate spoke [1].":                    0,
		"Gross margin rose to 73.4% from 72.9%. It is healthy.": 1,
		"Is the churn rate above 5%?":                           0,
		"The company has 1,140 customers.":                      1,
		"The thesis is sound.":                                  0,
	} {
		if got := len(FactualAssertions(text)); got != want {
			t.Errorf("%q: %d assertions, want %d", text, got, want)
		}
	}
}

func TestD16_RejectionEventSchema(t *testing.T) {
	types, err := ledger.NewTypes(Vocabulary())
	if err != nil {
		t.Fatal(err)
	}
	bad := good()
	bad.Muhasabah.SupportedClaimIDs = nil
	var body []byte
	_ = Gate(bad, evidence, func(r Rejection) error {
		r.DebateID = "debate-1"
		body, err = json.Marshal(r)
		return err
	})
	if err := types.ValidateBody(TypeMuhasabahRejected, body); err != nil {
		t.Fatalf("the rejection does not meet its event schema: %v\n%s", err, body)
	}
}
