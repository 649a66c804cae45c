package casework

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/casework/redact"
	"github.com/sanadhq/sanad/tool"
)

// An export's items are named by opaque ids and paths redacted like their
// content, so that nothing in the export run's record (whose trace is the
// bundle) carries what the profile redacts.

// ExportItem is an item of a case an export request selects.
type ExportItem struct {
	Item       string `json:"item"`
	Kind       string `json:"kind"` // documents | transcripts | notes | maps
	Path       string `json:"path"`
	Privileged bool   `json:"privileged,omitempty"`
	// Excluded says why the item is not exported.
	Excluded string `json:"excluded,omitempty"`
}

// Redacted is redaction.apply's output: the item's content as exported.
type Redacted struct {
	Item         string         `json:"item"`
	Kind         string         `json:"kind"`
	Path         string         `json:"path"`
	Content      string         `json:"content"`
	SHA256       string         `json:"sha256"`
	Size         int64          `json:"size"`
	SourceSHA256 string         `json:"source_sha256"`
	Redactions   map[string]int `json:"redactions"`
}

// exportable is a case item as the export tools see it.
type exportable struct {
	ExportItem
	name, text string
}

// exportables returns the items of the case in scope of kinds, in a stable
// order.
func (k *kit) exportables(ctx context.Context, scope sanad.Scope, kinds []string) ([]exportable, error) {
	var out []exportable
	want := func(kind string) bool { return len(kinds) == 0 || slices.Contains(kinds, kind) }
	srcs, err := k.store.sources(ctx, scope)
	if err != nil {
		return nil, err
	}
	for _, s := range srcs {
		kind, prefix := "documents", "doc-"
		if s.Kind == "transcript" {
			kind, prefix = "transcripts", "tr-"
		}
		if !want(kind) {
			continue
		}
		out = append(out, exportable{ExportItem: ExportItem{Item: prefix + sha256Hex(s.ID)[:16], Kind: kind, Privileged: s.Privileged}, name: s.Name, text: s.Text})
	}
	if want("notes") {
		notes, keys, err := records[NotesRecord](ctx, k.store, scope, tableNotes)
		if err != nil {
			return nil, err
		}
		for i, n := range notes {
			out = append(out, exportable{ExportItem: ExportItem{Item: "notes-" + sha256Hex(keys[i] + fmt.Sprint(i))[:16], Kind: "notes"},
				name: n.Kind + "-notes-" + fmt.Sprint(i+1) + ".md", text: renderNotes(n)})
		}
	}
	if want("maps") {
		maps, _, err := records[MapRecord](ctx, k.store, scope, tableCOA)
		if err != nil {
			return nil, err
		}
		if len(maps) > 0 {
			m := maps[len(maps)-1]
			out = append(out, exportable{ExportItem: ExportItem{Item: "map-" + sha256Hex(m.Summary)[:16], Kind: "maps"}, name: "mapping-summary.md", text: m.Summary})
		}
	}
	return out, nil
}

// renderNotes renders interview notes or an intake assessment as text.
func renderNotes(n NotesRecord) string {
	var b strings.Builder
	switch {
	case n.Intake != nil:
		fmt.Fprintf(&b, "# Intake summary\n\n%s\n\nTriage: %s\n", n.Intake.Summary.Narrative, n.Intake.Triage.Recommendation)
		for _, r := range n.Intake.Triage.Reasons {
			fmt.Fprintf(&b, "- %s\n", r)
		}
	case n.Notes != nil:
		b.WriteString("# Interview notes\n\n")
		for _, it := range n.Notes.Items {
			fmt.Fprintf(&b, "- %s: %s (%s, turn %d)\n", it.Kind, it.Value, it.Speaker, it.Turn)
		}
	}
	return b.String()
}

var unsafePath = regexp.MustCompile(`[^A-Za-z0-9._\-\[\]:]+`)

// redactor returns the redactor of a profile over the case's parties.
func (k *kit) redactor(ctx context.Context, scope sanad.Scope, profile string) (*redact.Redactor, redact.Profile, error) {
	profiles := redact.Profiles()
	p, ok := profiles[profile]
	if !ok {
		return nil, p, sanad.Errorf(sanad.CodeInvalidInput, "casework.export", "no redaction profile %q", profile)
	}
	parties, err := k.store.parties(ctx, scope)
	if err != nil {
		return nil, p, err
	}
	return &redact.Redactor{Profile: p, Parties: parties}, p, nil
}

// exportPath is an item's path in the export: its kind, its id, then its
// name redacted and made safe.
func exportPath(r *redact.Redactor, e exportable) string {
	name, _ := r.Redact(e.name)
	name = strings.Trim(unsafePath.ReplaceAllString(name, "_"), "_.")
	if name == "" {
		name = e.Item
	}
	return path.Join(e.Kind, e.Item, name)
}

func (k *kit) exportAuthorize(ctx context.Context, c tool.Call) (json.RawMessage, error) {
	const op = ToolExportAuthorize
	var in struct {
		ID      string         `json:"export_request_id"`
		Request redact.Request `json:"request"`
	}
	if err := json.Unmarshal(c.Input, &in); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, "input")
	}
	if in.Request.ID != in.ID {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "the request's id %q is not export_request_id %q", in.Request.ID, in.ID)
	}
	if in.Request.CaseID != "" && in.Request.CaseID != c.Principal.Scope.Case {
		return nil, sanad.Errorf(sanad.CodePolicyDenied, op, "the request is for case %s; this export runs in case %s", in.Request.CaseID, c.Principal.Scope.Case)
	}
	profiles := redact.Profiles()
	if err := in.Request.Validate(profiles); err != nil {
		return nil, err
	}
	r, p, err := k.redactor(ctx, c.Principal.Scope, in.Request.Profile)
	if err != nil {
		return nil, err
	}
	all, err := k.exportables(ctx, c.Principal.Scope, in.Request.Scope)
	if err != nil {
		return nil, err
	}
	items := []ExportItem{}
	for _, e := range all {
		if len(in.Request.Include) > 0 && !slices.Contains(in.Request.Include, e.name) && !slices.Contains(in.Request.Include, e.Item) {
			continue
		}
		it := e.ExportItem
		it.Path = exportPath(r, e)
		if e.Privileged {
			it.Excluded = "privileged: privileged notes never leave through the export lane"
		}
		items = append(items, it)
	}
	return json.Marshal(map[string]any{"export_request_id": in.ID, "profile": p.Name, "profile_version": p.Version, "items": items})
}

// find returns the case's item id.
func (k *kit) find(ctx context.Context, scope sanad.Scope, id string) (exportable, error) {
	all, err := k.exportables(ctx, scope, nil)
	if err != nil {
		return exportable{}, err
	}
	for _, e := range all {
		if e.Item == id {
			return e, nil
		}
	}
	return exportable{}, sanad.Errorf(sanad.CodeNotFound, "casework.export", "no item %s in case %s", id, scope.Case)
}

func (k *kit) redact(ctx context.Context, c tool.Call) (json.RawMessage, error) {
	const op = ToolRedact
	var in struct {
		Item    string `json:"item"`
		Profile string `json:"profile"`
	}
	if err := json.Unmarshal(c.Input, &in); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, "input")
	}
	out, err := k.redacted(ctx, c.Principal.Scope, in.Item, in.Profile)
	if err != nil {
		return nil, err
	}
	return json.Marshal(out)
}

// redacted redacts the case's item per profile. A privileged item is
// refused, whatever the profile says: the store's tag decides, not the
// caller.
func (k *kit) redacted(ctx context.Context, scope sanad.Scope, item, profile string) (Redacted, error) {
	e, err := k.find(ctx, scope, item)
	if err != nil {
		return Redacted{}, err
	}
	if e.Privileged {
		return Redacted{}, sanad.Errorf(sanad.CodePolicyDenied, ToolRedact, "item %s is privileged: privileged notes never leave through the export lane", item)
	}
	r, _, err := k.redactor(ctx, scope, profile)
	if err != nil {
		return Redacted{}, err
	}
	text, counts := r.Redact(e.text)
	if counts == nil {
		counts = map[string]int{}
	}
	return Redacted{Item: e.Item, Kind: e.Kind, Path: exportPath(r, e), Content: text, SHA256: sha256Hex(text), Size: int64(len(text)),
		SourceSHA256: sha256Hex(e.text), Redactions: counts}, nil
}

// exportAssemble checks the manifest against the case: each item is what
// redacting the item now gives, so a manifest cannot list content the
// profile would not have produced.
func (k *kit) exportAssemble(ctx context.Context, c tool.Call) (json.RawMessage, error) {
	const op = ToolExportAssemble
	var in struct {
		ID       string          `json:"export_request_id"`
		Manifest redact.Manifest `json:"manifest"`
	}
	if err := json.Unmarshal(c.Input, &in); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, "input")
	}
	m := in.Manifest
	if m.ExportRequestID != in.ID || m.CaseID != c.Principal.Scope.Case {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "the manifest is for request %q of case %q, not %q of %q", m.ExportRequestID, m.CaseID, in.ID, c.Principal.Scope.Case)
	}
	for _, it := range m.Items {
		parts := strings.Split(it.Path, "/")
		if len(parts) != 3 {
			return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "item path %q is not kind/item/name", it.Path)
		}
		got, err := k.redacted(ctx, c.Principal.Scope, parts[1], m.Profile)
		if err == nil && got.Path != it.Path {
			err = sanad.Errorf(sanad.CodeIntegrity, op, "item %s: the manifest's path is not the redaction's", it.Path)
		}
		if err != nil {
			return nil, err
		}
		if got.SHA256 != it.SHA256 || got.SourceSHA256 != it.SourceSHA256 {
			return nil, sanad.Errorf(sanad.CodeIntegrity, op, "item %s: the manifest's hash is not the redaction's", it.Path)
		}
	}
	return json.Marshal(map[string]any{"export_request_id": in.ID, "manifest_sha256": m.Hash(), "items": len(m.Items), "manifest": m})
}

func (k *kit) exportFinalize(_ context.Context, c tool.Call) (json.RawMessage, error) {
	var in struct {
		ID       string `json:"export_request_id"`
		Manifest string `json:"manifest_sha256"`
		Items    int    `json:"items"`
	}
	if err := json.Unmarshal(c.Input, &in); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, ToolExportFinalize, "input")
	}
	return json.Marshal(Receipt{ExportRequestID: in.ID, CaseID: c.Principal.Scope.Case, ManifestSHA256: in.Manifest, Items: in.Items,
		Bundle: "the export run's trace, written as a sanad bundle: verify it with `sanad verify`"})
}

// Receipt is the export_receipt artifact.
type Receipt struct {
	ExportRequestID string `json:"export_request_id"`
	CaseID          string `json:"case_id"`
	ManifestSHA256  string `json:"manifest_sha256"`
	Items           int    `json:"items"`
	Bundle          string `json:"bundle"`
}
