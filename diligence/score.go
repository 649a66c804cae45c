package diligence

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
)

// ExpectedFile is the name of a deal's expected findings in its folder.
const ExpectedFile = "expected.json"

// Expected is a deal's expected.json.
type Expected struct {
	StopReason     string         `json:"stop_reason"`
	Contradictions []ExpectedItem `json:"contradictions"`
	Defects        []ExpectedItem `json:"defects"`
	Risks          []ExpectedItem `json:"risks"`
	NotExpected    []ExpectedItem `json:"not_expected"`
}

// ExpectedItem is one expected (or not expected) finding. Empty fields
// match anything.
type ExpectedItem struct {
	Kind      string   `json:"kind,omitempty"`
	Type      string   `json:"type,omitempty"`
	Metric    string   `json:"metric,omitempty"`
	Period    string   `json:"period,omitempty"`
	Documents []string `json:"documents,omitempty"`
}

// ReadExpected reads dir/expected.json.
func ReadExpected(dir string) (Expected, error) {
	raw, err := readBounded(filepath.Join(dir, ExpectedFile), MaxManifestBytes)
	if err != nil {
		return Expected{}, fmt.Errorf("diligence: %w", err)
	}
	var e Expected
	if err := json.Unmarshal(raw, &e); err != nil {
		return Expected{}, fmt.Errorf("diligence: %s: %w", ExpectedFile, err)
	}
	return e, nil
}

// Scorecard is how findings compare with what was expected.
//
// Recall and precision are over the planted items: contradictions and
// defects. Recall is the share of expected ones some reported item
// matches; precision the share of reported ones that match an expected
// one — a reported contradiction or defect that matches none counts
// against it whether or not not_expected lists it. Risks are scored
// apart: RiskRecall is the share of expected risks found, and a reported
// risk counts as false (FalseRisks) only when not_expected lists it; a
// reported risk that is neither expected nor excluded is listed in
// ExtraRisks but not counted, since expected.json lists the risks each
// deal plants, not every risk its figures show (a loss-making company's
// negative EBITDA, say).
type Scorecard struct {
	Deal           string   `json:"deal"`
	Expected       int      `json:"expected"`
	Found          int      `json:"found"`
	Reported       int      `json:"reported"`
	Correct        int      `json:"correct"`
	Missed         []string `json:"missed,omitempty"`
	False          []string `json:"false,omitempty"`
	ExpectedRisks  int      `json:"expected_risks"`
	FoundRisks     int      `json:"found_risks"`
	FalseRisks     []string `json:"false_risks,omitempty"`
	ExtraRisks     []string `json:"extra_risks,omitempty"`
	StopReason     string   `json:"stop_reason"`
	WantStopReason string   `json:"want_stop_reason"`
}

// Recall is Found / Expected; 1 when nothing was expected.
func (s Scorecard) Recall() float64 { return ratio(s.Found, s.Expected) }

// Precision is Correct / Reported; 1 when nothing was reported.
func (s Scorecard) Precision() float64 { return ratio(s.Correct, s.Reported) }

// RiskRecall is FoundRisks / ExpectedRisks.
func (s Scorecard) RiskRecall() float64 { return ratio(s.FoundRisks, s.ExpectedRisks) }

// StopOK says whether the debate stopped for the expected reason.
func (s Scorecard) StopOK() bool { return s.StopReason == s.WantStopReason }

func ratio(n, d int) float64 {
	if d == 0 {
		return 1
	}
	return float64(n) / float64(d)
}

// matches says whether a reported item matches an expected one: on type
// (or metric, for a contradiction), on period where the expected one gives
// it, and on documents where it gives them (each must be among the
// reported item's).
func matches(it Item, e ExpectedItem) bool {
	if e.Kind != "" && e.Kind != it.Kind {
		return false
	}
	if e.Type != "" && e.Type != it.Type {
		return false
	}
	if e.Metric != "" && e.Metric != it.Metric {
		return false
	}
	if e.Period != "" && e.Period != it.Period {
		return false
	}
	for _, d := range e.Documents {
		if !slices.Contains(it.Documents, d) {
			return false
		}
	}
	return true
}

func label(it Item) string {
	return fmt.Sprintf("%s %s %s %s", it.Kind, it.Type, it.Metric, it.Period)
}

func labelExpected(kind string, e ExpectedItem) string {
	return fmt.Sprintf("%s %s %s %s %v", kind, e.Type, e.Metric, e.Period, e.Documents)
}

// Score compares findings with what was expected.
func Score(f Findings, e Expected) Scorecard {
	s := Scorecard{Deal: f.Deal, StopReason: f.StopReason, WantStopReason: e.StopReason}
	type want struct {
		kind string
		e    ExpectedItem
	}
	var planted []want
	for _, c := range e.Contradictions {
		planted = append(planted, want{KindContradiction, c})
	}
	for _, d := range e.Defects {
		planted = append(planted, want{KindDefect, d})
	}
	reported := append(append([]Item{}, f.Contradictions...), f.Defects...)
	s.Expected, s.Reported = len(planted), len(reported)
	for _, w := range planted {
		ex := w.e
		ex.Kind = w.kind
		if slices.ContainsFunc(reported, func(it Item) bool { return matches(it, ex) }) {
			s.Found++
		} else {
			s.Missed = append(s.Missed, labelExpected(w.kind, w.e))
		}
	}
	for _, it := range reported {
		if slices.ContainsFunc(planted, func(w want) bool { ex := w.e; ex.Kind = w.kind; return matches(it, ex) }) {
			s.Correct++
		} else {
			s.False = append(s.False, label(it))
		}
	}
	s.ExpectedRisks = len(e.Risks)
	for _, r := range e.Risks {
		r.Kind = KindRisk
		if slices.ContainsFunc(f.Risks, func(it Item) bool { return matches(it, r) }) {
			s.FoundRisks++
		} else {
			s.Missed = append(s.Missed, labelExpected(KindRisk, r))
		}
	}
	for _, it := range f.Risks {
		exp := slices.ContainsFunc(e.Risks, func(r ExpectedItem) bool { r.Kind = KindRisk; return matches(it, r) })
		if exp {
			continue
		}
		if slices.ContainsFunc(e.NotExpected, func(n ExpectedItem) bool { return n.Kind == KindRisk && matches(it, n) }) {
			s.FalseRisks = append(s.FalseRisks, label(it))
		} else {
			s.ExtraRisks = append(s.ExtraRisks, label(it))
		}
	}
	return s
}

// Total is the overall figures of a set of deals; StopOK counts the deals
// that stopped for the expected reason.
type Total struct {
	Deals      int     `json:"deals"`
	StopOK     int     `json:"stop_ok"`
	Expected   int     `json:"expected"`
	Found      int     `json:"found"`
	Reported   int     `json:"reported"`
	Correct    int     `json:"correct"`
	Recall     float64 `json:"recall"`
	Precision  float64 `json:"precision"`
	RiskRecall float64 `json:"risk_recall"`
	FalseRisks int     `json:"false_risks"`
	StopAcc    float64 `json:"stop_accuracy"`
}

// Sum adds up scores.
func Sum(scores []Scorecard) Total {
	var t Total
	var er, fr int
	for _, s := range scores {
		t.Deals++
		if s.StopOK() {
			t.StopOK++
		}
		t.Expected += s.Expected
		t.Found += s.Found
		t.Reported += s.Reported
		t.Correct += s.Correct
		er += s.ExpectedRisks
		fr += s.FoundRisks
		t.FalseRisks += len(s.FalseRisks)
	}
	t.Recall, t.Precision, t.RiskRecall, t.StopAcc = ratio(t.Found, t.Expected), ratio(t.Correct, t.Reported), ratio(fr, er), ratio(t.StopOK, t.Deals)
	return t
}
