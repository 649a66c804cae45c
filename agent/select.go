package agent

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
)

// Match is one agent proposed for a task by [Registry.Select].
type Match struct {
	Agent string
	// Confidence is in [0, 1].
	Confidence float64
	// Reasons say which signals made up Confidence.
	Reasons []string
}

// The signals of selection, in tenths of confidence. Scores are summed as
// integers and divided once, so that 0.6 - 0.5 is exactly 0.1.
const (
	exactPoints     = 6  // the task is one of the agent's example tasks
	substringPoints = 4  // the task and an example task contain one another
	notForPoints    = -5 // the task and a not-for task contain one another
	// FallbackConfidence is the confidence of the standard agent when no
	// agent matches.
	FallbackConfidence = 0.5
)

// Select ranks the enabled agents for task, best first.
//
// Task and example tasks are compared normalized: lower case, runs of white
// space made one space, trimmed, trailing punctuation removed. Each agent
// starts at 0. Its best example task adds 0.6 if it equals the task, or else
// 0.4 if either contains the other; one example counts, never more. If any
// not-for task equals or contains the task, or the task contains it, 0.5 is
// taken off. The score is clamped to [0, 1], and agents scoring 0 are left
// out. Matches are sorted by confidence, high to low, then by agent id.
// When no agent scores, the result is the standard agent alone, at
// [FallbackConfidence]. The result depends only on task and the registry's
// profiles.
func (r *Registry) Select(task string) []Match {
	t := normalize(task)
	r.mu.RLock()
	var out []Match
	if t != "" {
		for _, p := range r.agents {
			if m, ok := score(p, t); ok {
				out = append(out, m)
			}
		}
	}
	r.mu.RUnlock()
	if len(out) == 0 {
		reason := "no agent matched the task; standard is the fallback"
		if t == "" {
			reason = "the task is empty; standard is the fallback"
		}
		return []Match{{Agent: StandardID, Confidence: FallbackConfidence, Reasons: []string{reason}}}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Confidence != out[j].Confidence {
			return out[i].Confidence > out[j].Confidence
		}
		return out[i].Agent < out[j].Agent
	})
	return out
}

// score rates p for the normalized task t; ok is false when p is disabled
// or scores 0.
func score(p Profile, t string) (m Match, ok bool) {
	if !p.Enabled {
		return Match{}, false
	}
	points := 0
	var reasons []string
	if ex, exact := bestExample(p.ExampleTasks, t); ex != "" {
		if exact {
			points += exactPoints
			reasons = append(reasons, fmt.Sprintf("task is example task %q (+0.6)", ex))
		} else {
			points += substringPoints
			reasons = append(reasons, fmt.Sprintf("task overlaps example task %q (+0.4)", ex))
		}
	}
	for _, nf := range p.NotForTasks {
		if overlaps(normalize(nf), t) {
			points += notForPoints
			reasons = append(reasons, fmt.Sprintf("task overlaps not-for task %q (-0.5)", nf))
			break
		}
	}
	c := clamp(float64(points) / 10)
	if c == 0 {
		return Match{}, false
	}
	return Match{Agent: p.ID, Confidence: c, Reasons: reasons}, true
}

// bestExample returns the first example task equal to t, or else the first
// that overlaps it, or "".
func bestExample(examples []string, t string) (ex string, exact bool) {
	for _, e := range examples {
		if normalize(e) == t {
			return e, true
		}
	}
	for _, e := range examples {
		if overlaps(normalize(e), t) {
			return e, false
		}
	}
	return "", false
}

// overlaps reports whether the normalized texts a and b contain one another.
// An empty text overlaps nothing.
func overlaps(a, b string) bool {
	return a != "" && b != "" && (strings.Contains(a, b) || strings.Contains(b, a))
}

// clamp limits a score to [0, 1].
func clamp(score float64) float64 { return max(0, min(1, score)) }

// normalize lower-cases s, makes each run of white space one space, trims it
// and removes trailing punctuation.
func normalize(s string) string {
	s = strings.Join(strings.Fields(strings.ToLower(s)), " ")
	return strings.TrimRightFunc(s, func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSpace(r) })
}
