package agent

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/pkoukk/tiktoken-go"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/schemafile"
)

const opInject = "agent.inject"

// Ability is knowledge given to an agent through its system prompt. Its
// YAML form uses the json names below; schema/ability.schema.json is its
// contract.
type Ability struct {
	// ID is what profiles list in core_abilities and abilities.
	ID    string `json:"id"`
	Title string `json:"title"`
	// Content is the text injected, trimmed of surrounding white space.
	Content string `json:"content"`
	// Keywords, with the words of Title, decide how relevant the ability
	// is to a task.
	Keywords []string `json:"keywords,omitempty"`
}

// Library holds abilities by id. It does not change once built, so it is
// safe for concurrent use. A nil *Library holds no ability.
type Library struct {
	byID map[string]Ability
}

// NewLibrary returns a library of abilities. It fails with INVALID_INPUT if
// one is not valid or two share an id.
func NewLibrary(abilities ...Ability) (*Library, error) {
	l := &Library{byID: make(map[string]Ability, len(abilities))}
	for _, a := range abilities {
		a.Content = strings.TrimSpace(a.Content)
		a.Keywords = append([]string(nil), a.Keywords...)
		if err := validateValue(schemaAbility, "ability "+a.ID, a); err != nil {
			return nil, invalid(err)
		}
		if _, dup := l.byID[a.ID]; dup {
			return nil, invalid(&LoadError{File: "ability " + a.ID, Reason: "id is used twice; ability ids must be unique"})
		}
		l.byID[a.ID] = a
	}
	return l, nil
}

// ParseAbility reads one ability from YAML; name is the file name errors
// use. Failures are INVALID_INPUT wrapping a *LoadError.
func ParseAbility(name string, data []byte) (Ability, error) {
	root, err := schemafile.Parse(name, data, limits)
	if err != nil {
		return Ability{}, invalid(err)
	}
	if !root.IsMap() {
		return Ability{}, invalid(schemafile.Errorf(name, root.Pos(), "an ability is a map of keys, starting with id"))
	}
	if err := validate(schemaAbility, name, root); err != nil {
		return Ability{}, invalid(err)
	}
	raw, err := json.Marshal(root.Value())
	if err != nil {
		return Ability{}, invalid(&LoadError{File: name, Reason: err.Error()})
	}
	var a Ability
	if err := json.Unmarshal(raw, &a); err != nil {
		return Ability{}, invalid(&LoadError{File: name, Reason: err.Error()})
	}
	a.Content = strings.TrimSpace(a.Content)
	return a, nil
}

// LoadLibrary reads every *.yaml file of the folder dir of fsys as an
// ability. It returns the whole library or INVALID_INPUT naming the first
// bad file, or the second file of a duplicate id.
func LoadLibrary(fsys fs.FS, dir string) (*Library, error) {
	var all []Ability
	from := map[string]string{}
	err := eachYAML(fsys, dir, func(file string, data []byte) error {
		a, err := ParseAbility(file, data)
		if err != nil {
			return err
		}
		if prev, dup := from[a.ID]; dup {
			return invalid(&LoadError{File: file, Reason: "ability id " + a.ID + " is already used by " + prev + "; ids must be unique"})
		}
		from[a.ID] = file
		all = append(all, a)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return NewLibrary(all...)
}

// Get returns the ability id.
func (l *Library) Get(id string) (Ability, bool) {
	if l == nil {
		return Ability{}, false
	}
	a, ok := l.byID[id]
	a.Keywords = append([]string(nil), a.Keywords...)
	return a, ok
}

// IDs returns the ids of the library, sorted.
func (l *Library) IDs() []string {
	if l == nil {
		return nil
	}
	out := make([]string, 0, len(l.byID))
	for id := range l.byID {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// Check reports, as NOT_FOUND, the first ability p names that l lacks.
func (l *Library) Check(p Profile) error {
	for _, ids := range [][]string{p.CoreAbilities, p.Abilities} {
		for _, id := range ids {
			if _, ok := l.Get(id); !ok {
				return sanad.Errorf(sanad.CodeNotFound, opInject, "agent %s uses ability %s, which the library does not hold", p.ID, id)
			}
		}
	}
	return nil
}

// Injection is the outcome of [Library.Inject].
type Injection struct {
	// Prompt is the system prompt to send: the ability block, then the
	// system prompt given.
	Prompt string
	// Included lists the abilities in the block, in block order: core
	// abilities first, in profile order, then task-matched ones, most
	// relevant first.
	Included []string
	// Truncated lists the included abilities whose content was cut short.
	Truncated []string
	// Tokens is the size of the ability block, in [Encoding] tokens.
	Tokens int
	// Warnings say what was cut or left out, and why.
	Warnings []string
}

// section is one ability in the block, with how many of its content tokens
// are kept.
type section struct {
	a       Ability
	content tokenText
	keep    int
}

func (s section) truncated() bool { return s.keep < s.content.len() }

// Inject builds the system prompt of agent p for task: a block of abilities
// prepended to systemPrompt. The block never takes more than budget tokens,
// counted as it is emitted, headings and separators included.
//
// Every core ability of p is in the block, in profile order. If together
// they do not fit, the first are kept whole and the rest cut at a token
// boundary, each with a warning; a cut ability keeps at least its heading.
// If even the headings do not fit, Inject fails with INVALID_INPUT: the
// budget is too small for the agent. A core ability missing from the
// library is NOT_FOUND.
//
// Then come the abilities of p's abilities list that the task is about:
// each scores one per distinct keyword, or title word of four letters or
// more, found among the words of the task. Those that score are added most
// relevant first (ties by id) while they fit; the first that does not fit
// is cut to the room left, and it and the rest are reported in Warnings.
func (l *Library) Inject(p Profile, task, systemPrompt string, budget int) (Injection, error) {
	if budget < 0 {
		return Injection{}, sanad.Errorf(sanad.CodeInvalidInput, opInject, "token budget %d is negative", budget)
	}
	enc, err := encodingOrError()
	if err != nil {
		return Injection{}, err
	}
	b := blockBuilder{enc: enc, budget: budget, sep: systemPrompt != ""}
	var inj Injection
	for _, id := range p.CoreAbilities {
		a, ok := l.Get(id)
		if !ok {
			return Injection{}, sanad.Errorf(sanad.CodeNotFound, opInject, "core ability %s of agent %s is not in the library", id, p.ID)
		}
		t := newTokenText(enc, a.Content)
		b.secs = append(b.secs, section{a: a, content: t, keep: t.len()})
	}
	if !b.fits() {
		for i := range b.secs {
			b.secs[i].keep = 0
		}
		if !b.fits() {
			return Injection{}, sanad.Errorf(sanad.CodeInvalidInput, opInject,
				"token budget %d is too small for the %d core abilities of agent %s: their headings alone take %d tokens",
				budget, len(b.secs), p.ID, b.count())
		}
		// Each core ability in turn takes what room is left, the later
		// ones still at their heading only.
		for i := range b.secs {
			b.grow(i)
		}
	}
	var missing []string
	matched := rank(l, p, normalize(task), &missing)
	for _, id := range missing {
		inj.Warnings = append(inj.Warnings, fmt.Sprintf("ability %s of agent %s is not in the library; left out", id, p.ID))
	}
	for i, a := range matched {
		t := newTokenText(enc, a.Content)
		b.secs = append(b.secs, section{a: a, content: t, keep: t.len()})
		if b.fits() {
			continue
		}
		// It does not fit whole: cut it to the room left, if a token of
		// it fits, and leave out the rest.
		leftOut := matched[i+1:]
		last := len(b.secs) - 1
		if b.secs[last].keep = 1; t.len() > 1 && b.fits() {
			b.grow(last)
		} else {
			b.secs = b.secs[:last]
			leftOut = matched[i:]
		}
		for _, left := range leftOut {
			inj.Warnings = append(inj.Warnings, fmt.Sprintf("ability %s left out: the token budget of %d is spent", left.ID, budget))
		}
		break
	}
	for _, s := range b.secs {
		inj.Included = append(inj.Included, s.a.ID)
		if s.truncated() {
			inj.Truncated = append(inj.Truncated, s.a.ID)
			inj.Warnings = append(inj.Warnings, fmt.Sprintf("ability %s cut to %d of its %d content tokens to fit the token budget of %d", s.a.ID, s.keep, s.content.len(), budget))
		}
	}
	block := b.render()
	inj.Prompt = block + systemPrompt
	inj.Tokens = len(enc.EncodeOrdinary(block))
	return inj, nil
}

// blockBuilder lays out the ability block and measures it against budget.
type blockBuilder struct {
	enc    *tiktoken.Tiktoken
	budget int
	sep    bool // a system prompt follows the block
	secs   []section
}

// render returns the block as it is emitted; no sections, no block.
func (b *blockBuilder) render() string {
	if len(b.secs) == 0 {
		return ""
	}
	var sb strings.Builder
	sb.WriteString("# Abilities\n")
	for _, s := range b.secs {
		fmt.Fprintf(&sb, "\n## %s [%s]\n\n", s.a.Title, s.a.ID)
		sb.WriteString(s.content.prefix(s.keep))
		if s.truncated() {
			sb.WriteString(" […]")
		}
		sb.WriteString("\n")
	}
	if b.sep {
		sb.WriteString("\n---\n\n")
	}
	return sb.String()
}

func (b *blockBuilder) count() int { return len(b.enc.EncodeOrdinary(b.render())) }

func (b *blockBuilder) fits() bool { return b.count() <= b.budget }

// grow sets the content kept of section i to the most that fits, searching
// up from its current keep, which must fit. Token counts of a prefix are
// not strictly monotonic, so the search only ever settles on a keep that it
// measured as fitting.
func (b *blockBuilder) grow(i int) {
	lo, hi := b.secs[i].keep, b.secs[i].content.len()
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if b.secs[i].keep = mid; b.fits() {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	b.secs[i].keep = lo
}

// rank returns the abilities of p's abilities list that task t is about,
// most relevant first, then by id. Ids the library lacks are appended to
// missing; core abilities are skipped.
func rank(l *Library, p Profile, t string, missing *[]string) []Ability {
	words := " " + strings.Join(wordsOf(t), " ") + " "
	type scored struct {
		a     Ability
		score int
	}
	var out []scored
	for _, id := range p.Abilities {
		if slices.Contains(p.CoreAbilities, id) {
			continue
		}
		a, ok := l.Get(id)
		if !ok {
			*missing = append(*missing, id)
			continue
		}
		if s := relevance(a, words); s > 0 {
			out = append(out, scored{a, s})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		return out[i].a.ID < out[j].a.ID
	})
	abilities := make([]Ability, len(out))
	for i, s := range out {
		abilities[i] = s.a
	}
	return abilities
}

// relevance counts the distinct terms of a found in words, the words of a
// task joined by spaces and framed by a space on each side. A term is a
// keyword, or a title word of at least four letters.
func relevance(a Ability, words string) int {
	var terms []string
	for _, k := range a.Keywords {
		terms = append(terms, strings.Join(wordsOf(strings.ToLower(k)), " "))
	}
	for _, w := range wordsOf(strings.ToLower(a.Title)) {
		if len([]rune(w)) >= 4 {
			terms = append(terms, w)
		}
	}
	sort.Strings(terms)
	n := 0
	for i, term := range terms {
		if term != "" && (i == 0 || term != terms[i-1]) && strings.Contains(words, " "+term+" ") {
			n++
		}
	}
	return n
}

// wordsOf splits s into runs of letters and digits.
func wordsOf(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
}
