package casework

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/connector"
	"github.com/sanadhq/sanad/ingest"
	"github.com/sanadhq/sanad/runner"
)

// Expected is a matter's expected.json: what intake and mapping should
// find.
type Expected struct {
	Areas     []string `json:"areas"`
	Triage    string   `json:"triage"`
	Causes    []string `json:"causes"`
	NotCauses []string `json:"not_causes"`
}

// MatterScore is how a matter's run compares with its expected.json.
type MatterScore struct {
	Matter string `json:"matter"`
	// AreasFound counts the expected areas intake spotted as primary.
	AreasFound int    `json:"areas_found"`
	Areas      int    `json:"areas"`
	Triage     string `json:"triage"`
	WantTriage string `json:"want_triage"`
	// CausesFound counts the expected causes mapped as supported or
	// partial; FalseCauses the not_causes that were.
	CausesFound int      `json:"causes_found"`
	Causes      int      `json:"causes"`
	FalseCauses []string `json:"false_causes,omitempty"`
	Missed      []string `json:"missed,omitempty"`
	Plausible   []string `json:"plausible"`
}

// EvalReport scores every matter of a folder.
type EvalReport struct {
	Matters      []MatterScore `json:"matters"`
	AreaRecall   float64       `json:"area_recall"`
	TriageOK     int           `json:"triage_ok"`
	CauseRecall  float64       `json:"cause_recall"`
	FalseCauses  int           `json:"false_causes"`
	NotCauses    int           `json:"not_causes"`
	MattersCount int           `json:"matter_count"`
}

// Evaluate runs every matter under dir (a folder holding intake.json, an
// interview.* transcript, documents/ and expected.json, or a folder of
// such folders) through intake, interview, the documents and mapping, each
// in a home of its own under work, offline, and scores it.
func Evaluate(ctx context.Context, dir, work string) (EvalReport, error) {
	var rep EvalReport
	dirs, err := matterDirs(dir)
	if err != nil {
		return rep, err
	}
	var areas, areasFound, causes, causesFound int
	for i, d := range dirs {
		s, err := evaluateMatter(ctx, d, filepath.Join(work, fmt.Sprintf("matter-%02d", i)))
		if err != nil {
			return rep, sanad.Wrap(err, sanad.ErrorCode(err), "casework.eval", filepath.Base(d))
		}
		rep.Matters = append(rep.Matters, s)
		areas, areasFound = areas+s.Areas, areasFound+s.AreasFound
		causes, causesFound = causes+s.Causes, causesFound+s.CausesFound
		if s.Triage == s.WantTriage {
			rep.TriageOK++
		}
		rep.FalseCauses += len(s.FalseCauses)
	}
	rep.MattersCount = len(rep.Matters)
	if areas > 0 {
		rep.AreaRecall = float64(areasFound) / float64(areas)
	}
	if causes > 0 {
		rep.CauseRecall = float64(causesFound) / float64(causes)
	}
	for _, d := range dirs {
		var want Expected
		if err := readJSON(filepath.Join(d, "expected.json"), &want); err == nil {
			rep.NotCauses += len(want.NotCauses)
		}
	}
	return rep, nil
}

// matterDirs returns dir when it is a matter, else its sub-folders that
// are, sorted.
func matterDirs(dir string) ([]string, error) {
	if _, err := os.Stat(filepath.Join(dir, "expected.json")); err == nil {
		return []string{dir}, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, "casework.eval", dir)
	}
	var out []string
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(dir, e.Name(), "expected.json")); e.IsDir() && err == nil {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	if len(out) == 0 {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, "casework.eval", "%s holds no matter (a folder with intake.json and expected.json)", dir)
	}
	sort.Strings(out)
	return out, nil
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return sanad.Wrap(err, sanad.CodeInvalidInput, "casework.eval", path)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return sanad.Wrap(err, sanad.CodeInvalidInput, "casework.eval", path)
	}
	return nil
}

// evaluateMatter runs one matter in a fresh home at work.
func evaluateMatter(ctx context.Context, dir, work string) (MatterScore, error) {
	s := MatterScore{Matter: filepath.Base(dir)}
	var want Expected
	if err := readJSON(filepath.Join(dir, "expected.json"), &want); err != nil {
		return s, err
	}
	form, err := os.ReadFile(filepath.Join(dir, "intake.json"))
	if err != nil {
		return s, sanad.Wrap(err, sanad.CodeInvalidInput, "casework.eval", "intake.json")
	}
	r, err := runner.Open(ctx, runner.Config{Dir: work})
	if err != nil {
		return s, err
	}
	defer r.Close()
	pbs, err := Playbooks(Config{})
	if err != nil {
		return s, err
	}
	for _, pb := range pbs {
		if err := r.Register(pb); err != nil {
			return s, err
		}
	}
	scope := sanad.Scope{Tenant: "eval", Case: "matter"}
	run := func(name string, input any) (runner.Result, error) {
		res, err := r.Run(ctx, name, input, runner.Options{Scope: scope, Caller: "eval"})
		if err == nil && res.Status != sanad.StatusCompleted && len(res.Gates) == 0 {
			err = res.Err()
		}
		return res, err
	}
	// Limitation periods are counted to the day the form was submitted,
	// so that a matter scores the same whatever day it is run.
	var submitted struct {
		At string `json:"submitted_at"`
	}
	_ = json.Unmarshal(form, &submitted)
	res, err := run(Open, OpenInput{Form: form, ClientSessionID: "intake", AsOf: submitted.At})
	if err != nil {
		return s, err
	}
	var in IntakeOutcome
	if err := json.Unmarshal(res.Outputs["intake"], &in); err != nil {
		return s, err
	}
	s.Areas, s.WantTriage, s.Triage = len(want.Areas), want.Triage, string(in.Assessment.Triage.Recommendation)
	for _, a := range in.Assessment.Summary.Areas {
		if a.Primary && slices.Contains(want.Areas, a.ID) {
			s.AreasFound++
		}
	}
	transcripts, _ := filepath.Glob(filepath.Join(dir, "interview.*"))
	for _, t := range transcripts {
		data, err := os.ReadFile(t)
		if err != nil {
			return s, err
		}
		ref, err := r.Home().Artifacts.Put(ctx, scope, "", "text/plain", data)
		if err != nil {
			return s, err
		}
		if _, err := run(Interview, InterviewInput{ClientSessionID: "interview", Artifact: "sha256:" + ref.SHA256, Name: filepath.Base(t)}); err != nil {
			return s, err
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "documents")); err == nil {
		p, err := ingest.ForHome(r.Home(), ingest.HomeOptions{})
		if err != nil {
			return s, err
		}
		rep, err := p.Ingest(ctx, []connector.Input{{SourceType: connector.SourceLocal, SourceIdentifier: filepath.Join(dir, "documents"), Recursive: true}}, ingest.Options{Scope: scope})
		if err != nil {
			return s, err
		}
		if len(rep.Errors) > 0 {
			return s, sanad.Errorf(rep.Errors[0].Code, "casework.eval", "%s: %s", rep.Errors[0].Source, rep.Errors[0].Message)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return s, err
	}
	mres, err := run(Map, MapInput{})
	if err != nil {
		return s, err
	}
	var m MapOutcome
	if err := json.Unmarshal(mres.Outputs["map"], &m); err != nil {
		return s, err
	}
	plausible := map[string]bool{}
	for _, c := range m.Causes {
		if c.Status == "supported" || c.Status == "partial" {
			plausible[c.ID] = true
			s.Plausible = append(s.Plausible, c.ID)
		}
	}
	s.Causes = len(want.Causes)
	for _, c := range want.Causes {
		if plausible[c] {
			s.CausesFound++
		} else {
			s.Missed = append(s.Missed, c)
		}
	}
	for _, c := range want.NotCauses {
		if plausible[c] {
			s.FalseCauses = append(s.FalseCauses, c)
		}
	}
	return s, nil
}
