package diligence

import (
	"embed"
	"io/fs"
	"sort"
	"strings"

	"github.com/sanadhq/sanad/claim"
	"github.com/sanadhq/sanad/policy"
)

//go:embed policy/*.yaml
var policyFiles embed.FS

// Lane is the db_write lane of the claim registry, and Table its table.
const (
	Lane  = "WRITE_CLAIMS"
	Table = "claims"
)

// Policy returns the policy under which a diligence records its claim
// registry: the arbiter may upsert the claims table of the deal's case.
func Policy() (*policy.Set, error) {
	sub, err := fs.Sub(policyFiles, "policy")
	if err != nil {
		return nil, err
	}
	return policy.LoadFS(sub)
}

// RegistryRecord is one document's entry in a deal's claim registry: its
// claims with the grade and verdict their chains gave them.
type RegistryRecord struct {
	Deal     string        `json:"deal"`
	Document string        `json:"document"`
	Kind     string        `json:"kind"`
	Version  string        `json:"version"`
	Grade    claim.Grade   `json:"grade"`
	Claims   []claim.Claim `json:"claims"`
}

// Registry returns the registry records of a deal, one per document, in
// manifest order, each claim graded as its chain says; with the claims its
// analysis read itself (a sentence that states a risk), so that every
// claim a role cites is in the registry.
func Registry(d Deal, f Findings) []RegistryRecord {
	graded := map[string]claim.Claim{}
	for _, f := range d.Facts {
		for _, c := range f.Claims {
			graded[c.ID] = c
		}
	}
	extra := map[string][]claim.Claim{}
	inDocs := map[string]bool{}
	for _, doc := range d.Docs {
		for _, c := range doc.Claims {
			inDocs[c.ID] = true
		}
	}
	for id, c := range f.Claims {
		if !inDocs[id] {
			extra[c.Span.Document] = append(extra[c.Span.Document], c)
		}
	}
	var out []RegistryRecord
	for _, doc := range d.Docs {
		r := RegistryRecord{Deal: d.Manifest.Name, Document: doc.File, Kind: doc.Kind, Version: doc.Version, Grade: doc.Source.Grade, Claims: []claim.Claim{}}
		for _, c := range append(append([]claim.Claim{}, doc.Claims...), extra[doc.File]...) {
			if g, ok := graded[c.ID]; ok {
				c = g
			}
			if c.Grade == "" {
				c.Grade = doc.Source.Grade
			}
			r.Claims = append(r.Claims, c)
		}
		sort.SliceStable(r.Claims, func(i, j int) bool { return r.Claims[i].Span.Start < r.Claims[j].Span.Start })
		out = append(out, r)
	}
	return out
}

// CaseID turns a deal's name into the id of its case: lower-case words
// joined by hyphens ("Orrery Health" is orrery-health).
func CaseID(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.Trim(b.String(), "-")
}

// RegistryKey is the key of a document's record in a deal's registry.
func RegistryKey(deal, document string) string { return CaseID(deal) + "/" + document }

// Facts returns the chains of a stored registry: its claims grouped into
// facts as [claim.Chain] groups them, over the sources the records' kinds
// declare, each claim with the grade and verdict its record holds.
func Facts(recs []RegistryRecord) []claim.Fact {
	sources := map[string]claim.Source{}
	stored := map[string]claim.Claim{}
	var all []claim.Claim
	for _, r := range recs {
		k, ok := Kinds[r.Kind]
		if !ok {
			k = Kind{Claim: "unknown", Grade: r.Grade}
		}
		sources[r.Document] = claim.Source{Document: r.Document, Kind: k.Claim, Grade: r.Grade, Origin: k.Origin}
		for _, c := range r.Claims {
			if _, dup := stored[c.ID]; dup {
				continue
			}
			stored[c.ID] = c
			all = append(all, c)
		}
	}
	facts := claim.Chain(all, sources)
	for i := range facts {
		for j, c := range facts[i].Claims {
			facts[i].Claims[j] = stored[c.ID]
		}
	}
	return facts
}
