package redact

import (
	"path"
	"slices"
	"strings"

	"github.com/sanadhq/sanad"
)

// Source is one of a case's items offered to an export.
type Source struct {
	// Path is where the item goes in the export (documents/lease.md).
	Path string
	// Kind is its scope: ScopeDocuments, ScopeTranscripts, ….
	Kind       string
	Text       []byte
	Privileged bool
}

// File is one redacted file of an export.
type File struct {
	Path string
	Data []byte
}

// Export is an assembled export: its files, in path order, and their
// manifest.
type Export struct {
	Files    []File
	Manifest Manifest
	// Excluded counts the privileged items the profile left out.
	Excluded int
}

// Assemble redacts the sources that req selects (their kind in req.Scope,
// their path or base name in req.Include when it is set) with red, leaving
// out privileged ones when red's profile excludes them, and lists them in
// a manifest created at createdAt. The request must validate against
// profiles and name red's profile (CodeInvalidInput otherwise); two
// sources at one path are CodeInvalidInput.
func Assemble(req Request, profiles map[string]Profile, red *Redactor, sources []Source, createdAt string) (Export, error) {
	const op = "redact.Assemble"
	if err := req.Validate(profiles); err != nil {
		return Export{}, err
	}
	if red.Profile.Name != req.Profile {
		return Export{}, sanad.Errorf(sanad.CodeInvalidInput, op, "export request %s asks for profile %s, the redactor has %s", req.ID, req.Profile, red.Profile.Name)
	}
	ex := Export{Manifest: Manifest{
		ExportRequestID: req.ID, CaseID: req.CaseID, Profile: red.Profile.Name,
		ProfileVersion: red.Profile.Version, CreatedAt: createdAt, Items: []Item{},
	}}
	sources = slices.Clone(sources)
	slices.SortStableFunc(sources, func(a, b Source) int { return strings.Compare(a.Path, b.Path) })
	for i, s := range sources {
		if i > 0 && sources[i-1].Path == s.Path {
			return Export{}, sanad.Errorf(sanad.CodeInvalidInput, op, "two sources at %s", s.Path)
		}
		if !slices.Contains(req.Scope, s.Kind) {
			continue
		}
		if len(req.Include) > 0 && !slices.Contains(req.Include, s.Path) && !slices.Contains(req.Include, path.Base(s.Path)) {
			continue
		}
		if s.Privileged && red.Profile.ExcludePrivileged {
			ex.Excluded++
			continue
		}
		out, counts := red.Redact(string(s.Text))
		ex.Files = append(ex.Files, File{Path: s.Path, Data: []byte(out)})
		ex.Manifest.Items = append(ex.Manifest.Items, NewItem(s.Path, s.Kind, []byte(out), s.Text, counts))
	}
	if err := ex.Manifest.Validate(); err != nil {
		return Export{}, err
	}
	return ex, nil
}
