package intake

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/sanadhq/sanad/casework/issues"
	"github.com/sanadhq/sanad/guard/pii"
)

// contactDetector finds email addresses and phone numbers.
var contactDetector = sync.OnceValue(func() *pii.Detector {
	d, err := pii.New(pii.Config{Types: []string{pii.TypeEmail, pii.TypePhone}})
	if err != nil {
		panic(err) // a fixed, valid configuration
	}
	return d
})

// isContact reports whether s, trimmed, is wholly one entity of type typ.
func isContact(s, typ string) bool {
	s = strings.TrimSpace(s)
	for _, e := range contactDetector().Find(s) {
		if e.Type == typ && e.Start == 0 && e.End == len(s) {
			return true
		}
	}
	return false
}

// checklist lists what the form is missing or holds weakly, in the order
// of the form's fields.
func (a assessor) checklist(areas []issues.Area, dropped []string) []ChecklistItem {
	items := []ChecklistItem{}
	add := func(code, field string, blocking bool, format string, args ...any) {
		items = append(items, ChecklistItem{Code: code, Field: field, Reason: fmt.Sprintf(format, args...), Blocking: blocking})
	}
	a.contact(add)
	if !slices.ContainsFunc(a.f.Parties, func(p Party) bool { return p.Role == RoleOpposing }) {
		add(ItemOpposingMissing, "parties", false, "no opposing party is named: ask who the claim is against, for the conflict check")
	}
	a.dates(add)
	words := len(strings.Fields(a.f.Narrative))
	if words < a.exp.MinNarrativeWords {
		add(ItemNarrativeShort, "narrative", true, "the narrative has %d words, fewer than the %d needed to triage: ask what happened, when, and who was involved", words, a.exp.MinNarrativeWords)
	}
	if len(areas) == 0 {
		add(ItemNoArea, "narrative", false, "no area of law was spotted: ask what problem the client needs help with")
	}
	for _, id := range dropped {
		add(ItemAreaUnknown, "matter_type", false, "the spotter named area %q, which the taxonomy does not have; it was left out", id)
	}
	for _, ar := range areas {
		ev, ok := a.exp.Areas[ar.ID]
		if !ok {
			continue
		}
		for _, d := range ev.Documents {
			if a.mentions(d.Mentions) && !a.listed(d.AnyOf) {
				add(ItemDocumentExpected, "documents", false, "%s matters usually need %s; none is listed", strings.ToLower(ar.Name), d.Name)
			}
		}
	}
	for _, ar := range areas {
		if ev := a.exp.Areas[ar.ID]; ev.Money && len(a.f.Amounts) == 0 {
			add(ItemAmountMissing, "amounts", false, "no amount is claimed or at stake; %s matters are usually about money: ask how much", strings.ToLower(ar.Name))
			break
		}
	}
	return items
}

// contact checks the client can be reached by email or phone.
func (a assessor) contact(add func(code, field string, blocking bool, format string, args ...any)) {
	c := a.f.Client.Contact
	emailOK, phoneOK := isContact(c.Email, pii.TypeEmail), isContact(c.Phone, pii.TypePhone)
	if c.Email != "" && !emailOK {
		add(ItemContactInvalid, "client.contact.email", !phoneOK, "%q is not an email address", c.Email)
	}
	if c.Phone != "" && !phoneOK {
		add(ItemContactInvalid, "client.contact.phone", !emailOK, "%q is not a phone number", c.Phone)
	}
	if c.Email != "" || c.Phone != "" {
		return
	}
	var inStory []string
	for _, e := range contactDetector().Find(a.f.Narrative) {
		switch e.Type {
		case pii.TypeEmail:
			inStory = append(inStory, "an email address")
		case pii.TypePhone:
			inStory = append(inStory, "a phone number")
		}
	}
	inStory = slices.Compact(inStory)
	if len(inStory) > 0 {
		add(ItemContactMissing, "client.contact", false, "the client gave no email or phone, but the narrative holds %s: confirm it and copy it into client.contact", strings.Join(inStory, " and "))
		return
	}
	add(ItemContactMissing, "client.contact", true, "the client gave neither an email nor a phone number: there is no way to reach them")
}

// dates checks the key dates: some given, one in the past, none in the
// future unless it may be, in order, none after the form was submitted.
func (a assessor) dates(add func(code, field string, blocking bool, format string, args ...any)) {
	if len(a.f.KeyDates) == 0 {
		add(ItemKeyDatesMissing, "key_dates", false, "no key date is given: ask when the incident happened, for the limitation periods")
		return
	}
	submitted := date(a.f.SubmittedAt)
	past := 0
	for i, d := range a.f.KeyDates {
		t := date(d.Date)
		if t.IsZero() {
			continue
		}
		field := fmt.Sprintf("key_dates[%d].date", i)
		future := !a.asOf.IsZero() && t.After(a.asOf)
		if !future {
			past++
		}
		if future && !a.mayBeFuture(d) {
			add(ItemDateInFuture, field, false, "%q is dated %s, after %s, but reads as something that already happened: check the date", d.Label, d.Date, a.asOf.Format(DateLayout))
		} else if !submitted.IsZero() && t.After(submitted) && !a.mayBeFuture(d) {
			add(ItemDateAfterSubmitted, field, false, "%q is dated %s, after the form was submitted on %s: check the date", d.Label, d.Date, a.f.SubmittedAt)
		}
		if i > 0 {
			if prev := date(a.f.KeyDates[i-1].Date); !prev.IsZero() && t.Before(prev) {
				add(ItemDatesOutOfOrder, field, false, "%q (%s) is listed after %q (%s), which is later: check the dates and their order", d.Label, d.Date, a.f.KeyDates[i-1].Label, a.f.KeyDates[i-1].Date)
			}
		}
	}
	if past == 0 {
		add(ItemIncidentDate, "key_dates", false, "every key date is in the future: ask when the incident happened")
	}
	if !submitted.IsZero() && !a.asOf.IsZero() && submitted.After(a.asOf) {
		add(ItemDateInFuture, "submitted_at", false, "the form says it was submitted on %s, after %s: check the date", a.f.SubmittedAt, a.asOf.Format(DateLayout))
	}
}

// mayBeFuture reports whether a key date's label names something that may
// lie ahead: a hearing, a deadline.
func (a assessor) mayBeFuture(d KeyDate) bool {
	label := strings.ToLower(d.Label)
	return slices.ContainsFunc(a.exp.FutureLabels, func(w string) bool { return strings.Contains(label, strings.ToLower(w)) })
}

// listed reports whether a form's document holds one of phrases, or its
// plural, in its name or description.
func (a assessor) listed(phrases []string) bool {
	for _, d := range a.f.Documents {
		text := strings.ToLower(d.Name + " " + d.Description)
		for _, p := range phrases {
			if findPhrase(text, strings.ToLower(p), true) {
				return true
			}
		}
	}
	return false
}
