package casework

import (
	"context"
	"fmt"
	"strings"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/gate"
	"github.com/sanadhq/sanad/home"
)

// View is a case as its records hold it.
type View struct {
	CaseID      string         `json:"case_id"`
	Intake      *NotesRecord   `json:"intake,omitempty"`
	Gates       []gate.Gate    `json:"gates"`
	Documents   []SourceInfo   `json:"documents"`
	Transcripts []SourceInfo   `json:"transcripts"`
	Interviews  int            `json:"interviews"`
	Mapping     *MapRecord     `json:"mapping,omitempty"`
	Shared      int            `json:"shared_knowledge_rows"`
	Exports     []ExportRecord `json:"exports"`
}

// SourceInfo names a document or transcript of a case.
type SourceInfo struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Bytes      int    `json:"bytes"`
	Privileged bool   `json:"privileged,omitempty"`
}

// ExportRecord is a row of export_bundles.
type ExportRecord struct {
	ExportRequestID string `json:"export_request_id"`
	Profile         string `json:"profile"`
	ManifestSHA256  string `json:"manifest_sha256"`
	Items           int    `json:"items"`
}

// Show reads the case of scope from h: only that case's records and gates.
func Show(ctx context.Context, h *home.Home, scope sanad.Scope) (View, error) {
	s := store{h}
	v := View{CaseID: scope.Case, Gates: []gate.Gate{}, Documents: []SourceInfo{}, Transcripts: []SourceInfo{}, Exports: []ExportRecord{}}
	var err error
	if v.Intake, err = s.intakeOf(ctx, scope); err != nil {
		return v, err
	}
	srcs, err := s.sources(ctx, scope)
	if err != nil {
		return v, err
	}
	for _, src := range srcs {
		info := SourceInfo{ID: src.ID, Name: src.Name, Bytes: len(src.Text), Privileged: src.Privileged}
		if src.Kind == "transcript" {
			v.Transcripts = append(v.Transcripts, info)
		} else {
			v.Documents = append(v.Documents, info)
		}
	}
	notes, _, err := records[NotesRecord](ctx, s, scope, tableNotes)
	if err != nil {
		return v, err
	}
	for _, n := range notes {
		if n.Kind == "interview" {
			v.Interviews++
		}
	}
	maps, _, err := records[MapRecord](ctx, s, scope, tableCOA)
	if err != nil {
		return v, err
	}
	if len(maps) > 0 {
		v.Mapping = &maps[len(maps)-1]
	}
	for _, t := range []string{"shared_playbooks", "shared_heuristics"} {
		rows, err := h.DB.Records(ctx, scope, t)
		if err != nil {
			return v, err
		}
		v.Shared += len(rows)
	}
	if v.Exports, _, err = records[ExportRecord](ctx, s, scope, tableExports); err != nil {
		return v, err
	}
	for _, st := range []gate.Status{gate.StatusOpen, gate.StatusApproved, gate.StatusRejected} {
		gs, err := h.DB.Gates(ctx, st)
		if err != nil {
			return v, err
		}
		for _, g := range gs {
			if g.Scope == scope {
				v.Gates = append(v.Gates, g)
			}
		}
	}
	return v, nil
}

// Text renders the view for a person.
func (v View) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Case %s\n", v.CaseID)
	if in := v.Intake; in != nil && in.Intake != nil {
		a := in.Intake
		var areas []string
		for _, ar := range a.Summary.Areas {
			areas = append(areas, ar.Name)
		}
		fmt.Fprintf(&b, "  intake: triage %s; areas: %s; urgency %s; %d item(s) missing\n", a.Triage.Recommendation,
			strings.Join(areas, ", "), a.Summary.Urgency.Level, len(a.Checklist.Items))
	}
	for _, g := range v.Gates {
		by := ""
		if g.Resolved != nil {
			by = " by " + g.Resolved.By.Agent + " (" + g.Resolved.By.Role + ")"
		}
		fmt.Fprintf(&b, "  gate %s %s%s: needs %s; %s\n", g.GateID, g.Status, by, g.RequiredRole, g.Reason)
	}
	for _, d := range v.Documents {
		tag := ""
		if d.Privileged {
			tag = " [privileged]"
		}
		fmt.Fprintf(&b, "  document %s (%d bytes)%s\n", d.Name, d.Bytes, tag)
	}
	for _, t := range v.Transcripts {
		fmt.Fprintf(&b, "  transcript %s %s (%d bytes)\n", t.ID, t.Name, t.Bytes)
	}
	if m := v.Mapping; m != nil {
		fmt.Fprintf(&b, "  mapping (taxonomy %s):\n", m.COAVersion)
		weak := 0
		for _, c := range m.Causes {
			if c.Status != "supported" && c.Status != "partial" {
				weak++
				continue
			}
			gaps := "none"
			if len(c.Gaps) > 0 {
				gaps = strings.Join(c.Gaps, ", ")
			}
			fmt.Fprintf(&b, "    %s: %s; gaps: %s\n", c.Name, c.Status, gaps)
		}
		fmt.Fprintf(&b, "    %d other cause(s) of action considered, not supported\n", weak)
	}
	if v.Shared > 0 {
		fmt.Fprintf(&b, "  promoted to shared knowledge: %d\n", v.Shared)
	}
	for _, x := range v.Exports {
		fmt.Fprintf(&b, "  export %s: %d item(s), profile %s, manifest %s\n", x.ExportRequestID, x.Items, x.Profile, x.ManifestSHA256)
	}
	return b.String()
}
