package tailor

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/agent"
	"github.com/sanadhq/sanad/model"
)

// MaxReplySentences is the most sentences a reply may have.
const MaxReplySentences = 200

// NoAnswer is what the model is told to reply when the passages do not
// answer the question.
const NoAnswer = "NOT IN DOCUMENTS"

// Write answers in.UserQuery with m, from in.ContextChunks only. The prompt
// numbers the passages and requires a citation marker ([n]) after every
// sentence. Each sentence of the reply must cite passages and be
// [Supported] by them taken together; a reply that has a sentence without a
// marker, with a marker that names no passage, or that its passages do not
// support, fails with ERR_TAILOR_HALLUCINATION and is asked for once more
// under the strict instruction (quote, do not infer). If that reply fails
// too, Write returns a refusal whose Reason is that failure: unsupported
// text is never returned. A reply of [NoAnswer] is a refusal.
//
// The citations of the answer are the passages it cites, numbered in the
// order it first cites them; Content keeps the model's text with its markers
// renumbered so. Errors are the model's (returned as they are),
// MODEL_OUTPUT_INVALID for a reply of more than MaxReplySentences sentences,
// and INVALID_INPUT.
func Write(ctx context.Context, m agent.Model, in Input) (Output, error) {
	persona, err := in.validate(opWrite)
	if err != nil {
		return Output{}, err
	}
	if m == nil {
		return Output{}, sanad.Errorf(sanad.CodeInvalidInput, opWrite, "no model to write with")
	}
	if len(in.ContextChunks) == 0 {
		return refusal(in, persona, "there are no passages to answer from", 0), nil
	}
	strict := in.Strict
	var failed error
	for range 2 {
		resp, err := m.Generate(ctx, Request(in, persona, strict))
		if err != nil {
			return Output{}, err
		}
		out, err := Parse(resp.Text, in)
		if err == nil {
			return out, nil
		}
		if sanad.ErrorCode(err) != sanad.CodeTailorHallucination {
			return Output{}, err
		}
		failed, strict = err, true
	}
	return refusal(in, persona, failed.Error(), 0), nil
}

// Request returns the model request that asks for an answer to in, under
// the strict instruction when strict is set.
func Request(in Input, persona string, strict bool) model.Request {
	var sys strings.Builder
	sys.WriteString("You answer a question using only the numbered passages you are given.\n")
	sys.WriteString("Every sentence must end with the number of the passage that states it, in square brackets, like [1], or [1][2] when two passages state it.\n")
	sys.WriteString("State only what the passages say: no outside knowledge, no guesses.\n")
	fmt.Fprintf(&sys, "If the passages do not answer the question, reply with exactly %s and nothing else.\n", NoAnswer)
	switch persona {
	case Executive:
		sys.WriteString("Write for an executive: the bottom line first, in one or two sentences.\n")
	case Technical:
		sys.WriteString("Write for a technical reader: keep the figures, units and table values that matter, in up to six sentences.\n")
	default:
		sys.WriteString("Write plainly for a general reader, in two to four sentences.\n")
	}
	if strict {
		sys.WriteString("Be strict: quote the passages' own words. Do not infer, paraphrase, compute or combine what no single passage states.\n")
	}
	if f := strings.TrimSpace(in.FormattingInstructions); f != "" {
		fmt.Fprintf(&sys, "Formatting: %s\n", f)
	}
	var user strings.Builder
	user.WriteString("Passages:\n\n")
	for i, r := range in.ContextChunks {
		fmt.Fprintf(&user, "[%d]", i+1)
		if t := title(r); t != "" {
			fmt.Fprintf(&user, " %s", t)
		}
		if p := page(r); p > 0 {
			fmt.Fprintf(&user, " (page %d)", p)
		}
		fmt.Fprintf(&user, "\n%s\n\n", strings.TrimSpace(r.Content))
	}
	fmt.Fprintf(&user, "Question: %s\n", strings.TrimSpace(in.UserQuery))
	var parts []string
	for _, s := range in.SubQueries {
		if s = strings.TrimSpace(s); s != "" {
			parts = append(parts, s)
		}
	}
	if len(parts) > 0 {
		user.WriteString("Answer each part in turn:\n")
		for i, s := range parts {
			fmt.Fprintf(&user, "%d. %s\n", i+1, s)
		}
	}
	zero := 0.0
	return model.Request{
		System:      sys.String(),
		Messages:    []model.Message{{Role: model.RoleUser, Content: user.String()}},
		Temperature: &zero,
	}
}

var markerRun = regexp.MustCompile(`^((\s*\[\d{1,4}\])+)`)

// Parse reads a model's reply to [Request]: its sentences and the passages
// each cites, checked as [Write] describes. The error is
// ERR_TAILOR_HALLUCINATION, saying which sentence fails and why.
func Parse(reply string, in Input) (Output, error) {
	persona, err := in.validate(opWrite)
	if err != nil {
		return Output{}, err
	}
	trimmed := strings.TrimSpace(reply)
	if strings.EqualFold(strings.Trim(trimmed, ".\"' "), NoAnswer) || trimmed == "" {
		why := "the model found no answer in the passages"
		if trimmed == "" {
			why = "the model's reply is empty"
		}
		return refusal(in, persona, why, 0.1), nil
	}
	type raw struct {
		text  string
		cites []int
	}
	var said []raw
	for _, u := range splitUnits(reply, 0, "", nil) {
		text := u.text
		if u.kind == rowUnit {
			continue // a table restates its cells; each row is checked below as text
		}
		if m := markerRun.FindString(text); m != "" && len(said) > 0 {
			said[len(said)-1].cites = append(said[len(said)-1].cites, markerNumbers(m)...)
			text = strings.TrimSpace(text[len(m):])
		}
		if strings.TrimSpace(markers.ReplaceAllString(text, "")) == "" {
			continue
		}
		said = append(said, raw{text: text, cites: markerNumbers(text)})
	}
	for _, row := range tableRows(reply) {
		said = append(said, raw{text: row, cites: markerNumbers(row)})
	}
	if len(said) == 0 {
		return Output{}, sanad.Errorf(sanad.CodeTailorHallucination, opWrite, "the reply has no sentence")
	}
	if len(said) > MaxReplySentences {
		return Output{}, sanad.Errorf(sanad.CodeModelOutput, opWrite, "the reply has %d sentences, more than %d", len(said), MaxReplySentences)
	}
	out := Output{ToneUsed: persona, Citations: []Citation{}, Sentences: []Sentence{}}
	renumber := map[int]int{}
	for i, s := range said {
		text := strings.TrimSpace(spaces.ReplaceAllString(markers.ReplaceAllString(s.text, ""), " "))
		text = strings.NewReplacer(" .", ".", " ,", ",", " ;", ";", " :", ":", " !", "!", " ?", "?").Replace(text)
		if len(s.cites) == 0 {
			return Output{}, sanad.Errorf(sanad.CodeTailorHallucination, opWrite, "sentence %d cites no passage: %q", i+1, boundTo(text, 120))
		}
		var evidence []string
		for _, n := range s.cites {
			if n < 1 || n > len(in.ContextChunks) {
				return Output{}, sanad.Errorf(sanad.CodeTailorHallucination, opWrite, "sentence %d cites [%d], and there are %d passages", i+1, n, len(in.ContextChunks))
			}
			evidence = append(evidence, in.ContextChunks[n-1].Content)
		}
		if ok, why := Supported(text, strings.Join(evidence, "\n\n")); !ok {
			return Output{}, sanad.Errorf(sanad.CodeTailorHallucination, opWrite, "sentence %d is not supported by passages %v: %s: %q", i+1, s.cites, why, boundTo(text, 120))
		}
		var ns []int
		for _, n := range s.cites {
			if renumber[n] == 0 {
				r := in.ContextChunks[n-1]
				out.Citations = append(out.Citations, Citation{SourceID: r.SourceID, ChunkID: r.ChunkID, URL: r.SourceURL, Title: title(r), Page: page(r)})
				renumber[n] = len(out.Citations)
			}
			ct := &out.Citations[renumber[n]-1]
			if u, ok := closestUnit(tokens(text), in.ContextChunks[n-1].Content); ok && !strings.Contains(ct.TextSnippet, u.text) {
				ct.TextSnippet = strings.TrimPrefix(boundTo(ct.TextSnippet+" … "+u.text, 600), " … ")
			}
			if !containsInt(ns, renumber[n]) {
				ns = append(ns, renumber[n])
			}
		}
		out.Sentences = append(out.Sentences, Sentence{Text: text, Citations: ns})
	}
	out.Content = markers.ReplaceAllStringFunc(trimmed, func(m string) string {
		n, _ := strconv.Atoi(m[1 : len(m)-1])
		return fmt.Sprintf("[%d]", renumber[n])
	})
	c := newCorpus(in)
	var sections []section
	parts := in.SubQueries
	if len(parts) == 0 {
		parts = []string{in.UserQuery}
	}
	for _, p := range parts {
		q := c.question(p)
		if q.total == 0 {
			continue
		}
		sec := section{q: q}
		for i, s := range out.Sentences {
			u := unit{chunk: said[i].cites[0] - 1, toks: tokens(s.Text), ctxToks: tokens(title(in.ContextChunks[said[i].cites[0]-1]))}
			sec.picks = append(sec.picks, pick{s: c.score(&u, q), text: s.Text})
		}
		sections = append(sections, sec)
	}
	if len(sections) > 0 {
		out.ConfidenceScore = c.confidence(sections, out)
		out.FollowUpSuggestions = c.followUps(sections)
	} else {
		out.FollowUpSuggestions = []string{}
	}
	return out, nil
}

func markerNumbers(s string) []int {
	var ns []int
	for _, m := range markers.FindAllString(s, -1) {
		n, err := strconv.Atoi(m[1 : len(m)-1])
		if err == nil && !containsInt(ns, n) {
			ns = append(ns, n)
		}
	}
	return ns
}

// tableRows returns the data rows of the pipe tables of a reply, as written.
func tableRows(md string) []string {
	var out []string
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(strings.TrimSpace(lines[i]), "|") {
			continue
		}
		j := i
		for j < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[j]), "|") {
			j++
		}
		_, rows := pipeRows(lines[i:j])
		for _, r := range rows {
			out = append(out, strings.Join(r, " | "))
		}
		i = j - 1
	}
	return out
}
