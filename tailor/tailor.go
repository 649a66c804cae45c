package tailor

import (
	"fmt"
	"strings"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/memory"
)

// The personas of seed 004's TailorInput.
const (
	Technical = "Technical"
	Executive = "Executive"
	General   = "General"
)

// Limits of an [Input].
const (
	MaxQueryBytes = 8 << 10
	MaxChunks     = 200
	MaxSubQueries = 8
)

// Input is seed 004's TailorInput, with what the orchestrator knows of the
// question.
type Input struct {
	UserQuery     string          `json:"user_query"`
	ContextChunks []memory.Result `json:"context_chunks"`
	// Persona is Technical, Executive or General (General when empty).
	Persona                string `json:"persona"`
	FormattingInstructions string `json:"formatting_instructions,omitempty"`
	// SubQueries are the parts of a multi-part or comparison question,
	// answered each in turn.
	SubQueries []string `json:"sub_queries,omitempty"`
	// Searched names what was searched; a refusal names it (the query when
	// empty).
	Searched []string `json:"searched,omitempty"`
	// Strict asks for the stricter answer: quote, do not infer.
	Strict bool `json:"strict,omitempty"`
}

// Citation is seed 004's SourceCitation, with the title and page of the
// passage cited.
type Citation struct {
	SourceID string `json:"source_id"`
	ChunkID  string `json:"chunk_id"`
	// TextSnippet is the text of the passage the answer relies on.
	TextSnippet string `json:"text_snippet"`
	URL         string `json:"url,omitempty"`
	Title       string `json:"title,omitempty"`
	Page        int    `json:"page,omitempty"`
}

// Sentence is one sentence of an answer and the citations that support it.
type Sentence struct {
	Text string `json:"text"`
	// Citations are 1-based indexes into Output.Citations.
	Citations []int `json:"citations"`
	// Derivation, set on a sentence computed from figures of its cited
	// passages (a comparison), shows the arithmetic.
	Derivation string `json:"derivation,omitempty"`
}

// Output is seed 004's TailorOutput, with the answer's sentences and
// whether it is a refusal.
type Output struct {
	// Content is the answer; each sentence ends with its citation markers
	// ("[1]", "[1][2]").
	Content             string     `json:"content"`
	Citations           []Citation `json:"citations"`
	ToneUsed            string     `json:"tone_used"`
	FollowUpSuggestions []string   `json:"follow_up_suggestions"`
	// ConfidenceScore is in [0, 1].
	ConfidenceScore float64    `json:"confidence_score"`
	Sentences       []Sentence `json:"sentences"`
	// Refused is set when the passages do not answer the question; Content
	// then says so and names what was searched, and nothing is cited.
	Refused bool   `json:"refused"`
	Reason  string `json:"reason,omitempty"`
}

const (
	opCompose = "tailor.compose"
	opWrite   = "tailor.write"
)

// persona returns the persona in its canonical spelling.
func (in Input) persona() (string, error) {
	switch strings.ToLower(strings.TrimSpace(in.Persona)) {
	case "", "general":
		return General, nil
	case "technical":
		return Technical, nil
	case "executive":
		return Executive, nil
	}
	return "", sanad.Errorf(sanad.CodeInvalidInput, "tailor", "persona %q is not Technical, Executive or General", in.Persona)
}

// validate checks the limits of in and returns its persona.
func (in Input) validate(op string) (string, error) {
	p, err := in.persona()
	if err != nil {
		return "", err
	}
	if len(in.UserQuery) > MaxQueryBytes {
		return "", sanad.Errorf(sanad.CodeInvalidInput, op, "the question is %d bytes, more than %d", len(in.UserQuery), MaxQueryBytes)
	}
	if len(in.ContextChunks) > MaxChunks {
		return "", sanad.Errorf(sanad.CodeInvalidInput, op, "%d passages, more than %d", len(in.ContextChunks), MaxChunks)
	}
	if len(in.SubQueries) > MaxSubQueries {
		return "", sanad.Errorf(sanad.CodeInvalidInput, op, "%d sub-questions, more than %d", len(in.SubQueries), MaxSubQueries)
	}
	return p, nil
}

// searched names what was searched, for a refusal.
func (in Input) searched() string {
	var names []string
	for _, s := range in.Searched {
		if s = strings.TrimSpace(s); s != "" {
			names = append(names, s)
		}
	}
	if len(names) == 0 {
		q := strings.TrimSpace(spaces.ReplaceAllString(in.UserQuery, " "))
		if q == "" {
			return "an empty question"
		}
		return fmt.Sprintf("%q", boundTo(q, 200))
	}
	return strings.Join(names, ", ")
}

// refusal is the answer given when the passages do not answer the question.
func refusal(in Input, persona, reason string, confidence float64) Output {
	n := len(in.ContextChunks)
	what := fmt.Sprintf("the %d passage", n)
	if n != 1 {
		what += "s"
	}
	if n == 0 {
		what = "no passages"
	}
	content := fmt.Sprintf("I don't know: the documents searched do not answer this question. Searched: %s (%s retrieved).", in.searched(), what)
	return Output{
		Content:             content,
		Citations:           []Citation{},
		ToneUsed:            persona,
		FollowUpSuggestions: []string{},
		ConfidenceScore:     min(max(confidence, 0), 0.2),
		Sentences:           []Sentence{},
		Refused:             true,
		Reason:              reason,
	}
}

// boundTo cuts s to at most n bytes on a rune boundary, ending it with "…".
func boundTo(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return strings.TrimSpace(s[:cut]) + "…"
}
