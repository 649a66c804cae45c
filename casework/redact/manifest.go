package redact

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/canon"
)

// Scopes of an export request: the kinds of item it may include.
const (
	ScopeDocuments   = "documents"
	ScopeTranscripts = "transcripts"
	ScopeNotes       = "notes"
	ScopeMaps        = "maps"
)

// Scopes lists the scopes an export request may name.
var Scopes = []string{ScopeDocuments, ScopeTranscripts, ScopeNotes, ScopeMaps}

// Item is one file of an export.
type Item struct {
	// Path is the file's place in the export, e.g. documents/lease.md.
	Path string `json:"path"`
	// Kind is the scope the item belongs to (ScopeDocuments, …).
	Kind   string `json:"kind"`
	SHA256 string `json:"sha256"` // hex SHA-256 of the exported bytes
	Size   int64  `json:"size"`   // of the exported bytes
	// Redactions counts the replacements by type.
	Redactions map[string]int `json:"redactions,omitempty"`
	// SourceSHA256 is the hex SHA-256 of the unredacted original, so the
	// firm can prove which version was exported without exporting it.
	SourceSHA256 string `json:"source_sha256"`
}

// NewItem describes an exported file from its exported and original bytes.
func NewItem(path, kind string, exported, original []byte, redactions map[string]int) Item {
	it := Item{Path: path, Kind: kind, SHA256: sum(exported), Size: int64(len(exported)), SourceSHA256: sum(original)}
	for t, n := range redactions {
		if n > 0 {
			if it.Redactions == nil {
				it.Redactions = map[string]int{}
			}
			it.Redactions[t] = n
		}
	}
	return it
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// Manifest lists what an export holds: the export_manifest of seed 001
// §4.6.
type Manifest struct {
	ExportRequestID string `json:"export_request_id"`
	CaseID          string `json:"case_id"`
	Profile         string `json:"profile"`
	ProfileVersion  string `json:"profile_version"`
	Items           []Item `json:"items"`
	// CreatedAt is when the export was assembled, RFC 3339. It is left
	// out of Hash, like every volatile time (canon.VolatileFields).
	CreatedAt string `json:"created_at,omitempty"`
}

// Hash returns the hex SHA-256 of the manifest's canonical JSON (RFC 8785:
// sorted keys), with its items sorted by path and CreatedAt left out: two
// exports of the same items under the same request and profile have one
// hash, and any change to an item changes it.
func (m Manifest) Hash() string {
	m.Items = slices.Clone(m.Items)
	slices.SortStableFunc(m.Items, func(a, b Item) int { return strings.Compare(a.Path, b.Path) })
	d, err := canon.HashWithout(m, "created_at")
	if err != nil {
		// Strings, integers and maps of them always encode.
		panic(fmt.Sprintf("redact: hashing a manifest: %v", err))
	}
	return d.Hex()
}

var hexSHA256 = regexp.MustCompile(`^[0-9a-f]{64}$`)

// Validate reports whether m is well formed: ids, a profile, items with
// relative clean paths, no path twice, a known kind, hex hashes and
// non-negative sizes and counts. It fails with CodeInvalidInput naming the
// field.
func (m Manifest) Validate() error {
	const op = "redact.Manifest.Validate"
	switch {
	case !idPattern.MatchString(m.ExportRequestID):
		return sanad.Errorf(sanad.CodeInvalidInput, op, "manifest: export_request_id %q is not an id", cut(m.ExportRequestID))
	case !idPattern.MatchString(m.CaseID):
		return sanad.Errorf(sanad.CodeInvalidInput, op, "manifest: case_id %q is not an id", cut(m.CaseID))
	case m.Profile == "" || m.ProfileVersion == "":
		return sanad.Errorf(sanad.CodeInvalidInput, op, "manifest: profile and profile_version are required")
	}
	seen := map[string]bool{}
	for i, it := range m.Items {
		switch {
		case it.Path == "" || path.IsAbs(it.Path) || path.Clean(it.Path) != it.Path || strings.HasPrefix(it.Path, "../") || it.Path == "..":
			return sanad.Errorf(sanad.CodeInvalidInput, op, "manifest: items[%d].path %q is not a clean relative path", i, cut(it.Path))
		case seen[it.Path]:
			return sanad.Errorf(sanad.CodeInvalidInput, op, "manifest: items[%d].path %s is listed twice", i, it.Path)
		case !slices.Contains(Scopes, it.Kind):
			return sanad.Errorf(sanad.CodeInvalidInput, op, "manifest: items[%d].kind %q is not one of %s", i, cut(it.Kind), strings.Join(Scopes, ", "))
		case !hexSHA256.MatchString(it.SHA256) || !hexSHA256.MatchString(it.SourceSHA256):
			return sanad.Errorf(sanad.CodeInvalidInput, op, "manifest: items[%d]: sha256 and source_sha256 must be 64 lower-case hex digits", i)
		case it.Size < 0:
			return sanad.Errorf(sanad.CodeInvalidInput, op, "manifest: items[%d].size is negative", i)
		}
		for t, n := range it.Redactions {
			if n < 0 {
				return sanad.Errorf(sanad.CodeInvalidInput, op, "manifest: items[%d].redactions[%s] is negative", i, t)
			}
		}
		seen[it.Path] = true
	}
	return nil
}

// Redactions returns the replacements of all items, by type.
func (m Manifest) Redactions() map[string]int {
	out := map[string]int{}
	for _, it := range m.Items {
		for t, n := range it.Redactions {
			out[t] += n
		}
	}
	return out
}

// idPattern is the form of request and case ids.
var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$`)

// MaxReasonBytes bounds Request.Reason.
const MaxReasonBytes = 1024

// Request asks for an export of one case: the export_request of seed 001
// §4.6.
type Request struct {
	ID      string   `json:"id"`
	CaseID  string   `json:"case_id"`
	Profile string   `json:"profile"`
	Scope   []string `json:"scope"` // of Scopes
	// Include names the items wanted; empty means every item in scope.
	Include []string `json:"include,omitempty"`
	Reason  string   `json:"reason"`
}

// Validate reports whether r can be served with profiles: ids of letters,
// digits and "_.:-", a known profile, a non-empty scope of known kinds
// without repeats, include names that are clean relative paths, and a
// reason. It fails with CodeInvalidInput naming the field.
func (r Request) Validate(profiles map[string]Profile) error {
	const op = "redact.Request.Validate"
	switch {
	case !idPattern.MatchString(r.ID):
		return sanad.Errorf(sanad.CodeInvalidInput, op, "export request: id %q: want 1-128 letters, digits and _.:- starting with a letter or digit", cut(r.ID))
	case !idPattern.MatchString(r.CaseID):
		return sanad.Errorf(sanad.CodeInvalidInput, op, "export request %s: case_id %q is not an id", r.ID, cut(r.CaseID))
	case r.Profile == "":
		return sanad.Errorf(sanad.CodeInvalidInput, op, "export request %s: profile is missing", r.ID)
	case len(r.Scope) == 0:
		return sanad.Errorf(sanad.CodeInvalidInput, op, "export request %s: scope is empty; want some of %s", r.ID, strings.Join(Scopes, ", "))
	case strings.TrimSpace(r.Reason) == "":
		return sanad.Errorf(sanad.CodeInvalidInput, op, "export request %s: reason is missing", r.ID)
	case len(r.Reason) > MaxReasonBytes:
		return sanad.Errorf(sanad.CodeInvalidInput, op, "export request %s: reason is longer than %d bytes", r.ID, MaxReasonBytes)
	}
	if _, ok := profiles[r.Profile]; !ok {
		names := make([]string, 0, len(profiles))
		for n := range profiles {
			names = append(names, n)
		}
		slices.Sort(names)
		return sanad.Errorf(sanad.CodeInvalidInput, op, "export request %s: profile %q is not one of %s", r.ID, cut(r.Profile), strings.Join(names, ", "))
	}
	for i, s := range r.Scope {
		if !slices.Contains(Scopes, s) {
			return sanad.Errorf(sanad.CodeInvalidInput, op, "export request %s: scope[%d] %q is not one of %s", r.ID, i, cut(s), strings.Join(Scopes, ", "))
		}
		if slices.Contains(r.Scope[:i], s) {
			return sanad.Errorf(sanad.CodeInvalidInput, op, "export request %s: scope lists %s twice", r.ID, s)
		}
	}
	for i, name := range r.Include {
		if name == "" || path.IsAbs(name) || path.Clean(name) != name || name == ".." || strings.HasPrefix(name, "../") {
			return sanad.Errorf(sanad.CodeInvalidInput, op, "export request %s: include[%d] %q is not a clean relative name", r.ID, i, cut(name))
		}
	}
	return nil
}

// Receipt is the export_receipt of seed 001 §4.6: what was exported, under
// which request and profile, bound to the manifest by its hash. It holds
// counts and hashes, never content.
type Receipt struct {
	ExportRequestID string         `json:"export_request_id"`
	CaseID          string         `json:"case_id"`
	Profile         string         `json:"profile"`
	ProfileVersion  string         `json:"profile_version"`
	ManifestSHA256  string         `json:"manifest_sha256"`
	Items           int            `json:"items"`
	Bytes           int64          `json:"bytes"`
	Redactions      map[string]int `json:"redactions"`
	// Excluded counts the items left out because the profile excludes
	// privileged ones.
	Excluded  int    `json:"excluded_privileged"`
	Reason    string `json:"reason"`
	CreatedAt string `json:"created_at,omitempty"`
}

// NewReceipt records the export of m for r; excluded is the number of
// privileged items left out.
func NewReceipt(r Request, m Manifest, excluded int) Receipt {
	rc := Receipt{
		ExportRequestID: m.ExportRequestID,
		CaseID:          m.CaseID,
		Profile:         m.Profile,
		ProfileVersion:  m.ProfileVersion,
		ManifestSHA256:  m.Hash(),
		Items:           len(m.Items),
		Redactions:      m.Redactions(),
		Excluded:        excluded,
		Reason:          r.Reason,
		CreatedAt:       m.CreatedAt,
	}
	for _, it := range m.Items {
		rc.Bytes += it.Size
	}
	return rc
}

// cut bounds s to 64 bytes for an error message.
func cut(s string) string {
	if len(s) <= 64 {
		return s
	}
	i := 61
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i] + "…"
}
