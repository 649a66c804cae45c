package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/sanadhq/sanad/examples/cases"
	"github.com/sanadhq/sanad/playbook/casework"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/connector"
	"github.com/sanadhq/sanad/diligence"
	"github.com/sanadhq/sanad/examples"
	"github.com/sanadhq/sanad/examples/deals"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/ingest"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/playbook/deal"
	"github.com/sanadhq/sanad/playbook/rag"
	"github.com/sanadhq/sanad/runner"
)

func (a *app) quickstartCommand() *cobra.Command {
	return a.jsonFlag(&cobra.Command{
		Use:   "quickstart",
		Short: "Ingest the sample data room, answer questions from it with citations, and verify the record (offline)",
		Long: `Quickstart works on an empty home with no network and no model. It ingests the sample data
room built into the binary (a PDF annual report, DOCX board minutes, a contract, a policy, a
pricing web page, a customer list and a supplier's email that carries a prompt injection), then
asks it questions through the rag playbook: each answer cites, sentence by sentence, the passage
that supports it; a question the documents do not answer is refused; the injected instructions
are set aside, not obeyed. It replays the first answer from its record, exports that trace as a
bundle, verifies the bundle offline against the home's log key, and verifies the whole ledger.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			var qs quickstartResult
			err := a.withHome(ctx, func(h *home.Home) (err error) {
				qs, err = a.quickstart(cmd, h)
				return err
			})
			if err != nil {
				return err
			}
			err = a.withAudit(ctx, func(h *home.Home, cfg ledger.AuditConfig) error {
				rep, err := ledger.Audit(ctx, cfg, "")
				if err != nil {
					return failure{err}
				}
				for _, check := range []func(context.Context) error{h.DB.CheckRuns, h.DB.CheckRecords, h.DB.CheckGates} {
					if err := check(ctx); err != nil {
						return failure{err}
					}
				}
				chunks, err := ingest.CheckIndex(ctx, h)
				if err != nil {
					return failure{err}
				}
				qs.Ledger = map[string]any{"verified": true, "events": rep.Events, "traces": rep.Traces, "tree_size": rep.TreeSize, "memory_chunks_checked": chunks}
				if !a.jsonOut {
					fmt.Fprintf(a.stdout, "Verified the whole ledger: %d signed events in %d traces, the runs, records and gates it projects, and the %d chunks the index serves.\n", rep.Events, rep.Traces, chunks)
				}
				return nil
			})
			if err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(qs)
			}
			fmt.Fprintf(a.stdout, "\nTry:\n  sanad --home %s ask \"%s\"\n  sanad --home %s chat\n  sanad --home %s runs show %s\n  sanad verify %s --log-key '%s'\n",
				a.home(), qs.tryQuestion, a.home(), a.home(), qs.Run, qs.Bundle, qs.LogKey)
			return nil
		},
	})
}

// quickstartScope is the case the quickstart works in.
var quickstartScope = sanad.Scope{Tenant: "default", Case: "default"}

// quickstartResult is what sanad quickstart --json prints.
type quickstartResult struct {
	Documents int            `json:"documents"`
	Chunks    int            `json:"chunks"`
	Unchanged int            `json:"skipped_unchanged"`
	Answers   []rag.Reply    `json:"answers"`
	Refusal   rag.Reply      `json:"refusal"`
	SetAside  []rag.SetAside `json:"set_aside"`
	// Run and Trace are the first answer's, replayed and exported.
	Run         string         `json:"run"`
	Trace       string         `json:"trace"`
	Replayed    bool           `json:"replayed"`
	Bundle      string         `json:"bundle"`
	BundleSHA   string         `json:"bundle_sha256"`
	Verified    bool           `json:"verified"`
	LogKey      string         `json:"log_key"`
	Ledger      map[string]any `json:"ledger"`
	Diligence   map[string]any `json:"diligence"`
	Casework    map[string]any `json:"casework"`
	tryQuestion string
}

// quickstart ingests the sample corpus into h, asks its sample questions,
// replays the first answer, and exports and verifies its trace.
func (a *app) quickstart(cmd *cobra.Command, h *home.Home) (quickstartResult, error) {
	ctx := cmd.Context()
	var qs quickstartResult
	say := func(format string, args ...any) {
		if !a.jsonOut {
			fmt.Fprintf(a.stdout, format, args...)
		}
	}
	dir := filepath.Join(h.Dir, "corpus")
	if err := writeCorpus(dir); err != nil {
		return qs, err
	}
	p, err := ingest.ForHome(h, ingest.HomeOptions{})
	if err != nil {
		return qs, err
	}
	ing, err := p.Ingest(ctx, []connector.Input{{SourceType: connector.SourceLocal, SourceIdentifier: dir, Recursive: true}}, ingest.Options{Scope: quickstartScope})
	if err != nil {
		return qs, err
	}
	if len(ing.Errors) > 0 {
		return qs, sanad.Errorf(ing.Errors[0].Code, "quickstart", "%s: %s", ing.Errors[0].Source, ing.Errors[0].Message)
	}
	qs.Documents, qs.Chunks, qs.Unchanged = ing.Documents, ing.Chunks, ing.SkippedUnchanged
	say("Ingested the sample data room (%s): %d documents, %d chunks (%d unchanged since the last run); each fetch, parse and index write a signed event.\n\n",
		dir, ing.Documents+ing.SkippedUnchanged, ing.Chunks, ing.SkippedUnchanged)
	cases, err := answerSet()
	if err != nil {
		return qs, err
	}
	r, err := runner.Open(ctx, runner.Config{Home: h})
	if err != nil {
		return qs, err
	}
	defer r.Close()
	svc, err := rag.Register(r, rag.Config{})
	if err != nil {
		return qs, err
	}
	// The samples, then a question about the document that carries an
	// injection, then the sample refusal.
	var samples []rag.Case
	var refusal, injected *rag.Case
	for i, c := range cases {
		switch {
		case c.Sample:
			samples = append(samples, c)
		case c.SampleRefusal && refusal == nil:
			refusal = &cases[i]
		case c.Answerable && c.Follows == "" && c.Document == examples.InjectedDocument && injected == nil:
			injected = &cases[i]
		}
	}
	for _, c := range []*rag.Case{injected, refusal} {
		if c != nil {
			samples = append(samples, *c)
		}
	}
	for i, c := range samples {
		rep, err := svc.Ask(ctx, rag.Question{Text: c.Question, Scope: quickstartScope})
		if err != nil {
			return qs, err
		}
		say("Q: %s\n", c.Question)
		var b strings.Builder
		printReply(&b, rep, false)
		say("%s\n\n", indent(strings.TrimRight(b.String(), "\n"), "   "))
		if c.SampleRefusal {
			qs.Refusal = rep
		} else {
			qs.Answers = append(qs.Answers, rep)
		}
		qs.SetAside = append(qs.SetAside, rep.SetAside...)
		if i == 0 {
			qs.tryQuestion = c.Question
		}
	}
	if len(qs.Answers) == 0 {
		return qs, sanad.Errorf(sanad.CodeInternal, "quickstart", "the answer set has no sample question")
	}
	if err := a.quickstartDiligence(cmd, r, &qs, say); err != nil {
		return qs, err
	}
	if err := a.quickstartCasework(cmd, r, &qs, say); err != nil {
		return qs, err
	}
	first := qs.Answers[0]
	rep, err := r.Replay(ctx, first.Run)
	if err != nil {
		return qs, err
	}
	var again rag.Outcome
	if err := rep.Err(); err != nil {
		return qs, err
	}
	if err := json.Unmarshal(rep.Outputs["remember"], &again); err != nil || again.FinalResponse.Content != first.Answer {
		return qs, sanad.Errorf(sanad.CodeIntegrity, "quickstart", "the replay of run %s gave another answer", first.Run)
	}
	qs.Run, qs.Trace, qs.Replayed = first.Run, first.Trace, true
	say("Replayed the first answer (run %s) from its record: the same outputs, and no tool or model called.\n", first.Run)
	x, err := exportVerified(cmd, h, quickstartScope, first.Trace)
	if err != nil {
		return qs, err
	}
	vr := x.Report
	qs.Bundle, qs.BundleSHA, qs.Verified, qs.LogKey = x.Path, x.Result.SHA256.String(), true, x.LogKey
	say("Exported its trace (question, passages, answer and citations: %d events, %d artifacts) to %s\n", vr.Events, vr.Artifacts, x.Path)
	say("Verified the bundle offline: every hash, signature and chain link, and each event's inclusion in checkpoint %s (size %d).\n", vr.Checkpoint, vr.TreeSize)
	return qs, nil
}

// writeCorpus writes the sample corpus into dir, leaving files that are
// already there as they are.
func writeCorpus(dir string) error {
	return fs.WalkDir(examples.Corpus, "corpus", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(examples.Corpus, path)
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(path, "corpus/")))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if old, err := os.ReadFile(dst); err == nil && string(old) == string(data) {
			return nil
		}
		return os.WriteFile(dst, data, 0o644)
	})
}

// quickstartDiligence runs the debate of the deal built into the binary
// whose deck overstates revenue, on runner r, and exports its record.
func (a *app) quickstartDiligence(cmd *cobra.Command, r *runner.Runner, qs *quickstartResult, say func(string, ...any)) error {
	h := r.Home()
	dir := filepath.Join(h.Dir, "deals")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.CopyFS(dir, deals.Orrery); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	m, err := diligence.ReadManifest(filepath.Join(dir, "09-orrery-health"))
	if err != nil {
		return err
	}
	pb, err := deal.New()
	if err != nil {
		return err
	}
	if err := r.Register(pb); err != nil {
		return err
	}
	memo, res, err := runDebate(cmd.Context(), r, filepath.Join(dir, "09-orrery-health"), "", "default")
	if err != nil {
		return err
	}
	x, err := exportVerified(cmd, h, sanad.Scope{Tenant: "default", Case: diligence.CaseID(m.Name)}, res.Trace)
	if err != nil {
		return err
	}
	memoPath := filepath.Join(h.Dir, "exports", "memo-"+diligence.CaseID(m.Name)+".md")
	if err := os.WriteFile(memoPath, []byte(memo.Markdown()), 0o644); err != nil {
		return err
	}
	qs.Diligence = map[string]any{"deal": m.Name, "recommendation": memo.Recommendation, "stop_reason": memo.StopReason,
		"trace": memo.Trace, "memo": memoPath, "bundle": x.Path}
	say("Due diligence of %s (%d documents: deck, management accounts, audited statements …): %s, the debate stopped on %s after %d steps.\n",
		memo.Company, len(m.Documents), memo.Recommendation, memo.StopReason, len(res.Outputs))
	for _, r := range memo.Reasons {
		say("   %s\n", r.Text)
	}
	for _, k := range memo.KeyMetrics[:min(len(memo.KeyMetrics), 2)] {
		say("   %s\n", k.Text)
	}
	say("   Every figure traces to its span; memo %s, signed record exported and verified.\n\n", memoPath)
	return nil
}

// quickstartCase is the case the quickstart opens the bundled matter as.
const quickstartCase = "quickstart-matter"

// quickstartCasework opens the legal matter built into the binary (once),
// interviews the client, adds the documents and maps the facts to causes of
// action; the triage waits at its gate for an attorney, as it would for a
// firm.
func (a *app) quickstartCasework(cmd *cobra.Command, r *runner.Runner, qs *quickstartResult, say func(string, ...any)) error {
	ctx := cmd.Context()
	h := r.Home()
	dir := filepath.Join(h.Dir, "cases")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.CopyFS(dir, cases.Tenant); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	matter := filepath.Join(dir, "tenant-retaliation")
	pbs, err := casework.Playbooks(casework.Config{})
	if err != nil {
		return err
	}
	for _, pb := range pbs {
		if _, ok := r.Playbook(pb.Name); !ok {
			if err := r.Register(pb); err != nil {
				return err
			}
		}
	}
	scope := sanad.Scope{Tenant: "default", Case: quickstartCase}
	run := func(name string, input any) (runner.Result, error) {
		res, err := r.Run(ctx, name, input, runner.Options{Scope: scope, Caller: "quickstart", Reason: "the quickstart's example matter"})
		if err == nil && res.Status != sanad.StatusCompleted && len(res.Gates) == 0 {
			err = res.Err()
		}
		return res, err
	}
	opened := caseExists(ctx, h, scope) == nil
	out := map[string]any{"case_id": quickstartCase}
	if !opened {
		form, err := os.ReadFile(filepath.Join(matter, "intake.json"))
		if err != nil {
			return err
		}
		res, err := run(casework.Open, casework.OpenInput{Form: form, ClientSessionID: "intake-quickstart", AsOf: "2025-11-10"})
		if err != nil {
			return err
		}
		var in casework.IntakeOutcome
		if err := json.Unmarshal(res.Outputs["intake"], &in); err != nil {
			return err
		}
		var areas []string
		for _, ar := range in.Assessment.Summary.Areas {
			if ar.Primary {
				areas = append(areas, ar.Name)
			}
		}
		out["triage"], out["gates"] = in.Assessment.Triage.Recommendation, res.Gates
		say("Legal intake of a bundled matter (a tenant evicted after asking for repairs): triage %s; %s; urgency %s; %d conflict check names.\n",
			in.Assessment.Triage.Recommendation, strings.Join(areas, ", "), in.Assessment.Summary.Urgency.Level, len(in.Assessment.Conflicts.Names))
		for _, g := range res.Gates {
			say("   The triage waits for an attorney: sanad --home %s gates approve %s --as NAME --role ATTORNEY\n", h.Dir, g)
		}
		data, err := os.ReadFile(filepath.Join(matter, "interview.vtt"))
		if err != nil {
			return err
		}
		ref, err := h.Artifacts.Put(ctx, scope, "", "text/vtt", data)
		if err != nil {
			return err
		}
		ires, err := run(casework.Interview, casework.InterviewInput{ClientSessionID: "interview-quickstart", Artifact: "sha256:" + ref.SHA256, Name: "interview.vtt"})
		if err != nil {
			return err
		}
		var iv casework.InterviewOutcome
		if err := json.Unmarshal(ires.Outputs["interview"], &iv); err != nil {
			return err
		}
		p, err := ingest.ForHome(h, ingest.HomeOptions{})
		if err != nil {
			return err
		}
		rep, err := p.Ingest(ctx, []connector.Input{{SourceType: connector.SourceLocal, SourceIdentifier: filepath.Join(matter, "documents"), Recursive: true}}, ingest.Options{Scope: scope})
		if err != nil {
			return err
		}
		if len(rep.Errors) > 0 {
			return sanad.Errorf(rep.Errors[0].Code, "quickstart", "%s: %s", rep.Errors[0].Source, rep.Errors[0].Message)
		}
		say("   Interview: %d turns, %d notes with their spans, %d entities; %d documents added to the case.\n", iv.Turns, iv.Notes, iv.Entities, rep.Documents)
	}
	if opened {
		say("Legal matter %s (a tenant evicted after asking for repairs), opened by an earlier run; mapped again:\n", quickstartCase)
	}
	mres, err := run(casework.Map, casework.MapInput{})
	if err != nil {
		return err
	}
	var m casework.MapOutcome
	if err := json.Unmarshal(mres.Outputs["map"], &m); err != nil {
		return err
	}
	var plausible []string
	for _, c := range m.Causes {
		if c.Status == "supported" || c.Status == "partial" {
			plausible = append(plausible, c.Name+" ("+c.Status+")")
		}
	}
	out["causes"], out["map_trace"] = plausible, mres.Trace
	qs.Casework = out
	say("   Causes of action the facts support (%d facts, taxonomy %s; a screening aid, not legal advice): %s.\n", m.Facts, m.COAVersion, strings.Join(plausible, "; "))
	say("   Every tool call went through its lane; nothing reaches another case. See it: sanad --home %s case show %s\n\n", h.Dir, quickstartCase)
	return nil
}
