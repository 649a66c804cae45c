package interview

import (
	"regexp"
	"slices"
)

// Cue words in a note's sentence that say which item it answers.
var (
	opposingCue = regexp.MustCompile(`(?i)\b(?:landlord|landlady|property manager|manager|management|employer|boss|supervisor|company|dealer|dealership|seller|store|collector|creditor|lender|bank|ex|ex-husband|ex-wife|husband|wife|spouse|partner|father|mother|driver|owner|insurer|insurance|agency|school|contractor|hr)\b`)
	witnessCue  = regexp.MustCompile(`(?i)\b(?:witness(?:es|ed)?|saw|neighbou?rs?|coworkers?|co-workers?|colleagues?|friends?)\b`)
	childCue    = regexp.MustCompile(`(?i)\b(?:kids|children|child|son|daughter|baby)\b`)
	startCue    = regexp.MustCompile(`(?i)\b(?:signed|started|start|hired|moved in|began|since|bought|purchased|married|borrowed|took out|opened)\b`)
	endCue      = regexp.MustCompile(`(?i)\b(?:moved out|fired|terminated|laid off|quit|left|ended|separated|last day|let go)\b`)
	noticeCue   = regexp.MustCompile(`(?i)\b(?:notice|letter|served|summons)\b`)
	depositCue  = regexp.MustCompile(`(?i)\bdeposit\b`)
	rentCue     = regexp.MustCompile(`(?i)\brent\b`)
	wageCue     = regexp.MustCompile(`(?i)\b(?:wages?|paychecks?|salary|overtime|hourly|an hour|per hour|tips)\b`)
	debtCue     = regexp.MustCompile(`(?i)\b(?:owe[sd]?|debt|balance|loan|fees?|interest|collect(?:or|ion)?)\b`)
	lossCue     = regexp.MustCompile(`(?i)\b(?:bills?|medical|hospital|repairs?|cost|lost|damages?|support|alimony)\b`)
)

// itemRules say which items a note answers. An item is a dotted name:
// parties.*, dates.*, amounts.*, places.*, facts.<event>, documents.<type>.
var itemRules = []struct {
	item string
	ok   func(Note) bool
}{
	{"parties.opposing", func(n Note) bool {
		return n.Kind == KindWho && (n.Type == TypeOrganization || opposingCue.MatchString(n.Quote))
	}},
	{"parties.witness", func(n Note) bool { return n.Kind == KindWho && witnessCue.MatchString(n.Quote) }},
	{"parties.children", func(n Note) bool { return childCue.MatchString(n.Quote) }},
	{"dates.any", func(n Note) bool { return n.Kind == KindWhen }},
	{"dates.start", func(n Note) bool { return n.Kind == KindWhen && startCue.MatchString(n.Quote) }},
	{"dates.end", func(n Note) bool { return n.Kind == KindWhen && endCue.MatchString(n.Quote) }},
	{"dates.notice", func(n Note) bool { return n.Kind == KindWhen && noticeCue.MatchString(n.Quote) }},
	{"amounts.claimed", func(n Note) bool { return n.Kind == KindAmount }},
	{"amounts.deposit", func(n Note) bool { return n.Kind == KindAmount && depositCue.MatchString(n.Quote) }},
	{"amounts.rent", func(n Note) bool { return n.Kind == KindAmount && rentCue.MatchString(n.Quote) }},
	{"amounts.wages", func(n Note) bool { return n.Kind == KindAmount && wageCue.MatchString(n.Quote) }},
	{"amounts.debt", func(n Note) bool { return n.Kind == KindAmount && debtCue.MatchString(n.Quote) }},
	{"amounts.losses", func(n Note) bool { return n.Kind == KindAmount && lossCue.MatchString(n.Quote) }},
	{"places.incident", func(n Note) bool { return n.Kind == KindWhere }},
	{"places.property", func(n Note) bool { return n.Kind == KindWhere && n.Type == TypeAddress }},
}

// Items returns every item [Covered] can report, sorted: the vocabulary
// of prompt packs' covers.
func Items() []string {
	var out []string
	for _, r := range itemRules {
		out = append(out, r.item)
	}
	for _, e := range events {
		out = append(out, factItem(e.typ))
	}
	for _, d := range documents {
		out = append(out, "documents."+d.typ)
	}
	out = append(out, "dates.incident")
	slices.Sort(out)
	return slices.Compact(out)
}

// factItem names the item of an event; notice is "facts.notice_given".
func factItem(event string) string {
	if event == "notice" {
		return "facts.notice_given"
	}
	return "facts." + event
}

// Covered returns the items the notes already answer. dates.incident is
// answered by a date said in the same sentence as an event.
func Covered(notes Notes) map[string]bool {
	covered := map[string]bool{}
	events := map[Span]bool{}
	for _, n := range notes.Items {
		switch n.Kind {
		case KindWhat:
			covered[factItem(n.Type)] = true
			events[n.Span] = true
		case KindDocument:
			covered["documents."+n.Type] = true
		}
		for _, r := range itemRules {
			if !covered[r.item] && r.ok(n) {
				covered[r.item] = true
			}
		}
	}
	for _, n := range notes.Items {
		if n.Kind == KindWhen && events[n.Span] {
			covered["dates.incident"] = true
		}
	}
	return covered
}
