package pii

import (
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/sanadhq/sanad"
)

// Entity types found by the built-in recognizers. The names are Presidio's
// where Presidio has the type.
const (
	TypeEmail          = "EMAIL_ADDRESS"
	TypePhone          = "PHONE_NUMBER"
	TypeCreditCard     = "CREDIT_CARD"
	TypeIBAN           = "IBAN_CODE"
	TypeCrypto         = "CRYPTO"
	TypeSSN            = "US_SSN"
	TypeITIN           = "US_ITIN"
	TypeNHS            = "UK_NHS"
	TypeIP             = "IP_ADDRESS"
	TypeMAC            = "MAC_ADDRESS"
	TypeURL            = "URL"
	TypeURLCredentials = "URL_CREDENTIALS"
	TypeAPIKey         = "API_KEY"
	TypeJWT            = "JWT"
	TypePrivateKey     = "PRIVATE_KEY"
	TypePerson         = "PERSON"
)

// BuiltinTypes returns the types the built-in recognizers find, in the
// order [Config.Types] documents them.
func BuiltinTypes() []string {
	return []string{
		TypeEmail, TypePhone, TypeCreditCard, TypeIBAN, TypeCrypto,
		TypeSSN, TypeITIN, TypeNHS, TypeIP, TypeMAC, TypeURL,
		TypeURLCredentials, TypeAPIKey, TypeJWT, TypePrivateKey, TypePerson,
	}
}

// Defaults of Config.
const (
	// DefaultMaxCandidates bounds the candidates each recognizer examines
	// in one call: far more than a 1 KB chunk holds, few enough that text
	// written to exhaust the detector costs milliseconds, not minutes.
	DefaultMaxCandidates = 2048
	// DefaultPatternScore is the score of a [Pattern] that sets none.
	DefaultPatternScore = 0.5
)

// DefaultRegions are the regions a phone number written without a country
// code is tried in, in order: Presidio's default list.
var DefaultRegions = []string{"US", "GB", "DE", "FR", "IL", "IN", "CA", "BR"}

// Entity is one piece of personal or secret data found in a text.
type Entity struct {
	Type string `json:"type"`
	// Start and End are the byte offsets [Start, End) of the entity in
	// the text given to [Detector.Find].
	Start int `json:"start"`
	End   int `json:"end"`
	// Text is the entity's text; it is never serialised, so that a report
	// of what was found does not carry it.
	Text string `json:"-"`
	// Score in (0, 1] says how sure the recognizer is: 0.9 and above for
	// a checksum or a vendor's key format, 0.5–0.8 for a precise format,
	// below that for a bare run of digits that fits the format by chance
	// as often as not.
	Score float64 `json:"score"`
}

// Pattern is a recognizer given in configuration: every match of Regex is
// an entity of Type. Regex is Go (RE2) syntax, so no pattern can take more
// than linear time. When the regex has a capturing group, the first group
// is the entity and the rest of the match is context.
type Pattern struct {
	Type  string  `yaml:"type" json:"type"`
	Regex string  `yaml:"regex" json:"regex"`
	Score float64 `yaml:"score" json:"score"` // DefaultPatternScore when 0
}

// Config says what a [Detector] looks for.
type Config struct {
	// Types are the enabled types: built-in ones (see [BuiltinTypes]) and
	// those of Patterns. Empty enables every built-in type and every
	// pattern.
	Types []string
	// Patterns are extra recognizers.
	Patterns []Pattern
	// Regions are the ISO 3166 regions, in order, that a phone number
	// without a country code is tried in (DefaultRegions when empty). A
	// number written with + and its country code is found whatever the
	// regions.
	Regions []string
	// MinScore drops entities scored below it (0 keeps all).
	MinScore float64
	// MaxCandidates bounds the candidates each recognizer examines in one
	// call (DefaultMaxCandidates when 0); see [Detector.Scan].
	MaxCandidates int
}

var typeName = regexp.MustCompile(`^[A-Z][A-Z0-9_]{0,63}$`)

// Validate reports whether c is usable: every type is known and named in
// capitals, every pattern compiles, every region is known to the phone
// number metadata.
func (c Config) Validate() error {
	_, err := compile(c)
	return err
}

// Detector finds entities in text. It is safe for concurrent use.
type Detector struct {
	enabled  map[string]bool
	recs     []recognizer
	regions  []string
	minScore float64
	max      int
	lengths  phoneLengths
}

// recognizer finds the entities of one or more types.
type recognizer struct {
	types []string
	find  func(d *Detector, text string, c *collector)
}

type customPattern struct {
	typ   string
	re    *regexp.Regexp
	score float64
}

// New returns a Detector for cfg. It fails with CodeInvalidInput when cfg
// does not validate.
func New(cfg Config) (*Detector, error) {
	return compile(cfg)
}

func compile(cfg Config) (*Detector, error) {
	const op = "pii.New"
	d := &Detector{
		enabled:  map[string]bool{},
		regions:  DefaultRegions,
		minScore: cfg.MinScore,
		max:      cfg.MaxCandidates,
	}
	if d.max <= 0 {
		d.max = DefaultMaxCandidates
	}
	d.lengths = regionLengths()
	if len(cfg.Regions) > 0 {
		d.regions = make([]string, len(cfg.Regions))
		for i, r := range cfg.Regions {
			r = strings.ToUpper(r)
			if !knownRegion(r) {
				return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "region %q is not a known ISO 3166 region", cfg.Regions[i])
			}
			d.regions[i] = r
		}
	}
	known := map[string]bool{}
	for _, t := range BuiltinTypes() {
		known[t] = true
	}
	var custom []customPattern
	for i, p := range cfg.Patterns {
		if !typeName.MatchString(p.Type) {
			return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "pattern %d: type %q must be capitals, digits and _ (it names a placeholder)", i, p.Type)
		}
		re, err := regexp.Compile(p.Regex)
		if err != nil {
			return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "pattern %d (%s): %s", i, p.Type, err)
		}
		score := p.Score
		if score == 0 {
			score = DefaultPatternScore
		}
		if score < 0 || score > 1 {
			return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "pattern %d (%s): score %v is outside (0, 1]", i, p.Type, p.Score)
		}
		known[p.Type] = true
		custom = append(custom, customPattern{typ: p.Type, re: re, score: score})
	}
	if len(cfg.Types) == 0 {
		for t := range known {
			d.enabled[t] = true
		}
	}
	for _, t := range cfg.Types {
		if !known[t] {
			return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "type %q is neither built in nor given by a pattern", t)
		}
		d.enabled[t] = true
	}
	for _, r := range builtin {
		if slices.ContainsFunc(r.types, func(t string) bool { return d.enabled[t] }) {
			d.recs = append(d.recs, r)
		}
	}
	if len(custom) > 0 {
		d.recs = append(d.recs, recognizer{find: func(_ *Detector, text string, c *collector) {
			findPatterns(custom, text, c)
		}})
	}
	return d, nil
}

// builtin lists the recognizers; the order breaks ties between entities of
// equal score and length.
var builtin = []recognizer{
	{types: []string{TypePrivateKey, TypeJWT, TypeAPIKey}, find: findSecrets},
	{types: []string{TypeURL, TypeURLCredentials}, find: findURLs},
	{types: []string{TypeEmail}, find: findEmails},
	{types: []string{TypeIBAN}, find: findIBANs},
	{types: []string{TypeCreditCard}, find: findCards},
	{types: []string{TypeCrypto}, find: findCrypto},
	{types: []string{TypeIP}, find: findIPs},
	{types: []string{TypeMAC}, find: findMACs},
	{types: []string{TypeSSN, TypeITIN}, find: findSSNs},
	{types: []string{TypeNHS}, find: findNHS},
	{types: []string{TypePhone}, find: findPhones},
	{types: []string{TypePerson}, find: findPersons},
}

// collector gathers the candidates of one call.
type collector struct {
	d       *Detector
	text    string
	rank    int // position of the current recognizer in d.recs
	ents    []ranked
	seen    int // candidates examined by the current recognizer
	limited bool
	runs    [][2]int                // numberRuns, once computed
	phones  map[string]phoneVerdict // by candidate text
}

type ranked struct {
	Entity
	rank int
}

// numberRuns returns the spans of text made of digits and the separators
// numbers are written with (space - . / ( ) +), from the first digit, + or
// ( to the last digit: the only places where the numeric recognizers can
// match, so they need not run their expressions over the prose between.
func (c *collector) numberRuns() [][2]int {
	if c.runs != nil {
		return c.runs
	}
	c.runs = [][2]int{}
	t := c.text
	for i := 0; i < len(t); {
		if !isDigit(t[i]) && t[i] != '+' && t[i] != '(' {
			i++
			continue
		}
		s, last := i, -1
		for i < len(t) && (isDigit(t[i]) || strings.IndexByte(" -./()+", t[i]) >= 0) {
			if isDigit(t[i]) {
				last = i
			}
			i++
		}
		if last >= 0 {
			c.runs = append(c.runs, [2]int{s, last + 1})
		}
	}
	return c.runs
}

// matches returns the matches of re in the spans of text, as absolute
// [start, end) pairs, at most one more than the candidate bound.
func (c *collector) matches(re *regexp.Regexp, spans [][2]int) [][2]int {
	var out [][2]int
	for _, sp := range spans {
		for _, m := range re.FindAllStringIndex(c.text[sp[0]:sp[1]], c.d.max+1-len(out)) {
			out = append(out, [2]int{sp[0] + m[0], sp[0] + m[1]})
		}
		if len(out) > c.d.max {
			break
		}
	}
	return out
}

// covered reports whether an entity already found with a score above
// score overlaps [s, e): a candidate there would lose to it.
func (c *collector) covered(s, e int, score float64) bool {
	for _, x := range c.ents {
		if x.Score > score && x.Start < e && s < x.End {
			return true
		}
	}
	return false
}

// take counts one candidate of the current recognizer and reports whether
// it may be examined; once the recognizer's budget is spent it reports false
// and the call is marked as limited.
func (c *collector) take() bool {
	if c.seen >= c.d.max {
		c.limited = true
		return false
	}
	c.seen++
	return true
}

// add records an entity of type typ at [start, end).
func (c *collector) add(typ string, start, end int, score float64) {
	if !c.d.enabled[typ] || score < c.d.minScore || start < 0 || end > len(c.text) || start >= end {
		return
	}
	c.ents = append(c.ents, ranked{Entity{Type: typ, Start: start, End: end, Text: c.text[start:end], Score: score}, c.rank})
}

// Find returns the entities in text, sorted by start, none overlapping
// another. Where candidates overlap, the one with the higher score is kept,
// then the longer one. Find examines at most the configured number of
// candidates per recognizer; [Detector.Scan] says when that bound was met.
func (d *Detector) Find(text string) []Entity {
	ents, _ := d.Scan(text)
	return ents
}

// Scan is [Detector.Find] that also reports whether every candidate was
// examined: it fails with CodeInvalidInput, and returns what it found, when
// some recognizer met Config.MaxCandidates, so that a caller guarding a
// boundary can refuse the text instead of passing its unexamined part.
func (d *Detector) Scan(text string) ([]Entity, error) {
	c := &collector{d: d, text: text}
	for i, r := range d.recs {
		c.rank, c.seen = i, 0
		r.find(d, text, c)
	}
	ents := resolve(c.ents)
	if c.limited {
		return ents, sanad.Errorf(sanad.CodeInvalidInput, "pii.Scan", "the text holds more than %d candidates for one recognizer; it was not examined in full", d.max)
	}
	return ents, nil
}

// resolve keeps the best of overlapping candidates and sorts the rest by
// start.
func resolve(cands []ranked) []Entity {
	sort.SliceStable(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if la, lb := a.End-a.Start, b.End-b.Start; la != lb {
			return la > lb
		}
		if a.rank != b.rank {
			return a.rank < b.rank
		}
		return a.Start < b.Start
	})
	var kept []Entity // sorted by Start, disjoint
	for _, e := range cands {
		i := sort.Search(len(kept), func(i int) bool { return kept[i].End > e.Start })
		if i < len(kept) && kept[i].Start < e.End {
			continue
		}
		kept = slices.Insert(kept, i, e.Entity)
	}
	return kept
}

func findPatterns(ps []customPattern, text string, c *collector) {
	for _, p := range ps {
		for _, m := range p.re.FindAllStringSubmatchIndex(text, c.d.max+1) {
			if !c.take() {
				return
			}
			s, e := m[0], m[1]
			if len(m) >= 4 && m[2] >= 0 {
				s, e = m[2], m[3]
			}
			c.add(p.typ, s, e, p.score)
		}
	}
}
