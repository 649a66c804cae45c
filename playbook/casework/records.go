package casework

import (
	"context"
	"encoding/json"
	"sort"
	"strings"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/casework/coa"
	"github.com/sanadhq/sanad/casework/intake"
	"github.com/sanadhq/sanad/casework/interview"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/ingest"
	"github.com/sanadhq/sanad/parse"
)

// Domain tables the agents write (dbwrite.Tables).
const (
	tableTranscripts = "transcripts"
	tableNotes       = "interview_notes"
	tableEntities    = "entities"
	tableFacts       = "facts"
	tableEvidence    = "evidence_map"
	tableCOA         = "coa_map"
	tableExports     = "export_bundles"
	tableDocuments   = ingest.Table
)

// TranscriptRecord is a row of transcripts.
type TranscriptRecord struct {
	ID              string               `json:"transcript_id"`
	ClientSessionID string               `json:"client_session_id"`
	Transcript      interview.Transcript `json:"transcript"`
}

// NotesRecord is a row of interview_notes: an interview's notes, or the
// intake's assessment (Kind "intake").
type NotesRecord struct {
	Kind            string              `json:"kind"` // interview | intake
	ClientSessionID string              `json:"client_session_id"`
	TranscriptID    string              `json:"transcript_id,omitempty"`
	Notes           *interview.Notes    `json:"notes,omitempty"`
	NextQuestion    *interview.Question `json:"next_question,omitempty"`
	Intake          *intake.Assessment  `json:"intake,omitempty"`
	// Form is the intake form, for the parties and dates later agents need.
	Form *intake.Form `json:"form,omitempty"`
}

// EntityRecord is a row of entities: the entities one source (the intake
// form, or an interview's transcript) names, upserted under that source.
type EntityRecord struct {
	ClientSessionID string             `json:"client_session_id"`
	Source          string             `json:"source"`
	Entities        []interview.Entity `json:"entities"`
	// Roles are the parties' roles on the intake form, by entity id.
	Roles map[string]string `json:"roles,omitempty"`
}

// MapRecord is the record of facts, evidence_map and coa_map: each table
// holds its part of one mapping.
type MapRecord struct {
	COAVersion   string             `json:"coa_version"`
	TaxonomyHash string             `json:"taxonomy_sha256"`
	Facts        []coa.Fact         `json:"facts,omitempty"`
	Evidence     []coa.EvidenceLink `json:"evidence_map,omitempty"`
	Causes       []coa.CauseMap     `json:"coa_map,omitempty"`
	Summary      string             `json:"mapping_summary,omitempty"`
}

// store reads a case's records: only those of the scope it is asked for.
type store struct{ h *home.Home }

// records decodes the current rows of table in scope, oldest first.
func records[T any](ctx context.Context, s store, scope sanad.Scope, table string) ([]T, []string, error) {
	rows, err := s.h.DB.Records(ctx, scope, table)
	if err != nil {
		return nil, nil, err
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Index < rows[j].Index })
	out := make([]T, 0, len(rows))
	keys := make([]string, 0, len(rows))
	for _, row := range rows {
		data, err := s.h.Artifacts.Read(row.SHA256)
		if err != nil {
			return nil, nil, sanad.Wrap(err, sanad.CodeIntegrity, "casework.records", "a record of "+table)
		}
		var v T
		if err := json.Unmarshal(data, &v); err != nil {
			return nil, nil, sanad.Wrap(err, sanad.CodeIntegrity, "casework.records", "a record of "+table)
		}
		out = append(out, v)
		keys = append(keys, row.Key)
	}
	return out, keys, nil
}

// Source is a document or transcript of a case, as text.
type Source struct {
	ID         string `json:"id"`
	Kind       string `json:"kind"` // document | transcript
	Name       string `json:"name"`
	Text       string `json:"text"`
	Privileged bool   `json:"privileged,omitempty"`
	SHA256     string `json:"sha256"`
}

// sources returns the case's current documents (their Markdown) and
// transcripts.
func (s store) sources(ctx context.Context, scope sanad.Scope) ([]Source, error) {
	var out []Source
	docs, _, err := records[ingest.Record](ctx, s, scope, tableDocuments)
	if err != nil {
		return nil, err
	}
	for _, d := range docs {
		if d.Removed {
			continue
		}
		data, err := s.h.Artifacts.Read(strings.TrimPrefix(d.ParsedArtifact, "sha256:"))
		if err != nil {
			return nil, sanad.Wrap(err, sanad.CodeIntegrity, "casework.sources", "the parse of "+d.Document.ID)
		}
		var p parse.Output
		if err := json.Unmarshal(data, &p); err != nil {
			return nil, sanad.Wrap(err, sanad.CodeIntegrity, "casework.sources", "the parse of "+d.Document.ID)
		}
		name := d.Document.Source
		if i := strings.LastIndexAny(name, `/\`); i >= 0 {
			name = name[i+1:]
		}
		out = append(out, Source{ID: d.Document.ID, Kind: "document", Name: name, Text: p.Markdown,
			Privileged: privileged(d.Document.Metadata), SHA256: sha256Hex(p.Markdown)})
	}
	trs, _, err := records[TranscriptRecord](ctx, s, scope, tableTranscripts)
	if err != nil {
		return nil, err
	}
	for _, t := range trs {
		out = append(out, Source{ID: t.ID, Kind: "transcript", Name: t.Transcript.Source, Text: t.Transcript.Text,
			SHA256: sha256Hex(t.Transcript.Text)})
	}
	return out, nil
}

// privileged reports whether a document's metadata tags it privileged.
func privileged(meta map[string]any) bool {
	tags, _ := meta["tags"].([]any)
	for _, t := range tags {
		if s, _ := t.(string); s == "privileged" || s == "attorney_client" || s == "work_product" {
			return true
		}
	}
	return false
}

// intakeOf returns the case's latest intake assessment and form, if any.
func (s store) intakeOf(ctx context.Context, scope sanad.Scope) (*NotesRecord, error) {
	notes, _, err := records[NotesRecord](ctx, s, scope, tableNotes)
	if err != nil {
		return nil, err
	}
	for i := len(notes) - 1; i >= 0; i-- {
		if notes[i].Kind == "intake" {
			return &notes[i], nil
		}
	}
	return nil, nil
}

// parties returns the names of the case's parties: the intake form's and
// the people and organisations the interviews named.
func (s store) parties(ctx context.Context, scope sanad.Scope) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	add := func(name string) {
		name = strings.TrimSpace(name)
		if name != "" && !seen[strings.ToLower(name)] {
			seen[strings.ToLower(name)] = true
			out = append(out, name)
		}
	}
	ents, _, err := records[EntityRecord](ctx, s, scope, tableEntities)
	if err != nil {
		return nil, err
	}
	for _, r := range ents {
		for _, e := range r.Entities {
			if e.Kind == "person" || e.Kind == "organization" {
				add(e.Text)
			}
		}
	}
	in, err := s.intakeOf(ctx, scope)
	if err != nil {
		return nil, err
	}
	if in != nil && in.Form != nil {
		add(in.Form.Client.Name)
		for _, p := range in.Form.Parties {
			add(p.Name)
			add(p.Organisation)
		}
	}
	return out, nil
}
