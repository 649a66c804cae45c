package redact_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/casework/redact"
)

func sources() []redact.Source {
	return []redact.Source{
		{Path: "documents/letter.md", Kind: redact.ScopeDocuments, Text: []byte(letter)},
		{Path: "documents/lease.md", Kind: redact.ScopeDocuments, Text: []byte("Lease between Harbor View Properties LLC and Maria Delgado. Rent $1,450.00.")},
		{Path: "transcripts/t-1.txt", Kind: redact.ScopeTranscripts, Text: []byte("CLIENT: Mr. O'Connor saw the notice. My number is (415) 555-0132.")},
		{Path: "notes/strategy.md", Kind: redact.ScopeNotes, Text: []byte("Privileged strategy for Delgado."), Privileged: true},
		{Path: "maps/evidence.json", Kind: redact.ScopeMaps, Text: []byte(`{"fact":"heater broken"}`)},
	}
}

func assemble(tb testing.TB, req redact.Request) redact.Export {
	tb.Helper()
	ps := redact.Profiles()
	red := &redact.Redactor{Profile: ps[req.Profile], Parties: parties, Organisations: organisations}
	ex, err := redact.Assemble(req, ps, red, sources(), "2025-03-01T10:00:00Z")
	if err != nil {
		tb.Fatal(err)
	}
	return ex
}

func hexSum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func TestC12_ExportBundleManifestWithHashes(t *testing.T) {
	req := request()
	ex := assemble(t, req)
	if got := len(ex.Files); got != 3 {
		t.Fatalf("%d files, want the 3 documents and transcripts", got)
	}
	if ex.Manifest.Profile != redact.ProfileDiscovery || ex.Manifest.ProfileVersion == "" || ex.Manifest.ExportRequestID != req.ID || ex.Manifest.CaseID != req.CaseID {
		t.Errorf("manifest header %+v", ex.Manifest)
	}
	src := map[string][]byte{}
	for _, s := range sources() {
		src[s.Path] = s.Text
	}
	for i, f := range ex.Files {
		it := ex.Manifest.Items[i]
		if it.Path != f.Path || it.SHA256 != hexSum(f.Data) || it.Size != int64(len(f.Data)) || it.SourceSHA256 != hexSum(src[f.Path]) {
			t.Errorf("item %+v does not describe file %s", it, f.Path)
		}
		if strings.Contains(string(f.Data), "Delgado") || strings.Contains(string(f.Data), "555-0132") {
			t.Errorf("%s is not redacted:\n%s", f.Path, f.Data)
		}
	}
	if n := ex.Manifest.Items[0].Redactions["PARTY"]; ex.Manifest.Items[0].Path != "documents/lease.md" || n != 2 {
		t.Errorf("first item %+v, want documents/lease.md with 2 party names replaced", ex.Manifest.Items[0])
	}
	if err := ex.Manifest.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
}

func TestC12_PrivilegedExcluded(t *testing.T) {
	req := request()
	req.Scope = []string{redact.ScopeNotes, redact.ScopeMaps}
	ex := assemble(t, req)
	if ex.Excluded != 1 || len(ex.Files) != 1 || ex.Files[0].Path != "maps/evidence.json" {
		t.Errorf("files %v, excluded %d; want only the map and the privileged note excluded", ex.Files, ex.Excluded)
	}
}

func TestC12_IncludeSelects(t *testing.T) {
	req := request()
	req.Include = []string{"lease.md", "transcripts/t-1.txt"}
	ex := assemble(t, req)
	var got []string
	for _, f := range ex.Files {
		got = append(got, f.Path)
	}
	if strings.Join(got, ",") != "documents/lease.md,transcripts/t-1.txt" {
		t.Errorf("files %v, want lease.md and t-1.txt", got)
	}
}

func TestC12_ManifestHash(t *testing.T) {
	m := assemble(t, request()).Manifest
	h := m.Hash()
	if len(h) != 64 || h != m.Hash() {
		t.Fatalf("Hash %q not stable", h)
	}
	later := m
	later.CreatedAt = "2026-01-01T00:00:00Z"
	if later.Hash() != h {
		t.Errorf("CreatedAt changed the hash")
	}
	reordered := m
	reordered.Items = []redact.Item{m.Items[2], m.Items[0], m.Items[1]}
	if reordered.Hash() != h {
		t.Errorf("item order changed the hash")
	}
	for name, edit := range map[string]func(*redact.Item){
		"sha256":        func(it *redact.Item) { it.SHA256 = hexSum([]byte("other")) },
		"source_sha256": func(it *redact.Item) { it.SourceSHA256 = hexSum([]byte("other")) },
		"size":          func(it *redact.Item) { it.Size++ },
		"path":          func(it *redact.Item) { it.Path = "documents/other.md" },
		"kind":          func(it *redact.Item) { it.Kind = redact.ScopeMaps },
		"redactions":    func(it *redact.Item) { it.Redactions = map[string]int{"PARTY": 9} },
	} {
		changed := m
		changed.Items = append([]redact.Item(nil), m.Items...)
		edit(&changed.Items[1])
		if changed.Hash() == h {
			t.Errorf("changing an item's %s left the hash as it was", name)
		}
	}
	fewer := m
	fewer.Items = m.Items[:2]
	if fewer.Hash() == h {
		t.Errorf("dropping an item left the hash as it was")
	}
	other := m
	other.ProfileVersion = "9"
	if other.Hash() == h {
		t.Errorf("changing the profile version left the hash as it was")
	}
}

func TestC12_Receipt(t *testing.T) {
	req := request()
	req.Scope = append(req.Scope, redact.ScopeNotes)
	ex := assemble(t, req)
	rc := redact.NewReceipt(req, ex.Manifest, ex.Excluded)
	if rc.ManifestSHA256 != ex.Manifest.Hash() || rc.Items != 3 || rc.Excluded != 1 || rc.Reason != req.Reason {
		t.Errorf("receipt %+v", rc)
	}
	var bytes int64
	for _, f := range ex.Files {
		bytes += int64(len(f.Data))
	}
	if rc.Bytes != bytes || rc.Redactions["PARTY"] == 0 {
		t.Errorf("receipt bytes %d (want %d), redactions %v", rc.Bytes, bytes, rc.Redactions)
	}
	raw, _ := json.Marshal(rc)
	for _, leak := range []string{"Delgado", "555-0132", "heater"} {
		if strings.Contains(string(raw), leak) {
			t.Errorf("receipt holds %q: %s", leak, raw)
		}
	}
}

func TestAssembleRefuses(t *testing.T) {
	ps := redact.Profiles()
	red := &redact.Redactor{Profile: ps[redact.ProfilePublic]}
	if _, err := redact.Assemble(request(), ps, red, sources(), ""); sanad.ErrorCode(err) != sanad.CodeInvalidInput {
		t.Errorf("redactor of another profile: got %v, want INVALID_INPUT", err)
	}
	red = &redact.Redactor{Profile: ps[redact.ProfileDiscovery]}
	twice := append(sources(), sources()[0])
	if _, err := redact.Assemble(request(), ps, red, twice, ""); sanad.ErrorCode(err) != sanad.CodeInvalidInput {
		t.Errorf("two sources at one path: got %v, want INVALID_INPUT", err)
	}
	bad := request()
	bad.Scope = nil
	if _, err := redact.Assemble(bad, ps, red, sources(), ""); sanad.ErrorCode(err) != sanad.CodeInvalidInput {
		t.Errorf("invalid request: got %v, want INVALID_INPUT", err)
	}
}

func TestManifestValidate(t *testing.T) {
	m := assemble(t, request()).Manifest
	for name, edit := range map[string]func(*redact.Manifest){
		"bad_path":       func(m *redact.Manifest) { m.Items[0].Path = "/etc/passwd" },
		"bad_dotdot":     func(m *redact.Manifest) { m.Items[0].Path = "../x" },
		"bad_twice":      func(m *redact.Manifest) { m.Items[1].Path = m.Items[0].Path },
		"bad_hash":       func(m *redact.Manifest) { m.Items[0].SHA256 = "abc" },
		"bad_kind":       func(m *redact.Manifest) { m.Items[0].Kind = "emails" },
		"bad_request":    func(m *redact.Manifest) { m.ExportRequestID = "" },
		"bad_negative":   func(m *redact.Manifest) { m.Items[0].Size = -1 },
		"bad_no_version": func(m *redact.Manifest) { m.ProfileVersion = "" },
	} {
		c := m
		c.Items = append([]redact.Item(nil), m.Items...)
		edit(&c)
		if err := c.Validate(); sanad.ErrorCode(err) != sanad.CodeInvalidInput {
			t.Errorf("%s: got %v, want INVALID_INPUT", name, err)
		}
	}
}
