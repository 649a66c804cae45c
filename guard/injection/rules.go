package injection

import (
	"regexp"
	"slices"
	"strings"
)

// Rule ids: the Kind of a [Match].
const (
	RuleOverride   = "instruction_override" // ignore / forget the previous instructions
	RuleRoleHijack = "role_hijack"          // you are now DAN, an unrestricted AI, developer mode
	RuleExtraction = "prompt_extraction"    // print your system prompt
	RuleDelimiter  = "delimiter"            // fake chat-template tokens, role headers and closing tags
	RuleEncoded    = "encoded_payload"      // base64, hex or rot13 that decodes to an injection
	RuleHiddenText = "hidden_text"          // text spelled in invisible tag characters
	RuleSplit      = "split_payload"        // an injection spaced out or split across lines

	// Signals: reported, but not enough to call a text unsafe on their own.
	SignalInvisible = "invisible_unicode" // zero-width and other format characters
	SignalBidi      = "bidi_control"      // bidirectional overrides, embeddings, isolates
	SignalMixed     = "mixed_script"      // a word mixing Latin letters with look-alikes
)

// Signal reports whether matches of the rule id are only signals, which do
// not make a text unsafe on their own.
func Signal(rule string) bool {
	return rule == SignalInvisible || rule == SignalBidi || rule == SignalMixed
}

// pattern is one regular expression of a rule, run over folded text when
// one of its keywords occurs in it.
type pattern struct {
	rule     string
	detail   string
	keywords []string
	re       *regexp.Regexp
	lines    bool           // the expression anchors at line starts: windows start at one
	back     int            // how far before a keyword a match may start (0: at the keyword's word)
	anchored *regexp.Regexp // re matched only at the start (for back 0)
}

// anchorAll sets the anchored expression of each pattern.
func anchorAll(ps []pattern) []pattern {
	for i := range ps {
		ps[i].anchored = regexp.MustCompile(`^(?:` + ps[i].re.String() + `)`)
	}
	return ps
}

// English and German words of the override patterns.
const (
	enVerb    = `(?:ignore|disregard|forget|skip|override|bypass|drop|abandon|discard|erase|remove|delete|leave behind|set aside|throw out)`
	enStop    = `(?:(?:do not|don'?t|stop|no longer) (?:follow|obey|consider)(?:ing)?)`
	enQual    = `(?:previous|previously|prior|preceding|above|earlier|former|original|initial|old|foregoing|past|existing|provided|given|system|default|current|other|usual)`
	enNoun    = `(?:instructions?|prompts?|directives?|commands?|rules|guidelines|orders|tasks?|context|programming|assignments?|information|conversations?|messages?|constraints|restrictions|documents?|articles?|texts?|inputs?|directions|guidance|training|settings)`
	enDet     = `(?:(?:all|any|every|each|of|the|your|my|these|those|its|that|this|whatever|about|everything|and)\s+)`
	deVerb    = `(?:ignorier\w*|vergiss|vergesst|vergessen|missacht\w*|uberspring\w*|verwirf|verwerfen|beachte nicht|nicht beachten)`
	deQual    = `(?:vorherigen?|vorigen?|bisherigen?|obigen?|vorangehenden?|vorangegangenen?|vorhergehenden?|fruheren?|alten|ursprunglichen?|gegebenen?|erhaltenen?|genannten?)`
	deNoun    = `(?:anweisungen?|befehle|instruktionen?|aufgaben?|auftrage?|regeln|vorgaben|informationen|angaben|ausfuhrungen|eingaben|texte|dokumente|artikel|richtlinien|kontext)`
	deDet     = `(?:(?:sie|du|nun|jetzt|bitte|einfach|sofort|alle[sn]?|die|deine|ihre|meine|samtliche|der|den|zu)\s+)`
	roleVerb  = `(?:you are|you're|you will be|you'll be|you are going to (?:be|act as)|you will act as|act as|acting as|pretend (?:to be|you are|you're)|role-?play as|play the role of|become|simulate|now you are|you are now|du bist|sie sind)`
	strongAdj = `(?:unrestricted|unfiltered|uncensored|jailbroken|unlimited|amoral|limitless|unbound|unchained|lawless|unhinged)`
	weakAdj   = `(?:evil|malicious|rogue|unethical|immoral|bose|boser)`
	aiNoun    = `(?:ai|ki|bot|chatbot|assistant|model|language model|version|chatgpt|gpt|system|entity)`
	policyN   = `(?:guidelines|restrictions|policies|policy|filters?|rules|principles|boundaries|limitations|limits|constraints|standards|considerations|programming|censorship)`
	extrVerb  = `(?:print|show|reveal|repeat|output|display|tell|give|write|dump|leak|share|list|spell|recite|provide|return|echo|translate|disclose|expose)`
	extrQual  = `(?:initial|original|hidden|secret|full|entire|complete|exact|internal|system|previous|first|whole|above|underlying|confidential|starting|pre)`
	extrNoun  = `(?:system prompt|system message|prompt[- ]?texts?|prompts?|pre-?prompt|instructions|directives|guidelines|configuration|rules)`
)

var patterns = anchorAll([]pattern{
	// Instruction override, English.
	{RuleOverride, "an order to ignore earlier instructions", []string{"ignor", "disregard", "forget", "skip", "overrid", "bypass", "drop", "abandon", "discard", "erase", "remov", "delet", "leave", "aside", "throw"},
		regexp.MustCompile(`\b` + enVerb + `\s+` + enDet + `{0,3}` + enQual + `\s+(?:[\w-]+\s+)?` + enNoun + `\b`), false, 0, nil},
	{RuleOverride, "an order to ignore all instructions", []string{"ignor", "disregard", "forget", "skip", "overrid", "bypass", "drop", "abandon", "discard", "erase", "remov", "delet", "leave", "aside", "throw"},
		regexp.MustCompile(`\b` + enVerb + `\s+(?:about\s+)?(?:all|any|every)\s+(?:(?:of\s+)?(?:the|your|my|these|those)\s+)?` + enNoun + `\b`), false, 0, nil},
	{RuleOverride, "an order to stop following earlier instructions", []string{"follow", "obey", "consider"},
		regexp.MustCompile(`\b` + enStop + `\s+` + enDet + `{0,3}(?:` + enQual + `\s+)?(?:[\w-]+\s+)?` + enNoun + `\b`), false, 16, nil},
	{RuleOverride, "an order to ignore the model's instructions", []string{"ignor", "disregard", "forget", "overrid", "bypass", "abandon", "discard", "drop"},
		regexp.MustCompile(`\b(?:ignore|disregard|forget|override|bypass|abandon|discard|drop)\s+(?:all\s+)?(?:of\s+)?(?:your|its)\s+(?:[\w-]+\s+)?(?:instructions|programming|guidelines|rules|training|system prompt|prompt|directives|orders|tasks|assignments)\b`), false, 0, nil},
	{RuleOverride, "an order to forget everything before", []string{"ignor", "disregard", "forget"},
		regexp.MustCompile(`\b(?:ignore|disregard|forget)\s+(?:about\s+)?(?:everything|anything|all of (?:that|this|it))\b|\b(?:ignore|disregard|forget)\s+(?:all\s+|the\s+)?(?:above|foregoing)\b`), false, 0, nil},
	{RuleOverride, "an order to ignore the documents provided", []string{"ignor", "disregard", "look", "not by"},
		regexp.MustCompile(`\b(?:ignore|ignoring|disregard|disregarding|do not (?:look (?:in|at)|use|read|consider)|don'?t (?:look (?:in|at)|use|read|consider)|not by)\s+(?:all\s+)?(?:the\s+|any\s+)?(?:provided\s+|given\s+)?(?:documents?|articles?|artikels?|context|sources?)\b`), false, 48, nil},
	{RuleOverride, "an announcement of new instructions", []string{"new", "updated", "real", "actual", "additional", "further", "more", "focus", "concentrate", "your", "instruction", "task"},
		regexp.MustCompile(`\b(?:new|updated|real|actual|additional|further|more)\s+(?:instructions?|tasks?|orders|directives?)\s*(?::|-|follow|are (?:as follows|followed|now))|\b(?:focus|concentrate) on (?:your|the|this) new task\b|\byour (?:new |real |actual )?(?:instructions|task|goal) (?:are|is) now\b|\b(?:instructions?|tasks?) (?:have|has) (?:changed|been updated)\b`), false, 0, nil},
	// Instruction override, German.
	{RuleOverride, "an order to ignore earlier instructions (German)", []string{"ignorier", "vergiss", "vergesst", "vergessen", "missacht", "berspring", "verwerf", "verwirf", "beacht"},
		regexp.MustCompile(`\b` + deVerb + `\s+` + deDet + `{0,4}(?:` + deQual + `\s+)?` + deNoun + `\b`), false, 0, nil},
	{RuleOverride, "an order to ignore earlier instructions (German)", []string{"ignorier", "vergessen", "missacht", "streich", "hinter sich", "abweichend", "erhalten", "bekommen"},
		regexp.MustCompile(`\b` + deQual + `\s+(?:\w+\s+)?` + deNoun + `\s+(?:\w+\s+){0,5}?(?:zu\s+)?(?:ignorieren|vergessen|missachten|streichen|hinter sich)\b|\babweichend (?:zu|von) (?:den\s+)?` + deQual + `\s+` + deNoun + `|\balle[sn]?\s+` + deQual + `\s+` + deNoun + `,?\s+die\s+(?:sie|du)\s+(?:erhalten|bekommen)`), false, 120, nil},
	{RuleOverride, "an order to forget everything (German)", []string{"vergiss", "vergessen", "ignorier"},
		regexp.MustCompile(`\b(?:vergiss|vergesst|vergessen sie|ignoriere|ignorieren sie)\s+(?:\w+\s+)?alles\b`), false, 0, nil},
	{RuleOverride, "an announcement of new instructions (German)", []string{"neue", "weitere"},
		regexp.MustCompile(`\b(?:nun|jetzt|es)\s+folgen\s+(?:\w+\s+)?(?:neue|weitere)\s+(?:anweisungen|aufgaben|befehle|instruktionen)|\bneue (?:anweisung|aufgabe|instruktion)(?:en)?\s*:|\bkonzentriere dich (?:\w+\s+)?auf (?:deine|die) neue aufgabe`), false, 40, nil},
	// Instruction override, other languages seen in attacks.
	{RuleOverride, "an order to forget the instructions", []string{"olvid", "ignor", "oubli", "zaboravi", "dimentica", "vergeet", "забуд", "игнор"},
		regexp.MustCompile(`\b(?:olvida(?:te)?|olvide|ignora|ignore[sz]?|oubliez?|zaboravi|dimentica|vergeet)\s+(?:de\s+)?(?:tod[oa]s?|toutes|tutte|sve|alle)?\s*(?:las\s+|les\s+|le\s+|de\s+)?(?:instrucciones|instructions|istruzioni|instrukcije|instructies)\b|(?:забудь(?:те)?|игнорируй(?:те)?)\s+(?:\S+\s+){0,2}инструкции`), false, 0, nil},

	// Role hijack.
	{RuleRoleHijack, "\"do anything now\"", []string{"anything now"},
		regexp.MustCompile(`\bdo anything now\b`), false, 8, nil},
	{RuleRoleHijack, "a jailbreak mode", []string{"mode"},
		regexp.MustCompile(`\b(?:dan|god|jailbreak|jailbroken|unrestricted|unfiltered|uncensored|evil|amoral|opposite|anarchy|chaos) mode\b|\bdeveloper mode(?:\s+\S+){0,12}?\s+\W*(?:chatgpt|gpt|ai|openai|language model|assistant|enabled|activated)\b|\b(?:chatgpt|gpt|ai|openai|language model|assistant|enable|activate)\b(?:\W*\s+\S+){0,12}?\s+\W*developer mode\b`), false, 120, nil},
	{RuleRoleHijack, "a role without restrictions", []string{"unrestricted", "unfiltered", "uncensored", "jailbroken", "unlimited", "amoral", "limitless", "unbound", "unchained", "lawless", "unhinged", "evil", "malicious", "rogue", "unethical", "immoral", "bose", "dan"},
		regexp.MustCompile(`\b` + roleVerb + `\s+(?:now\s+)?(?:[\w.-]+,?\s+){0,4}?` + strongAdj + `\b|\b` + roleVerb + `\s+(?:now\s+)?(?:a|an|the|my|eine?)?\s*(?:[\w-]+\s+)?` + weakAdj + `\s+` + aiNoun + `\b|\b(?:act|acting|pretend|be|as)\s+(?:as\s+|to be\s+)?(?:a|an)\s+dan\b`), false, 96, nil},
	{RuleRoleHijack, "a claim to be free of the model's rules", []string{"openai", "ethic", "moral", "content", "safety", "censorship"},
		regexp.MustCompile(`\b(?:no|not bound by|not restricted by|not limited by|free (?:of|from)|freed from|without|beyond|bypass(?:es|ing)?|ignores?|disregards?|breaks?|broken|break free (?:of|from)|not (?:have to )?(?:follow|abide by|adhere to))\s+(?:any\s+|all\s+|the\s+)?(?:of\s+)?(?:the\s+)?(?:[\w-]+\s+){0,3}?(?:openai|ethical|moral|ethics|morals|content|safety|censorship)\s+(?:or\s+\w+\s+)?` + policyN + `\b`), false, 80, nil},
	{RuleRoleHijack, "a refusal forbidden", []string{"refuse", "decline", "character"},
		regexp.MustCompile(`\b(?:never|not|don'?t|do not|won'?t|will not|cannot|can'?t|must not|mustn'?t)\s+(?:ever\s+)?(?:refuse|decline|deny)\s+(?:to answer\s+)?(?:a|any|to|my|the|an?y?)?\s*(?:request|question|prompt|order|answer|instruction)s?\b|\b(?:stay|remain|staying) in character\b|\b(?:never|not|don'?t|do not) break character\b`), false, 48, nil},
	{RuleRoleHijack, "the model's policies set aside", []string{"openai", "anthropic"},
		regexp.MustCompile(`\b(?:not|never|no longer|ignore|ignores|bypass|break|breaks|violate|violates|disregard|free from|without|don'?t|doesn'?t|won'?t|against)\s+(?:\S+\s+){0,6}?\W*(?:openai|anthropic)(?:'s)?\s+(?:content\s+|usage\s+)?(?:polic(?:y|ies)|guidelines|rules|filters?|restrictions)`), false, 80, nil},
	{RuleRoleHijack, "a jailbreak named", []string{"jailbr"},
		regexp.MustCompile(`\bjailbroken\b|\b(?:you are|you're|as an?|act as an?|you have been|you've been|this is an?)\s+(?:\w+\s+)?jailbr(?:eak|oken)`), false, 48, nil},

	// System-prompt extraction.
	{RuleExtraction, "a request for the model's prompt", []string{"print", "show", "reveal", "repeat", "output", "display", "tell", "give", "write", "dump", "leak", "share", "list", "spell", "recite", "provide", "return", "echo", "translate", "disclose", "expose"},
		regexp.MustCompile(`\b` + extrVerb + `\s+(?:me\s+|us\s+)?(?:out\s+|back\s+)?(?:all\s+)?(?:of\s+)?(?:(?:your|its)\s+(?:` + extrQual + `\s+){0,3}` + extrNoun + `|(?:the\s+|this\s+|my\s+)?(?:` + extrQual + `\s+){1,3}(?:system prompt|system message|prompt[- ]?texts?|prompts?|instructions)|(?:the\s+|this\s+)?(?:system prompt|prompt[- ]?texts?))\b`), false, 0, nil},
	{RuleExtraction, "a question about the model's prompt", []string{"what", "repeat"},
		regexp.MustCompile(`\bwhat (?:is|are|was|were)\s+(?:your|the)\s+(?:(?:initial|original|hidden|secret|system|first)\s+)*(?:system prompt|prompt|instructions)\b|\bwhat (?:is|was|were|are) (?:written|said|stated) (?:at the (?:beginning|start|top)|above|before)\b|\brepeat\s+(?:the\s+)?(?:words|text|everything|all)\s+(?:above|before)\b|\bwhat are the (?:\w+ )?(?:sentences|words|lines) before\b`), false, 0, nil},
	{RuleExtraction, "a request for the model's prompt (German)", []string{"zeig", "gib", "nenne", "wiederhole", "verrate", "drucke", "schreib"},
		regexp.MustCompile(`\b(?:zeige?|gib|nenne|wiederhole|verrate|drucke|schreibe?)\s+(?:mir\s+|uns\s+)?(?:alle\s+)?(?:deine[nmrs]?|ihre[nmrs]?|den|die)\s+(?:[\w-]+\s+)?(?:prompt[- ]?texte?|prompts?|systemprompt|system-prompt|anweisungen|instruktionen)\b`), false, 0, nil},

	// Delimiters: chat-template tokens, fake role headers, closing tags.
	{RuleDelimiter, "a chat-template token", []string{"<|", "inst]", "<<sys", "sys]", "system]"},
		regexp.MustCompile(`<\|(?:im_start|im_end|im_sep|system|user|assistant|endoftext|begin_of_text|end_of_text|start_header_id|end_header_id|eot_id)\|>|\[/?inst\]|<</?sys>>|\[/?(?:system|sys)\]`), false, 8, nil},
	{RuleDelimiter, "a fake system header", []string{"system", "instruction", "admin", "developer"},
		regexp.MustCompile(`(?m)^[ \t]*(?:#{1,6}|\*\*|=+|-{2,}|>)?[ \t]*(?:system|admin|developer|new instructions?)[ \t]*(?:message|prompt|override|instructions?)?[ \t]*(?:\*\*)?[ \t]*:`), true, 0, nil},
	{RuleDelimiter, "a fake system message", []string{"system", "admin", "developer"},
		regexp.MustCompile(`\b(?:system|admin|developer)\s+(?:override|instructions?)\s*:`), false, 0, nil},
	{RuleDelimiter, "a closing or opening role tag", []string{"<"},
		regexp.MustCompile(`</?(?:system|context|instructions?|user|assistant|prompt|documents?|sys|admin|human|ai|user_input|system_prompt)>`), false, 0, nil},
	{RuleDelimiter, "a fake end of the prompt", []string{"end of"},
		regexp.MustCompile(`\bend of (?:the\s+)?(?:system prompt|prompt|instructions|context|document|user input)\b\s*[-=#*\]>)]`), false, 24, nil},
})

// squashedPatterns run over the letters and digits of the folded text
// alone, to catch a payload spaced out or split across lines.
var squashedPatterns = []pattern{
	{RuleOverride, "", []string{"ignor", "disregard", "forget"},
		regexp.MustCompile(`(?:ignore|disregard|forget)(?:all|any|every|the|your|of){0,3}(?:previous|prior|preceding|above|earlier|former|original|initial|system)(?:instructions?|prompts?|directives?|commands?|rules|guidelines|orders|tasks?|context)`), false, 16, nil},
	{RuleOverride, "", []string{"ignor", "disregard", "forget"},
		regexp.MustCompile(`(?:ignore|disregard|forget)(?:all|your)(?:instructions|rules|guidelines|programming)`), false, 16, nil},
	{RuleOverride, "", []string{"ignorier", "vergiss"},
		regexp.MustCompile(`(?:ignoriere|vergiss)(?:alle|die|deine){0,2}(?:vorherigen|bisherigen|obigen)?(?:anweisungen|befehle|instruktionen|aufgaben)`), false, 16, nil},
	{RuleRoleHijack, "", []string{"anything", "developer", "jailbr"},
		regexp.MustCompile(`doanythingnow|developermodeenabled|jailbroken`), false, 16, nil},
	{RuleExtraction, "", []string{"prompt"},
		regexp.MustCompile(`(?:print|show|reveal|repeat|output|display)(?:me)?(?:your|the)(?:initial|original|hidden|secret|full)?(?:systemprompt|prompttext)`), false, 16, nil},
}

// squash returns the letters and digits of a folded view, with the way
// back to the original text.
func squash(v *view) view {
	out := view{start: make([]int32, 0, len(v.s)), end: make([]int32, 0, len(v.s))}
	buf := make([]byte, 0, len(v.s))
	for i := 0; i < len(v.s); i++ {
		c := v.s[i]
		if 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c >= 0x80 {
			buf = append(buf, c)
			out.start = append(out.start, v.start[i])
			out.end = append(out.end, v.end[i])
		}
	}
	out.s = string(buf)
	return out
}

// hasAny reports whether s contains one of the keywords.
func hasAny(s string, keywords []string) bool {
	for _, k := range keywords {
		if strings.Contains(s, k) {
			return true
		}
	}
	return false
}

// Regular expressions run only near the keywords of their pattern, up
// to windowAhead bytes after a keyword. A pattern whose matches start with
// a keyword (back 0) is tried only at the start of the keyword's word; one
// whose keywords come later is searched for from back bytes before the
// keyword (overlapping windows are searched as one). A text without
// keywords costs a few substring searches.
const (
	windowAhead = 128
	maxWindows  = 64 // keyword hits looked at per pattern
	lineLead    = 24 // bytes a line-anchored keyword may sit after the line's start
)

// matchPatterns appends the matches of ps in v to out, with offsets in the
// original text.
func matchPatterns(out []Match, v *view, ps []pattern, detail func(p *pattern, m string) string) []Match {
	s := v.s
	var wins [][2]int
	for k := range ps {
		p := &ps[k]
		wins = wins[:0]
		for _, kw := range p.keywords {
			for from := 0; from < len(s) && len(wins) < maxWindows; {
				i := strings.Index(s[from:], kw)
				if i < 0 {
					break
				}
				at := from + i
				a, b := at, min(len(s), at+len(kw)+windowAhead)
				switch {
				case p.lines:
					// The keyword must sit near the start of its line.
					a = strings.LastIndexByte(s[:at], '\n') + 1
					if at-a > lineLead {
						from = at + len(kw)
						continue
					}
				case p.back > 0:
					a = max(0, at-p.back)
				case wordByte(kw[0]):
					for a > 0 && wordByte(s[a-1]) {
						a--
					}
				}
				wins = append(wins, [2]int{a, b})
				from = at + len(kw)
			}
		}
		if len(wins) == 0 {
			continue
		}
		slices.SortFunc(wins, func(x, y [2]int) int { return x[0] - y[0] })
		search := p.back > 0 || p.lines
		merged := wins[:1]
		for _, w := range wins[1:] {
			last := &merged[len(merged)-1]
			switch {
			case search && w[0] <= last[1]:
				last[1] = max(last[1], w[1])
			case !search && w[0] == last[0]:
				last[1] = max(last[1], w[1])
			default:
				merged = append(merged, w)
			}
		}
		for _, w := range merged {
			var locs [][]int
			if search {
				locs = p.re.FindAllStringIndex(s[w[0]:w[1]], 8)
			} else if loc := p.anchored.FindStringIndex(s[w[0]:w[1]]); loc != nil {
				locs = [][]int{loc}
			}
			for _, loc := range locs {
				a, b := v.span(w[0]+loc[0], w[0]+loc[1])
				out = append(out, Match{Rule: p.rule, Start: a, End: b, Detail: detail(p, s[w[0]+loc[0]:w[0]+loc[1]])})
			}
		}
	}
	return out
}
