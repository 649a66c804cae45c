package intake

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sanadhq/sanad/casework/issues"
)

// Options are the settings of [Assess]. The zero Options is usable.
type Options struct {
	// AsOf is the day deadlines and future dates are counted from. Zero
	// means the form's submitted_at; with neither, days are not counted
	// and limitation risks have level "unknown".
	AsOf time.Time
	// Taxonomy spots the areas of law; nil means [Taxonomy]: the areas
	// of issues.Default and housing.
	Taxonomy *issues.Taxonomy
	// Limitations are the indicative periods; nil means
	// [DefaultLimitations].
	Limitations *Limitations
	// Expectations are what a form should hold; nil means
	// [DefaultExpectations].
	Expectations *Expectations
	// Areas, when not nil, are the areas spotted elsewhere (by
	// [SpotWithModel]) to use instead of spotting offline. Areas whose id
	// Taxonomy lacks are left out, and the triage says so.
	Areas []issues.Area
}

// Assessment is what [Assess] makes of a form: the three artifacts of
// INTAKE_AGENT and the triage recommendation.
type Assessment struct {
	Summary   Summary         `json:"intake_summary"`
	Checklist Checklist       `json:"intake_checklist"`
	Conflicts ConflictRequest `json:"conflict_check_request"`
	Triage    Triage          `json:"triage"`
}

// Summary is the intake_summary: a bounded narrative for the attorney and
// structured flags.
type Summary struct {
	// Narrative is at most MaxSummaryChars characters, cut at a sentence.
	Narrative string `json:"narrative"`
	// Areas are the areas of law raised, highest score first, with the
	// signals that fired. Limitation risks, expected documents and the
	// conflict request follow the primary ones.
	Areas []AreaFlag `json:"areas"`
	// Spotter says how Areas were found: "offline" or "supplied".
	Spotter         string           `json:"spotter"`
	LimitationRisks []LimitationRisk `json:"limitation_risks"`
	// Limitations names the set of periods used and its caveat.
	Limitations      LimitationsSource `json:"limitations"`
	Urgency          Urgency           `json:"urgency"`
	ConflictsToCheck []string          `json:"conflicts_to_check"`
	AsOf             string            `json:"as_of,omitempty"`
}

// AreaFlag is an area raised. Primary areas score at least
// Expectations.PrimaryRatio of the top score, or are named by the form's
// matter type; the others are shown as possible, for the attorney, since
// the offline signals fire on common words ("paid", "work").
type AreaFlag struct {
	issues.Area
	Primary bool `json:"primary"`
}

// MaxSummaryChars bounds Summary.Narrative.
const MaxSummaryChars = 1200

// LimitationsSource names the limitation periods an assessment used.
type LimitationsSource struct {
	ID           string `json:"id"`
	Version      int    `json:"version"`
	Jurisdiction string `json:"jurisdiction"`
	Note         string `json:"note"`
}

// Limitation risk levels.
const (
	LevelExpired = "expired" // the deadline has passed
	LevelUrgent  = "urgent"  // fewer than 90 days left
	LevelSoon    = "soon"    // fewer than 365 days left
	LevelOK      = "ok"
	LevelUnknown = "unknown" // no date to count from, or no day to count to
)

// LimitationRisk is an indicative limitation period applied to the matter.
type LimitationRisk struct {
	Area  string `json:"area"`
	Cause string `json:"cause"`
	// TriggerDate is the date the period is counted from, TriggerField
	// the key date it comes from, TriggerBasis why that one.
	TriggerDate  string `json:"trigger_date,omitempty"`
	TriggerField string `json:"trigger_field,omitempty"`
	TriggerBasis string `json:"trigger_basis"`
	Period       string `json:"period"`
	Deadline     string `json:"deadline,omitempty"`
	DaysLeft     *int   `json:"days_left,omitempty"`
	Level        string `json:"level"`
	// Rule is the rule the period comes from; Caveat says it is indicative
	// and for which jurisdiction it was written.
	Rule   string `json:"rule"`
	Caveat string `json:"caveat"`
}

// Urgency levels.
const (
	UrgencyHigh   = "high"
	UrgencyNormal = "normal"
	UrgencyLow    = "low"
)

// Urgency says how soon the matter needs attention, and why.
type Urgency struct {
	Level   string   `json:"level"`
	Reasons []string `json:"reasons"`
}

// Checklist is the intake_checklist: what the form is missing or holds
// weakly.
type Checklist struct {
	Items []ChecklistItem `json:"items"`
	// Blocking says whether any item must be resolved before triage.
	Blocking bool `json:"blocking"`
}

// ChecklistItem is one thing to ask the client for or check.
type ChecklistItem struct {
	// Code is stable: one of the Item constants.
	Code string `json:"code"`
	// Field is the path of the form field concerned: "client.contact",
	// "key_dates[2].date".
	Field  string `json:"field"`
	Reason string `json:"reason"`
	// Blocking items keep the triage at needs_more_info.
	Blocking bool `json:"blocking"`
}

// Checklist item codes.
const (
	ItemContactMissing     = "client_contact_missing"
	ItemContactInvalid     = "client_contact_invalid"
	ItemOpposingMissing    = "opposing_party_missing"
	ItemKeyDatesMissing    = "key_dates_missing"
	ItemIncidentDate       = "incident_date_missing"
	ItemNarrativeShort     = "narrative_too_short"
	ItemNoArea             = "no_area_spotted"
	ItemDocumentExpected   = "document_expected"
	ItemAmountMissing      = "amount_missing"
	ItemDateInFuture       = "date_in_future"
	ItemDatesOutOfOrder    = "dates_out_of_order"
	ItemDateAfterSubmitted = "date_after_submission"
	ItemAreaUnknown        = "area_unknown"
)

// Triage recommendations.
const (
	Accept        = "accept"
	Reject        = "reject"
	NeedsMoreInfo = "needs_more_info"
)

// Triage is the recommendation a person confirms at a gate.
type Triage struct {
	Recommendation string `json:"recommendation"`
	// Rule names the triage rule that decided: "blocking_items",
	// "no_legal_issue", "all_limitations_expired" or "issue_spotted".
	Rule    string   `json:"rule"`
	Reasons []string `json:"reasons"`
	// RequiresHumanConfirmation is always true.
	RequiresHumanConfirmation bool `json:"requires_human_confirmation"`
}

// Assess evaluates f for completeness and triage. It does not fail: what f
// lacks is in the checklist, and every recommendation has reasons. f should
// come from [ParseForm]; dates that do not parse are treated as absent. It
// is safe for concurrent use.
func Assess(f Form, opts Options) Assessment {
	tax := opts.Taxonomy
	if tax == nil {
		tax = issues.Default()
	}
	lim := opts.Limitations
	if lim == nil {
		lim = DefaultLimitations()
	}
	exp := opts.Expectations
	if exp == nil {
		exp = DefaultExpectations()
	}
	asOf := opts.AsOf
	if asOf.IsZero() {
		asOf = date(f.SubmittedAt)
	}
	if !asOf.IsZero() {
		y, m, d := asOf.Date()
		asOf = time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	}

	a := assessor{f: f, tax: tax, lim: lim, exp: exp, asOf: asOf, narrative: strings.ToLower(f.Narrative)}
	flags, spotter, dropped := a.areas(opts.Areas)
	var areas []issues.Area // the primary ones
	for _, fl := range flags {
		if fl.Primary {
			areas = append(areas, fl.Area)
		}
	}
	risks := a.risks(areas)
	items := a.checklist(areas, dropped)
	conflicts := conflictRequest(f, areas)
	names := make([]string, len(conflicts.Names))
	for i, n := range conflicts.Names {
		names[i] = n.Name
	}
	s := Summary{
		Areas:            flags,
		Spotter:          spotter,
		LimitationRisks:  risks,
		Limitations:      LimitationsSource{ID: lim.ID, Version: lim.Version, Jurisdiction: lim.Jurisdiction, Note: strings.TrimSpace(lim.Note)},
		Urgency:          a.urgency(risks),
		ConflictsToCheck: names,
	}
	if !asOf.IsZero() {
		s.AsOf = asOf.Format(DateLayout)
	}
	s.Narrative = summaryNarrative(f, flags)
	cl := Checklist{Items: items}
	for _, it := range items {
		cl.Blocking = cl.Blocking || it.Blocking
	}
	return Assessment{Summary: s, Checklist: cl, Conflicts: conflicts, Triage: triage(a, cl, areas, risks)}
}

// assessor holds what the parts of an assessment share.
type assessor struct {
	f         Form
	tax       *issues.Taxonomy
	lim       *Limitations
	exp       *Expectations
	asOf      time.Time
	narrative string // lower case
}

// spotText is what areas are spotted in: what the client says the matter
// is, their story, the key dates and what they want. Document names are
// left out: "pay slips" is not a slip and fall.
func (a assessor) spotText() string {
	var b strings.Builder
	b.WriteString(a.f.MatterType)
	b.WriteString(".\n")
	b.WriteString(a.f.Narrative)
	b.WriteString("\n")
	for _, d := range a.f.KeyDates {
		b.WriteString(d.Label + ". " + d.What + "\n")
	}
	b.WriteString(a.f.DesiredOutcome)
	return b.String()
}

// areas returns the areas raised, how they were found, and the ids of
// supplied areas the taxonomy lacks. A matter type that names an area (its
// id or name) raises it as primary.
func (a assessor) areas(supplied []issues.Area) (flags []AreaFlag, spotter string, dropped []string) {
	var out []issues.Area
	known := map[string]issues.Spec{}
	for _, s := range a.tax.Areas {
		known[s.ID] = s
	}
	if supplied != nil {
		spotter = "supplied"
		for _, ar := range supplied {
			if _, ok := known[ar.ID]; !ok {
				dropped = append(dropped, ar.ID)
				continue
			}
			if ar.Likely {
				out = append(out, ar)
			}
		}
	} else {
		spotter = "offline"
		for _, ar := range a.tax.Spot(a.spotText()) {
			if ar.Likely {
				out = append(out, ar)
			}
		}
	}
	mt := strings.ToLower(strings.TrimSpace(a.f.MatterType))
	named := ""
	for _, s := range a.tax.Areas {
		if mt == "" || (mt != s.ID && mt != strings.ToLower(s.Name)) {
			continue
		}
		i := slices.IndexFunc(out, func(ar issues.Area) bool { return ar.ID == s.ID })
		if i < 0 {
			out = append(out, issues.Area{ID: s.ID, Name: s.Name, Likely: true})
			i = len(out) - 1
		}
		out[i].Signals = append(slices.Clone(out[i].Signals), "matter_type: "+a.f.MatterType)
		named = s.ID
	}
	top := 0.0
	for _, ar := range out {
		top = max(top, ar.Score)
	}
	flags = make([]AreaFlag, len(out))
	for i, ar := range out {
		flags[i] = AreaFlag{Area: ar, Primary: ar.ID == named || ar.Score >= a.exp.PrimaryRatio*top}
	}
	return flags, spotter, dropped
}

// mentions reports whether the narrative holds one of phrases; no phrases
// means yes.
func (a assessor) mentions(phrases []string) bool {
	if len(phrases) == 0 {
		return true
	}
	return slices.ContainsFunc(phrases, func(p string) bool { return strings.Contains(a.narrative, strings.ToLower(p)) })
}

// risks applies the limitation rules of the raised areas.
func (a assessor) risks(areas []issues.Area) []LimitationRisk {
	out := []LimitationRisk{}
	caveat := fmt.Sprintf("indicative, from %s (%s): check it for ", a.lim.ID, a.lim.Jurisdiction)
	if j := strings.TrimSpace(a.f.Jurisdiction); j != "" {
		caveat += "the matter's jurisdiction, " + j + ", and its facts"
	} else {
		caveat += "the matter's jurisdiction, which the form does not give, and its facts"
	}
	for _, ar := range areas {
		for i := range a.lim.Rules {
			r := &a.lim.Rules[i]
			if r.Area != ar.ID || !a.mentions(r.Mentions) {
				continue
			}
			risk := LimitationRisk{Area: r.Area, Cause: r.Cause, Period: r.Period, Rule: r.Rule, Caveat: caveat, Level: LevelUnknown}
			idx, basis := a.trigger(r.Triggers)
			risk.TriggerBasis = basis
			if idx >= 0 {
				t := date(a.f.KeyDates[idx].Date)
				end := r.deadline(t)
				risk.TriggerDate = t.Format(DateLayout)
				risk.TriggerField = fmt.Sprintf("key_dates[%d]", idx)
				risk.Deadline = end.Format(DateLayout)
				if !a.asOf.IsZero() {
					days := int(end.Sub(a.asOf).Hours() / 24)
					risk.DaysLeft = &days
					risk.Level = level(days)
				}
			}
			out = append(out, risk)
		}
	}
	return out
}

func level(daysLeft int) string {
	switch {
	case daysLeft < 0:
		return LevelExpired
	case daysLeft < 90:
		return LevelUrgent
	case daysLeft < 365:
		return LevelSoon
	}
	return LevelOK
}

// trigger picks the key date a period runs from: for the first trigger
// word found in a past key date's label or description, the earliest such
// date; else the earliest past key date. It returns -1 when there is no
// past key date.
func (a assessor) trigger(words []string) (int, string) {
	past := func(i int) bool {
		t := date(a.f.KeyDates[i].Date)
		return !t.IsZero() && (a.asOf.IsZero() || !t.After(a.asOf))
	}
	earliest := func(match func(KeyDate) bool) int {
		best := -1
		for i, d := range a.f.KeyDates {
			if past(i) && match(d) && (best < 0 || date(d.Date).Before(date(a.f.KeyDates[best].Date))) {
				best = i
			}
		}
		return best
	}
	for _, w := range words {
		w = strings.ToLower(w)
		i := earliest(func(d KeyDate) bool {
			return strings.Contains(strings.ToLower(d.Label+" "+d.What), w)
		})
		if i >= 0 {
			return i, fmt.Sprintf("key date %q mentions %q", a.f.KeyDates[i].Label, w)
		}
	}
	if i := earliest(func(KeyDate) bool { return true }); i >= 0 {
		return i, fmt.Sprintf("no key date mentions %s; the earliest key date, %q, is used: confirm when the claim arose", quoteList(words), a.f.KeyDates[i].Label)
	}
	return -1, "no past key date to count the period from: ask the client when it happened"
}

func quoteList(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = fmt.Sprintf("%q", w)
	}
	if len(q) > 4 {
		q = append(q[:4], "…")
	}
	return strings.Join(q, ", ")
}

// urgency weighs the limitation risks, the narrative's words and the
// coming key dates.
func (a assessor) urgency(risks []LimitationRisk) Urgency {
	var high, normal []string
	for _, r := range risks {
		switch r.Level {
		case LevelExpired:
			high = append(high, fmt.Sprintf("limitation for %s may have expired on %s", r.Cause, r.Deadline))
		case LevelUrgent:
			high = append(high, fmt.Sprintf("limitation for %s runs out on %s, %d days away", r.Cause, r.Deadline, *r.DaysLeft))
		case LevelSoon:
			normal = append(normal, fmt.Sprintf("limitation for %s runs out on %s, within a year", r.Cause, r.Deadline))
		case LevelUnknown:
			normal = append(normal, fmt.Sprintf("limitation for %s cannot be counted: %s", r.Cause, r.TriggerBasis))
		}
	}
	for _, p := range a.exp.UrgentPhrases {
		if containsPhrase(a.narrative, strings.ToLower(p)) {
			high = append(high, fmt.Sprintf("the narrative mentions %q", p))
		}
	}
	if !a.asOf.IsZero() {
		for i, d := range a.f.KeyDates {
			t := date(d.Date)
			days := int(t.Sub(a.asOf).Hours() / 24)
			if !t.IsZero() && days >= 0 && days <= a.exp.UpcomingDays {
				high = append(high, fmt.Sprintf("key_dates[%d] %q is on %s, in %d days", i, d.Label, d.Date, days))
			}
		}
	}
	switch {
	case len(high) > 0:
		return Urgency{Level: UrgencyHigh, Reasons: high}
	case len(normal) > 0:
		return Urgency{Level: UrgencyNormal, Reasons: normal}
	}
	return Urgency{Level: UrgencyLow, Reasons: []string{fmt.Sprintf("no limitation deadline within a year, no urgent words in the narrative, no key date in the next %d days", a.exp.UpcomingDays)}}
}

// containsPhrase reports whether text holds phrase starting and ending at
// word boundaries.
func containsPhrase(text, phrase string) bool { return findPhrase(text, phrase, false) }

// findPhrase reports whether text holds phrase starting at a word boundary
// and, unless plural is set, ending at one; with plural, an "s" or "es" may
// follow ("pay stub" finds "pay stubs").
func findPhrase(text, phrase string, plural bool) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], phrase)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(phrase)
		if plural {
			if rest := text[end:]; strings.HasPrefix(rest, "es") {
				end += 2
			} else if strings.HasPrefix(rest, "s") {
				end++
			}
		}
		if (start == 0 || !isWordByte(text[start-1])) && (end == len(text) || !isWordByte(text[end])) {
			return true
		}
		i = start + 1
	}
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c >= 0x80
}

// triage applies the rules in order: blocking items, no legal issue, every
// limitation expired, else accept.
func triage(a assessor, cl Checklist, areas []issues.Area, risks []LimitationRisk) Triage {
	t := Triage{RequiresHumanConfirmation: true}
	if cl.Blocking {
		t.Recommendation, t.Rule = NeedsMoreInfo, "blocking_items"
		for _, it := range cl.Items {
			if it.Blocking {
				t.Reasons = append(t.Reasons, it.Field+": "+it.Reason)
			}
		}
		return t
	}
	if len(areas) == 0 {
		t.Recommendation, t.Rule = Reject, "no_legal_issue"
		t.Reasons = []string{fmt.Sprintf("no area of law was spotted in a narrative of %d words; subject to attorney review", len(strings.Fields(a.f.Narrative)))}
		return t
	}
	expired := 0
	for _, r := range risks {
		if r.Level == LevelExpired {
			expired++
		}
	}
	if len(risks) > 0 && expired == len(risks) {
		t.Recommendation, t.Rule = Reject, "all_limitations_expired"
		for _, r := range risks {
			t.Reasons = append(t.Reasons, fmt.Sprintf("the indicative period for %s (%s, %s) ended on %s; subject to attorney review of tolling, discovery and the jurisdiction's rule", r.Cause, r.Period, r.Rule, r.Deadline))
		}
		return t
	}
	t.Recommendation, t.Rule = Accept, "issue_spotted"
	ids := make([]string, len(areas))
	for i, ar := range areas {
		ids[i] = ar.ID
	}
	t.Reasons = append(t.Reasons, "areas of law spotted: "+strings.Join(ids, ", ")+"; subject to attorney confirmation")
	open := 0
	for _, r := range risks {
		if r.Level != LevelExpired {
			open++
		}
	}
	if len(risks) > 0 {
		t.Reasons = append(t.Reasons, fmt.Sprintf("%d of %d indicative limitation periods still open", open, len(risks)))
	} else {
		t.Reasons = append(t.Reasons, "no limitation period is on file for these areas: the attorney checks the time limits")
	}
	if n := len(cl.Items); n > 0 {
		t.Reasons = append(t.Reasons, fmt.Sprintf("%d checklist %s to follow up with the client", n, plural(n, "item", "items")))
	}
	return t
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
