package intake

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/sanadhq/sanad/casework/issues"
)

// ConflictRequest is the conflict_check_request: every name the firm's
// conflict check must run, with the role each plays, and the matter's areas.
type ConflictRequest struct {
	// RequestID is "ccr-" and the first 16 hex digits of the SHA-256 of
	// the sorted normalised names, one a line: the same people give the
	// same id.
	RequestID string        `json:"request_id"`
	Names     []NameToCheck `json:"names"`
	Areas     []string      `json:"areas"`
}

// Name roles in a conflict check: a party's role, or RoleOrganisation for
// the organisation a party belongs to or is.
const RoleOrganisation = "organisation"

// NameToCheck is one name, as first written, its normal form, and every
// role it appears in.
type NameToCheck struct {
	Name       string   `json:"name"`
	Normalized string   `json:"normalized"`
	Roles      []string `json:"roles"`
}

// corporateSuffixes are dropped from the end of a normalised name, so that
// "Apex Renovations, LLC" and "Apex Renovations" meet.
var corporateSuffixes = []string{"llc", "l l c", "inc", "incorporated", "ltd", "limited", "corp", "corporation", "co", "plc", "lp", "llp", "pc"}

// NormalizeName is the form a name is compared in: accents removed, lower
// case, punctuation dropped, spaces collapsed, and a trailing corporate
// suffix (LLC, Inc, Ltd, …) dropped.
func NormalizeName(name string) string {
	var b strings.Builder
	space := false
	for _, r := range norm.NFKD.String(name) {
		switch {
		case unicode.Is(unicode.Mn, r):
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(unicode.ToLower(r))
		case r == '\'' || r == '\u2019' || r == '.':
			// "O'Brien" is "obrien", "L.L.C." is "llc"
		default:
			space = true
		}
	}
	s := b.String()
	for _, suf := range corporateSuffixes {
		if t, ok := strings.CutSuffix(s, " "+suf); ok {
			return t
		}
	}
	return s
}

// conflictRequest lists the client, every party and every organisation,
// deduplicated by normal form.
func conflictRequest(f Form, areas []issues.Area) ConflictRequest {
	req := ConflictRequest{Names: []NameToCheck{}, Areas: []string{}}
	index := map[string]int{}
	add := func(name, role string) {
		name = strings.TrimSpace(name)
		n := NormalizeName(name)
		if n == "" {
			return
		}
		if i, ok := index[n]; ok {
			if !slices.Contains(req.Names[i].Roles, role) {
				req.Names[i].Roles = append(req.Names[i].Roles, role)
			}
			return
		}
		index[n] = len(req.Names)
		req.Names = append(req.Names, NameToCheck{Name: name, Normalized: n, Roles: []string{role}})
	}
	add(f.Client.Name, RoleClient)
	add(f.Client.Organisation, RoleOrganisation)
	for _, p := range f.Parties {
		add(p.Name, p.Role)
		add(p.Organisation, RoleOrganisation)
	}
	norms := make([]string, len(req.Names))
	for i, n := range req.Names {
		norms[i] = n.Normalized
	}
	slices.Sort(norms)
	sum := sha256.Sum256([]byte(strings.Join(norms, "\n")))
	req.RequestID = "ccr-" + hex.EncodeToString(sum[:8])
	for _, ar := range areas {
		req.Areas = append(req.Areas, ar.ID)
	}
	return req
}
