package casework

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/agent"
	"github.com/sanadhq/sanad/casework/coa"
	"github.com/sanadhq/sanad/casework/intake"
	"github.com/sanadhq/sanad/casework/interview"
	"github.com/sanadhq/sanad/casework/promote"
	"github.com/sanadhq/sanad/casework/redact"
	"github.com/sanadhq/sanad/dbwrite"
)

// OpenInput is the input of case-open.
type OpenInput struct {
	// Form is the client_intake_form.
	Form            json.RawMessage `json:"form"`
	ClientSessionID string          `json:"client_session_id"`
	// AsOf is the date limitation periods are counted to (today when empty).
	AsOf string `json:"as_of,omitempty"`
}

// InterviewInput is the input of case-interview: an uploaded transcript or
// recording, an artifact of the case.
type InterviewInput struct {
	ClientSessionID string `json:"client_session_id"`
	Artifact        string `json:"artifact"`
	Name            string `json:"name"`
	MediaType       string `json:"media_type,omitempty"`
	Language        string `json:"language,omitempty"`
	// Area picks the prompt pack (the intake's first area when empty).
	Area string `json:"area,omitempty"`
}

// MapInput is the input of case-map.
type MapInput struct {
	// COAVersion, when set, must be the taxonomy's version: the run pins it.
	COAVersion string `json:"coa_version,omitempty"`
}

// PromoteInput is the input of case-promote.
type PromoteInput struct {
	Ticket     promote.Ticket      `json:"ticket"`
	Candidates []promote.Candidate `json:"candidates"`
}

// ExportInput is the input of case-export.
type ExportInput struct {
	Request redact.Request `json:"request"`
}

// Outcome is what every agent step returns (§2.2): who, for which request,
// success, deny or failure, and the agent's outputs.
type Outcome struct {
	Agent   string `json:"agent"`
	Request string `json:"request"`
	Outcome string `json:"outcome"`
}

// call calls a tool with v as its input and decodes its output into out.
func call(ctx context.Context, in agent.Input, name string, v, out any) error {
	arg, err := json.Marshal(v)
	if err != nil {
		return sanad.Wrap(err, sanad.CodeInternal, "casework", "the input of "+name)
	}
	raw, err := in.Tools.Call(ctx, name, arg)
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return sanad.Wrap(err, sanad.CodeInternal, "casework", "the output of "+name)
	}
	return nil
}

// write writes a record through db.write under lane.
func write(ctx context.Context, in agent.Input, lane, table string, op dbwrite.Op, key string, record any, fields map[string]string) error {
	raw, err := json.Marshal(record)
	if err != nil {
		return sanad.Wrap(err, sanad.CodeInternal, "casework", "a record of "+table)
	}
	return call(ctx, in, ToolWrite, WriteInput{Lane: lane, Table: table, Op: op, Key: key, Record: raw, Fields: fields}, nil)
}

func decodeInput(in agent.Input, v any) error {
	if len(in.Input) == 0 {
		return sanad.Errorf(sanad.CodeInvalidInput, "casework", "the request has no input")
	}
	if err := json.Unmarshal(in.Input, v); err != nil {
		return sanad.Wrap(err, sanad.CodeInvalidInput, "casework", "the request")
	}
	return nil
}

func output(v any, summary string) (agent.Output, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return agent.Output{}, err
	}
	return agent.Output{Content: raw, Summary: summary}, nil
}

// IntakeOutcome is the intake agent's assessment.
type IntakeOutcome struct {
	Outcome
	Assessment intake.Assessment `json:"assessment"`
}

// TriageOutcome is the triage as an attorney left it.
type TriageOutcome struct {
	Outcome
	Triage intake.Triage `json:"triage"`
	// Confirmed says an attorney confirmed the triage at its gate;
	// Overturned that one rejected it.
	Confirmed  bool `json:"triage_confirmed"`
	Overturned bool `json:"triage_overturned,omitempty"`
}

// intakeNode is INTAKE_AGENT (§4.2): the assessment, then the triage's
// confirmation by an attorney.
func intakeNode(cfg Config) func(ctx context.Context, in agent.Input) (agent.Output, error) {
	return func(ctx context.Context, in agent.Input) (agent.Output, error) {
		if in.Task == taskTriage {
			return confirmTriage(ctx, in)
		}
		return assess(ctx, cfg, in)
	}
}

// assess reads the form, assesses it, and writes the parties as entities
// and the assessment as intake notes under WRITE_INTAKE_ARTIFACTS.
func assess(ctx context.Context, cfg Config, in agent.Input) (agent.Output, error) {
	var req OpenInput
	if err := decodeInput(in, &req); err != nil {
		return agent.Output{}, err
	}
	form, err := intake.ParseForm(req.Form)
	if err != nil {
		return agent.Output{}, err
	}
	asOf := cfg.Now()
	if req.AsOf != "" {
		if asOf, err = time.Parse(time.DateOnly, req.AsOf); err != nil {
			return agent.Output{}, sanad.Errorf(sanad.CodeInvalidInput, "intake", "as_of %q is not a date (YYYY-MM-DD)", req.AsOf)
		}
	}
	opts := intake.Options{AsOf: asOf}
	// With a model, it spots the areas of law (restricted to the
	// taxonomy's ids); the assessment is the same either way.
	if in.Model != nil {
		text := strings.Join([]string{form.MatterType, form.Narrative, form.DesiredOutcome}, "\n")
		if opts.Areas, err = intake.SpotWithModel(ctx, in.Model, text, nil); err != nil {
			return agent.Output{}, err
		}
	}
	a := intake.Assess(form, opts)
	fields := map[string]string{"client_session_id": req.ClientSessionID}
	ents := EntityRecord{ClientSessionID: req.ClientSessionID, Source: "intake", Roles: map[string]string{}}
	addParty := func(name, kind, role string) {
		name = strings.TrimSpace(name)
		if name == "" {
			return
		}
		id := kind + "-" + sha256Hex(strings.ToLower(name))[:12]
		ents.Entities = append(ents.Entities, interview.Entity{ID: id, Kind: kind, Text: name, Normalized: strings.ToLower(name)})
		ents.Roles[id] = role
	}
	addParty(form.Client.Name, "person", "client")
	for _, p := range form.Parties {
		addParty(p.Name, "person", p.Role)
		addParty(p.Organisation, "organization", p.Role)
	}
	if err := write(ctx, in, LaneIntake, tableEntities, dbwrite.Upsert, "intake", ents, fields); err != nil {
		return agent.Output{}, err
	}
	notes := NotesRecord{Kind: "intake", ClientSessionID: req.ClientSessionID, Intake: &a, Form: &form}
	if err := write(ctx, in, LaneIntake, tableNotes, dbwrite.Append, "", notes, fields); err != nil {
		return agent.Output{}, err
	}
	out := IntakeOutcome{Outcome: Outcome{Agent: RoleIntake, Request: Open, Outcome: "success"}, Assessment: a}
	return output(out, fmt.Sprintf("triage %s (%d areas, %d checklist items)", a.Triage.Recommendation, len(a.Summary.Areas), len(a.Checklist.Items)))
}

// confirmTriage asks for the triage's confirmation: the call waits at its
// gate until an attorney approves (confirmed) or rejects (overturned) it.
func confirmTriage(ctx context.Context, in agent.Input) (agent.Output, error) {
	var req OpenInput
	if err := decodeInput(in, &req); err != nil {
		return agent.Output{}, err
	}
	var prev IntakeOutcome
	if err := json.Unmarshal(in.Inputs["intake"], &prev); err != nil {
		return agent.Output{}, sanad.Wrap(err, sanad.CodeInvalidInput, "intake", "the assessment")
	}
	out := TriageOutcome{Outcome: Outcome{Agent: RoleIntake, Request: Open, Outcome: "success"}, Triage: prev.Assessment.Triage}
	err := call(ctx, in, ToolConfirmTriage, map[string]any{"client_session_id": req.ClientSessionID, "triage": out.Triage}, nil)
	var te *agent.ToolError
	switch {
	case err == nil:
		out.Confirmed = true
	case errors.As(err, &te) && te.Code == sanad.CodeBlocked:
		out.Overturned = true
	default:
		return agent.Output{}, err
	}
	status := "confirmed"
	if out.Overturned {
		status = "overturned"
	}
	return output(out, "triage "+string(out.Triage.Recommendation)+" "+status+" by an attorney")
}

// InterviewOutcome is the interview agent's output.
type InterviewOutcome struct {
	Outcome
	TranscriptID string              `json:"transcript_id"`
	Turns        int                 `json:"turns"`
	Speakers     []string            `json:"speakers"`
	Notes        int                 `json:"notes"`
	Entities     int                 `json:"entities"`
	NextQuestion *interview.Question `json:"next_question,omitempty"`
}

// capture is INTERVIEW_AGENT (§4.3): transcription and the next prompt
// through TOOL_INTERVIEW_CAPTURE, the transcript, notes and entities through
// WRITE_INTAKE_ARTIFACTS.
func capture(ctx context.Context, in agent.Input) (agent.Output, error) {
	var req InterviewInput
	if err := decodeInput(in, &req); err != nil {
		return agent.Output{}, err
	}
	var tr struct {
		ID         string               `json:"transcript_id"`
		Transcript interview.Transcript `json:"transcript"`
	}
	if err := call(ctx, in, ToolTranscribe, map[string]any{"client_session_id": req.ClientSessionID, "artifact": req.Artifact,
		"name": req.Name, "media_type": req.MediaType, "language": req.Language}, &tr); err != nil {
		return agent.Output{}, err
	}
	t := tr.Transcript
	notes := interview.ExtractNotes(t)
	ents := interview.ExtractEntities(t)
	var covered []string
	for item, ok := range interview.Covered(notes) {
		if ok {
			covered = append(covered, item)
		}
	}
	slices.Sort(covered)
	var next struct {
		Question *interview.Question `json:"question"`
	}
	if err := call(ctx, in, ToolPromptNext, map[string]any{"client_session_id": req.ClientSessionID, "area": req.Area, "covered": covered}, &next); err != nil {
		return agent.Output{}, err
	}
	fields := map[string]string{"client_session_id": req.ClientSessionID}
	if err := write(ctx, in, LaneIntake, tableTranscripts, dbwrite.Append, "", TranscriptRecord{ID: tr.ID, ClientSessionID: req.ClientSessionID, Transcript: t}, fields); err != nil {
		return agent.Output{}, err
	}
	if err := write(ctx, in, LaneIntake, tableNotes, dbwrite.Append, "", NotesRecord{Kind: "interview", ClientSessionID: req.ClientSessionID,
		TranscriptID: tr.ID, Notes: &notes, NextQuestion: next.Question}, fields); err != nil {
		return agent.Output{}, err
	}
	if err := write(ctx, in, LaneIntake, tableEntities, dbwrite.Upsert, "interview:"+tr.ID,
		EntityRecord{ClientSessionID: req.ClientSessionID, Source: "interview:" + tr.ID, Entities: ents}, fields); err != nil {
		return agent.Output{}, err
	}
	out := InterviewOutcome{Outcome: Outcome{Agent: RoleInterview, Request: Interview, Outcome: "success"}, TranscriptID: tr.ID,
		Turns: len(t.Turns), Notes: len(notes.Items), Entities: len(ents), NextQuestion: next.Question}
	seen := map[string]bool{}
	for _, turn := range t.Turns {
		if !seen[turn.Speaker] {
			seen[turn.Speaker] = true
			out.Speakers = append(out.Speakers, turn.Speaker)
		}
	}
	return output(out, fmt.Sprintf("%d turns, %d notes, %d entities", out.Turns, out.Notes, out.Entities))
}

// MapOutcome is the mapping agent's output.
type MapOutcome struct {
	Outcome
	COAVersion   string         `json:"coa_version"`
	TaxonomyHash string         `json:"taxonomy_sha256"`
	Mode         string         `json:"mode"` // rules | model
	Facts        int            `json:"facts"`
	Causes       []coa.CauseMap `json:"coa_map"`
	Summary      string         `json:"mapping_summary"`
}

// mapFacts is MAPPING_AGENT (§4.4): the case's documents and transcripts to
// facts, facts to the elements of causes of action, written under
// WRITE_MAPPING_OUTPUTS with the taxonomy's version pinned.
func mapFacts(cfg Config) func(ctx context.Context, in agent.Input) (agent.Output, error) {
	return func(ctx context.Context, in agent.Input) (agent.Output, error) {
		var req MapInput
		if len(in.Input) > 0 {
			if err := decodeInput(in, &req); err != nil {
				return agent.Output{}, err
			}
		}
		t := cfg.COA
		if req.COAVersion != "" && req.COAVersion != t.Version {
			return agent.Output{}, sanad.Errorf(sanad.CodeInvalidInput, "mapping", "coa_version %s was asked for; this runtime has the causes-of-action taxonomy %s", req.COAVersion, t.Version)
		}
		var got struct {
			Sources []Source `json:"sources"`
			Areas   []string `json:"areas"`
		}
		if err := call(ctx, in, ToolSources, map[string]any{}, &got); err != nil {
			return agent.Output{}, err
		}
		if len(got.Sources) == 0 {
			return agent.Output{}, sanad.Errorf(sanad.CodeInvalidInput, "mapping", "the case has no documents or transcripts to map: add them first")
		}
		srcs := make([]coa.Source, len(got.Sources))
		for i, s := range got.Sources {
			srcs[i] = coa.Source{ID: s.ID, Kind: s.Kind, Name: s.Name, Text: s.Text}
		}
		facts := coa.ExtractFacts(srcs)
		opts := coa.Options{Areas: got.Areas}
		m, mode := coa.MapFacts(t, facts, opts), "rules"
		if in.Model != nil {
			mm, err := coa.MapWithModel(ctx, in.Model, t, facts, opts)
			if err != nil {
				return agent.Output{}, err
			}
			m, mode = mm, "model"
		}
		// The same structural checks whoever mapped.
		if err := m.Check(t, srcs); err != nil {
			return agent.Output{}, err
		}
		// The summary is for a person: sources by name, not by id.
		summary := coa.Summary(m)
		for _, s := range got.Sources {
			summary = strings.ReplaceAll(summary, "("+s.ID+", bytes", "("+s.Name+", bytes")
		}
		fields := map[string]string{"coa_version": m.COAVersion}
		base := MapRecord{COAVersion: m.COAVersion, TaxonomyHash: m.TaxonomyHash}
		facts1, ev, cm := base, base, base
		facts1.Facts, ev.Evidence, cm.Causes, cm.Summary = m.Facts, m.Evidence, m.Causes, summary
		for _, w := range []struct {
			table string
			rec   MapRecord
		}{{tableFacts, facts1}, {tableEvidence, ev}, {tableCOA, cm}} {
			if err := write(ctx, in, LaneMapping, w.table, dbwrite.Append, "", w.rec, fields); err != nil {
				return agent.Output{}, err
			}
		}
		out := MapOutcome{Outcome: Outcome{Agent: RoleMapping, Request: Map, Outcome: "success"}, COAVersion: m.COAVersion,
			TaxonomyHash: m.TaxonomyHash, Mode: mode, Facts: len(m.Facts), Causes: m.Causes, Summary: summary}
		return output(out, fmt.Sprintf("%d facts mapped to %d causes of action", out.Facts, len(out.Causes)))
	}
}

// DecisionAwaitingApproval is the decision of a candidate that passed its
// checks and waits for an attorney admin at its gate.
const DecisionAwaitingApproval = "awaiting_approval"

// PromoteOutcome is the governance agent's output.
type PromoteOutcome struct {
	Outcome
	Receipts []promote.Receipt `json:"receipts"`
	// Checked are the checks of the check step, by candidate.
	Checked []promote.Result `json:"checked,omitempty"`
}

// govern is GOVERNANCE_AGENT (§4.5): the check step checks each candidate
// of the ticket against the case; the publish step asks, for each that
// passed, an ATTORNEY_ADMIN to approve its publication at the call's gate,
// and the publication checks it again as it writes.
func govern(ctx context.Context, in agent.Input) (agent.Output, error) {
	var req PromoteInput
	if err := decodeInput(in, &req); err != nil {
		return agent.Output{}, err
	}
	if err := req.Ticket.Validate(); err != nil {
		return agent.Output{}, err
	}
	out := PromoteOutcome{Outcome: Outcome{Agent: RoleGovernance, Request: Promote, Outcome: "success"}}
	if in.Task == taskCheck {
		for _, c := range req.Candidates {
			if !slices.Contains(req.Ticket.CandidateIDs, c.ID) {
				return agent.Output{}, sanad.Errorf(sanad.CodeInvalidInput, "governance", "candidate %s is not listed in ticket %s", c.ID, req.Ticket.ID)
			}
			var res promote.Result
			if err := call(ctx, in, ToolPromotionCheck, map[string]any{"candidate": c}, &res); err != nil {
				return agent.Output{}, err
			}
			out.Checked = append(out.Checked, res)
			r := promote.NewReceipt(req.Ticket, c, res)
			if res.Allowed {
				r.Decision = DecisionAwaitingApproval
			}
			out.Receipts = append(out.Receipts, r)
		}
		return output(out, fmt.Sprintf("%d candidates checked", len(out.Receipts)))
	}
	var checked PromoteOutcome
	if err := json.Unmarshal(in.Inputs["check"], &checked); err != nil {
		return agent.Output{}, sanad.Wrap(err, sanad.CodeInvalidInput, "governance", "the checks")
	}
	promoted := 0
	for i, c := range req.Candidates {
		if i >= len(checked.Checked) {
			break
		}
		res := checked.Checked[i]
		if res.Allowed {
			err := call(ctx, in, ToolPublish, map[string]any{"ticket": req.Ticket, "candidate": c}, nil)
			var te *agent.ToolError
			switch {
			case err == nil:
				promoted++
			case errors.As(err, &te) && (te.Code == sanad.CodeBlocked || te.Code == sanad.CodePolicyDenied):
				res.Allowed = false
				res.Findings = append(res.Findings, promote.Finding{Check: "approval", Detail: te.Message})
			default:
				return agent.Output{}, err
			}
		}
		out.Receipts = append(out.Receipts, promote.NewReceipt(req.Ticket, c, res))
	}
	if promoted < len(out.Receipts) {
		out.Outcome.Outcome = "deny"
	}
	return output(out, fmt.Sprintf("%d of %d candidates promoted", promoted, len(out.Receipts)))
}

// ExportOutcome is the export agent's output.
type ExportOutcome struct {
	Outcome
	Manifest       redact.Manifest `json:"export_manifest"`
	ManifestSHA256 string          `json:"manifest_sha256"`
	Receipt        Receipt         `json:"export_receipt"`
	Excluded       []ExportItem    `json:"excluded,omitempty"`
}

// export is EXPORT_AGENT (§4.6): authorize, redact each item, assemble and
// finalize through the EXPORT lane, and record the bundle in
// export_bundles.
func export(ctx context.Context, in agent.Input) (agent.Output, error) {
	var req ExportInput
	if err := decodeInput(in, &req); err != nil {
		return agent.Output{}, err
	}
	r := req.Request
	id := map[string]string{"export_request_id": r.ID}
	var auth struct {
		Profile        string       `json:"profile"`
		ProfileVersion string       `json:"profile_version"`
		Items          []ExportItem `json:"items"`
	}
	if err := call(ctx, in, ToolExportAuthorize, map[string]any{"export_request_id": r.ID, "request": r}, &auth); err != nil {
		return agent.Output{}, err
	}
	out := ExportOutcome{Outcome: Outcome{Agent: RoleExport, Request: Export, Outcome: "success"}}
	m := redact.Manifest{ExportRequestID: r.ID, CaseID: r.CaseID, Profile: auth.Profile, ProfileVersion: auth.ProfileVersion}
	for _, it := range auth.Items {
		if it.Excluded != "" {
			out.Excluded = append(out.Excluded, it)
			continue
		}
		var got Redacted
		if err := call(ctx, in, ToolRedact, map[string]any{"export_request_id": r.ID, "item": it.Item, "profile": auth.Profile}, &got); err != nil {
			return agent.Output{}, err
		}
		m.Items = append(m.Items, redact.Item{Path: got.Path, Kind: got.Kind, SHA256: got.SHA256, Size: got.Size,
			Redactions: got.Redactions, SourceSHA256: got.SourceSHA256})
	}
	var asm struct {
		SHA256 string `json:"manifest_sha256"`
	}
	if err := call(ctx, in, ToolExportAssemble, map[string]any{"export_request_id": r.ID, "manifest": m}, &asm); err != nil {
		return agent.Output{}, err
	}
	if err := call(ctx, in, ToolExportFinalize, map[string]any{"export_request_id": r.ID, "manifest_sha256": asm.SHA256, "items": len(m.Items)}, &out.Receipt); err != nil {
		return agent.Output{}, err
	}
	if err := write(ctx, in, LaneExport, tableExports, dbwrite.Append, "", map[string]any{"export_request_id": r.ID, "profile": auth.Profile,
		"manifest_sha256": asm.SHA256, "items": len(m.Items)}, id); err != nil {
		return agent.Output{}, err
	}
	out.Manifest, out.ManifestSHA256 = m, asm.SHA256
	return output(out, fmt.Sprintf("%d items exported with profile %s", len(m.Items), auth.Profile))
}
