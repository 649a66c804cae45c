package tailor

import (
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/memory"
)

// MinWordSupport is the share of a sentence's content words that the passage
// it cites must contain.
const MinWordSupport = 0.8

// Supported reports whether chunk supports sentence: most of the sentence's
// content words (MinWordSupport of them, after stemming) are in the chunk,
// every number in the sentence is in the chunk (as written or scaled: "$5.2M"
// and "5,200,000" are one number), and the sentence is not negated where the
// chunk's closest sentence is not, or the reverse. Citation markers in the
// sentence are ignored. When it is not supported, the reason says why.
func Supported(sentence, chunk string) (bool, string) {
	s := tokens(clean(markers.ReplaceAllString(sentence, " ")))
	c := tokens(chunk)
	stems := map[string]bool{}
	values := map[string]bool{}
	for _, t := range c {
		stems[t.stem] = true
		if t.num != nil {
			for _, v := range t.num.values() {
				values[v] = true
			}
		}
	}
	words, present := 0, 0
	var missing []string
	for _, t := range s {
		switch {
		case t.num != nil:
			found := false
			for _, v := range t.num.values() {
				found = found || values[v]
			}
			if !found {
				return false, fmt.Sprintf("the number %s is not in the passage", t.num.text)
			}
		case t.content():
			words++
			if stems[t.stem] {
				present++
			} else if len(missing) < 5 {
				missing = append(missing, t.surface)
			}
		}
	}
	if words == 0 && !hasNumber(s) {
		return false, "the sentence states nothing a passage could support"
	}
	if words > 0 && float64(present) < MinWordSupport*float64(words) {
		return false, fmt.Sprintf("%d of its %d content words are not in the passage (%s)", words-present, words, strings.Join(missing, ", "))
	}
	if closest, ok := closestUnit(s, chunk); ok && negated(s) != negated(closest.toks) {
		return false, "the sentence negates what the passage says, or the reverse"
	}
	return true, ""
}

var markers = regexp.MustCompile(`\[\d{1,4}\]`)

func hasNumber(ts []token) bool {
	for _, t := range ts {
		if t.num != nil {
			return true
		}
	}
	return false
}

// negated reports whether a statement carries an odd number of negation cues.
func negated(ts []token) bool {
	n := 0
	for _, t := range ts {
		if t.neg {
			n++
		}
	}
	return n%2 == 1
}

// closestUnit returns the unit of chunk that shares the most content words
// with s.
func closestUnit(s []token, chunk string) (unit, bool) {
	want := map[string]bool{}
	for _, t := range s {
		if t.content() {
			want[t.stem] = true
		}
	}
	var best unit
	bestN := 0
	for _, u := range splitUnits(chunk, 0, "", nil) {
		seen := map[string]bool{}
		for _, t := range u.toks {
			if t.content() && want[t.stem] {
				seen[t.stem] = true
			}
		}
		if len(seen) > bestN {
			best, bestN = u, len(seen)
		}
	}
	return best, bestN > 0
}

// Check verifies an answer against the passages it was composed from: every
// sentence cites at least one citation of out, every citation names one of
// chunks, and each sentence is [Supported] by its cited passages taken
// together; a sentence with a Derivation must instead state only figures of
// its cited passages and what the derivation computes from them. The error
// is ERR_TAILOR_HALLUCINATION, naming the first sentence that fails.
func Check(out Output, chunks []memory.Result) error {
	const op = "tailor.check"
	if out.Refused {
		if len(out.Sentences) > 0 || len(out.Citations) > 0 {
			return sanad.Errorf(sanad.CodeTailorHallucination, op, "a refusal cites passages")
		}
		return nil
	}
	if len(out.Sentences) == 0 {
		return sanad.Errorf(sanad.CodeTailorHallucination, op, "the answer has no cited sentence")
	}
	for i, s := range out.Sentences {
		if len(s.Citations) == 0 {
			return sanad.Errorf(sanad.CodeTailorHallucination, op, "sentence %d cites nothing: %q", i+1, boundTo(s.Text, 120))
		}
		var evidence, titles []string
		for _, c := range s.Citations {
			if c < 1 || c > len(out.Citations) {
				return sanad.Errorf(sanad.CodeTailorHallucination, op, "sentence %d cites [%d], which is not a citation of the answer", i+1, c)
			}
			cit := out.Citations[c-1]
			found := false
			for _, r := range chunks {
				if r.ChunkID == cit.ChunkID && r.SourceID == cit.SourceID {
					evidence = append(evidence, r.Content)
					titles = append(titles, title(r))
					found = true
				}
			}
			if !found {
				return sanad.Errorf(sanad.CodeTailorHallucination, op, "citation [%d] names chunk %q, which is not among the passages", c, cit.ChunkID)
			}
		}
		var ok bool
		var why string
		if s.Derivation != "" {
			ok, why = computedSupported(s.Text, strings.Join(evidence, "\n\n"), strings.Join(titles, "\n"))
		} else {
			ok, why = Supported(s.Text, strings.Join(evidence, "\n\n"))
		}
		if !ok {
			return sanad.Errorf(sanad.CodeTailorHallucination, op, "sentence %d is not supported by its passages: %s: %q", i+1, why, boundTo(s.Text, 120))
		}
	}
	return nil
}

// comparisonWords are the words a computed comparison adds to the labels and
// figures it compares.
var comparisonWords = wordSet(`higher lower same percentage point points than against difference`)

// computedSupported checks a sentence computed from its passages' figures:
// its words are in the passages or their titles, or are words of comparison;
// each number is in the passages, or is the difference, in points or in
// percent of either, of two numbers of the sentence that are.
func computedSupported(sentence, evidence, titles string) (bool, string) {
	s := tokens(clean(markers.ReplaceAllString(sentence, " ")))
	ev := tokens(evidence + "\n" + titles)
	stems, values := map[string]bool{}, map[string]bool{}
	for _, t := range ev {
		stems[t.stem] = true
		if t.num != nil {
			for _, v := range t.num.values() {
				values[v] = true
			}
		}
	}
	var known []float64
	var unknown []number
	words, present := 0, 0
	for _, t := range s {
		switch {
		case t.num != nil:
			found := false
			for _, v := range t.num.values() {
				found = found || values[v]
			}
			if found {
				known = append(known, t.num.value*t.num.scale)
			} else {
				unknown = append(unknown, *t.num)
			}
		case t.content() && !comparisonWords[strings.ToLower(t.surface)]:
			words++
			if stems[t.stem] {
				present++
			}
		}
	}
	if words > 0 && float64(present) < MinWordSupport*float64(words) {
		return false, "its words are not in the passages"
	}
	for _, u := range unknown {
		if !derivable(u, known) {
			return false, fmt.Sprintf("the number %s is neither in the passages nor computed from their figures", u.text)
		}
	}
	return len(known) >= 2, "it compares fewer than two figures of the passages"
}

// derivable reports whether n, as written (one decimal), is the difference
// of two of the known values, in points or as a percentage of either.
func derivable(n number, known []float64) bool {
	for i, a := range known {
		for j, b := range known {
			if i == j {
				continue
			}
			d := math.Abs(a - b)
			for _, r := range []float64{d, d / b * 100} {
				if !math.IsInf(r, 0) && !math.IsNaN(r) && math.Abs(r-n.value*n.scale) < 0.051 {
					return true
				}
			}
		}
	}
	return false
}

// title returns the title in a passage's metadata.
func title(r memory.Result) string {
	if t, ok := r.Metadata["title"].(string); ok {
		return t
	}
	return ""
}
