package main

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"mime"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/bundle"
	"github.com/sanadhq/sanad/casework/coa"
	"github.com/sanadhq/sanad/casework/interview"
	"github.com/sanadhq/sanad/casework/redact"
	"github.com/sanadhq/sanad/connector"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/ingest"
	"github.com/sanadhq/sanad/playbook/casework"
	"github.com/sanadhq/sanad/runner"
)

// maxCaseFileBytes bounds an intake form, a ticket or an uploaded
// transcript or recording.
const maxCaseFileBytes = 256 << 20

func (a *app) caseCommand() *cobra.Command {
	c := &cobra.Command{
		Use:   "case",
		Short: "Legal casework: open a matter, interview the client, add documents, map, promote, export",
		Long: `A matter runs through the six agents of contract v1: the intake agent assesses the client's
intake form (areas of law, limitation risks, urgency, what is missing, a conflict check) and an
attorney confirms its triage at a gate; the interview agent transcribes an interview into notes
and entities; the mapping agent maps the case's documents and transcripts to the elements of
causes of action; the governance agent promotes sanitized insight into shared knowledge under an
approved ticket; the export agent writes a redacted export that verifies offline. Each request
is an orchestrator run with one agent run per step; every tool call goes through the gateway and
every write is a db_write run under the lane that allows it. No agent reads another case.`,
	}
	c.AddCommand(a.caseOpenCommand(), a.caseInterviewCommand(), a.caseAddCommand(), a.caseMapCommand(),
		a.casePromoteCommand(), a.caseExportCommand(), a.caseShowCommand())
	return c
}

// readCaseFile reads a file a case command is given, bounded.
func readCaseFile(flag, path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, usagef("%s %s: %v", flag, path, err)
	}
	if st.IsDir() || st.Size() > maxCaseFileBytes {
		return nil, usagef("%s %s: not a file of at most %d MiB", flag, path, maxCaseFileBytes>>20)
	}
	return os.ReadFile(path)
}

func shortHash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:12]
}

// caseRun runs the casework playbook name in the case and returns its
// result; the caller closes the runner.
func (a *app) caseRun(ctx context.Context, name string, scope sanad.Scope, input any, cfg casework.Config) (*runner.Runner, runner.Result, error) {
	r, err := a.openRunner(ctx, runnerOptions{Casework: cfg}, name)
	if err != nil {
		return nil, runner.Result{}, err
	}
	opt := runner.Options{Scope: scope, Caller: "cli", Reason: name + " of case " + scope.Case}
	if m, ok := input.(casework.MapInput); ok {
		opt.TaxonomyVersions = map[string]string{"coa": m.COAVersion}
	}
	res, err := r.Run(ctx, name, input, opt)
	if err != nil {
		r.Close()
		if res.Run == "" && sanad.ErrorCode(err) == sanad.CodeInvalidInput {
			return nil, res, usageError{err}
		}
		return nil, res, err
	}
	return r, res, nil
}

// caseFailure says why a case request did not complete, or nil when it
// completed or waits on a person at a gate.
func caseFailure(res runner.Result) error {
	if res.Status == sanad.StatusCompleted || (res.Status == sanad.StatusRunning && len(res.Gates) > 0) {
		return nil
	}
	err := res.Err()
	if sanad.ErrorCode(err) == sanad.CodeInvalidInput {
		return usageError{err}
	}
	return failure{err}
}

// caseExists refuses a case that was never opened.
func caseExists(ctx context.Context, h *home.Home, scope sanad.Scope) error {
	rows, err := h.DB.Records(ctx, scope, "interview_notes")
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		return usagef("no case %s in tenant %s: open it first with `sanad case open --intake FORM.json`", scope.Case, scope.Tenant)
	}
	return nil
}

// caseExistsIn opens the home to check that the case was opened.
func (a *app) caseExistsIn(ctx context.Context, scope sanad.Scope) error {
	return a.withHomeRead(ctx, func(h *home.Home) error { return caseExists(ctx, h, scope) })
}

func (a *app) printGates(gates []string, role string) {
	for _, g := range gates {
		fmt.Fprintf(a.stdout, "Waiting at gate %s for a person with role %s: sanad gates approve %s --as NAME --role %s (or reject)\n", g, role, g, role)
	}
}

func (a *app) caseOpenCommand() *cobra.Command {
	var form, caseID, tenant, asOf string
	c := a.jsonFlag(&cobra.Command{
		Use:   "open --intake FORM.json",
		Short: "Open a matter from a client intake form; an attorney confirms the triage at a gate",
		Long: `Validates FORM.json against the client_intake_form schema, then the intake agent writes the
parties as entities and its assessment as intake notes: the areas of law spotted, limitation
risks from the key dates (indicative periods, to be checked for the jurisdiction), urgency, the
checklist of what is missing, the conflict check request and a triage (accept, reject, needs
more info). The run then waits at a gate until an attorney confirms or overturns the triage:
sanad gates approve GATE --as NAME --role ATTORNEY. The case id is printed (or give --case).
Exit 2 on a form that fails its schema.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if form == "" {
				return usagef("case open needs --intake FORM.json")
			}
			data, err := readCaseFile("--intake", form)
			if err != nil {
				return err
			}
			if caseID == "" {
				caseID = "case-" + shortHash(data)
			}
			scope := sanad.Scope{Tenant: tenant, Case: caseID}
			if err := scope.Validate(); err != nil {
				return usageError{err}
			}
			if asOf != "" {
				if _, err := time.Parse(time.DateOnly, asOf); err != nil {
					return usagef("--as-of %q is not a date (YYYY-MM-DD)", asOf)
				}
			}
			session := "intake-" + shortHash(data)
			r, res, err := a.caseRun(ctx, casework.Open, scope,
				casework.OpenInput{Form: json.RawMessage(data), ClientSessionID: session, AsOf: asOf}, casework.Config{})
			if err != nil {
				return err
			}
			defer r.Close()
			var out casework.IntakeOutcome
			_ = json.Unmarshal(res.Outputs["intake"], &out)
			if a.jsonOut {
				if err := a.printJSON(map[string]any{"case_id": caseID, "client_session_id": session, "run": res.Run, "trace": res.Trace,
					"status": res.Status, "gates": res.Gates, "assessment": out.Assessment, "errors": res.Errors}); err != nil {
					return err
				}
				return caseFailure(res)
			}
			if err := caseFailure(res); err != nil {
				return err
			}
			as := out.Assessment
			fmt.Fprintf(a.stdout, "Case %s opened (run %s, trace %s)\n\n", caseID, res.Run, res.Trace)
			fmt.Fprintf(a.stdout, "%s\n\n", as.Summary.Narrative)
			for _, ar := range as.Summary.Areas {
				fmt.Fprintf(a.stdout, "Area of law: %s (%.2f)\n", ar.Name, ar.Score)
			}
			for _, l := range as.Summary.LimitationRisks {
				left := "unknown"
				if l.DaysLeft != nil {
					left = fmt.Sprintf("%d days left", *l.DaysLeft)
				}
				fmt.Fprintf(a.stdout, "Limitation (%s): %s, %s from %s: deadline %s, %s [%s]\n", l.Level, l.Cause, l.Period, cmp.Or(l.TriggerDate, "?"), cmp.Or(l.Deadline, "?"), left, l.Rule)
			}
			if len(as.Summary.LimitationRisks) > 0 {
				fmt.Fprintf(a.stdout, "  %s\n", as.Summary.LimitationRisks[0].Caveat)
			}
			fmt.Fprintf(a.stdout, "Urgency: %s", as.Summary.Urgency.Level)
			if len(as.Summary.Urgency.Reasons) > 0 {
				fmt.Fprintf(a.stdout, " (%s)", strings.Join(as.Summary.Urgency.Reasons, "; "))
			}
			fmt.Fprintln(a.stdout)
			for _, it := range as.Checklist.Items {
				fmt.Fprintf(a.stdout, "Missing: %s: %s\n", it.Field, it.Reason)
			}
			fmt.Fprintf(a.stdout, "Conflict check %s: %d names\n", as.Conflicts.RequestID, len(as.Conflicts.Names))
			fmt.Fprintf(a.stdout, "Triage: %s (%s)\n", as.Triage.Recommendation, strings.Join(as.Triage.Reasons, "; "))
			a.printGates(res.Gates, casework.RoleAttorney)
			return nil
		},
	})
	c.Flags().StringVar(&form, "intake", "", "the client_intake_form JSON file")
	c.Flags().StringVar(&caseID, "case", "", "case id (default: case- and a hash of the form)")
	c.Flags().StringVar(&tenant, "tenant", "default", "tenant (the firm)")
	c.Flags().StringVar(&asOf, "as-of", "", "count limitation periods to this date (YYYY-MM-DD; default today)")
	return c
}

func (a *app) caseInterviewCommand() *cobra.Command {
	var transcript, audio, tenant, session, area, whisperURL, whisperModel, language string
	c := a.jsonFlag(&cobra.Command{
		Use:   "interview CASE --transcript FILE | --audio FILE",
		Short: "Capture a client interview: transcript, notes with their spans, entities and the next question",
		Long: `The interview agent transcribes the interview through the TOOL_INTERVIEW_CAPTURE lane: a transcript
file (WebVTT, SRT, "Speaker: text" TXT, or JSON turns) is read as speaker turns; audio goes to an
OpenAI-compatible /v1/audio/transcriptions server (whisper.cpp's server, or any such API) given by
--whisper-url or $SANAD_TRANSCRIPTION_URL. It writes the transcript, the interview notes (who,
what, when, where, amounts, each with its span in the transcript) and the entities through the
WRITE_INTAKE_ARTIFACTS lane, and asks the matter's prompt pack for the next question.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			path := transcript
			if (transcript == "") == (audio == "") {
				return usagef("case interview needs one of --transcript FILE or --audio FILE")
			}
			if audio != "" {
				path = audio
			}
			data, err := readCaseFile("the interview file", path)
			if err != nil {
				return err
			}
			scope := sanad.Scope{Tenant: tenant, Case: args[0]}
			if err := a.caseExistsIn(ctx, scope); err != nil {
				return err
			}
			media := mime.TypeByExtension(strings.ToLower(filepath.Ext(path)))
			if audio != "" && !strings.HasPrefix(media, "audio/") {
				media = "audio/" + strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
			}
			if audio == "" || media == "" {
				media = cmp.Or(media, "text/plain")
			}
			if session == "" {
				session = "interview-" + shortHash(data)
			}
			cfg := casework.Config{}
			if u := cmp.Or(whisperURL, os.Getenv("SANAD_TRANSCRIPTION_URL")); u != "" {
				cfg.Transcriber = &interview.Transcriber{BaseURL: u, Model: whisperModel, APIKey: os.Getenv("SANAD_TRANSCRIPTION_KEY")}
			}
			var ref sanad.ArtifactRef
			if err := a.withHome(ctx, func(h *home.Home) error {
				ref, err = h.Artifacts.Put(ctx, scope, "", media, data)
				return err
			}); err != nil {
				return err
			}
			r, res, err := a.caseRun(ctx, casework.Interview, scope, casework.InterviewInput{ClientSessionID: session,
				Artifact: "sha256:" + ref.SHA256, Name: filepath.Base(path), MediaType: media, Language: language, Area: area}, cfg)
			if err != nil {
				return err
			}
			defer r.Close()
			var out casework.InterviewOutcome
			_ = json.Unmarshal(res.Outputs["interview"], &out)
			if a.jsonOut {
				if err := a.printJSON(map[string]any{"case_id": scope.Case, "client_session_id": session, "run": res.Run, "trace": res.Trace,
					"status": res.Status, "interview": out, "errors": res.Errors}); err != nil {
					return err
				}
				return caseFailure(res)
			}
			if err := caseFailure(res); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "Transcript %s: %d turns by %s; %d notes, %d entities (run %s)\n", out.TranscriptID, out.Turns,
				strings.Join(out.Speakers, ", "), out.Notes, out.Entities, res.Run)
			if out.NextQuestion != nil {
				fmt.Fprintf(a.stdout, "Next question: %s\n", out.NextQuestion.Text)
			} else {
				fmt.Fprintln(a.stdout, "The prompt pack has no question left: every item it covers is answered.")
			}
			return nil
		},
	})
	c.Flags().StringVar(&transcript, "transcript", "", "a transcript file: .vtt, .srt, .txt or .json")
	c.Flags().StringVar(&audio, "audio", "", "an audio recording, transcribed by the configured server")
	c.Flags().StringVar(&tenant, "tenant", "default", "tenant (the firm)")
	c.Flags().StringVar(&session, "session", "", "client session id (default: interview- and a hash of the file)")
	c.Flags().StringVar(&area, "area", "", "area of law whose prompt pack asks the next question (default: the intake's first)")
	c.Flags().StringVar(&whisperURL, "whisper-url", "", "base URL of an OpenAI-compatible transcription server (default $SANAD_TRANSCRIPTION_URL)")
	c.Flags().StringVar(&whisperModel, "whisper-model", "whisper-1", "the transcription model the server is asked for")
	c.Flags().StringVar(&language, "language", "", "the interview's language (ISO 639-1), passed to the server")
	return c
}

func (a *app) caseAddCommand() *cobra.Command {
	var tenant string
	var privileged, recursive bool
	c := a.jsonFlag(&cobra.Command{
		Use:   "add CASE FILE...",
		Short: "Add documents to a case: parsed, indexed and recorded in the case's memory",
		Long: `Ingests the files into the case's memory (see sanad ingest): each is parsed, chunked, indexed and
recorded as a document version through its lane. --privileged tags them privileged: a
privileged document never leaves through an export and is checked against every promotion.`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			scope := sanad.Scope{Tenant: tenant, Case: args[0]}
			return a.withHome(ctx, func(h *home.Home) error {
				if err := caseExists(ctx, h, scope); err != nil {
					return err
				}
				p, err := ingest.ForHome(h, ingest.HomeOptions{})
				if err != nil {
					return err
				}
				var sources []connector.Input
				for _, arg := range args[1:] {
					sources = append(sources, ingest.Source(arg, recursive))
				}
				opt := ingest.Options{Scope: scope}
				if privileged {
					opt.Metadata = map[string]any{"tags": []any{"privileged"}}
				}
				rep, err := p.Ingest(ctx, sources, opt)
				if err != nil {
					return err
				}
				if err := a.report(rep, func() {
					fmt.Fprintf(a.stdout, "added %d document(s), %d chunk(s) to case %s; %d unchanged; %d error(s) (run %s)\n",
						rep.Documents, rep.Chunks, scope.Case, rep.SkippedUnchanged, len(rep.Errors), rep.Run)
					for _, e := range rep.Errors {
						fmt.Fprintf(a.stdout, "  %s: %s: %s\n", e.Source, e.Code, e.Message)
					}
				}); err != nil {
					return err
				}
				if len(rep.Errors) > 0 {
					return failure{fmt.Errorf("%d file(s) could not be added", len(rep.Errors))}
				}
				return nil
			})
		},
	})
	c.Flags().StringVar(&tenant, "tenant", "default", "tenant (the firm)")
	c.Flags().BoolVar(&privileged, "privileged", false, "tag the documents privileged (attorney-client, work product)")
	c.Flags().BoolVarP(&recursive, "recursive", "r", false, "descend into folders")
	return c
}

func (a *app) caseMapCommand() *cobra.Command {
	var tenant, coaVersion string
	c := a.jsonFlag(&cobra.Command{
		Use:   "map CASE",
		Short: "Map a case's facts to the elements of causes of action, and name the gaps",
		Long: `The mapping agent reads the case's documents and transcripts, extracts the facts (each sentence
with its span), maps them to the elements of the causes of action of the pinned taxonomy, and
writes facts, evidence_map and coa_map through the WRITE_MAPPING_OUTPUTS lane. Prints the
mapping summary: each plausible cause with its elements, the facts that support them, and the
elements with no evidence yet. A screening aid for an attorney, not legal advice.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			scope := sanad.Scope{Tenant: tenant, Case: args[0]}
			if err := a.caseExistsIn(ctx, scope); err != nil {
				return err
			}
			// The run pins the taxonomy's version in its request.
			r, res, err := a.caseRun(ctx, casework.Map, scope, casework.MapInput{COAVersion: cmp.Or(coaVersion, coa.Default().Version)}, casework.Config{})
			if err != nil {
				return err
			}
			defer r.Close()
			var out casework.MapOutcome
			_ = json.Unmarshal(res.Outputs["map"], &out)
			if a.jsonOut {
				if err := a.printJSON(map[string]any{"case_id": scope.Case, "run": res.Run, "trace": res.Trace, "status": res.Status,
					"mapping": out, "errors": res.Errors}); err != nil {
					return err
				}
				return caseFailure(res)
			}
			if err := caseFailure(res); err != nil {
				return err
			}
			fmt.Fprint(a.stdout, out.Summary)
			fmt.Fprintf(a.stdout, "\n%d facts, causes-of-action taxonomy %s, %s mode (run %s)\n", out.Facts, out.COAVersion, out.Mode, res.Run)
			return nil
		},
	})
	c.Flags().StringVar(&tenant, "tenant", "default", "tenant (the firm)")
	c.Flags().StringVar(&coaVersion, "coa-version", "", "refuse to map unless the taxonomy has this version")
	return c
}

func (a *app) casePromoteCommand() *cobra.Command {
	var tenant, ticket string
	c := a.jsonFlag(&cobra.Command{
		Use:   "promote CASE --ticket TICKET.json",
		Short: "Promote sanitized insight of a case into shared knowledge under an approved ticket",
		Long: `TICKET.json holds {"ticket": {...}, "candidates": [...]}. The governance agent checks each
candidate against the case: raw_case_text (8 or more consecutive words of its documents or
transcripts), client_identity (personal data, or a party's name) and privileged_notes (a
privileged tag, or text of a privileged document). A refused candidate's receipt says which check
and where. Each candidate that passes waits at a gate for a person with role ATTORNEY_ADMIN:
sanad gates approve GATE --as NAME --role ATTORNEY_ADMIN; it is checked again as it is written
through the PROMOTE_SHARED_KNOWLEDGE lane.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if ticket == "" {
				return usagef("case promote needs --ticket TICKET.json")
			}
			data, err := readCaseFile("--ticket", ticket)
			if err != nil {
				return err
			}
			var in casework.PromoteInput
			if err := json.Unmarshal(data, &in); err != nil {
				return usagef("--ticket %s: %v", ticket, err)
			}
			if err := in.Ticket.Validate(); err != nil {
				return usageError{err}
			}
			scope := sanad.Scope{Tenant: tenant, Case: args[0]}
			if err := a.caseExistsIn(ctx, scope); err != nil {
				return err
			}
			r, res, err := a.caseRun(ctx, casework.Promote, scope, in, casework.Config{})
			if err != nil {
				return err
			}
			defer r.Close()
			var out casework.PromoteOutcome
			step := "publish"
			if _, ok := res.Outputs[step]; !ok {
				step = "check"
			}
			_ = json.Unmarshal(res.Outputs[step], &out)
			if a.jsonOut {
				if err := a.printJSON(map[string]any{"case_id": scope.Case, "run": res.Run, "trace": res.Trace, "status": res.Status,
					"gates": res.Gates, "receipts": out.Receipts, "errors": res.Errors}); err != nil {
					return err
				}
				return caseFailure(res)
			}
			if err := caseFailure(res); err != nil {
				return err
			}
			for _, rc := range out.Receipts {
				fmt.Fprintf(a.stdout, "%s: %s\n", rc.CandidateID, rc.Decision)
				for _, ch := range rc.Checks {
					if !ch.Passed {
						fmt.Fprintf(a.stdout, "  refused by %s: %s\n", ch.Check, ch.Detail)
					}
				}
			}
			a.printGates(res.Gates, casework.RoleAttorneyAdmin)
			return nil
		},
	})
	c.Flags().StringVar(&tenant, "tenant", "default", "tenant (the firm)")
	c.Flags().StringVar(&ticket, "ticket", "", "the promotion ticket and its candidates (JSON)")
	return c
}

func (a *app) caseExportCommand() *cobra.Command {
	var tenant, profile, out, reason string
	var kinds []string
	c := a.jsonFlag(&cobra.Command{
		Use:   "export CASE --profile PROFILE --reason TEXT -o FILE",
		Short: "Export a case, redacted per profile, as a bundle that verifies offline",
		Long: `The export agent authorizes the request through the EXPORT lane, redacts each selected item
(documents, transcripts, notes, maps) per the profile, assembles the export manifest (each
item's hash, size, redaction counts and the hash of the unredacted original) and finalizes the
receipt; privileged documents never leave. FILE is the export run's signed record with those
redacted items: check it anywhere with sanad verify FILE. Profiles: ` + strings.Join(profileNames(), ", ") + `.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if out == "" || profile == "" || reason == "" {
				return usagef("case export needs --profile PROFILE, --reason TEXT and -o FILE")
			}
			if st, err := os.Stat(filepath.Dir(out)); err != nil || !st.IsDir() {
				return usagef("-o %s: %s is not a folder that exists", out, filepath.Dir(out))
			}
			if _, ok := redact.Profiles()[profile]; !ok {
				return usagef("--profile %q: the profiles are %s", profile, strings.Join(profileNames(), ", "))
			}
			scope := sanad.Scope{Tenant: tenant, Case: args[0]}
			if err := a.caseExistsIn(ctx, scope); err != nil {
				return err
			}
			if len(kinds) == 0 {
				kinds = redact.Scopes
			}
			id := "exp-" + shortHash([]byte(scope.String()+profile+time.Now().UTC().Format(time.RFC3339Nano)))
			req := redact.Request{ID: id, CaseID: scope.Case, Profile: profile, Scope: kinds, Reason: reason}
			if err := req.Validate(redact.Profiles()); err != nil {
				return usageError{err}
			}
			r, res, err := a.caseRun(ctx, casework.Export, scope, casework.ExportInput{Request: req}, casework.Config{})
			if err != nil {
				return err
			}
			defer r.Close()
			if err := caseFailure(res); err != nil {
				if a.jsonOut {
					_ = a.printJSON(map[string]any{"case_id": scope.Case, "run": res.Run, "status": res.Status, "errors": res.Errors})
				}
				return err
			}
			var got casework.ExportOutcome
			_ = json.Unmarshal(res.Outputs["export"], &got)
			h := r.Home()
			x, err := exportTrace(cmd, h, scope, res.Trace, out)
			if err != nil {
				return err
			}
			key, err := h.Ledger.VerifierKey()
			if err != nil {
				return err
			}
			f, err := os.Open(out)
			if err != nil {
				return err
			}
			defer f.Close()
			rep, err := bundle.Verify(f, bundle.Options{Types: h.Types, LogKeys: bundle.PinLogKey(key)})
			if err != nil {
				return failure{err}
			}
			return a.report(map[string]any{"case_id": scope.Case, "run": res.Run, "trace": res.Trace, "bundle": out, "bundle_sha256": x.SHA256,
				"export_manifest": got.Manifest, "manifest_sha256": got.ManifestSHA256, "export_receipt": got.Receipt, "excluded": got.Excluded,
				"verified": rep}, func() {
				fmt.Fprintf(a.stdout, "Exported %d item(s) of case %s with profile %s to %s (verified: %d events)\n", len(got.Manifest.Items), scope.Case, profile, out, rep.Events)
				for _, it := range got.Manifest.Items {
					n := 0
					for _, c := range it.Redactions {
						n += c
					}
					fmt.Fprintf(a.stdout, "  %s  %d bytes, %d redaction(s), sha256 %s\n", it.Path, it.Size, n, it.SHA256[:16])
				}
				for _, it := range got.Excluded {
					fmt.Fprintf(a.stdout, "  excluded %s: %s\n", it.Path, it.Excluded)
				}
				fmt.Fprintf(a.stdout, "Manifest %s; verify anywhere with: sanad verify %s --log-key %s\n", got.ManifestSHA256, out, key)
			})
		},
	})
	c.Flags().StringVar(&tenant, "tenant", "default", "tenant (the firm)")
	c.Flags().StringVar(&profile, "profile", "", "redaction profile")
	c.Flags().StringVarP(&out, "output", "o", "", "bundle file to write")
	c.Flags().StringSliceVar(&kinds, "scope", nil, "what to export: documents, transcripts, notes, maps (default all)")
	c.Flags().StringVar(&reason, "reason", "", "why the export is made, for whom (required; recorded)")
	return c
}

func profileNames() []string {
	var names []string
	for n := range redact.Profiles() {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func (a *app) caseShowCommand() *cobra.Command {
	var tenant string
	c := a.jsonFlag(&cobra.Command{
		Use:   "show CASE",
		Short: "Show a case: its triage and gates, documents, transcripts, mapping, promotions and exports",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			scope := sanad.Scope{Tenant: tenant, Case: args[0]}
			return a.withHomeRead(ctx, func(h *home.Home) error {
				if err := caseExists(ctx, h, scope); err != nil {
					return err
				}
				v, err := casework.Show(ctx, h, scope)
				if err != nil {
					return err
				}
				return a.report(v, func() { fmt.Fprint(a.stdout, v.Text()) })
			})
		},
	})
	c.Flags().StringVar(&tenant, "tenant", "default", "tenant (the firm)")
	return c
}

func (a *app) evalCasesCommand() *cobra.Command {
	return a.jsonFlag(&cobra.Command{
		Use:   "cases DIR",
		Short: "Intake and causes-of-action mapping of a set of legal matters, against their expected.json",
		Long: `Runs every matter under DIR (a folder holding intake.json, an interview.* transcript, documents/
and expected.json, or a folder of such folders, as examples/cases) through intake, the interview,
the documents and the mapping, offline, each in a home of its own that is removed afterwards, and
scores it: the expected areas of law spotted as primary, the triage, the expected causes of action
mapped as supported or partial (recall), and the not_causes mapped so (false).`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			work, err := os.MkdirTemp("", "sanad-eval-cases-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(work)
			rep, err := casework.Evaluate(cmd.Context(), args[0], work)
			if err != nil {
				if sanad.ErrorCode(err) == sanad.CodeInvalidInput {
					return usageError{err}
				}
				return failure{err}
			}
			return a.report(rep, func() {
				for _, m := range rep.Matters {
					fmt.Fprintf(a.stdout, "%-24s areas %d/%d  triage %s (want %s)  causes %d/%d  false %d\n",
						m.Matter, m.AreasFound, m.Areas, m.Triage, m.WantTriage, m.CausesFound, m.Causes, len(m.FalseCauses))
					if len(m.Missed) > 0 {
						fmt.Fprintf(a.stdout, "  missed: %s\n", strings.Join(m.Missed, ", "))
					}
					if len(m.FalseCauses) > 0 {
						fmt.Fprintf(a.stdout, "  false:  %s\n", strings.Join(m.FalseCauses, ", "))
					}
				}
				fmt.Fprintf(a.stdout, "overall: %d matters; area recall %.3f, triage %d/%d, cause recall %.3f, false causes %d of %d not expected\n",
					rep.MattersCount, rep.AreaRecall, rep.TriageOK, rep.MattersCount, rep.CauseRecall, rep.FalseCauses, rep.NotCauses)
			})
		},
	})
}
