package rag

import (
	"regexp"
	"strings"
	"unicode"
)

// The intents the orchestrator tells apart (seed 004: intent analysis).
const (
	// IntentLookup is one question answered from the documents.
	IntentLookup = "lookup"
	// IntentComparison sets two things side by side: each is retrieved on
	// its own, then compared.
	IntentComparison = "comparison"
	// IntentMultiPart is several questions in one message, each retrieved
	// on its own.
	IntentMultiPart = "multi_part"
	// IntentClarify is a message too vague to search for: the orchestrator
	// asks what is meant instead of guessing.
	IntentClarify = "clarify"
	// IntentSmallTalk is a greeting or thanks: nothing to look up.
	IntentSmallTalk = "small_talk"
	// IntentBlocked is a message the guardrails blocked.
	IntentBlocked = "blocked"
)

// PlanStep statuses (seed 004).
const (
	StatusPending    = "pending"
	StatusInProgress = "in_progress"
	StatusCompleted  = "completed"
	StatusFailed     = "failed"
)

// PlanStep is one step of the orchestrator's plan (seed 004 PlanStep).
type PlanStep struct {
	StepID      int    `json:"step_id"`
	Description string `json:"description"`
	ToolCall    string `json:"tool_call"`
	Status      string `json:"status"`
	// Query is what a retrieve step searches for.
	Query string `json:"query,omitempty"`
	// Note says how the step went: broadened, what was found.
	Note string `json:"note,omitempty"`
}

// Plan is the orchestrator's analysis of one message: its intent, the
// question it resolves to against the conversation, and the steps that
// answer it.
type Plan struct {
	Intent string `json:"intent"`
	// Question is the message resolved against the history: a follow-up
	// such as "and in 2023?" becomes a whole question.
	Question string `json:"question"`
	// FollowUpOf is the earlier question a follow-up was resolved against.
	FollowUpOf string `json:"follow_up_of,omitempty"`
	// SubQueries are what is retrieved, one per part of the question.
	SubQueries []string   `json:"sub_queries"`
	Steps      []PlanStep `json:"steps"`
	// Reply is the orchestrator's own reply when nothing is retrieved: a
	// clarifying question, or an answer to small talk.
	Reply string `json:"reply,omitempty"`
}

// Tool names a plan's steps call.
const (
	ToolGuardCheck  = "guard.check"
	ToolGuardScreen = "guard.screen"
	ToolSearch      = "memory.search"
	ToolCompose     = "tailor.compose"
	ToolSave        = "conversation.save"
)

// Analyze plans the answer to message, given the user questions asked
// before it in the session (oldest first). It is deterministic: the same
// message and history give the same plan.
func Analyze(message string, history []string) Plan {
	msg := strings.Join(strings.Fields(message), " ")
	p := Plan{Question: msg}
	switch {
	case isSmallTalk(msg):
		p.Intent = IntentSmallTalk
		p.Reply = "Ask me a question about the documents of this case, and I will answer with the passages that support it."
		return p
	}
	if prev := lastQuestion(history); prev != "" && isFollowUp(msg) {
		p.Question, p.FollowUpOf = resolveFollowUp(msg, prev), prev
	}
	if len(contentWords(p.Question)) == 0 {
		p.Intent = IntentClarify
		p.Reply = "What would you like to know? Name the subject (a company, a contract, a figure, a period) and I will search the documents for it."
		return p
	}
	switch sides, frame := comparisonSides(p.Question); {
	case len(sides) == 2:
		p.Intent = IntentComparison
		p.SubQueries = compareQueries(sides, frame)
	default:
		if parts := splitParts(p.Question); len(parts) > 1 {
			p.Intent, p.SubQueries = IntentMultiPart, parts
		} else {
			p.Intent, p.SubQueries = IntentLookup, []string{p.Question}
		}
	}
	p.Steps = append(p.Steps, PlanStep{Description: "Screen the question", ToolCall: ToolGuardCheck, Status: StatusCompleted})
	for _, q := range p.SubQueries {
		p.Steps = append(p.Steps, PlanStep{Description: "Retrieve passages about: " + q, ToolCall: ToolSearch, Status: StatusPending, Query: q})
	}
	p.Steps = append(p.Steps, PlanStep{Description: "Screen the retrieved passages for instructions", ToolCall: ToolGuardScreen, Status: StatusPending})
	if p.Intent == IntentComparison {
		p.Steps = append(p.Steps, PlanStep{Description: "Compare what the two searches found", ToolCall: ToolCompose, Status: StatusPending})
	}
	p.Steps = append(p.Steps,
		PlanStep{Description: "Compose the answer, every sentence cited", ToolCall: ToolCompose, Status: StatusPending},
		PlanStep{Description: "Check the answer before it is released", ToolCall: ToolGuardCheck, Status: StatusPending},
		PlanStep{Description: "Save the conversation", ToolCall: ToolSave, Status: StatusPending},
	)
	for i := range p.Steps {
		p.Steps[i].StepID = i + 1
	}
	return p
}

// Blocked is the plan of a message the guardrails blocked.
func Blocked(message, reason string) Plan {
	return Plan{Intent: IntentBlocked, Question: message, Reply: reason, Steps: []PlanStep{
		{StepID: 1, Description: "Screen the question", ToolCall: ToolGuardCheck, Status: StatusFailed, Note: reason},
	}}
}

var smallTalk = regexp.MustCompile(`(?i)^(hi|hello|hey|good (morning|afternoon|evening)|thanks?( you)?( very much)?|thank you|cheers|ok(ay)?|bye|goodbye)[ !.]*$`)

func isSmallTalk(s string) bool { return smallTalk.MatchString(s) }

// lastQuestion returns the latest earlier question a follow-up can lean
// on: not small talk, and naming something.
func lastQuestion(history []string) string {
	for i := len(history) - 1; i >= 0; i-- {
		if h := strings.TrimSpace(history[i]); h != "" && !isSmallTalk(h) && len(contentWords(h)) > 0 {
			return h
		}
	}
	return ""
}

var followUpStart = regexp.MustCompile(`(?i)^(and|or|but|also|what about|how about|and what about|same for|what of)\b`)

var pronouns = map[string]bool{"it": true, "its": true, "they": true, "their": true, "them": true, "that": true, "those": true, "this": true, "these": true, "he": true, "she": true, "his": true, "her": true}

// isFollowUp says whether a message leans on the question before it: it
// opens like a continuation ("and in 2023?", "what about Acme?"), or it is
// too short to stand alone and refers back with a pronoun.
func isFollowUp(msg string) bool {
	if followUpStart.MatchString(msg) {
		return true
	}
	words := contentWords(msg)
	if len(words) > 3 {
		return false
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(msg), notWordRune) {
		if pronouns[w] {
			return true
		}
	}
	return len(words) <= 1
}

var (
	yearRE    = regexp.MustCompile(`\b(19|20)\d\d\b`)
	entityRE  = regexp.MustCompile(`\b[A-Z][a-zA-Z0-9&'-]*(?:\s+[A-Z][a-zA-Z0-9&'-]*)*`)
	leadingRE = regexp.MustCompile(`(?i)^(and|or|but|also|what about|how about|and what about|same for|what of)\s*(the\s+)?`)
)

// resolveFollowUp turns a follow-up into a whole question by taking the
// earlier question and putting what the follow-up changes into it: a year
// for a year, a name for a name, otherwise the follow-up's words added.
func resolveFollowUp(msg, prev string) string {
	rest := strings.TrimRight(leadingRE.ReplaceAllString(msg, ""), "?!. ")
	if rest == "" {
		return prev
	}
	if years := yearRE.FindAllString(rest, -1); len(years) > 0 && yearRE.MatchString(prev) {
		i := 0
		return yearRE.ReplaceAllStringFunc(prev, func(string) string {
			y := years[min(i, len(years)-1)]
			i++
			return y
		})
	}
	if loc := demonstrativeRE.FindStringIndex(rest); loc != nil {
		if when := dateRE.FindString(prev); when != "" {
			return strings.TrimSpace(rest[:loc[0]]+when+rest[loc[1]:]) + "?"
		}
		return rest + "? (following: " + prev + ")"
	}
	if names := entities(rest); len(names) == 1 {
		if old := entities(prev); len(old) > 0 {
			return strings.Replace(prev, old[len(old)-1], names[0], 1)
		}
	}
	if hasPersonalPronoun(rest) {
		if old := entities(prev); len(old) > 0 {
			return replacePronouns(rest, old[len(old)-1]) + "?"
		}
	}
	return strings.TrimRight(prev, "?!. ") + " " + rest + "?"
}

// entities returns the capitalised phrases of s that are not merely its
// first word or a question word.
func entities(s string) []string {
	var out []string
	for _, loc := range entityRE.FindAllStringIndex(s, -1) {
		e := s[loc[0]:loc[1]]
		words := strings.Fields(e)
		for len(words) > 0 && (questionWords[strings.ToLower(words[0])] || stopWords[strings.ToLower(words[0])]) {
			words = words[1:]
		}
		if len(words) == 0 {
			continue
		}
		out = append(out, strings.Join(words, " "))
	}
	return out
}

var personalPronouns = map[string]bool{"it": true, "its": true, "they": true, "their": true, "them": true, "he": true, "she": true, "his": true, "her": true}

func hasPersonalPronoun(s string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(s), notWordRune) {
		if personalPronouns[w] {
			return true
		}
	}
	return false
}

var (
	// demonstrativeRE finds a reference back to a time: "that date",
	// "the same year", "then".
	demonstrativeRE = regexp.MustCompile(`(?i)\b(?:(?:that|this|the same)\s+(?:date|day|month|year|time|point|period|quarter)|then)\b`)
	// dateRE finds a date or period in a question.
	dateRE = regexp.MustCompile(`(?i)\b(?:\d{1,2}\s+(?:january|february|march|april|may|june|july|august|september|october|november|december)\s+\d{4}|(?:the\s+)?(?:end|start|beginning)\s+of\s+(?:FY)?\d{4}|(?:FY)?(?:19|20)\d\d)\b`)
)

func replacePronouns(s, name string) string {
	words := strings.Fields(s)
	for i, w := range words {
		lw := strings.ToLower(strings.TrimRight(w, "?!.,"))
		switch {
		case lw == "its" || lw == "their" || lw == "his" || lw == "her":
			words[i] = name + "'s"
		case personalPronouns[lw]:
			words[i] = name
		}
	}
	return strings.Join(words, " ")
}

var comparePatterns = []*regexp.Regexp{
	regexp.MustCompile(`(?i)^(?:how|where|in what way)\s+(?:does|do|did|is|are|was|were)\s+(.+?)\s+(?:compare|differ)\s+(?:with|to|from|against)\s+(.+?)[?.!]*$`),
	regexp.MustCompile(`(?i)^(?:compare|contrast)\s+(.+?)\s+(?:with|to|and|against|versus|vs\.?)\s+(.+?)[?.!]*$`),
	regexp.MustCompile(`(?i)^(?:what is|what's|what are)\s+the\s+differences?\s+between\s+(.+?)\s+and\s+(.+?)[?.!]*$`),
	regexp.MustCompile(`(?i)^(.+?)\s+(?:versus|vs\.?)\s+(.+?)[?.!]*$`),
	regexp.MustCompile(`(?i)^(?:is|are|was|were)\s+(.+?)\s+(?:higher|lower|greater|larger|smaller|more|less|bigger)\s+than\s+(.+?)[?.!]*$`),
}

// comparisonSides returns the two things a comparison question sets side by
// side, and the words of the question around them.
func comparisonSides(q string) ([]string, []string) {
	for _, re := range comparePatterns {
		m := re.FindStringSubmatchIndex(q)
		if m == nil {
			continue
		}
		a, b := q[m[2]:m[3]], q[m[4]:m[5]]
		if len(contentWords(a)) == 0 || len(contentWords(b)) == 0 {
			continue
		}
		frame := contentWords(q[:m[2]] + " " + q[m[3]:m[4]] + " " + q[m[5]:])
		return []string{a, b}, frame
	}
	return nil, nil
}

var compareVerbs = map[string]bool{"compare": true, "compared": true, "differ": true, "difference": true, "differences": true, "contrast": true, "versus": true, "vs": true, "higher": true, "lower": true, "greater": true, "larger": true, "smaller": true, "bigger": true, "more": true, "less": true}

// compareQueries makes one search per side. A side that says little on its
// own ("the audited figure") borrows what the other side is about
// ("revenue"), so that both searches look for the same measure.
func compareQueries(sides, frame []string) []string {
	var shared []string
	for _, w := range frame {
		if !compareVerbs[w] {
			shared = append(shared, w)
		}
	}
	out := make([]string, len(sides))
	for i, s := range sides {
		q := s
		if len(shared) > 0 {
			q += " " + strings.Join(shared, " ")
		}
		other := sides[1-i]
		if len(contentWords(s)) <= 2 {
			var borrow []string
			named := strings.ToLower(strings.Join(entities(other), " "))
			for _, w := range contentWords(headPhrase(other)) {
				if !strings.Contains(strings.ToLower(q), w) && !yearRE.MatchString(w) && !strings.Contains(named, w) {
					borrow = append(borrow, w)
				}
			}
			if len(borrow) > 0 {
				q = replaceGeneric(q, strings.Join(borrow, " "))
			}
		}
		out[i] = q
	}
	return out
}

// genericNouns stand for a measure a comparison names on its other side:
// "the audited figure" is the audited revenue when the other side is
// "revenue in the management accounts".
var genericNouns = map[string]bool{"figure": true, "figures": true, "number": true, "numbers": true, "amount": true, "amounts": true, "value": true, "values": true, "one": true, "ones": true}

// replaceGeneric puts measure in place of the first generic noun of side,
// or after it when it has none.
func replaceGeneric(side, measure string) string {
	words := strings.Fields(side)
	for i, w := range words {
		if genericNouns[strings.ToLower(strings.Trim(w, ",.;:?!"))] {
			words[i] = measure
			return strings.Join(words, " ")
		}
	}
	return side + " " + measure
}

var prepositionRE = regexp.MustCompile(`(?i)\s(in|of|for|from|at|by|per|under|on|to|with)\s`)

// headPhrase is what a phrase names before its first preposition: the
// measure in "revenue in the management accounts".
func headPhrase(s string) string {
	if loc := prepositionRE.FindStringIndex(s); loc != nil {
		return s[:loc[0]]
	}
	return s
}

var partSplit = regexp.MustCompile(`(?i)\?\s+|;\s+|,?\s+and\s+(?:also\s+)?(?:what|who|when|where|which|how|why|is|are|was|were|does|do|did)\b`)

// splitParts splits a multi-part question into its questions: sentences
// ending in '?', or clauses joined by "and" where the second opens with a
// question word ("What is the term and who signed it?"). A part too short
// to stand alone stays with the one before it.
func splitParts(q string) []string {
	var parts []string
	last := 0
	for _, loc := range partSplit.FindAllStringIndex(q, -1) {
		sep := q[loc[0]:loc[1]]
		part := strings.TrimSpace(q[last:loc[0]])
		if strings.HasPrefix(strings.TrimSpace(sep), "?") {
			part += "?"
		}
		parts = append(parts, part)
		last = loc[1]
		// Keep the question word that opened the next part.
		if w := lastWord(sep); questionWords[strings.ToLower(w)] || auxiliaries[strings.ToLower(w)] {
			last = loc[1] - len(w)
		}
	}
	parts = append(parts, strings.TrimSpace(q[last:]))
	var out []string
	for _, p := range parts {
		switch {
		case p == "" || p == "?":
		case len(out) > 0 && len(contentWords(p)) < 1:
			out[len(out)-1] += " " + p
		default:
			out = append(out, p)
		}
	}
	if len(out) < 2 {
		return []string{q}
	}
	return out
}

func lastWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1]
}

var questionWords = map[string]bool{"what": true, "who": true, "whom": true, "when": true, "where": true, "which": true, "how": true, "why": true, "whose": true}

var auxiliaries = map[string]bool{"is": true, "are": true, "was": true, "were": true, "does": true, "do": true, "did": true}

var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or but if of in on at to for from by with about as into over under between
		is are was were be been being am do does did done have has had having can could will would shall should may might must
		what who whom when where which how why whose that this these those there here it its they them their he she his her
		we us our you your i me my tell show give list please name say says said according any some all each every much many
		also than then so not no yes more most less least very just only same other such both either neither`) {
		m[w] = true
	}
	return m
}()

// contentWords returns the lower-cased words of s that carry meaning: not
// stop words, question words or pronouns.
func contentWords(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), notWordRune) {
		if !stopWords[w] && !questionWords[w] && !pronouns[w] {
			out = append(out, w)
		}
	}
	return out
}

func notWordRune(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }
