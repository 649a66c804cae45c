// Package redact prepares a case's texts for export (seed 001 §4.6): named
// redaction profiles say what each kind of bundle replaces, a [Redactor]
// replaces it, and a [Manifest] records every exported item with the hash
// of what was exported and of the original it came from, so that the firm
// can prove later which version of which document left, and under which
// profile.
package redact

import (
	_ "embed"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/goccy/go-yaml"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/casework/identity"
	"github.com/sanadhq/sanad/guard/pii"
)

//go:embed profiles.yaml
var profilesYAML []byte

// Names of the built-in profiles.
const (
	ProfileDiscovery      = "discovery"
	ProfileAttorneyReview = "attorney_review"
	ProfilePublic         = "public"
)

// TypeParty is the type counted for a party's name.
const TypeParty = identity.TypeParty

// DefaultPlaceholder is the placeholder of a profile that sets none; "%s"
// stands for the entity type.
const DefaultPlaceholder = "[REDACTED:%s]"

// Profile says what an export replaces.
type Profile struct {
	Name        string
	Description string
	// Version is the version of the profiles file the profile comes from.
	Version string
	// Types are the entity types replaced: guard/pii's and
	// identity.TypeLocation.
	Types []string
	// Parties replaces the names of the case's parties.
	Parties bool
	// ExcludePrivileged keeps privileged items out of the export.
	ExcludePrivileged bool
	// Placeholder replaces each entity; "%s" in it stands for the type.
	Placeholder string
}

// Profiles returns the built-in profiles of profiles.yaml, by name.
func Profiles() map[string]Profile {
	ps, err := LoadProfiles(profilesYAML)
	if err != nil {
		panic("redact: the embedded profiles.yaml does not load: " + err.Error())
	}
	return ps
}

type profilesFile struct {
	Version  string                 `yaml:"version"`
	Profiles map[string]profileYAML `yaml:"profiles"`
}

type profileYAML struct {
	Description       string   `yaml:"description"`
	Types             []string `yaml:"types"`
	Parties           bool     `yaml:"parties"`
	ExcludePrivileged *bool    `yaml:"exclude_privileged"`
	Placeholder       string   `yaml:"placeholder"`
}

var profileName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// LoadProfiles parses a profiles file in the form of profiles.yaml. Unknown
// fields, a missing version, no profiles, a bad name, an unknown type and a
// placeholder with a '%' other than "%s" are CodeInvalidInput. A profile
// that leaves exclude_privileged out excludes privileged items.
func LoadProfiles(raw []byte) (map[string]Profile, error) {
	const op = "redact.LoadProfiles"
	var f profilesFile
	if err := yaml.UnmarshalWithOptions(raw, &f, yaml.Strict()); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, "profiles are not valid YAML of the expected shape")
	}
	if strings.TrimSpace(f.Version) == "" {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "profiles: version is missing")
	}
	if len(f.Profiles) == 0 {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "profiles: none defined")
	}
	known := append(pii.BuiltinTypes(), identity.TypeLocation)
	out := make(map[string]Profile, len(f.Profiles))
	for name, p := range f.Profiles {
		if !profileName.MatchString(name) {
			return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "profile %q: want a name of lower-case letters, digits and _", name)
		}
		for _, t := range p.Types {
			if !slices.Contains(known, t) {
				return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "profile %s: type %q is not one of %s", name, t, strings.Join(known, ", "))
			}
		}
		ph := p.Placeholder
		if ph == "" {
			ph = DefaultPlaceholder
		}
		if strings.Contains(strings.ReplaceAll(ph, "%s", ""), "%") || len(ph) > 64 {
			return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "profile %s: placeholder %q may hold %%s and no other %%, in at most 64 bytes", name, ph)
		}
		out[name] = Profile{
			Name:              name,
			Description:       strings.TrimSpace(p.Description),
			Version:           f.Version,
			Types:             slices.Clone(p.Types),
			Parties:           p.Parties,
			ExcludePrivileged: p.ExcludePrivileged == nil || *p.ExcludePrivileged,
			Placeholder:       ph,
		}
	}
	return out, nil
}

// Redactor replaces what its profile names in texts of one case. Set the
// fields, then call Redact; do not change them after the first call. A
// Redactor is safe for concurrent use.
type Redactor struct {
	Profile Profile
	// Parties are the case's people (and organisations with a legal form
	// in their name); Organisations its other organisations.
	Parties       []string
	Organisations []string
	// Detector finds the entities; nil builds one of the profile's types.
	// A detector given here may find other types too: only the profile's
	// are replaced, but an entity of another type that overlaps one of
	// the profile's can hide it, so a detector of exactly the profile's
	// types is the safe choice.
	Detector *pii.Detector

	once     sync.Once
	names    *identity.Names
	detector *pii.Detector
	err      error
}

// chunkBytes is the size of the pieces Redact scans one at a time, cut at
// line ends, so that a long document stays within the candidates the
// detector examines per call.
const chunkBytes = 32 << 10

func (r *Redactor) init() {
	r.once.Do(func() {
		if r.Profile.Parties {
			r.names = identity.NewNames(r.Parties, r.Organisations)
		}
		r.detector = r.Detector
		if r.detector == nil {
			r.detector, r.err = identity.NewDetector(r.Profile.Types)
		}
	})
}

// span is one piece of text to replace.
type span struct {
	start, end int
	typ        string
}

// Redact returns text with every entity of the profile's types, and with
// the parties' names if the profile says so, replaced by the profile's
// placeholder, and the number of replacements by type (TypeParty for
// names). Once a value has been found, every other occurrence of it that
// stands as a word of its own is replaced too, even where the detector did
// not see it. A replacement covers whole words: an entity that starts or
// ends inside a word takes the word with it. The output depends only on
// the text and the Redactor's settings. Where entities overlap, their
// union is replaced once, counted under the type of the first.
//
// If the detector cannot be built (an unknown type in a Profile not loaded
// by LoadProfiles), Redact replaces the whole text and counts it as
// "UNREDACTABLE": it never returns text it could not examine.
func (r *Redactor) Redact(text string) (out string, counts map[string]int) {
	r.init()
	counts = map[string]int{}
	if r.err != nil {
		counts["UNREDACTABLE"] = 1
		return r.placeholder("UNREDACTABLE"), counts
	}
	var spans []span
	values := map[string]string{} // value → type
	// Names first: a span found both ways counts as a party's name.
	if r.names != nil {
		for _, m := range r.names.Find(text) {
			spans = append(spans, span{m.Start, m.End, TypeParty})
		}
	}
	if r.detector != nil {
		for off, chunk := range chunks(text) {
			for _, e := range r.detector.Find(chunk) {
				if !slices.Contains(r.Profile.Types, e.Type) {
					continue
				}
				spans = append(spans, span{off + e.Start, off + e.End, e.Type})
				if _, ok := values[e.Text]; !ok {
					values[e.Text] = e.Type
				}
			}
		}
	}
	out = r.replace(text, merge(wholeWords(text, spans)), counts)
	// Every other standalone occurrence of a value found, longest first.
	vs := make([]string, 0, len(values))
	for v := range values {
		vs = append(vs, v)
	}
	sort.Slice(vs, func(i, j int) bool { return len(vs[i]) > len(vs[j]) || len(vs[i]) == len(vs[j]) && vs[i] < vs[j] })
	for round := 0; round < 3; round++ {
		changed := false
		for _, v := range vs {
			var sp []span
			for i := 0; ; {
				j := strings.Index(out[i:], v)
				if j < 0 {
					break
				}
				s, e := i+j, i+j+len(v)
				if standalone(out, s, e) {
					sp = append(sp, span{s, e, values[v]})
					i = e
				} else {
					_, size := utf8.DecodeRuneInString(out[s:])
					i = s + size
				}
			}
			if len(sp) > 0 {
				out, changed = r.replace(out, sp, counts), true
			}
		}
		if !changed {
			break
		}
	}
	return out, counts
}

func (r *Redactor) placeholder(typ string) string {
	return strings.ReplaceAll(r.Profile.Placeholder, "%s", typ)
}

// replace writes text with each span, sorted and disjoint, replaced.
func (r *Redactor) replace(text string, spans []span, counts map[string]int) string {
	var b strings.Builder
	last := 0
	for _, s := range spans {
		b.WriteString(text[last:s.start])
		b.WriteString(r.placeholder(s.typ))
		counts[s.typ]++
		last = s.end
	}
	b.WriteString(text[last:])
	return b.String()
}

// wholeWords widens each span that starts or ends inside a word to the
// whole word, so that no fragment of a replaced word is left beside the
// placeholder to form a name with its neighbour.
func wholeWords(text string, spans []span) []span {
	for i, s := range spans {
		for s.start > 0 {
			r, size := utf8.DecodeLastRuneInString(text[:s.start])
			first, _ := utf8.DecodeRuneInString(text[s.start:])
			if !alnum(r) || !alnum(first) {
				break
			}
			s.start -= size
		}
		for s.end < len(text) {
			r, size := utf8.DecodeRuneInString(text[s.end:])
			last, _ := utf8.DecodeLastRuneInString(text[:s.end])
			if !alnum(r) || !alnum(last) {
				break
			}
			s.end += size
		}
		spans[i] = s
	}
	return spans
}

// merge sorts spans and joins overlapping ones; a joined span keeps the
// type of its first.
func merge(spans []span) []span {
	slices.SortStableFunc(spans, func(a, b span) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return b.end - a.end
	})
	var out []span
	for _, s := range spans {
		if n := len(out); n > 0 && s.start < out[n-1].end {
			out[n-1].end = max(out[n-1].end, s.end)
			continue
		}
		out = append(out, s)
	}
	return out
}

// standalone reports whether text[s:e] is not part of a longer word: no
// letter or digit touches an end of it that is a letter or digit itself.
func standalone(text string, s, e int) bool {
	first, _ := utf8.DecodeRuneInString(text[s:e])
	last, _ := utf8.DecodeLastRuneInString(text[s:e])
	if alnum(first) && s > 0 {
		if r, _ := utf8.DecodeLastRuneInString(text[:s]); alnum(r) {
			return false
		}
	}
	if alnum(last) && e < len(text) {
		if r, _ := utf8.DecodeRuneInString(text[e:]); alnum(r) {
			return false
		}
	}
	return true
}

func alnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// chunks yields text in pieces of about chunkBytes, each ending at a line
// end where there is one, with the byte offset of each piece.
func chunks(text string) func(yield func(int, string) bool) {
	return func(yield func(int, string) bool) {
		for off := 0; off < len(text); {
			end := min(len(text), off+chunkBytes)
			if end < len(text) {
				if nl := strings.LastIndexByte(text[off:end], '\n'); nl > 0 {
					end = off + nl + 1
				} else {
					for end > off && !utf8.RuneStart(text[end]) {
						end--
					}
					if end == off { // not UTF-8: cut anywhere
						end = off + chunkBytes
					}
				}
			}
			if !yield(off, text[off:end]) {
				return
			}
			off = end
		}
	}
}
