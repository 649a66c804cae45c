package offline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/sanadhq/sanad/agent"
)

// InputSource names the work's input among the sources of a finding.
const InputSource = "input"

// Kinds of [Finding].
const (
	KindRelevant     = "relevant"     // a passage that bears on the task
	KindEntity       = "entity"       // an organisation the evidence names
	KindFigure       = "figure"       // an amount or a percentage, with what it measures
	KindDate         = "date"         // a date the evidence states
	KindCorroborated = "corroborated" // a figure two or more sources state alike
	KindConflict     = "conflict"     // a figure sources state differently
	KindGap          = "gap"          // what the task asks about that no source mentions
)

// Finding is one thing the evidence shows.
type Finding struct {
	Kind      string `json:"kind"`
	Statement string `json:"statement"`
	// Sources are where it was read: a step (or "input") and the JSON
	// path within its output.
	Sources []Ref `json:"sources,omitempty"`
}

// Ref locates a passage: the step whose output holds it and its JSON path.
type Ref struct {
	Step string `json:"step"`
	Path string `json:"path"`
}

func (r Ref) String() string { return r.Step + " " + r.Path }

// Limits on what the agent reads and reports.
const (
	maxPassages  = 4096 // sentences read, over all sources
	maxRelevant  = 5
	maxPerKind   = 12
	maxStatement = 300
)

// passage is one sentence, or one named number, of the evidence. A derived
// passage is another agent's finding: it bears on the task, but it is not
// a source of figures, names or dates of its own.
type passage struct {
	ref     Ref
	text    string
	derived bool
	kind    string // a derived passage's finding kind
}

// skipped are members of an output that describe it rather than state
// evidence: hashes, ids and the bookkeeping of agent outputs.
var skipped = map[string]bool{
	"sha256": true, "id": true, "uri": true, "bytes": true, "size_bytes": true, "output_hash": true,
	"mode": true, "agent": true, "role": true, "abilities": true, "inputs": true, "findings": true,
	"prompt_tokens": true, "class": true, "provider": true, "model": true, "finish_reason": true,
	"turns": true, "tool_calls": true, "task": true,
}

// passages splits one source into passages: each sentence of each string,
// and each number as "name: value", with its JSON path.
func passages(step string, raw json.RawMessage) []passage {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil
	}
	var out []passage
	var walk func(path, key string, v any)
	walk = func(path, key string, v any) {
		if len(out) >= maxPassages {
			return
		}
		switch t := v.(type) {
		case map[string]any:
			if fs, ok := agentFindings(t); ok {
				for i, f := range fs {
					if len(out) < maxPassages && f.Kind != KindFigure && f.Kind != KindEntity && f.Kind != KindDate {
						out = append(out, passage{ref: Ref{Step: step, Path: path + ".findings[" + strconv.Itoa(i) + "]"}, text: f.Statement, derived: true, kind: f.Kind})
					}
				}
				return
			}
			for _, k := range sortedKeys(t) {
				if !skipped[k] {
					walk(path+"."+k, k, t[k])
				}
			}
		case []any:
			for i, e := range t {
				walk(path+"["+strconv.Itoa(i)+"]", key, e)
			}
		case string:
			for _, s := range sentences(t) {
				if len(out) < maxPassages {
					out = append(out, passage{ref: Ref{Step: step, Path: path}, text: s})
				}
			}
		case json.Number:
			label := strings.ReplaceAll(key, "_", " ")
			out = append(out, passage{ref: Ref{Step: step, Path: path}, text: label + ": " + t.String()})
		}
	}
	walk("$", "", v)
	return out
}

// agentFindings returns the findings of m when it is an agent's output that
// has them (an offline agent's): what it concluded, read instead of its
// report, which restates its sources.
func agentFindings(m map[string]any) ([]Finding, bool) {
	raw, ok := m["findings"].([]any)
	if _, agentOut := m["mode"]; !ok || !agentOut {
		return nil, false
	}
	var out []Finding
	for _, e := range raw {
		f, ok := e.(map[string]any)
		if !ok {
			continue
		}
		kind, _ := f["kind"].(string)
		st, _ := f["statement"].(string)
		if st != "" {
			out = append(out, Finding{Kind: kind, Statement: st})
		}
	}
	return out, true
}

// sentences splits text into sentences and lines, trimmed, without the
// Markdown marks that start a line.
func sentences(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimLeft(strings.TrimSpace(line), "#*->` ")
		// A heading says what follows, and a citation where it was read:
		// neither is evidence of its own.
		if strings.HasSuffix(line, ":") {
			continue
		}
		line = citationRE.ReplaceAllString(line, "")
		for line != "" {
			i := sentenceEnd(line)
			s := strings.TrimSpace(line[:i])
			if len(s) > 1 {
				out = append(out, s)
			}
			line = strings.TrimSpace(line[i:])
		}
	}
	return out
}

// sentenceEnd returns the end of the first sentence of s: after a '.', '!'
// or '?' followed by a space and a capital letter or a digit, or len(s).
// "Ltd." or "3.5" do not end a sentence.
func sentenceEnd(s string) int {
	for i := 0; i+2 < len(s); i++ {
		if (s[i] == '.' || s[i] == '!' || s[i] == '?') && s[i+1] == ' ' {
			next := rune(s[i+2])
			if unicode.IsUpper(next) || unicode.IsDigit(next) {
				if s[i] == '.' && abbreviation(s[:i]) {
					continue
				}
				return i + 1
			}
		}
	}
	return len(s)
}

var abbreviations = map[string]bool{"ltd": true, "inc": true, "co": true, "corp": true, "no": true, "mr": true, "ms": true, "dr": true, "st": true, "vs": true, "e.g": true, "i.e": true, "plc": true}

func abbreviation(before string) bool {
	w := before
	if i := strings.LastIndexAny(before, " ("); i >= 0 {
		w = before[i+1:]
	}
	return abbreviations[strings.ToLower(w)] || (len(w) == 1 && unicode.IsUpper(rune(w[0])))
}

var (
	// citationRE finds the citations an agent's report ends its lines
	// with: [step $.path; ...].
	citationRE = regexp.MustCompile(`\s*\[[a-z0-9_-]+ \$[^\]]*\]\s*$`)
	// entityRE finds organisation names: capitalised words ending in a
	// legal form or a group word.
	entityRE = regexp.MustCompile(`\b(?:[A-Z][\w&'-]*\s+){1,5}(?:Ltd|Limited|PLC|plc|Inc|LLC|LLP|GmbH|AG|SA|S\.A\.|N\.V\.|NV|BV|Corp|Corporation|Holdings|Group|Bank|Partners)\b\.?`)
	// figureRE finds amounts (a currency sign or code, a number, a scale)
	// and percentages.
	figureRE = regexp.MustCompile(`(?i)(?:(?:[$£€¥]|\b(?:USD|GBP|EUR|JPY|CHF)\s?)-?\d[\d,]*(?:\.\d+)?(?:\s?(?:bn|billion|m|mn|million|k|thousand)\b)?|-?\d[\d,]*(?:\.\d+)?\s?(?:%|per ?cent\b))`)
	// dateRE finds dates: ISO, "12 March 2024", "March 2024", and fiscal
	// years.
	dateRE = regexp.MustCompile(`\b(?:\d{4}-\d{2}-\d{2}|\d{1,2}\s+(?:January|February|March|April|May|June|July|August|September|October|November|December)\s+\d{4}|(?:January|February|March|April|May|June|July|August|September|October|November|December)\s+\d{4}|FY\s?\d{2,4})\b`)
)

// figure is an amount or percentage read from a passage.
type figure struct {
	label, text string
	value       float64
	ref         Ref
}

// analyse reads the passages for the task.
func analyse(task string, ev []passage) []Finding {
	findings := []Finding{}
	add := func(kind, statement string, refs ...Ref) {
		findings = append(findings, Finding{Kind: kind, Statement: clip(statement, maxStatement), Sources: refs})
	}
	// What bears on the task: passages sharing the most of its terms.
	terms, termWord := keywords(task)
	type scored struct {
		p     passage
		score int
	}
	var rel []scored
	seen := map[string]bool{}
	for _, p := range ev {
		if seen[p.text] {
			continue
		}
		seen[p.text] = true
		n := 0
		words := stems(p.text)
		for _, t := range terms {
			if words[t] {
				n++
			}
		}
		if n > 0 {
			// What another agent found contradicting is what a reader
			// of its work most needs to see.
			if p.derived && p.kind == KindConflict {
				n += 2
			}
			rel = append(rel, scored{p, n})
		}
	}
	sort.SliceStable(rel, func(i, j int) bool { return rel[i].score > rel[j].score })
	for i := 0; i < len(rel) && i < maxRelevant; i++ {
		p := rel[i].p
		if p.derived {
			add(KindRelevant, fmt.Sprintf("%s found: %s", p.ref.Step, p.text), p.ref)
			continue
		}
		add(KindRelevant, fmt.Sprintf("%q (%d of the task's %d terms)", p.text, min(rel[i].score, len(terms)), len(terms)), p.ref)
	}
	// What the task asks about that nothing mentions.
	all := map[string]bool{}
	for _, p := range ev {
		for w := range stems(p.text) {
			all[w] = true
		}
	}
	var missing []string
	for _, t := range terms {
		if !all[t] {
			missing = append(missing, termWord[t])
		}
	}
	if len(missing) > 0 {
		add(KindGap, "no source mentions: "+strings.Join(missing, ", "))
	}
	// Organisations, with how many sources name them.
	type named struct {
		refs    []Ref
		sources map[Ref]bool
	}
	ents := map[string]*named{}
	var order []string
	var primary []passage
	for _, p := range ev {
		if !p.derived {
			primary = append(primary, p)
		}
	}
	for _, p := range primary {
		for _, m := range entityRE.FindAllString(p.text, -1) {
			m = strings.TrimSuffix(strings.TrimSpace(m), ".")
			e := ents[m]
			if e == nil {
				e = &named{sources: map[Ref]bool{}}
				ents[m] = e
				order = append(order, m)
			}
			if !e.sources[p.ref] {
				e.sources[p.ref] = true
				e.refs = append(e.refs, p.ref)
			}
		}
	}
	for i, name := range order {
		if i >= maxPerKind {
			break
		}
		add(KindEntity, fmt.Sprintf("%s is named in %d source(s)", name, len(ents[name].sources)), ents[name].refs...)
	}
	// Dates.
	dates := map[string]bool{}
	for _, p := range primary {
		for _, d := range dateRE.FindAllString(p.text, -1) {
			if !dates[d] && len(dates) < maxPerKind {
				dates[d] = true
				add(KindDate, d+" is stated", p.ref)
			}
		}
	}
	// Figures, then how sources compare on each.
	var figs []figure
	for _, p := range primary {
		figs = append(figs, figures(p)...)
	}
	for i, f := range figs {
		if i >= maxPerKind {
			break
		}
		if f.label == "" {
			add(KindFigure, f.text, f.ref)
			continue
		}
		add(KindFigure, f.label+": "+f.text, f.ref)
	}
	byLabel := map[string][]figure{}
	var labels []string
	for _, f := range figs {
		if f.label == "" {
			continue
		}
		if _, ok := byLabel[f.label]; !ok {
			labels = append(labels, f.label)
		}
		byLabel[f.label] = append(byLabel[f.label], f)
	}
	for _, l := range labels {
		fs := byLabel[l]
		a, b, ok := disagreement(fs)
		switch {
		case ok:
			add(KindConflict, fmt.Sprintf("%s is %s in %s but %s in %s (%.1f%% apart)", l, a.text, a.ref, b.text, b.ref, 100*relDiff(a.value, b.value)), a.ref, b.ref)
		case distinctSources(fs) >= 2:
			refs := make([]Ref, len(fs))
			for i, f := range fs {
				refs[i] = f.ref
			}
			add(KindCorroborated, fmt.Sprintf("%s is %s in %d sources", l, fs[0].text, distinctSources(fs)), refs...)
		}
	}
	return findings
}

// figures returns the amounts and percentages a passage states, each with
// what it measures: the words just before it.
func figures(p passage) []figure {
	var out []figure
	for _, loc := range figureRE.FindAllStringIndex(p.text, -1) {
		text := strings.TrimSpace(p.text[loc[0]:loc[1]])
		v, ok := amount(text)
		if !ok {
			continue
		}
		out = append(out, figure{label: label(p.text[:loc[0]]), text: text, value: v, ref: p.ref})
	}
	return out
}

// connectors stand between what a figure measures and the figure; verbs
// and words that end the noun phrase before it.
var (
	connectors = wordSet(`of was were is are at to from by be been totalled totaled reached stood amounted show shows showed
		report reports reported rose fell grew increased decreased up down about around approximately nearly over under
		and an a the its their it this that with for in on`)
	phraseEnd = wordSet(`of was were is are at to from by be been show shows showed report reports reported rose fell grew increased
		decreased and or but the a an its their it this that which with for in on up down`)
)

// label returns the noun phrase at the end of before (at most three words,
// lower case), skipping the connecting words next to the figure: "revenue"
// in "the accounts show revenue of", "ebitda margin" in "an EBITDA margin
// of". It is "" when nothing names the figure.
func label(before string) string {
	ws := strings.FieldsFunc(strings.ToLower(before), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-'
	})
	// A sentence boundary or a clause mark cuts what came before.
	if i := strings.LastIndexAny(before, ".;,(:"); i >= 0 && strings.TrimSpace(before[i+1:]) != "" {
		ws = strings.FieldsFunc(strings.ToLower(before[i+1:]), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-'
		})
	}
	end := len(ws)
	for end > 0 && connectors[ws[end-1]] {
		end--
	}
	start := end
	for start > 0 && end-start < 3 && !phraseEnd[ws[start-1]] && !isNumber(ws[start-1]) {
		start--
	}
	return strings.Join(ws[start:end], " ")
}

func isNumber(w string) bool {
	_, err := strconv.ParseFloat(w, 64)
	return err == nil
}

// amount reads the value of a figure, scaled (12.4m is 12,400,000).
func amount(text string) (float64, bool) {
	t := strings.ToLower(text)
	num := strings.Map(func(r rune) rune {
		if unicode.IsDigit(r) || r == '.' || r == '-' {
			return r
		}
		return -1
	}, t)
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, false
	}
	switch {
	case strings.HasSuffix(t, "bn") || strings.HasSuffix(t, "billion"):
		v *= 1e9
	case strings.HasSuffix(t, "m") || strings.HasSuffix(t, "mn") || strings.HasSuffix(t, "million"):
		v *= 1e6
	case strings.HasSuffix(t, "k") || strings.HasSuffix(t, "thousand"):
		v *= 1e3
	}
	return v, true
}

// disagreement returns two figures of different sources whose values differ
// by more than half a percent, the pair furthest apart.
func disagreement(fs []figure) (figure, figure, bool) {
	var a, b figure
	best := 0.0
	for i := range fs {
		for j := i + 1; j < len(fs); j++ {
			if fs[i].ref == fs[j].ref {
				continue
			}
			if d := relDiff(fs[i].value, fs[j].value); d > 0.005 && d > best {
				a, b, best = fs[i], fs[j], d
			}
		}
	}
	return a, b, best > 0
}

func relDiff(x, y float64) float64 {
	m := math.Max(math.Abs(x), math.Abs(y))
	if m == 0 {
		return 0
	}
	return math.Abs(x-y) / m
}

// distinctSources counts the places the figures were read: two passages of
// one string are one source.
func distinctSources(fs []figure) int {
	seen := map[Ref]bool{}
	for _, f := range fs {
		seen[f.ref] = true
	}
	return len(seen)
}

// stopwords are not terms of a task.
var stopwords = wordSet(`a an and any are as at be by each every for from has have in into is it its of on or
	over that the their them these this those to was were what which who with within all between against
	check identify collect review find list give make sure whether than then there`)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// keywords returns the terms of a task, stemmed, in order, once each, and
// the word of the task each stem came from.
func keywords(task string) ([]string, map[string]string) {
	var out []string
	word := map[string]string{}
	for _, w := range words(task) {
		if stopwords[w] || len(w) < 3 {
			continue
		}
		s := stem(w)
		if _, seen := word[s]; !seen {
			word[s] = w
			out = append(out, s)
		}
	}
	return out, word
}

// stems returns the set of stemmed words of text.
func stems(text string) map[string]bool {
	out := map[string]bool{}
	for _, w := range words(text) {
		out[stem(w)] = true
	}
	return out
}

func words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// stem strips the commonest English endings, enough for a task's "filings"
// to find a source's "filing".
func stem(w string) string {
	for _, suf := range []string{"ations", "ation", "ings", "ing", "ies", "es", "s", "ed"} {
		if len(w) <= len(suf)+3 || !strings.HasSuffix(w, suf) {
			continue
		}
		base := w[:len(w)-len(suf)]
		switch suf {
		case "ies":
			return base + "y"
		case "es":
			// "boxes", "matches": the e belongs to the ending; "traces":
			// it belongs to the word.
			if !strings.HasSuffix(base, "s") && !strings.HasSuffix(base, "x") && !strings.HasSuffix(base, "z") &&
				!strings.HasSuffix(base, "ch") && !strings.HasSuffix(base, "sh") {
				return w[:len(w)-1]
			}
		case "s":
			if strings.HasSuffix(w, "ss") || strings.HasSuffix(w, "is") || strings.HasSuffix(w, "us") {
				return w
			}
		}
		return base
	}
	return w
}

// report writes the findings for people.
func report(p agent.Profile, task string, fs []Finding, sources int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s on %q: read %d input(s) offline, by rules (no model).\n", p.Name, task, sources)
	titles := []struct{ kind, title string }{
		{KindRelevant, "Bears on the task"}, {KindConflict, "Sources disagree"}, {KindCorroborated, "Sources agree"},
		{KindFigure, "Figures"}, {KindEntity, "Organisations named"}, {KindDate, "Dates"}, {KindGap, "Not in the evidence"},
	}
	for _, t := range titles {
		first := true
		for _, f := range fs {
			if f.Kind != t.kind {
				continue
			}
			if first {
				fmt.Fprintf(&b, "\n%s:\n", t.title)
				first = false
			}
			fmt.Fprintf(&b, "- %s%s\n", f.Statement, cite(f.Sources))
		}
	}
	if len(fs) == 0 {
		b.WriteString("\nThe evidence holds nothing this task can use.\n")
	}
	return b.String()
}

// cite names the sources of a finding: [research $.text].
func cite(refs []Ref) string {
	if len(refs) == 0 {
		return ""
	}
	parts := make([]string, len(refs))
	for i, r := range refs {
		parts[i] = r.String()
	}
	return " [" + strings.Join(parts, "; ") + "]"
}

// clip cuts s to n bytes at a rune boundary, with "…" when cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
