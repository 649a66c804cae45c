package promote

import (
	"cmp"
	"slices"
	"unicode"
	"unicode/utf8"
)

// maxPostings bounds the occurrences of one n-gram an [Index] keeps. An
// n-gram found more often than this in one case is boilerplate (a form's
// header, a repeated caption); a run through it is still found at its kept
// occurrences, so only the longest of many identical runs can be missed.
const maxPostings = 32

// word is a normalised word of a text: its byte span and the hash of its
// lower-case letters and digits.
type word struct {
	start, end int
	hash       uint64
}

// gramRef is one occurrence of an n-gram: a text and its first word.
type gramRef struct {
	text, word int32
}

type indexedText struct {
	src   SourceText
	words []word
}

// run is a stretch of consecutive words shared by a candidate field and a
// case text.
type run struct {
	text      int
	cand, src int // first word in the candidate field and in the text
	length    int // in words
	candStart int // byte spans
	candEnd   int
	srcStart  int
	srcEnd    int
}

// normWords splits text into normalised words: lower case, punctuation and
// symbols as separators, an apostrophe inside a word dropped ("don't" and
// "dont" are one word), whitespace of any length between. Only the hashes
// are kept; two words are taken as equal when their 64-bit FNV-1a hashes
// are.
func normWords(text string) []word {
	var out []word
	const (
		offset = 14695981039346656037
		prime  = 1099511628211
	)
	start, h := -1, uint64(offset)
	end := 0
	for i, r := range text {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || (start >= 0 && unicode.Is(unicode.Mn, r)):
			if start < 0 {
				start, h = i, offset
			}
			var buf [utf8.UTFMax]byte
			for _, b := range utf8.AppendRune(buf[:0], unicode.ToLower(r)) {
				h = (h ^ uint64(b)) * prime
			}
			end = i + utf8.RuneLen(r)
		case start >= 0 && (r == '\'' || r == '’' || r == 'ʼ') && letterAt(text, i+utf8.RuneLen(r)):
			// inside a word: dropped
		case start >= 0:
			out = append(out, word{start, end, h})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, word{start, end, h})
	}
	return out
}

func letterAt(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// gramHash returns the hash of the n words from ws[i].
func gramHash(ws []word, i, n int) uint64 {
	var h uint64
	for _, w := range ws[i : i+n] {
		h = h*gramBase + w.hash
	}
	return h
}

// gramBase is the multiplier of the rolling n-gram hash.
const gramBase = 0x9E3779B97F4A7C15

// pow returns gramBase to the power n-1, which takes the first word out of
// a rolling hash.
func pow(n int) uint64 {
	p := uint64(1)
	for range n - 1 {
		p *= gramBase
	}
	return p
}

// grams indexes the n-grams of a set of texts.
type grams struct {
	n     int
	texts []indexedText
	// first holds each n-gram's first occurrence, more the next ones up
	// to maxPostings; most n-grams of a case occur once, so most cost one
	// map entry.
	first map[uint64]gramRef
	more  map[uint64][]gramRef
}

func newGrams(texts []SourceText, n int) *grams {
	g := &grams{n: n, first: map[uint64]gramRef{}, more: map[uint64][]gramRef{}}
	top := pow(n)
	for ti, src := range texts {
		ws := normWords(src.Text)
		g.texts = append(g.texts, indexedText{src: src, words: ws})
		if len(ws) < n {
			continue
		}
		h := gramHash(ws, 0, n)
		for i := 0; ; i++ {
			ref := gramRef{int32(ti), int32(i)}
			if _, ok := g.first[h]; !ok {
				g.first[h] = ref
			} else if m := g.more[h]; len(m) < maxPostings-1 {
				g.more[h] = append(m, ref)
			}
			if i+n >= len(ws) {
				break
			}
			h = (h-ws[i].hash*top)*gramBase + ws[i+n].hash
		}
	}
	return g
}

// runs returns, for each text, the longest run of at least g.n words that
// cws shares with it, longest first, then in the order of the texts. Each maximal
// run is extended once, from the first of its n-grams that is indexed, so
// the work is linear in the candidate's words times maxPostings.
func (g *grams) runs(cws []word) []run {
	n := g.n
	if len(cws) < n || len(g.first) == 0 {
		return nil
	}
	best := map[int]run{}
	// covered maps a text and a diagonal (text word - candidate word) to
	// the end of the last run extended on it.
	type diagonal struct{ text, d int }
	covered := map[diagonal]int{}
	top := pow(n)
	h := gramHash(cws, 0, n)
	for i := 0; ; i++ {
		refs := g.more[h]
		if ref, ok := g.first[h]; ok {
			refs = append([]gramRef{ref}, refs...)
		}
		for _, ref := range refs {
			t, j := int(ref.text), int(ref.word)
			key := diagonal{t, j - i}
			if i < covered[key] {
				continue
			}
			sws := g.texts[t].words
			if !sameWords(cws[i:i+n], sws[j:j+n]) {
				continue // an n-gram hash collision
			}
			s, e := i, i+n
			for s > 0 && j-(i-s) > 0 && cws[s-1].hash == sws[j-(i-s)-1].hash {
				s--
			}
			for e < len(cws) && j+(e-i) < len(sws) && cws[e].hash == sws[j+(e-i)].hash {
				e++
			}
			covered[key] = e
			js := j - (i - s)
			r := run{text: t, cand: s, src: js, length: e - s,
				candStart: cws[s].start, candEnd: cws[e-1].end,
				srcStart: sws[js].start, srcEnd: sws[js+e-s-1].end}
			if b, ok := best[t]; !ok || r.length > b.length {
				best[t] = r
			}
		}
		if i+n >= len(cws) {
			break
		}
		h = (h-cws[i].hash*top)*gramBase + cws[i+n].hash
	}
	out := make([]run, 0, len(best))
	for _, r := range best {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b run) int { return cmp.Or(b.length-a.length, a.text-b.text) })
	return out
}

func sameWords(a, b []word) bool {
	for i := range a {
		if a[i].hash != b[i].hash {
			return false
		}
	}
	return true
}
