package tailor

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sanadhq/sanad/memory"
)

// Thresholds of [Compose], set on the package's test set of answerable and
// unanswerable questions (see TestR05_AnswersOrRefusesTheTestSet).
const (
	// MinBestCoverage is the share of the question's weighted content
	// terms that the best unit must contain itself.
	MinBestCoverage = 0.4
	// MinBestContextCoverage admits a best unit below MinBestCoverage
	// when, with the credit of its headings and passage, it covers this
	// share: a short sentence ("The total overdue is £214,600.") whose
	// passage names what the question asks about.
	MinBestContextCoverage = 0.65
	// answerTypeRatio is how close to the best score a unit holding the
	// kind of answer asked for (a figure, a date, a name) must come to be
	// put first.
	answerTypeRatio = 0.5
	// MinCoverage is the share that the units of the answer, with the
	// headings and titles above them, must cover together.
	MinCoverage = 0.5
	// contextCredit is the credit of a term found only in a unit's
	// headings or title.
	contextCredit = 0.6
	// passageCredit is the credit of a term found only elsewhere in the
	// unit's passage ("The CEO said..." in a passage about Acme).
	passageCredit = 0.5
	// nearDuplicate is the word overlap (Jaccard) above which two units
	// say the same thing.
	nearDuplicate = 0.6
)

// answerType is what a question asks for.
type answerType int

const (
	anyAnswer answerType = iota
	numberAnswer
	dateAnswer
	nameAnswer
)

// question is a question, or one part of it, as Compose matches it.
type question struct {
	text   string
	weight map[string]float64 // content stems and numbers, by idf
	total  float64
	key    []string // stems that must be somewhere in the passages: names and numbers
	want   answerType
	// percent is set when the figure asked for is a rate or a share.
	percent bool
	order   []string // the stems, in the question's order
}

// corpus is the units of an Input's passages and their statistics.
type corpus struct {
	in    Input
	units []unit
	df    map[string]int
	ctx   map[string]bool // stems of titles and headings
	// passage holds the content stems of each passage.
	passage []map[string]bool
}

func newCorpus(in Input) *corpus {
	c := &corpus{in: in, df: map[string]int{}, ctx: map[string]bool{}}
	for i, r := range in.ContextChunks {
		us := splitUnits(r.Content, i, title(r), headings(r))
		all := map[string]bool{}
		for _, u := range us {
			seen := map[string]bool{}
			for _, t := range u.toks {
				if t.content() && !seen[t.stem] {
					seen[t.stem] = true
					all[t.stem] = true
					c.df[t.stem]++
				}
			}
			for _, t := range u.ctxToks {
				c.ctx[t.stem] = true
			}
		}
		c.units = append(c.units, us...)
		c.passage = append(c.passage, all)
	}
	return c
}

func (c *corpus) inPassage(chunk int, stem string) bool { return c.passage[chunk][stem] }

// headings returns the headings in a passage's metadata.
func headings(r memory.Result) []string {
	var out []string
	switch h := r.Metadata["headings"].(type) {
	case []string:
		out = h
	case []any:
		for _, v := range h {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
	case string:
		out = []string{h}
	}
	return out
}

func (c *corpus) idf(stem string) float64 {
	n := float64(len(c.units))
	return math.Log(1 + (n+1)/(float64(c.df[stem])+0.5))
}

var (
	numberCue = regexp.MustCompile(`(?i)\b(how (much|many|large|big|long|often|high|low)|what (percentage|percent|share|proportion|amount|number|rate|price|cost))\b`)
	dateCue   = regexp.MustCompile(`(?i)\b(when|what (year|date|day|month|time)|which (year|date|day|month))\b`)
	nameCue   = regexp.MustCompile(`(?i)\b(who|whom|whose|which (company|person|firm|organi[sz]ation|team|country|city))\b`)
)

// percentNouns are nouns whose answer is a percentage.
var percentNouns = wordSet(`percent percentage rate rates growth share margin proportion ratio yield`)

// numberNouns are nouns whose answer is a figure.
var numberNouns = wordSet(`revenue revenues sales income profit profits cost costs price prices amount total
	rate rates percentage share margin budget salary salaries fee fees spend spending expense expenses growth
	ebitda earnings loss losses count size population value worth balance debt cash dividend tax taxes`)

func (c *corpus) question(text string) question {
	q := question{text: text, weight: map[string]float64{}}
	ts := tokens(text)
	for i, t := range ts {
		lower := strings.ToLower(t.surface)
		if !t.content() || askWords[lower] {
			continue
		}
		if q.weight[t.stem] == 0 {
			q.weight[t.stem] = c.idf(t.stem)
			q.total += q.weight[t.stem]
			q.order = append(q.order, t.stem)
			if t.num != nil || t.upper && i > 0 {
				q.key = append(q.key, t.stem)
			}
		}
		if q.want == anyAnswer && numberNouns[lower] {
			q.want = numberAnswer
		}
		q.percent = q.percent || percentNouns[lower]
	}
	// The kind of answer is the one the question asks for first: "Who
	// signed it, and when?" wants a name before a date.
	first := len(text) + 1
	for _, c := range []struct {
		re   *regexp.Regexp
		want answerType
	}{{dateCue, dateAnswer}, {nameCue, nameAnswer}, {numberCue, numberAnswer}} {
		if loc := c.re.FindStringIndex(text); loc != nil && loc[0] < first {
			first, q.want = loc[0], c.want
		}
	}
	return q
}

// scored is a unit's match with a question.
type scored struct {
	u      *unit
	score  float64
	direct float64            // the share of the question's weight in the unit itself
	cov    float64            // the share with the credit of its context
	cover  map[string]float64 // the credit of each question stem
}

var months = wordSet(`january february march april may june july august september october november december
	jan feb mar apr jun jul aug sep sept oct nov dec`)

func (c *corpus) score(u *unit, q question) scored {
	s := scored{u: u, cover: map[string]float64{}}
	if q.total == 0 {
		return s
	}
	pos := map[string][]int{}
	for i, t := range u.toks {
		if q.weight[t.stem] > 0 {
			s.cover[t.stem] = 1
			pos[t.stem] = append(pos[t.stem], i)
		}
	}
	var direct, cov float64
	for st, w := range q.weight {
		if s.cover[st] > 0 {
			direct += w
		}
	}
	for _, t := range u.ctxToks {
		if q.weight[t.stem] > 0 && s.cover[t.stem] == 0 {
			s.cover[t.stem] = contextCredit
		}
	}
	for st := range q.weight {
		if s.cover[st] == 0 && c.inPassage(u.chunk, st) {
			s.cover[st] = passageCredit
		}
	}
	for st, cr := range s.cover {
		cov += cr * q.weight[st]
	}
	s.direct, s.cov = direct/q.total, cov/q.total
	if s.direct == 0 {
		return s
	}
	s.score = s.cov
	if answers(u, q) {
		s.score += 0.15
	}
	s.score += 0.1 * proximity(pos, len(u.toks))
	s.score += 0.05 * c.in.ContextChunks[u.chunk].RelevanceScore
	if n := len(u.toks); n < 4 || n > 80 {
		s.score -= 0.05
	}
	if u.fragment {
		s.score -= 0.1
	}
	return s
}

// answers reports whether u holds what q asks for: a figure, a date or a
// name.
func answers(u *unit, q question) bool {
	for i, t := range u.toks {
		switch q.want {
		case numberAnswer:
			if t.num != nil && t.num.kind != yearNum && q.weight[t.stem] == 0 {
				return true
			}
		case dateAnswer:
			if t.num != nil && t.num.kind == yearNum && q.weight[t.stem] == 0 || months[strings.ToLower(t.surface)] {
				return true
			}
		case nameAnswer:
			// A capitalised word that is not part of a name the question
			// gives ("Corp" in "Acme Corp").
			// A code such as "FY2024" is not a name.
			if t.upper && i > 0 && t.num == nil && !t.stop && q.weight[t.stem] == 0 && !strings.ContainsAny(t.surface, "0123456789") &&
				q.weight[u.toks[i-1].stem] == 0 && (i+1 == len(u.toks) || q.weight[u.toks[i+1].stem] == 0) {
				return true
			}
		}
	}
	return false
}

// proximity is 1 when the distinct matched terms of a unit stand next to
// each other, falling as the smallest window holding them all widens; 0
// for fewer than two.
func proximity(pos map[string][]int, n int) float64 {
	if len(pos) < 2 {
		return 0
	}
	type hit struct{ at, term int }
	var hits []hit
	k := 0
	for _, ps := range pos {
		for _, p := range ps {
			hits = append(hits, hit{p, k})
		}
		k++
	}
	sort.Slice(hits, func(i, j int) bool { return hits[i].at < hits[j].at })
	count := make([]int, k)
	have, best, lo := 0, n+1, 0
	for _, h := range hits {
		if count[h.term] == 0 {
			have++
		}
		count[h.term]++
		for have == k {
			best = min(best, h.at-hits[lo].at+1)
			count[hits[lo].term]--
			if count[hits[lo].term] == 0 {
				have--
			}
			lo++
		}
	}
	return float64(k-1) / float64(max(best-1, k-1))
}

// similar is the Jaccard overlap of two units' content words.
func similar(a, b *unit) float64 {
	x, y := contentSet(a.toks), contentSet(b.toks)
	inter := 0
	for w := range x {
		if y[w] {
			inter++
		}
	}
	union := len(x) + len(y) - inter
	if union == 0 {
		return 1
	}
	return float64(inter) / float64(union)
}

func contentSet(ts []token) map[string]bool {
	m := map[string]bool{}
	for _, t := range ts {
		if t.content() {
			m[t.stem] = true
		}
	}
	return m
}

// pick is one sentence of an answer: a unit, rendered, and the passages
// that state it.
type pick struct {
	s      scored
	text   string
	chunks []int
}

// limits of each persona: how many units an answer (or each part of it)
// takes at most, and how close to the best one's score they must be.
func limits(persona string, parts int) (n int, ratio float64) {
	switch persona {
	case Executive:
		n, ratio = 2, 0.8
	case Technical:
		n, ratio = 6, 0.4
	default:
		n, ratio = 4, 0.6
	}
	if parts > 1 {
		n = max(1, n/2)
	}
	return n, ratio
}

// answer selects the units that answer q, or says why none does.
func (c *corpus) answer(q question, persona string, parts int) ([]pick, float64, string) {
	if q.total == 0 {
		return nil, 0, "the question names nothing to look for"
	}
	if len(c.units) == 0 {
		return nil, 0, "there are no passages to answer from"
	}
	for _, k := range q.key {
		if c.df[k] == 0 && !c.ctx[k] {
			return nil, 0, fmt.Sprintf("no passage mentions %q", surface(q.text, k))
		}
	}
	var cands []scored
	for i := range c.units {
		if s := c.score(&c.units[i], q); s.direct > 0 {
			cands = append(cands, s)
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	if len(cands) == 0 || cands[0].direct < MinBestCoverage && cands[0].cov < MinBestContextCoverage {
		best := 0.0
		if len(cands) > 0 {
			best = cands[0].direct
		}
		return nil, best, fmt.Sprintf("no passage covers the question's terms well enough (best %.0f%% of %s)", 100*best, strings.Join(q.order, ", "))
	}
	// A question that asks for a figure, a date or a name is answered
	// first by a unit that holds one, when one scores close enough to the
	// best: "Who signed the agreement?" by the signature line, not by the
	// agreement's opening sentence that names it.
	if q.want != anyAnswer && len(cands) > 1 && !answers(cands[0].u, q) {
		for i, s := range cands[1:] {
			if s.score < answerTypeRatio*cands[0].score {
				break
			}
			if answers(s.u, q) && s.direct >= MinBestCoverage/2 {
				copy(cands[1:i+2], cands[0:i+1])
				cands[0] = s
				break
			}
		}
	}
	n, ratio := limits(persona, parts)
	var picks []pick
	covered := map[string]float64{}
	for _, s := range cands[:min(len(cands), 60)] {
		if len(picks) == n || s.score < ratio*cands[0].score {
			break
		}
		text := c.render(s.u, q, persona)
		if ok, _ := Supported(text, c.in.ContextChunks[s.u.chunk].Content); !ok {
			continue
		}
		dup := false
		for i := range picks {
			if similar(picks[i].s.u, s.u) < nearDuplicate && !sameFigures(text, picks[i].text, q) && !sameFigures(picks[i].text, text, q) {
				continue
			}
			dup = true
			p := &picks[i]
			// Another passage stating the same thing corroborates it.
			if !containsInt(p.chunks, s.u.chunk) && c.sourceOf(s.u) != c.sourceOf(p.s.u) {
				if ok, _ := Supported(p.text, c.in.ContextChunks[s.u.chunk].Content); ok {
					p.chunks = append(p.chunks, s.u.chunk)
				}
			}
			break
		}
		if dup {
			continue
		}
		// After the best unit, a unit is taken when it stays on the best
		// one's subject (its rarest term, and most of its coverage), or
		// when it covers a term nothing taken covers; an executive gets
		// only the latter.
		if len(picks) > 0 && (persona == Executive || !focused(s, picks[0].s, q)) && !addsCoverage(covered, s.cover) {
			continue
		}
		picks = append(picks, pick{s: s, text: text, chunks: []int{s.u.chunk}})
		for st, cr := range s.cover {
			covered[st] = max(covered[st], cr)
		}
	}
	var cov float64
	for st, cr := range covered {
		cov += cr * q.weight[st]
	}
	cov /= q.total
	if cov < MinCoverage {
		return nil, cov, fmt.Sprintf("the passages cover %.0f%% of the question's terms (%s)", 100*cov, strings.Join(q.order, ", "))
	}
	if persona != Executive {
		c.documentOrder(picks)
	}
	return picks, cov, ""
}

// focused reports whether s holds, itself or in its headings and title, the
// rarest question term that best holds, and three quarters of best's
// coverage.
func focused(s, best scored, q question) bool {
	top, w := "", 0.0
	for st, cr := range best.cover {
		if cr == 1 && q.weight[st] > w {
			top, w = st, q.weight[st]
		}
	}
	return s.cover[top] >= contextCredit && s.cov >= 0.75*best.cov
}

// addsCoverage reports whether more holds itself a term that have covers
// only through context, or not at all.
func addsCoverage(have, more map[string]float64) bool {
	for st, cr := range more {
		if cr == 1 && have[st] < 1 {
			return true
		}
	}
	return false
}

// sameFigures reports whether every figure of a (other than the question's
// own numbers) is a figure of b: a states no fact with a number that b does
// not.
func sameFigures(a, b string, q question) bool {
	fa, fb := figures(a, q), figures(b, q)
	if len(fa) == 0 {
		return false
	}
	for v := range fa {
		if !fb[v] {
			return false
		}
	}
	return true
}

func figures(text string, q question) map[string]bool {
	m := map[string]bool{}
	for _, t := range tokens(text) {
		if t.num != nil && q.weight[t.stem] == 0 {
			m[canonical(t.num.value*t.num.scale)] = true
		}
	}
	return m
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func (c *corpus) sourceOf(u *unit) string {
	if id := c.in.ContextChunks[u.chunk].SourceID; id != "" {
		return id
	}
	return fmt.Sprintf("#%d", u.chunk)
}

// documentOrder orders picks by source, the source of the best pick first,
// and within a source as the passages and their sentences run.
func (c *corpus) documentOrder(picks []pick) {
	rank := map[string]int{}
	for i, p := range picks {
		if _, ok := rank[c.sourceOf(p.s.u)]; !ok {
			rank[c.sourceOf(p.s.u)] = i
		}
	}
	sort.SliceStable(picks, func(i, j int) bool {
		a, b := picks[i].s.u, picks[j].s.u
		if ra, rb := rank[c.sourceOf(a)], rank[c.sourceOf(b)]; ra != rb {
			return ra < rb
		}
		if oa, ob := c.order(a), c.order(b); oa != ob {
			return oa < ob
		}
		return a.pos < b.pos
	})
}

// order is a passage's position in its document: its start byte when the
// metadata has it, else its place among the passages.
func (c *corpus) order(u *unit) float64 {
	switch v := c.in.ContextChunks[u.chunk].Metadata["start"].(type) {
	case int:
		return float64(v)
	case int64:
		return float64(v)
	case float64:
		return v
	}
	return float64(u.chunk)
}

// render writes a unit as a sentence of the answer. A table row keeps its
// label and, unless the persona is Technical, only the columns the question
// names (all of them when it names none).
func (c *corpus) render(u *unit, q question, persona string) string {
	text := u.text
	if u.kind == rowUnit && persona != Technical {
		var keep []cell
		for _, cl := range u.cells {
			for _, t := range tokens(cl.header + " " + cl.value) {
				if q.weight[t.stem] > 0 && t.content() {
					keep = append(keep, cl)
					break
				}
			}
		}
		if len(keep) > 0 && len(keep) < len(u.cells) {
			text = renderRow(u.label, keep)
		}
	}
	text = strings.TrimSpace(text)
	if r, _ := utf8.DecodeLastRuneInString(text); !strings.ContainsRune(".!?", r) {
		text = strings.TrimRight(text, ",;:—- ") + "."
	}
	if r, size := utf8.DecodeRuneInString(text); unicode.IsLower(r) && u.kind != sentenceUnit {
		text = string(unicode.ToUpper(r)) + text[size:]
	}
	return text
}

// surface returns the word of text whose stem is st, as written.
func surface(text, st string) string {
	for _, t := range tokens(text) {
		if t.stem == st {
			return t.surface
		}
	}
	return st
}
