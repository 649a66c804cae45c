package diligence

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/sanadhq/sanad/claim"
	"github.com/sanadhq/sanad/document"
	"github.com/sanadhq/sanad/parse"
)

// ManifestFile is the name of a deal's manifest in its folder.
const ManifestFile = "deal.yaml"

// Manifest is a deal's deal.yaml: the company, the date the analysis is as
// of, and the documents of the data room with their kinds.
type Manifest struct {
	Name      string        `yaml:"name" json:"name"`
	Company   string        `yaml:"company" json:"company"`
	AsOf      string        `yaml:"as_of" json:"as_of"`
	Documents []ManifestDoc `yaml:"documents" json:"documents"`
	// Enrichment is where the debate's query_enrichment reads external
	// data about the company (seed 000 §4.6): a .json or .csv file in the
	// deal's folder, or an http(s) URL; empty for none.
	Enrichment string `yaml:"enrichment,omitempty" json:"enrichment,omitempty"`
}

// EnrichmentSource returns where the enrichment of the deal in dir is
// read: the manifest's URL as it is, its file as a path under dir, or ""
// when it names none.
func (m Manifest) EnrichmentSource(dir string) string {
	if m.Enrichment == "" || IsURL(m.Enrichment) {
		return m.Enrichment
	}
	return filepath.Join(dir, m.Enrichment)
}

// IsURL says whether an enrichment source is an http(s) URL.
func IsURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

// ManifestDoc is one document a manifest lists.
type ManifestDoc struct {
	File string `yaml:"file" json:"file"`
	Kind string `yaml:"kind" json:"kind"`
}

// Kind is what a manifest may declare a document to be: the claim kind it
// is read as, its grade and who produces it.
//
// The grades follow seed 000: A for what a third party attests (audited
// statements, bank data), B for the company's own books (management
// accounts), C for what the company or others write for an audience (deck,
// press) and D for what is scraped or bought (web, enrichment). The records
// the company keeps without selling anything with them — board minutes,
// the customer list, the cap table — and a contract signed by a counterparty
// are not books of account and are not audited: they rank with what the
// company writes, C, so that a figure they alone carry is weak. They still
// count as evidence in their own right (a contract's origin is the
// counterparty, not the company).
type Kind struct {
	Claim  string
	Grade  claim.Grade
	Origin string
}

// Kinds maps each manifest kind to how it is read.
var Kinds = map[string]Kind{
	"audited_statements":  {"audited statements", claim.GradeA, "auditor"},
	"bank_data":           {"bank data", claim.GradeA, "bank"},
	"management_accounts": {"management accounts", claim.GradeB, "company"},
	"deck":                {"deck", claim.GradeC, "company"},
	"press":               {"press release", claim.GradeC, "press"},
	"minutes":             {"minutes", claim.GradeC, "company"},
	"customer_list":       {"customer list", claim.GradeC, "company"},
	"cap_table":           {"cap table", claim.GradeC, "company"},
	"contract":            {"contract", claim.GradeC, "counterparty"},
	"web":                 {"web", claim.GradeD, "web"},
	"enrichment":          {"enrichment", claim.GradeD, "enrichment"},
}

// ErrManifest is the sentinel every manifest error wraps.
var ErrManifest = errors.New("diligence: bad manifest")

// ManifestError is a deal.yaml that cannot be used: which file, which
// field and why.
type ManifestError struct {
	Path   string
	Field  string
	Reason string
}

func (e *ManifestError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s: %s", e.Path, e.Reason)
	}
	return fmt.Sprintf("%s: %s: %s", e.Path, e.Field, e.Reason)
}

// Unwrap makes a *ManifestError match [ErrManifest].
func (e *ManifestError) Unwrap() error { return ErrManifest }

// Document is one document of a deal as read: its manifest entry, its
// source, its parsed form and its claims.
type Document struct {
	File   string             `json:"file"`
	Kind   string             `json:"kind"`
	Source claim.Source       `json:"source"`
	Doc    *document.Document `json:"-"`
	// Markdown is the text its claims' spans point into.
	Markdown string        `json:"-"`
	Version  string        `json:"version"`
	Claims   []claim.Claim `json:"claims"`
}

// Excluded is evidence left out of the analysis because it is dated after
// the deal's as_of date.
type Excluded struct {
	Document string `json:"document"`
	ClaimID  string `json:"claim_id,omitempty"`
	Period   string `json:"period,omitempty"`
	Reason   string `json:"reason"`
}

// Deal is a data room read: its manifest, documents, the chains of their
// claims and what was left out.
type Deal struct {
	Dir      string
	Manifest Manifest
	AsOf     time.Time
	Docs     []Document
	Facts    []claim.Fact
	Excluded []Excluded
}

// Doc returns the document of that file name, or nil.
func (d *Deal) Doc(file string) *Document {
	for i := range d.Docs {
		if d.Docs[i].File == file {
			return &d.Docs[i]
		}
	}
	return nil
}

// Claim returns the claim of that id and its document.
func (d *Deal) Claim(id string) (claim.Claim, *Document, bool) {
	for i := range d.Docs {
		for _, c := range d.Docs[i].Claims {
			if c.ID == id {
				return c, &d.Docs[i], true
			}
		}
	}
	return claim.Claim{}, nil, false
}

// ReadManifest reads and checks dir/deal.yaml. A manifest that cannot be
// read or used is a *ManifestError.
func ReadManifest(dir string) (Manifest, error) {
	path := filepath.Join(dir, ManifestFile)
	raw, err := readBounded(path, MaxManifestBytes)
	if err != nil {
		return Manifest{}, &ManifestError{Path: path, Reason: err.Error()}
	}
	var m Manifest
	if err := yaml.UnmarshalWithOptions(raw, &m, yaml.Strict()); err != nil {
		return Manifest{}, &ManifestError{Path: path, Reason: "not a deal manifest: " + err.Error()}
	}
	switch {
	case strings.TrimSpace(m.Company) == "" && strings.TrimSpace(m.Name) == "":
		return Manifest{}, &ManifestError{Path: path, Field: "name", Reason: "missing; name the company"}
	case len(m.Documents) == 0:
		return Manifest{}, &ManifestError{Path: path, Field: "documents", Reason: "empty; list the data room's files with their kinds"}
	}
	if _, err := time.Parse(time.DateOnly, m.AsOf); err != nil {
		return Manifest{}, &ManifestError{Path: path, Field: "as_of", Reason: fmt.Sprintf("%q is not a date like 2025-06-30", m.AsOf)}
	}
	if e := m.Enrichment; e != "" && !IsURL(e) {
		ext := strings.ToLower(filepath.Ext(e))
		if filepath.IsAbs(e) || strings.Contains(filepath.ToSlash(e), "..") || (ext != ".json" && ext != ".csv") {
			return Manifest{}, &ManifestError{Path: path, Field: "enrichment", Reason: fmt.Sprintf("%q is neither a .json or .csv file inside the deal's folder nor an http(s) URL", e)}
		}
	}
	seen := map[string]bool{}
	for i, d := range m.Documents {
		field := fmt.Sprintf("documents[%d]", i)
		if d.File == "" || filepath.IsAbs(d.File) || strings.Contains(filepath.ToSlash(d.File), "..") {
			return Manifest{}, &ManifestError{Path: path, Field: field + ".file", Reason: fmt.Sprintf("%q is not a file name inside the deal's folder", d.File)}
		}
		if seen[d.File] {
			return Manifest{}, &ManifestError{Path: path, Field: field + ".file", Reason: fmt.Sprintf("%q is listed twice", d.File)}
		}
		seen[d.File] = true
		if _, ok := Kinds[d.Kind]; !ok {
			return Manifest{}, &ManifestError{Path: path, Field: field + ".kind", Reason: fmt.Sprintf("unknown kind %q; declare one of %s", d.Kind, strings.Join(kindNames(), ", "))}
		}
	}
	return m, nil
}

// MaxManifestBytes bounds deal.yaml and expected.json.
const MaxManifestBytes = 1 << 20

// readBounded reads path, refusing a file over max bytes.
func readBounded(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(raw)) > max {
		return nil, fmt.Errorf("%s is larger than %d bytes", filepath.Base(path), max)
	}
	return raw, nil
}

func kindNames() []string {
	var out []string
	for k := range Kinds {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Load reads the deal in dir: its manifest, every document it lists
// (parsed with [parse.File]), their claims ([claim.Extract]) and the
// chains of those claims ([claim.Chain]). Documents dated after as_of, and
// claims for periods that begin after it, are left out of the chains and
// listed in Deal.Excluded. A bad manifest is a *ManifestError; a document
// that is missing or cannot be parsed fails the load.
func Load(ctx context.Context, dir string) (Deal, error) { return LoadAsOf(ctx, dir, "") }

// LoadAsOf is Load with the deal's as_of date replaced by asOf
// (YYYY-MM-DD) when it is not empty: the analysis sees only the evidence
// known by then.
func LoadAsOf(ctx context.Context, dir, asOf string) (Deal, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return Deal{}, err
	}
	if asOf != "" {
		if _, err := time.Parse(time.DateOnly, asOf); err != nil {
			return Deal{}, &ManifestError{Path: filepath.Join(dir, ManifestFile), Field: "as_of", Reason: fmt.Sprintf("--as-of %q is not a date (YYYY-MM-DD)", asOf)}
		}
		m.AsOf = asOf
	}
	asOfDate, _ := time.Parse(time.DateOnly, m.AsOf)
	deal := Deal{Dir: dir, Manifest: m, AsOf: asOfDate}
	sources := map[string]claim.Source{}
	var all []claim.Claim
	for _, md := range m.Documents {
		path := filepath.Join(dir, md.File)
		raw, err := readBounded(path, parse.MaxFileBytes)
		if err != nil {
			return Deal{}, fmt.Errorf("diligence: %s: %w", md.File, err)
		}
		out, err := parse.Bytes(ctx, md.File, raw, parse.Options{DocumentID: md.File})
		if err != nil {
			return Deal{}, fmt.Errorf("diligence: %s: %w", md.File, err)
		}
		k := Kinds[md.Kind]
		sum := sha256.Sum256(raw)
		version := hex.EncodeToString(sum[:8])
		src := claim.Source{Document: md.File, Kind: k.Claim, Grade: k.Grade, Origin: k.Origin}
		md2, _ := out.Document.MarkdownSpans()
		d := Document{File: md.File, Kind: md.Kind, Source: src, Doc: out.Document, Markdown: md2, Version: version}
		if dated, ok := documentDate(md.File); ok && dated.After(asOfDate) {
			deal.Excluded = append(deal.Excluded, Excluded{Document: md.File, Reason: fmt.Sprintf("dated %s, after as_of %s", dated.Format(time.DateOnly), m.AsOf)})
			deal.Docs = append(deal.Docs, d)
			continue
		}
		for _, c := range claim.Extract(out.Document, md.File, version) {
			if start, ok := periodStart(c.Value.Period); ok && start.After(asOfDate) {
				deal.Excluded = append(deal.Excluded, Excluded{Document: md.File, ClaimID: c.ID, Period: c.Value.Period, Reason: fmt.Sprintf("period %s begins after as_of %s", c.Value.Period, m.AsOf)})
				continue
			}
			d.Claims = append(d.Claims, c)
		}
		sources[md.File] = src
		deal.Docs = append(deal.Docs, d)
	}
	if dollar := localDollar(deal.Docs); dollar != "" {
		for i := range deal.Docs {
			for j := range deal.Docs[i].Claims {
				if v := &deal.Docs[i].Claims[j].Value; v.Currency == "USD" {
					v.Currency = dollar
				}
			}
		}
	}
	for _, d := range deal.Docs {
		all = append(all, d.Claims...)
	}
	deal.Facts = claim.Chain(all, sources)
	return deal, nil
}

var (
	usDollarRE       = regexp.MustCompile(`US\$|\bUSD\b|(?i:\bUS dollars?\b|\bUnited States dollars?\b)`)
	australianDollar = regexp.MustCompile(`\bA\$|\bAU\$|\bAUD\b|(?i:\bAustralian dollars?\b)`)
)

// localDollar is the dollar a bare "$" means in the deal: the Australian
// dollar when some document writes A$ (or AUD) and none writes a US dollar
// as such; empty otherwise, and "$" stays the US dollar. An Australian
// company's accounts write "$" for its own currency and its deck "A$".
func localDollar(docs []Document) string {
	var local bool
	for _, d := range docs {
		if usDollarRE.MatchString(d.Markdown) {
			return ""
		}
		local = local || australianDollar.MatchString(d.Markdown)
	}
	if local {
		return "AUD"
	}
	return ""
}

var fileDate = regexp.MustCompile(`(\d{4}-\d{2}-\d{2})`)

// documentDate is the date a document's file name bears
// ("board-minutes-2025-05-22.docx"). The date a file's metadata gives is
// when it was written out, often after the period it reports, and says
// nothing of when its evidence was known.
func documentDate(file string) (time.Time, bool) {
	if m := fileDate.FindString(filepath.Base(file)); m != "" {
		if t, err := time.Parse(time.DateOnly, m); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
