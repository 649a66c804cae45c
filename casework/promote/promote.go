// Package promote holds the checks that keep case content out of a firm's
// shared knowledge. A firm promotes sanitized insight from a case ("in
// retaliatory-eviction matters, ask for the repair request log first") into
// tenant-wide playbooks and heuristics; seed 001 §4.5 forbids three things
// from crossing, and each is a check here that can fail:
//
//   - raw_case_text: the candidate shares a run of MaxSharedWords or more
//     consecutive words with one of the case's texts;
//   - client_identity: it holds personal data (guard/pii), a street
//     address, or the name of one of the case's parties;
//   - privileged_notes: it carries a privileged tag, a privilege marker
//     ("privileged & confidential", "attorney-client", "work product"), or
//     a run of five or more words from a text marked privileged.
//
// [Check] returns the findings; [Ticket] is the human approval a promotion
// needs, and [NewReceipt] the record of what was decided, which never
// carries case text.
package promote

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/casework/identity"
	"github.com/sanadhq/sanad/guard/pii"
)

// The checks of seed 001 §4.5, spelled as its prohibitions are.
const (
	CheckRawCaseText     = "raw_case_text"
	CheckClientIdentity  = "client_identity"
	CheckPrivilegedNotes = "privileged_notes"
)

// Checks lists the checks in the order Check runs them.
var Checks = []string{CheckRawCaseText, CheckClientIdentity, CheckPrivilegedNotes}

// Kinds of candidate, one per shared table.
const (
	KindPlaybook  = "playbook"
	KindHeuristic = "heuristic"
)

const (
	// DefaultMaxSharedWords is the default of Options.MaxSharedWords: a
	// run of eight consecutive words shared with a case text is a quote.
	DefaultMaxSharedWords = 8
	// PrivilegedSharedWords is the run of consecutive words shared with a
	// privileged text that refuses a candidate, and the least
	// MaxSharedWords may be: shorter runs are the common phrases of
	// English ("at the end of the"), which every text shares.
	PrivilegedSharedWords = 5
	// MaxQuoteBytes bounds Finding.Quote.
	MaxQuoteBytes = 160
	// MaxFindings bounds the findings of one check.
	MaxFindings = 20
)

// DefaultPrivilegedTags are the tags that mark privileged content when
// CaseContext.PrivilegedTags is empty.
var DefaultPrivilegedTags = []string{"privileged", "attorney_client", "work_product"}

// privilegeMarkers are the phrases, as folded words, that mark a text as
// privileged wherever they appear.
var privilegeMarkers = [][]string{
	{"privileged", "confidential"},
	{"privileged", "and", "confidential"},
	{"attorney", "client"},
	{"attorney", "work", "product"},
	{"work", "product"},
	{"solicitor", "client"},
	{"legal", "professional", "privilege"},
}

// Candidate is an insight proposed for shared knowledge.
type Candidate struct {
	ID    string   `json:"id"`
	Kind  string   `json:"kind"` // KindPlaybook or KindHeuristic
	Title string   `json:"title"`
	Text  string   `json:"text"`
	Tags  []string `json:"tags,omitempty"`
	// SourceCase is the id of the case the insight comes from.
	SourceCase string `json:"source_case,omitempty"`
}

// SourceText is one of a case's documents, transcripts or notes.
type SourceText struct {
	ID         string
	Name       string
	Text       string
	Privileged bool
}

// CaseContext is what the checks compare a candidate against.
type CaseContext struct {
	Texts []SourceText
	// Parties are the people of the case: client, opposing parties,
	// witnesses. A name with a legal form ("LLC") is taken as an
	// organisation's.
	Parties []string
	// Organisations are the organisations of the case: landlord
	// companies, employers, agencies.
	Organisations []string
	// PrivilegedTags mark privileged content (DefaultPrivilegedTags when
	// empty). Tags are compared in lower case, with '-' and ' ' read as
	// '_'.
	PrivilegedTags []string
}

// Options tune Check.
type Options struct {
	// MaxSharedWords is the length of a run of consecutive words shared
	// with a case text that refuses a candidate (DefaultMaxSharedWords
	// when 0; values below PrivilegedSharedWords are raised to it).
	MaxSharedWords int
	// Detector finds personal data; nil uses identity.NewDetector(nil),
	// the identity types of guard/pii and street addresses.
	Detector *pii.Detector
}

// Finding is one reason a check failed.
type Finding struct {
	Check  string `json:"check"`
	Detail string `json:"detail"`
	// Where locates the finding in the candidate and, for shared text,
	// in the case text, by character (not byte) offsets: "candidate text
	// chars 120-188 quotes t-1 chars 4031-4099".
	Where string `json:"where"`
	// Quote is the candidate's text at the finding, at most MaxQuoteBytes.
	// It may hold what the check refuses, so it is for the approver's
	// eyes and never goes into a Receipt.
	Quote string `json:"quote,omitempty"`
}

// Result is the outcome of Check.
type Result struct {
	Allowed         bool      `json:"allowed"`
	Findings        []Finding `json:"findings"`
	CandidateSHA256 string    `json:"candidate_sha256"`
}

// Failed reports whether check has a finding in r.
func (r Result) Failed(check string) bool {
	return slices.ContainsFunc(r.Findings, func(f Finding) bool { return f.Check == check })
}

// Check runs the three checks of c against the case. It makes an Index of
// the case each call; a caller checking several candidates of one case
// makes the Index once and calls [Index.Check].
func Check(c Candidate, cc CaseContext, opts Options) Result {
	return NewIndex(cc).Check(c, opts)
}

// Index is a case prepared for checking: the n-grams of its texts hashed
// once, and its party names. Memory is linear in the case's words (about
// 40 bytes a word). An Index is read-only once made and safe for concurrent
// use.
type Index struct {
	texts          *grams
	names          *identity.Names
	privilegedTags map[string]bool
}

// NewIndex prepares cc for checking. Its texts are indexed by runs of
// PrivilegedSharedWords words, which finds every longer run too.
func NewIndex(cc CaseContext) *Index {
	x := &Index{
		texts:          newGrams(cc.Texts, PrivilegedSharedWords),
		names:          identity.NewNames(cc.Parties, cc.Organisations),
		privilegedTags: map[string]bool{},
	}
	tags := cc.PrivilegedTags
	if len(tags) == 0 {
		tags = DefaultPrivilegedTags
	}
	for _, t := range tags {
		x.privilegedTags[normTag(t)] = true
	}
	return x
}

var defaultDetector = sync.OnceValues(func() (*pii.Detector, error) { return identity.NewDetector(nil) })

// field is a part of a candidate that is checked.
type field struct {
	name, text string
}

// Check runs the three checks of c against the indexed case.
func (x *Index) Check(c Candidate, opts Options) Result {
	fields := []field{{"title", c.Title}, {"text", c.Text}}
	var fs []Finding
	fs = append(fs, x.rawCaseText(fields, opts)...)
	fs = append(fs, x.clientIdentity(c, fields, opts)...)
	fs = append(fs, x.privilegedNotes(c, fields)...)
	return Result{Allowed: len(fs) == 0, Findings: fs, CandidateSHA256: CandidateSHA256(c)}
}

// CandidateSHA256 returns the hex SHA-256 of c's canonical JSON.
func CandidateSHA256(c Candidate) string {
	d, err := canon.Hash(c)
	if err != nil {
		// Strings and a slice of strings always encode.
		panic(fmt.Sprintf("promote: hashing a candidate: %v", err))
	}
	return d.Hex()
}

func (x *Index) rawCaseText(fields []field, opts Options) []Finding {
	n := cmp.Or(opts.MaxSharedWords, DefaultMaxSharedWords)
	n = max(n, PrivilegedSharedWords)
	var fs []Finding
	for _, f := range fields {
		for _, r := range x.texts.runs(normWords(f.text)) {
			if r.length < n {
				continue
			}
			src := x.texts.texts[r.text].src
			fs = append(fs, Finding{
				Check:  CheckRawCaseText,
				Detail: fmt.Sprintf("%d consecutive words are also in case text %s (%d or more refuse)", r.length, textID(src, r.text), n),
				Where:  where(f, r, src),
				Quote:  quote(f.text[r.candStart:r.candEnd]),
			})
		}
	}
	return capFindings(fs)
}

func (x *Index) clientIdentity(c Candidate, fields []field, opts Options) []Finding {
	d := opts.Detector
	var derr error
	if d == nil {
		d, derr = defaultDetector()
	}
	var fs []Finding
	for _, f := range fields {
		if derr != nil {
			fs = append(fs, Finding{Check: CheckClientIdentity, Detail: "personal data could not be looked for: the detector did not build", Where: "candidate " + f.name})
			break
		}
		ents, err := d.Scan(f.text)
		if err != nil {
			fs = append(fs, Finding{Check: CheckClientIdentity, Detail: "the text holds too many possible identifiers to examine in full", Where: "candidate " + f.name})
		}
		for _, e := range ents {
			fs = append(fs, Finding{
				Check:  CheckClientIdentity,
				Detail: "personal data: " + e.Type,
				Where:  fmt.Sprintf("candidate %s chars %s", f.name, chars(f.text, e.Start, e.End)),
				Quote:  quote(e.Text),
			})
		}
		for _, m := range x.names.Find(f.text) {
			fs = append(fs, Finding{
				Check:  CheckClientIdentity,
				Detail: "the name of a party of the case (" + m.Form + ")",
				Where:  fmt.Sprintf("candidate %s chars %s", f.name, chars(f.text, m.Start, m.End)),
				Quote:  quote(f.text[m.Start:m.End]),
			})
		}
	}
	for i, t := range c.Tags {
		for _, m := range x.names.Find(t) {
			fs = append(fs, Finding{
				Check:  CheckClientIdentity,
				Detail: "the name of a party of the case (" + m.Form + ")",
				Where:  fmt.Sprintf("candidate tag %d", i+1),
				Quote:  quote(t),
			})
			break
		}
	}
	return capFindings(fs)
}

func (x *Index) privilegedNotes(c Candidate, fields []field) []Finding {
	var fs []Finding
	for i, t := range c.Tags {
		if x.privilegedTags[normTag(t)] {
			fs = append(fs, Finding{Check: CheckPrivilegedNotes, Detail: "a privileged tag", Where: fmt.Sprintf("candidate tag %d", i+1), Quote: quote(t)})
		}
	}
	for _, f := range fields {
		for _, m := range markers(f.text) {
			fs = append(fs, Finding{
				Check:  CheckPrivilegedNotes,
				Detail: "a privilege marker",
				Where:  fmt.Sprintf("candidate %s chars %s", f.name, chars(f.text, m[0], m[1])),
				Quote:  quote(f.text[m[0]:m[1]]),
			})
		}
		for _, r := range x.texts.runs(normWords(f.text)) {
			src := x.texts.texts[r.text].src
			if !src.Privileged {
				continue
			}
			fs = append(fs, Finding{
				Check:  CheckPrivilegedNotes,
				Detail: fmt.Sprintf("%d consecutive words are also in privileged text %s (%d or more refuse)", r.length, textID(src, r.text), PrivilegedSharedWords),
				Where:  where(f, r, src),
				Quote:  quote(f.text[r.candStart:r.candEnd]),
			})
		}
	}
	return capFindings(fs)
}

// markers returns the byte spans of the privilege markers in text.
func markers(text string) [][2]int {
	ws := identity.Words(text)
	var out [][2]int
	for i := 0; i < len(ws); i++ {
		for _, m := range privilegeMarkers {
			if i+len(m) > len(ws) {
				continue
			}
			ok := true
			for k, w := range m {
				if ws[i+k].Norm != w || k > 0 && ws[i+k].Start-ws[i+k-1].End > 5 {
					ok = false
					break
				}
			}
			if ok {
				out = append(out, [2]int{ws[i].Start, ws[i+len(m)-1].End})
				i += len(m) - 1
				break
			}
		}
	}
	return out
}

// where describes a shared run by character offsets in both texts.
func where(f field, r run, src SourceText) string {
	return fmt.Sprintf("candidate %s chars %s quotes %s chars %s",
		f.name, chars(f.text, r.candStart, r.candEnd), textID(src, r.text), chars(src.Text, r.srcStart, r.srcEnd))
}

// textID names a case text by its id, never by its name, which may name
// the client.
func textID(src SourceText, i int) string {
	if src.ID == "" {
		return fmt.Sprintf("text %d", i+1)
	}
	return src.ID
}

// chars turns the byte span [s, e) of text into character offsets "a-b".
func chars(text string, s, e int) string {
	a := utf8.RuneCountInString(text[:s])
	return fmt.Sprintf("%d-%d", a, a+utf8.RuneCountInString(text[s:e]))
}

// quote bounds s to MaxQuoteBytes.
func quote(s string) string { return cut(s, MaxQuoteBytes) }

// cut bounds s to n bytes on a UTF-8 boundary, ending it with "…".
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n - len("…")
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// capFindings keeps the first MaxFindings findings.
func capFindings(fs []Finding) []Finding {
	if len(fs) <= MaxFindings {
		return fs
	}
	return fs[:MaxFindings]
}

func normTag(t string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == ' ' {
			return '_'
		}
		return r
	}, strings.ToLower(strings.TrimSpace(t)))
}
