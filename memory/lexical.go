package memory

import (
	"context"
	"math"
	"sort"

	"github.com/sanadhq/sanad"
)

type lexicalList struct {
	hits  []LexicalHit
	bound float64
}

// plan returns the query the lexical retriever sends first: the query's
// words weighted by their counts, and the proximity clauses.
func (c LexicalConfig) plan(text string) LexicalQuery {
	all := Terms(text, true)
	terms := Terms(text, c.KeepStopWords)
	counts := map[string]int{}
	var order []string
	for _, t := range terms {
		if counts[t] == 0 {
			if len(order) == MaxQueryTerms {
				continue
			}
			order = append(order, t)
		}
		counts[t]++
	}
	q := LexicalQuery{Fields: c.Fields}
	if q.Fields == (FieldWeights{}) {
		q.Fields = DefaultFields
	}
	for _, t := range order {
		q.Terms = append(q.Terms, Term{Text: t, Weight: float64(counts[t])})
	}
	if c.Proximity.Weight > 0 {
		q.Phrases = pairs(all, counts, c.Proximity)
	}
	return q
}

// pairs returns the proximity clauses of a query's words: each pair of
// consecutive searched words, once.
func pairs(all []string, searched map[string]int, p Proximity) []Phrase {
	var out []Phrase
	seen := map[[2]string]bool{}
	prev := ""
	for _, w := range all {
		if searched[w] == 0 {
			if p.Near == 0 {
				prev = "" // an exact pair must be adjacent in the query
			}
			continue
		}
		if prev != "" && prev != w && !seen[[2]string{prev, w}] && len(out) < MaxQueryTerms {
			seen[[2]string{prev, w}] = true
			out = append(out, Phrase{Terms: []string{prev, w}, Near: p.Near, Weight: p.Weight})
		}
		prev = w
	}
	return out
}

func (x *Index) searchLexical(ctx context.Context, scope sanad.Scope, text string, f Filter, depth int) (lexicalList, error) {
	cfg := x.lexical()
	q := cfg.plan(text)
	if len(q.Terms) == 0 {
		return lexicalList{}, nil
	}
	q.Filter, q.Limit = f, depth
	if cfg.Feedback.Docs > 0 {
		q.Limit = cfg.Feedback.Docs // the first pass only feeds the second
	}
	res, err := x.Store.Lexical(ctx, scope, q)
	if err != nil {
		return lexicalList{}, err
	}
	if cfg.Feedback.Docs > 0 && len(res.Hits) > 0 {
		expanded, err := x.feedback(ctx, scope, q, res, cfg.Feedback)
		if err != nil {
			return lexicalList{}, err
		}
		if expanded == nil { // nothing to add: the first pass, in full
			expanded = &q
		}
		expanded.Limit = depth
		if res, err = x.Store.Lexical(ctx, scope, *expanded); err != nil {
			return lexicalList{}, err
		}
	}
	if len(res.Hits) > depth {
		res.Hits = res.Hits[:depth]
	}
	return lexicalList{hits: res.Hits, bound: res.Bound}, nil
}

// feedback returns q expanded by RM3 from the best chunks of its first
// pass, or nil when there is nothing to add.
func (x *Index) feedback(ctx context.Context, scope sanad.Scope, q LexicalQuery, first LexicalResult, fb Feedback) (*LexicalQuery, error) {
	top := first.Hits[:min(fb.Docs, len(first.Hits))]
	keys := make([]int64, len(top))
	weight := map[int64]float64{}
	var sum float64
	for i, h := range top {
		keys[i] = h.Key
		s := h.TermScore + h.PhraseScore
		weight[h.Key] = s
		sum += s
	}
	if sum <= 0 {
		return nil, nil
	}
	chunks, err := x.Store.Chunks(ctx, scope, keys)
	if err != nil {
		return nil, err
	}
	// The relevance model: P(w|R) = sum over chunks d of P(w|d) P(d|q),
	// P(d|q) the chunk's share of the first-pass scores.
	rel := map[string]float64{}
	for _, c := range chunks {
		tf := map[string]float64{}
		n := 0
		for w := range words(c.Doc.Title + "\n" + c.Chunk.Content) {
			if stopWords[w] || len(w) < 2 {
				continue
			}
			tf[w]++
			n++
		}
		for w, f := range tf {
			rel[w] += f / float64(n) * weight[c.Key] / sum
		}
	}
	type tw struct {
		w string
		p float64
	}
	var best []tw
	for w, p := range rel {
		best = append(best, tw{w, p})
	}
	sort.Slice(best, func(i, j int) bool {
		if best[i].p != best[j].p {
			return best[i].p > best[j].p
		}
		return best[i].w < best[j].w
	})
	best = best[:min(fb.Terms, len(best))]
	var relSum float64
	for _, b := range best {
		relSum += b.p
	}
	var qSum float64
	for _, t := range q.Terms {
		qSum += t.Weight
	}
	if relSum <= 0 || qSum <= 0 {
		return nil, nil
	}
	mixed := map[string]float64{}
	for _, t := range q.Terms {
		mixed[t.Text] += fb.OriginalWeight * t.Weight / qSum
	}
	for _, b := range best {
		mixed[b.w] += (1 - fb.OriginalWeight) * b.p / relSum
	}
	var heaviest float64
	for _, p := range mixed {
		heaviest = max(heaviest, p)
	}
	out := q
	out.Terms = nil
	for _, t := range q.Terms { // the query's own words first, in order
		out.Terms = append(out.Terms, Term{Text: t.Text, Weight: snap(mixed[t.Text], heaviest) * qSum})
		delete(mixed, t.Text)
	}
	for _, b := range best {
		if p, ok := mixed[b.w]; ok {
			out.Terms = append(out.Terms, Term{Text: b.w, Weight: snap(p, heaviest) * qSum})
		}
	}
	return &out, nil
}

// snap rounds a weight to the nearest of top·2^(−k/2), k = 0…8, so that an
// expanded query has at most nine distinct weights: a store runs one query
// per weight, and RM3's weights are not precise enough to deserve more. On
// Cranfield, unrounded weights gave nDCG@10 0.4286 against 0.4246 here, at
// several times the cost; whole octaves (three weights) gave 0.4235 at the
// same cost as these.
func snap(w, top float64) float64 {
	if w <= 0 || top <= 0 {
		return 0
	}
	k := min(math.Round(2*math.Log2(top/w)), 8)
	return top * math.Pow(2, -k/2)
}
