package casework

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/casework/interview"
	"github.com/sanadhq/sanad/casework/promote"
	"github.com/sanadhq/sanad/dbwrite"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/runs"
	"github.com/sanadhq/sanad/tool"
)

// Tools of the playbooks.
const (
	ToolWrite               = "db.write"
	ToolSources             = "case.sources"
	ToolConfirmTriage       = "intake.confirm"
	ToolTranscribe          = "transcription.run"
	ToolTranscriptionStatus = "transcription.status"
	ToolPromptNext          = "interview.prompt.next"
	ToolPromotionCheck      = "promotion.check"
	ToolPublish             = "promotion.publish"
	ToolExportAuthorize     = "export.authorize"
	ToolRedact              = "redaction.apply"
	ToolExportAssemble      = "export.assemble"
	ToolExportFinalize      = "export.finalize"
)

// WriteInput is db.write's input: one record for a domain table, through a
// lane. The record's case and run are the calling run's.
type WriteInput struct {
	Lane   string            `json:"lane"`
	Table  string            `json:"table"`
	Op     dbwrite.Op        `json:"op"`
	Key    string            `json:"key,omitempty"`
	Record json.RawMessage   `json:"record"`
	Fields map[string]string `json:"fields,omitempty"`
	Tags   []string          `json:"tags,omitempty"`
}

// kit is what the tools share.
type kit struct {
	h      *home.Home
	pol    *policy.Set
	cfg    Config
	writer *dbwrite.Writer
	store  store
}

// tools returns the casework tools over h.
func tools(h *home.Home, pol *policy.Set, cfg Config) []tool.Spec {
	k := &kit{h: h, pol: pol, cfg: cfg, writer: &dbwrite.Writer{Policy: pol, Runs: h.Runs, Artifacts: h.Artifacts}, store: store{h}}
	obj := json.RawMessage(`{"type":"object"}`)
	spec := func(name, lane, risk, desc, input string, side tool.SideEffect, fn tool.Func) tool.Spec {
		return tool.Spec{Name: name, Lane: lane, Risk: risk, Description: desc, InputSchema: json.RawMessage(input), OutputSchema: obj,
			SideEffect: side, Idempotent: true, Func: fn}
	}
	session := `"client_session_id":{"type":"string","minLength":1,"maxLength":128}`
	exportID := `"export_request_id":{"type":"string","minLength":1,"maxLength":128}`
	specs := []tool.Spec{
		spec(ToolWrite, "", "write", "Write a record to a domain table as a db_write child run under a lane; the lane decides who may.",
			`{"type":"object","required":["lane","table","op","record"],"additionalProperties":false,"properties":{
  "lane":{"type":"string","minLength":1,"maxLength":64},"table":{"type":"string","minLength":1,"maxLength":64},
  "op":{"enum":["append","upsert"]},"key":{"type":"string","maxLength":256},"record":{"type":"object"},
  "fields":{"type":"object","additionalProperties":{"type":"string","maxLength":256}},
  "tags":{"type":"array","items":{"type":"string","maxLength":64},"maxItems":16}}}`,
			tool.SideEffectInternal, k.write),
		spec(ToolSources, "", "read", "The case's documents (their Markdown) and interview transcripts, with ids and hashes.",
			`{"type":"object","additionalProperties":false,"properties":{}}`, tool.SideEffectNone, k.sources),
		spec(ToolConfirmTriage, "", "attorney_approval", "Record the intake triage an attorney confirmed at this call's approval gate.",
			`{"type":"object","required":["client_session_id","triage"],"properties":{`+session+`,"triage":{"type":"object"}}}`,
			tool.SideEffectInternal, k.confirmTriage),
		spec(ToolTranscribe, LaneInterview, "", "Transcribe an interview: a transcript file (VTT, SRT, TXT, JSON) or audio through the configured transcription server.",
			`{"type":"object","required":["client_session_id","artifact","name"],"additionalProperties":false,"properties":{`+session+`,
  "artifact":{"type":"string","pattern":"^sha256:[0-9a-f]{64}$"},"name":{"type":"string","minLength":1,"maxLength":256},
  "media_type":{"type":"string","maxLength":128},"language":{"type":"string","maxLength":16}}}`,
			tool.SideEffectInternal, k.transcribe),
		spec(ToolTranscriptionStatus, LaneInterview, "", "Whether a transcription is done: transcription is synchronous, so a known transcript is done and an unknown one is not found.",
			`{"type":"object","required":["client_session_id","transcript_id"],"additionalProperties":false,"properties":{`+session+`,"transcript_id":{"type":"string","minLength":1,"maxLength":128}}}`,
			tool.SideEffectNone, k.transcriptionStatus),
		spec(ToolPromptNext, LaneInterview, "", "The next interview question of the governed prompt pack of the matter's area, given what the notes already cover.",
			`{"type":"object","required":["client_session_id"],"additionalProperties":false,"properties":{`+session+`,
  "area":{"type":"string","maxLength":64},"covered":{"type":"array","items":{"type":"string","maxLength":128},"maxItems":1000}}}`,
			tool.SideEffectNone, k.promptNext),
		spec(ToolPromotionCheck, "", "read", "Check a candidate insight against raw_case_text, client_identity and privileged_notes over the case's texts and parties.",
			`{"type":"object","required":["candidate"],"additionalProperties":false,"properties":{"candidate":{"type":"object"}}}`,
			tool.SideEffectNone, k.promotionCheck),
		spec(ToolPublish, "", "attorney_approval", "Write a checked candidate into shared knowledge under its approved ticket.",
			`{"type":"object","required":["ticket","candidate"],"additionalProperties":false,"properties":{"ticket":{"type":"object"},"candidate":{"type":"object"}}}`,
			tool.SideEffectInternal, k.publish),
		spec(ToolExportAuthorize, LaneExport, "", "Authorize an export request: its profile, scope and the case's items it selects (by opaque id).",
			`{"type":"object","required":["export_request_id","request"],"additionalProperties":false,"properties":{`+exportID+`,"request":{"type":"object"}}}`,
			tool.SideEffectNone, k.exportAuthorize),
		spec(ToolRedact, LaneExport, "", "Redact one selected item of the case per the export's profile; privileged items are refused.",
			`{"type":"object","required":["export_request_id","item","profile"],"additionalProperties":false,"properties":{`+exportID+`,
  "item":{"type":"string","minLength":1,"maxLength":128},"profile":{"type":"string","minLength":1,"maxLength":64}}}`,
			tool.SideEffectNone, k.redact),
		spec(ToolExportAssemble, LaneExport, "", "Assemble the export manifest: every redacted item with its hash, size and redaction counts.",
			`{"type":"object","required":["export_request_id","manifest"],"additionalProperties":false,"properties":{`+exportID+`,"manifest":{"type":"object"}}}`,
			tool.SideEffectNone, k.exportAssemble),
		spec(ToolExportFinalize, LaneExport, "", "Finalize an export: the receipt naming the manifest's hash.",
			`{"type":"object","required":["export_request_id","manifest_sha256"],"additionalProperties":false,"properties":{`+exportID+`,
  "manifest_sha256":{"type":"string","pattern":"^[0-9a-f]{64}$"},"items":{"type":"integer","minimum":0}}}`,
			tool.SideEffectNone, k.exportFinalize),
	}
	for i := range specs {
		switch specs[i].Name {
		case ToolConfirmTriage:
			specs[i].Approver = RoleAttorney
		case ToolPublish:
			specs[i].Approver = RoleAttorneyAdmin
		}
	}
	return specs
}

// attach returns the run a tool call executes in, to write under.
func (k *kit) attach(ctx context.Context, id string) (*runs.Run, error) {
	rec, err := k.h.DB.Run(ctx, id)
	if err != nil {
		return nil, err
	}
	return k.h.Runs.Attach(rec, "")
}

// write is db.write: the record goes through dbwrite as the caller, so the
// lane judges the caller's role, the action, the scope fields and the tags.
func (k *kit) write(ctx context.Context, c tool.Call) (json.RawMessage, error) {
	var in WriteInput
	if err := json.Unmarshal(c.Input, &in); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, ToolWrite, "input")
	}
	run, err := k.attach(ctx, c.Run)
	if err != nil {
		return nil, err
	}
	res, err := k.writer.Write(ctx, run, c.Principal, dbwrite.Request{Lane: in.Lane, Table: in.Table, Op: in.Op, Key: in.Key,
		Record: in.Record, Fields: in.Fields, Tags: in.Tags})
	if err != nil {
		return nil, err
	}
	return json.Marshal(res)
}

// sources gives the mapping agent the case's evidence: its documents and
// transcripts, less the privileged ones (the firm's own notes are not
// evidence of the facts), which it counts.
func (k *kit) sources(ctx context.Context, c tool.Call) (json.RawMessage, error) {
	all, err := k.store.sources(ctx, c.Principal.Scope)
	if err != nil {
		return nil, err
	}
	srcs := make([]Source, 0, len(all))
	for _, s := range all {
		if !s.Privileged {
			srcs = append(srcs, s)
		}
	}
	in, err := k.store.intakeOf(ctx, c.Principal.Scope)
	if err != nil {
		return nil, err
	}
	var areas []string
	if in != nil && in.Intake != nil {
		for _, a := range in.Intake.Summary.Areas {
			areas = append(areas, a.ID)
		}
	}
	return json.Marshal(map[string]any{"sources": srcs, "areas": areas, "privileged_withheld": len(all) - len(srcs)})
}

func (k *kit) confirmTriage(_ context.Context, c tool.Call) (json.RawMessage, error) {
	var in struct {
		Triage json.RawMessage `json:"triage"`
	}
	if err := json.Unmarshal(c.Input, &in); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, ToolConfirmTriage, "input")
	}
	return json.Marshal(map[string]any{"confirmed": true, "triage": in.Triage})
}

func (k *kit) transcribe(ctx context.Context, c tool.Call) (json.RawMessage, error) {
	const op = ToolTranscribe
	var in struct {
		Artifact  string `json:"artifact"`
		Name      string `json:"name"`
		MediaType string `json:"media_type"`
		Language  string `json:"language"`
	}
	if err := json.Unmarshal(c.Input, &in); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, "input")
	}
	// The upload must be an artifact of this case: Get refuses another's.
	data, _, err := k.h.Artifacts.Get(ctx, in.Artifact, c.Principal.Scope)
	if err != nil {
		return nil, err
	}
	var t interview.Transcript
	if strings.HasPrefix(in.MediaType, "audio/") || isAudio(in.Name) {
		if k.cfg.Transcriber == nil {
			return nil, sanad.Errorf(sanad.CodeDependencyDown, op, "%s is audio and no transcription server is configured (an OpenAI-compatible /v1/audio/transcriptions server, such as whisper.cpp's); give a transcript file instead", in.Name)
		}
		t, err = k.cfg.Transcriber.Transcribe(ctx, in.Name, strings.NewReader(string(data)))
	} else {
		t, err = interview.ParseTranscript(in.Name, data)
	}
	if err != nil {
		return nil, err
	}
	if in.Language != "" && t.Language == "" {
		t.Language = in.Language
	}
	return json.Marshal(map[string]any{"transcript_id": "tr-" + sha256Hex(t.Text)[:16], "state": "done", "transcript": t})
}

func isAudio(name string) bool {
	i := strings.LastIndexByte(name, '.')
	return i >= 0 && slices.Contains([]string{".wav", ".mp3", ".m4a", ".ogg", ".flac", ".webm", ".mp4", ".mpga", ".mpeg"}, strings.ToLower(name[i:]))
}

func (k *kit) transcriptionStatus(ctx context.Context, c tool.Call) (json.RawMessage, error) {
	var in struct {
		ID string `json:"transcript_id"`
	}
	if err := json.Unmarshal(c.Input, &in); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, ToolTranscriptionStatus, "input")
	}
	trs, _, err := records[TranscriptRecord](ctx, k.store, c.Principal.Scope, tableTranscripts)
	if err != nil {
		return nil, err
	}
	for _, t := range trs {
		if t.ID == in.ID {
			return json.Marshal(map[string]any{"transcript_id": t.ID, "state": "done", "turns": len(t.Transcript.Turns)})
		}
	}
	return nil, sanad.Errorf(sanad.CodeNotFound, ToolTranscriptionStatus, "no transcript %s in case %s", in.ID, c.Principal.Scope.Case)
}

// promptNext picks the pack of the area asked for, else of the intake's
// first area, else the general pack.
func (k *kit) promptNext(ctx context.Context, c tool.Call) (json.RawMessage, error) {
	const op = ToolPromptNext
	var in struct {
		Area    string   `json:"area"`
		Covered []string `json:"covered"`
	}
	if err := json.Unmarshal(c.Input, &in); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, "input")
	}
	packs, err := interview.LoadPacks()
	if err != nil {
		return nil, err
	}
	if in.Area == "" {
		rec, err := k.store.intakeOf(ctx, c.Principal.Scope)
		if err != nil {
			return nil, err
		}
		if rec != nil && rec.Intake != nil && len(rec.Intake.Summary.Areas) > 0 {
			in.Area = rec.Intake.Summary.Areas[0].ID
		}
	}
	pack, ok := packs[in.Area]
	if !ok {
		if pack, ok = packs["general"]; !ok {
			return nil, sanad.Errorf(sanad.CodeNotFound, op, "no prompt pack for area %q and no general pack", in.Area)
		}
	}
	covered := map[string]bool{}
	for _, item := range in.Covered {
		covered[item] = true
	}
	q, more := interview.Next(pack, covered)
	out := map[string]any{"pack": pack.ID, "pack_version": pack.Version, "done": !more}
	if more {
		out["question"] = q
	}
	return json.Marshal(out)
}

func (k *kit) promotionCheck(ctx context.Context, c tool.Call) (json.RawMessage, error) {
	var in struct {
		Candidate promote.Candidate `json:"candidate"`
	}
	if err := json.Unmarshal(c.Input, &in); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, ToolPromotionCheck, "input")
	}
	res, err := k.checkCandidate(ctx, c.Principal.Scope, in.Candidate)
	if err != nil {
		return nil, err
	}
	return json.Marshal(res)
}

// checkCandidate checks c against the case of scope: its texts, with the
// privileged ones marked, and its parties.
func (k *kit) checkCandidate(ctx context.Context, scope sanad.Scope, c promote.Candidate) (promote.Result, error) {
	srcs, err := k.store.sources(ctx, scope)
	if err != nil {
		return promote.Result{}, err
	}
	parties, err := k.store.parties(ctx, scope)
	if err != nil {
		return promote.Result{}, err
	}
	cc := promote.CaseContext{Parties: parties}
	for _, s := range srcs {
		cc.Texts = append(cc.Texts, promote.SourceText{ID: s.ID, Name: s.Name, Text: s.Text, Privileged: s.Privileged})
	}
	return promote.Check(c, cc, promote.Options{}), nil
}

// publish writes a candidate to shared knowledge. It checks the candidate
// again at the moment of writing (the case may have grown since the
// check), and passes the tags of any finding to the lane, whose
// prohibitions refuse it: the write cannot happen with a finding.
func (k *kit) publish(ctx context.Context, c tool.Call) (json.RawMessage, error) {
	const op = ToolPublish
	var in struct {
		Ticket    promote.Ticket    `json:"ticket"`
		Candidate promote.Candidate `json:"candidate"`
	}
	if err := json.Unmarshal(c.Input, &in); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, "input")
	}
	if err := in.Ticket.Validate(); err != nil {
		return nil, err
	}
	if err := in.Ticket.Covers(in.Candidate); err != nil {
		return nil, err
	}
	res, err := k.checkCandidate(ctx, c.Principal.Scope, in.Candidate)
	if err != nil {
		return nil, err
	}
	var tags []string
	for _, f := range res.Findings {
		if !slices.Contains(tags, f.Check) {
			tags = append(tags, f.Check)
		}
	}
	table := promote.ScopeOf(in.Candidate.Kind)
	record, err := json.Marshal(map[string]any{"candidate_id": in.Candidate.ID, "kind": in.Candidate.Kind, "title": in.Candidate.Title,
		"text": in.Candidate.Text, "ticket_id": in.Ticket.ID, "source_case": c.Principal.Scope.Case, "candidate_sha256": res.CandidateSHA256})
	if err != nil {
		return nil, err
	}
	run, err := k.attach(ctx, c.Run)
	if err != nil {
		return nil, err
	}
	w, err := k.writer.Write(ctx, run, c.Principal, dbwrite.Request{Lane: LanePromote, Table: table, Op: dbwrite.Append, Record: record,
		Fields: map[string]string{"promotion_ticket_id": in.Ticket.ID}, Tags: tags})
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]any{"table": table, "write": w, "check": res})
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
