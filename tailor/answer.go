package tailor

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sanadhq/sanad/memory"
)

// Compose answers in.UserQuery from in.ContextChunks without a model, by
// extraction. It cuts the passages into units (sentences, list items, table
// rows; headings are context), scores each unit against the question (the
// question's content terms it holds, weighted by their rarity among the
// units, with partial credit for terms only in the headings or title above
// it; a bonus when it holds what the question asks for, a figure, a date or
// a name; the closeness of the terms it holds; the passage's retrieval
// score), and takes the best units up to the persona's length, skipping a
// unit that repeats one already taken (and citing its passage too, when it
// is another source's). The units are quoted as written, a table row as
// "label — header: value", so that each sentence is [Supported] by the
// passage it cites.
//
// For SubQueries, each part is answered in turn under its own label; when
// two parts give comparable figures, a computed sentence compares them,
// citing both passages.
//
// Compose refuses (Output.Refused) when there are no passages, when a name
// or number of the question is in none of them, when no unit holds
// MinBestCoverage of the question's weighted terms, or when the units taken
// together cover less than MinCoverage. The only errors are
// INVALID_INPUT, for an unknown persona or an input over the limits.
func Compose(in Input) (Output, error) {
	persona, err := in.validate(opCompose)
	if err != nil {
		return Output{}, err
	}
	c := newCorpus(in)
	var parts []string
	for _, s := range in.SubQueries {
		if s = strings.TrimSpace(s); s != "" {
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 {
		parts = []string{in.UserQuery}
	}
	var sections []section
	var reasons []string
	var covSum float64
	answered := 0
	for _, p := range parts {
		q := c.question(p)
		picks, cov, why := c.answer(q, persona, len(parts))
		sections = append(sections, section{q: q, picks: picks, reason: why})
		covSum += cov
		if why != "" {
			reasons = append(reasons, why)
		} else {
			answered++
		}
	}
	if answered == 0 {
		return refusal(in, persona, strings.Join(reasons, "; "), 0.2*covSum/float64(len(parts))), nil
	}
	out := c.build(sections, persona, len(parts) > 1)
	out.ToneUsed = persona
	if len(reasons) > 0 {
		out.Reason = "not answered: " + strings.Join(reasons, "; ")
	}
	out.ConfidenceScore = c.confidence(sections, out)
	out.FollowUpSuggestions = c.followUps(sections)
	return out, nil
}

// section is the answer to one part of a question.
type section struct {
	q      question
	picks  []pick
	reason string // why it is not answered
}

// build writes the answer: the sections' sentences with their markers, and
// the citations in the order they are first cited.
func (c *corpus) build(sections []section, persona string, labelled bool) Output {
	out := Output{Citations: []Citation{}, Sentences: []Sentence{}}
	index := map[int]int{} // chunk → citation number
	cite := func(chunk int, snippet string) int {
		if n, ok := index[chunk]; ok {
			ct := &out.Citations[n-1]
			if !strings.Contains(ct.TextSnippet, snippet) {
				ct.TextSnippet = boundTo(ct.TextSnippet+" … "+snippet, 600)
			}
			return n
		}
		r := c.in.ContextChunks[chunk]
		out.Citations = append(out.Citations, Citation{
			SourceID: r.SourceID, ChunkID: r.ChunkID, TextSnippet: boundTo(snippet, 600),
			URL: r.SourceURL, Title: title(r), Page: page(r),
		})
		index[chunk] = len(out.Citations)
		return index[chunk]
	}
	list := listStyle(c.in.FormattingInstructions)
	var blocks []string
	for _, sec := range sections {
		var lines []string
		if sec.reason == "" {
			for _, p := range sec.picks {
				var ns []int
				for _, ch := range p.chunks {
					ns = append(ns, cite(ch, p.s.u.text))
				}
				out.Sentences = append(out.Sentences, Sentence{Text: p.text, Citations: ns})
				lines = append(lines, p.text+" "+markerText(ns))
			}
		} else {
			lines = append(lines, "_The documents searched do not answer this part._")
		}
		block := joinLines(lines, list)
		if labelled {
			block = "**" + label(sec.q.text) + "**\n\n" + block
		}
		blocks = append(blocks, block)
	}
	if labelled {
		if s, ok := c.compare(sections, cite); ok {
			out.Sentences = append(out.Sentences, s)
			blocks = append(blocks, s.Text+" "+markerText(s.Citations))
		}
	}
	out.Content = strings.Join(blocks, "\n\n")
	return out
}

func markerText(ns []int) string {
	var b strings.Builder
	for _, n := range ns {
		fmt.Fprintf(&b, "[%d]", n)
	}
	return b.String()
}

// listStyle reads what formatting instructions an extractive answer can
// follow: a bulleted or a numbered list, or prose.
func listStyle(instr string) string {
	l := strings.ToLower(instr)
	switch {
	case strings.Contains(l, "numbered"):
		return "1."
	case strings.Contains(l, "bullet") || strings.Contains(l, "list"):
		return "-"
	}
	return ""
}

func joinLines(lines []string, list string) string {
	switch list {
	case "-":
		return "- " + strings.Join(lines, "\n- ")
	case "1.":
		for i := range lines {
			lines[i] = fmt.Sprintf("%d. %s", i+1, lines[i])
		}
		return strings.Join(lines, "\n")
	}
	return strings.Join(lines, " ")
}

// page returns the page in a passage's metadata, 0 when it has none.
func page(r memory.Result) int {
	switch v := r.Metadata["page"].(type) {
	case int:
		return v
	case int64:
		return int(v)
	case float64:
		if v >= 0 && v < 1e9 {
			return int(v)
		}
	case json.Number:
		if n, err := v.Int64(); err == nil && n >= 0 && n < 1e9 {
			return int(n)
		}
	}
	return 0
}

var askPrefix = regexp.MustCompile(`(?i)^\s*((what|which|how much|how many|who|when|where)\s+((is|was|are|were|did|does|do|has|had)\s+)?(the\s+)?)`)

// label names a part of a question: its words without the asking.
func label(q string) string {
	l := strings.TrimSpace(strings.TrimRight(askPrefix.ReplaceAllString(q, ""), "?. "))
	if l == "" {
		l = strings.TrimSpace(q)
	}
	r, size := utf8.DecodeRuneInString(l)
	return boundTo(string(unicode.ToUpper(r))+l[size:], 200)
}

// figure is the number a part's best unit gives for it.
type figure struct {
	n     number
	chunk int
	label string
}

// primary returns the figure a unit gives for q: in a row, the value of the
// column the question names (or the only figure); in a sentence, the figure
// nearest the question's terms. Years and the question's own numbers are
// not answers.
func primary(u *unit, q question) (number, bool) {
	isAnswer := func(t token) bool {
		return t.num != nil && t.num.kind != yearNum && q.weight[t.stem] == 0
	}
	if u.kind == rowUnit {
		var named, all []number
		for _, cl := range u.cells {
			var vals []number
			for _, t := range tokens(cl.value) {
				if isAnswer(t) {
					vals = append(vals, *t.num)
				}
			}
			if len(vals) != 1 {
				continue
			}
			all = append(all, vals[0])
			for _, t := range tokens(cl.header) {
				if q.weight[t.stem] > 0 {
					named = append(named, vals[0])
					break
				}
			}
		}
		switch {
		case len(named) == 1:
			return named[0], true
		case len(all) == 1:
			return all[0], true
		}
		return number{}, false
	}
	best, dist := -1, math.MaxInt
	for i, t := range u.toks {
		if !isAnswer(t) || (t.num.kind == percentNum) != q.percent {
			continue
		}
		for j, m := range u.toks {
			if q.weight[m.stem] > 0 && m.num == nil {
				if d := abs(i - j); d < dist {
					best, dist = i, d
				}
			}
		}
	}
	if best < 0 {
		return number{}, false
	}
	return *u.toks[best].num, true
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// compare returns the computed sentence comparing the figures of the first
// two answered parts, when they are of one kind (two amounts of money in the
// same currency, two percentages, two plain numbers).
func (c *corpus) compare(sections []section, cite func(int, string) int) (Sentence, bool) {
	var figs []figure
	for _, sec := range sections {
		if sec.reason != "" || len(sec.picks) == 0 {
			continue
		}
		p := sec.picks[0]
		if n, ok := primary(p.s.u, sec.q); ok {
			figs = append(figs, figure{n: n, chunk: p.s.u.chunk, label: label(sec.q.text)})
		}
	}
	if len(figs) < 2 {
		return Sentence{}, false
	}
	a, b := figs[0], figs[1]
	if a.n.kind != b.n.kind || a.n.kind == moneyNum && a.n.text[:1] != b.n.text[:1] {
		return Sentence{}, false
	}
	va, vb := a.n.value*a.n.scale, b.n.value*b.n.scale
	var text, deriv string
	switch {
	case va == vb:
		text = fmt.Sprintf("%s (%s) is the same as %s (%s).", a.label, a.n.text, b.label, b.n.text)
		deriv = fmt.Sprintf("%s = %s", canonical(va), canonical(vb))
	case a.n.kind == percentNum:
		d := math.Abs(va - vb)
		text = fmt.Sprintf("%s (%s) is %.1f percentage points %s than %s (%s).", a.label, a.n.text, d, higher(va, vb), b.label, b.n.text)
		deriv = fmt.Sprintf("|%s − %s| = %.1f", canonical(va), canonical(vb), d)
	case vb != 0:
		r := math.Abs(va-vb) / math.Abs(vb) * 100
		text = fmt.Sprintf("%s (%s) is %.1f%% %s than %s (%s).", a.label, a.n.text, r, higher(va, vb), b.label, b.n.text)
		deriv = fmt.Sprintf("|%s − %s| / %s = %.1f%%", canonical(va), canonical(vb), canonical(vb), r)
	default:
		return Sentence{}, false
	}
	ca, cb := c.in.ContextChunks[a.chunk], c.in.ContextChunks[b.chunk]
	evidence := ca.Content + "\n\n" + cb.Content
	if ok, _ := computedSupported(text, evidence, title(ca)+"\n"+title(cb)); !ok {
		return Sentence{}, false
	}
	ns := []int{cite(a.chunk, a.n.text)}
	if nb := cite(b.chunk, b.n.text); nb != ns[0] {
		ns = append(ns, nb)
	}
	return Sentence{Text: text, Citations: ns, Derivation: deriv}, true
}

func higher(a, b float64) string {
	if a > b {
		return "higher"
	}
	return "lower"
}

// confidence is a logistic function of how much of the question the answer
// covers, how well its best unit does alone, the retrieval scores of the
// passages it cites, and how many of its sentences two sources state.
func (c *corpus) confidence(sections []section, out Output) float64 {
	var cov, best float64
	for _, sec := range sections {
		if sec.reason != "" {
			continue // an unanswered part covers nothing
		}
		var covered = map[string]float64{}
		for _, p := range sec.picks {
			for st, cr := range p.s.cover {
				covered[st] = max(covered[st], cr)
			}
		}
		var part float64
		for st, cr := range covered {
			part += cr * sec.q.weight[st]
		}
		cov += part / sec.q.total
		best += sec.picks[0].s.direct
	}
	cov /= float64(len(sections))
	best /= float64(len(sections))
	var rel float64
	for _, ct := range out.Citations {
		for _, r := range c.in.ContextChunks {
			if r.ChunkID == ct.ChunkID && r.SourceID == ct.SourceID {
				rel += min(max(r.RelevanceScore, 0), 1)
				break
			}
		}
	}
	if len(out.Citations) > 0 {
		rel /= float64(len(out.Citations))
	}
	corroborated := 0.0
	for _, s := range out.Sentences {
		if len(s.Citations) > 1 {
			corroborated++
		}
	}
	if len(out.Sentences) > 0 {
		corroborated /= float64(len(out.Sentences))
	}
	z := -4 + 4*cov + 1.5*best + 1.5*rel + 0.5*corroborated
	return math.Round(1/(1+math.Exp(-z))*1000) / 1000
}

// followUps suggests two or three questions about what the passages say that
// the question did not ask: the headings and table rows the answer did not
// use, and the phrases the passages repeat.
func (c *corpus) followUps(sections []section) []string {
	asked := map[string]bool{}
	used := map[*unit]bool{}
	for _, sec := range sections {
		for st := range sec.q.weight {
			asked[st] = true
		}
		for _, p := range sec.picks {
			used[p.s.u] = true
		}
	}
	type cand struct {
		text  string
		score float64
		stems map[string]bool
	}
	var cands []cand
	fresh := func(s string) (map[string]bool, bool) {
		m := contentSet(tokens(s))
		for st := range m {
			if asked[st] {
				return nil, false
			}
		}
		return m, len(m) > 0
	}
	about := "What do the documents say about %s?"
	if titles := c.titles(); len(titles) == 1 {
		about = "What does " + strings.ReplaceAll(titles[0], "%", "%%") + " say about %s?"
	}
	seen := map[string]bool{}
	for i := range c.units {
		u := &c.units[i]
		if used[u] {
			continue
		}
		if u.kind == rowUnit && u.label != "" && len(u.cells) > 0 && !seen[u.label] {
			seen[u.label] = true
			if m, ok := fresh(u.label); ok {
				h := u.cells[len(u.cells)-1].header
				q := fmt.Sprintf("What is the %s of %s?", lowerFirst(h), u.label)
				if h == "" || isPeriod(h) {
					q = fmt.Sprintf("What was %s%s?", lowerFirst(u.label), inPeriod(h))
				}
				cands = append(cands, cand{q, 1.5 + c.weightOf(m), m})
			}
		}
	}
	for _, h := range c.allHeadings() {
		h = strings.TrimSpace(sectionNumber.ReplaceAllString(h, ""))
		if m, ok := fresh(h); ok && !seen[h] {
			seen[h] = true
			cands = append(cands, cand{fmt.Sprintf(about, lowerFirst(h)), 1 + c.weightOf(m), m})
		}
	}
	for _, ph := range c.phrases(asked) {
		cands = append(cands, cand{fmt.Sprintf(about, ph.text), ph.score, ph.stems})
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	out := []string{}
	var taken []map[string]bool
	for _, cd := range cands {
		if len(out) == 3 {
			break
		}
		overlap := false
		for _, t := range taken {
			for st := range cd.stems {
				overlap = overlap || t[st]
			}
		}
		if !overlap {
			out = append(out, boundTo(cd.text, 200))
			taken = append(taken, cd.stems)
		}
	}
	return out
}

// sectionNumber is the numbering that opens a heading ("8.", "4.2", "IV.").
var sectionNumber = regexp.MustCompile(`^(?:\d+(?:\.\d+)*\.?|[IVXLC]+\.)\s+`)

func (c *corpus) weightOf(stems map[string]bool) float64 {
	var w float64
	for st := range stems {
		w += c.idf(st)
	}
	return w / float64(max(len(stems), 1))
}

// lowerFirst lower-cases a phrase in sentence case ("Net income"), which
// reads as a common noun inside a question; names and single words keep
// their capitals.
func lowerFirst(s string) string {
	f := strings.Fields(s)
	if len(f) < 2 {
		return s
	}
	r, size := utf8.DecodeRuneInString(f[1])
	if !unicode.IsLower(r) || strings.IndexFunc(f[0][1:], func(r rune) bool { return unicode.IsUpper(r) || unicode.IsDigit(r) }) >= 0 {
		return s
	}
	r, size = utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[size:]
}

func isPeriod(h string) bool {
	for _, t := range tokens(h) {
		if t.num != nil && t.num.kind == yearNum || months[strings.ToLower(t.surface)] {
			return true
		}
	}
	return false
}

func inPeriod(h string) string {
	if h == "" {
		return ""
	}
	return " in " + h
}

func (c *corpus) titles() []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range c.in.ContextChunks {
		if t := strings.TrimSpace(title(r)); t != "" && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

func (c *corpus) allHeadings() []string {
	seen := map[string]bool{}
	titles := map[string]bool{}
	for _, t := range c.titles() {
		titles[t] = true
	}
	var out []string
	for _, u := range c.units {
		for _, h := range strings.Split(u.context, " · ") {
			if h = strings.TrimSpace(h); h != "" && !seen[h] && !titles[h] && len(h) <= 80 {
				seen[h] = true
				out = append(out, h)
			}
		}
	}
	return out
}

type phrase struct {
	text  string
	score float64
	stems map[string]bool
}

// phrases returns the runs of one to three content words that two or more
// units repeat, scored by how often and how rare their words are.
func (c *corpus) phrases(asked map[string]bool) []phrase {
	count := map[string]int{}
	first := map[string]string{}
	stems := map[string]map[string]bool{}
	for _, u := range c.units {
		seen := map[string]bool{}
		run := []token{}
		flush := func() {
			for i := range run {
				for n := 1; n <= 3 && i+n <= len(run); n++ {
					var ks, ws []string
					m := map[string]bool{}
					for _, t := range run[i : i+n] {
						ks = append(ks, t.stem)
						ws = append(ws, t.surface)
						m[t.stem] = true
					}
					k := strings.Join(ks, " ")
					if !seen[k] {
						seen[k] = true
						count[k]++
						if _, ok := first[k]; !ok {
							first[k], stems[k] = strings.Join(ws, " "), m
						}
					}
				}
			}
			run = run[:0]
		}
		for _, t := range u.toks {
			if t.content() && t.num == nil && utf8.RuneCountInString(t.surface) > 2 && !asked[t.stem] && !askWords[strings.ToLower(t.surface)] {
				run = append(run, t)
				continue
			}
			flush()
		}
		flush()
	}
	var out []phrase
	for k, n := range count {
		words := strings.Fields(k)
		// A single verb form repeated ("ended", "including") names no
		// subject.
		if n < 2 || len(words) == 1 && (strings.HasSuffix(first[k], "ed") || strings.HasSuffix(first[k], "ing")) {
			continue
		}
		var idf float64
		for _, w := range words {
			idf += c.idf(w)
		}
		out = append(out, phrase{text: first[k], score: float64(n) * idf / float64(len(words)) * (1 + 0.3*float64(len(words)-1)) / 4, stems: stems[k]})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		return out[i].text < out[j].text
	})
	return out[:min(len(out), 10)]
}
