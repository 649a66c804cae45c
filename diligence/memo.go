package diligence

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/calc"
	"github.com/sanadhq/sanad/claim"
	"github.com/sanadhq/sanad/playbook/debate"
)

// Recommendations a memo makes.
const (
	Proceed               = "PROCEED"
	ProceedWithConditions = "PROCEED_WITH_CONDITIONS"
	Decline               = "DECLINE"
	Escalate              = "ESCALATE"
)

// Memo is the decision memo of a deal: a recommendation with its reasons,
// the key metrics, what was found, how the debate ended, and a citation
// for every claim a statement rests on. Every figure in it comes from a
// claim (its span holds it) or a calc over claims: CheckFigures walks them.
// Deliberation, what the roles said round by round, is written by whoever
// runs the debate, each position having passed the Muḥāsabah gate (to the
// figure when a model wrote it); CheckFigures does not walk it.
type Memo struct {
	Deal           string           `json:"deal"`
	Company        string           `json:"company"`
	AsOf           string           `json:"as_of"`
	Recommendation string           `json:"recommendation"`
	Reasons        []Statement      `json:"reasons"`
	KeyMetrics     []Statement      `json:"key_metrics"`
	Contradictions []Item           `json:"contradictions"`
	Defects        []Item           `json:"defects"`
	Risks          []Item           `json:"risks"`
	Upheld         []Ruling         `json:"upheld_challenges"`
	Dismissed      []Ruling         `json:"dismissed_challenges"`
	Dissent        []debate.Dissent `json:"preserved_dissent"`
	Deliberation   []Position       `json:"deliberation,omitempty"`
	// Review is the person's review the arbiter asked for, when it did.
	Review        *Review       `json:"human_review,omitempty"`
	OpenQuestions []string      `json:"open_questions"`
	StopReason    string        `json:"stop_reason"`
	Excluded      []Excluded    `json:"excluded,omitempty"`
	Citations     []Citation    `json:"citations"`
	Calcs         []calc.Result `json:"calcs,omitempty"`
	Trace         string        `json:"trace,omitempty"`
	Run           string        `json:"run,omitempty"`
	claims        map[string]claim.Claim
}

// Statement is one sentence of the memo and what it rests on.
type Statement struct {
	Text   string   `json:"text"`
	Claims []string `json:"claim_ids,omitempty"`
	Calcs  []string `json:"calc_ids,omitempty"`
}

// Position is what a role said in one round of the debate, as the gate
// let it through.
type Position struct {
	Round   int    `json:"round"`
	Role    string `json:"role"`
	AgentID string `json:"agent_id"`
	// Mode is who wrote it: "deterministic" (the role's analysis), "model"
	// (the role's model), or "model_rejected_fallback" (the gate refused
	// the model's outputs and the role's analysis was heard instead).
	Mode       string   `json:"mode"`
	Content    string   `json:"content"`
	Claims     []string `json:"claim_ids,omitempty"`
	Calcs      []string `json:"calc_ids,omitempty"`
	Confidence float64  `json:"confidence"`
}

// Review is a person's review the arbiter asked for (seed 000 §4.5): the
// gate that waits for it, why, and the claims it is about. The debate does
// not wait for it: the memo is written, and the gate stays open.
type Review struct {
	GateID       string   `json:"gate_id"`
	Reason       string   `json:"reason"`
	Priority     string   `json:"priority"`
	RequiredRole string   `json:"required_role"`
	Claims       []string `json:"claim_ids"`
	Round        int      `json:"round"`
}

// Ruling is a challenge with the arbiter's ruling on it.
type Ruling struct {
	debate.Challenge
	Ruling string `json:"ruling"`
	Reason string `json:"reason"`
}

// Citation is where a claim was read: the document, the page and the
// exact text of its span.
type Citation struct {
	ClaimID  string      `json:"claim_id"`
	Document string      `json:"document"`
	Page     int         `json:"page,omitempty"`
	Start    int         `json:"start"`
	End      int         `json:"end"`
	Quote    string      `json:"quote"`
	Grade    claim.Grade `json:"grade,omitempty"`
}

// BuildMemo writes the memo of a deal from its analysis.
func BuildMemo(d Deal, f Findings) (Memo, error) {
	m := Memo{Deal: d.Manifest.Name, Company: d.Manifest.Company, AsOf: d.Manifest.AsOf, StopReason: f.StopReason,
		Contradictions: nonNil(f.Contradictions), Defects: nonNil(f.Defects), Risks: nonNil(f.Risks),
		Dissent: f.Dissent, Excluded: f.Excluded, Calcs: f.Calcs, claims: f.Claims, OpenQuestions: []string{}}
	if m.Dissent == nil {
		m.Dissent = []debate.Dissent{}
	}
	rulings := map[string]debate.ArbiterDecision{}
	for _, r := range f.Rulings {
		rulings[r.ChallengeID] = r
	}
	for _, c := range f.Challenges {
		r := rulings[c.ChallengeID]
		switch r.Ruling {
		case "UPHELD":
			m.Upheld = append(m.Upheld, Ruling{Challenge: c, Ruling: r.Ruling, Reason: r.Reason})
		default:
			m.Dismissed = append(m.Dismissed, Ruling{Challenge: c, Ruling: orString(r.Ruling, "NOT_HEARD"), Reason: r.Reason})
		}
	}
	m.Recommendation, m.Reasons = recommend(m, f)
	m.KeyMetrics = keyMetrics(d, f)
	for _, it := range append(append([]Item{}, f.Contradictions...), f.Defects...) {
		if it.Resolved == "" {
			m.OpenQuestions = append(m.OpenQuestions, question(it))
		}
	}
	grades := map[string]claim.Grade{}
	for _, fa := range d.Facts {
		for _, c := range fa.Claims {
			grades[c.ID] = c.Grade
		}
	}
	cited := map[string]bool{}
	for _, st := range m.statements() {
		for _, id := range st.Claims {
			cited[id] = true
		}
	}
	for _, it := range m.items() {
		for _, id := range it.Claims {
			cited[id] = true
		}
	}
	ids := make([]string, 0, len(cited))
	for id := range cited {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		c, doc, ok := d.Claim(id)
		if !ok {
			if c2, ok2 := f.Claims[id]; ok2 {
				c = c2
			} else {
				return m, sanad.Errorf(sanad.CodeMuhasabahGate, "diligence.memo", "the memo cites claim %s, which the deal does not hold", id)
			}
		}
		if doc == nil {
			doc = d.Doc(c.Span.Document)
		}
		cit := Citation{ClaimID: id, Document: c.Span.Document, Page: c.Span.Page, Start: c.Span.Start, End: c.Span.End, Grade: orGrade(c.Grade, grades[id])}
		if doc != nil && c.Span.End <= len(doc.Markdown) && c.Span.Start >= 0 && c.Span.Start <= c.Span.End {
			cit.Quote = sentenceAround(doc.Markdown, c.Span.Start, c.Span.End)
		}
		m.Citations = append(m.Citations, cit)
	}
	if err := m.CheckFigures(); err != nil {
		return m, err
	}
	return m, nil
}

// recommend decides the recommendation and says why: a fatal defect
// declines; open contradictions or defects, or dissent that held,
// escalate to the committee; risks alone proceed with conditions.
func recommend(m Memo, f Findings) (string, []Statement) {
	var reasons []Statement
	add := func(text string, it Item) {
		reasons = append(reasons, Statement{Text: text, Claims: it.Claims, Calcs: it.Calcs})
	}
	openCount := 0
	for _, it := range append(append([]Item{}, f.Contradictions...), f.Defects...) {
		if it.Resolved == "" {
			openCount++
		}
	}
	switch f.StopReason {
	case debate.StopCriticalDefect:
		for _, it := range append(append([]Item{}, f.Defects...), f.Contradictions...) {
			if it.Severity == debate.SeverityFatal {
				add(fmt.Sprintf("A fatal defect was upheld: %s of %s.", strings.ToLower(strings.ReplaceAll(it.Type, "_", " ")), metricName(it)), it)
			}
		}
		return Decline, reasons
	case debate.StopEvidenceExhausted, debate.StopStableDissent, debate.StopMaxRounds:
		for _, it := range append(append([]Item{}, f.Contradictions...), f.Defects...) {
			if it.Resolved == "" {
				add(fmt.Sprintf("Open: %s of %s; the data room holds no evidence that settles it.", strings.ToLower(strings.ReplaceAll(it.Type, "_", " ")), metricName(it)), it)
			}
		}
		if f.StopReason == debate.StopStableDissent {
			reasons = append(reasons, Statement{Text: "The roles held opposing, evidenced positions for two rounds; the dissent is preserved below."})
		}
		return Escalate, reasons
	}
	if len(f.Risks) > 0 || openCount > 0 {
		for _, it := range f.Risks {
			add(fmt.Sprintf("Condition: %s.", strings.ToLower(strings.ReplaceAll(it.Type, "_", " "))), it)
		}
		return ProceedWithConditions, reasons
	}
	reasons = append(reasons, Statement{Text: "No contradiction, defect or risk was found in the evidence, and every upheld challenge was answered."})
	return Proceed, reasons
}

// question asks what would settle an open item.
func question(it Item) string {
	what := metricName(it)
	docs := strings.Join(it.Documents, " or ")
	switch it.Type {
	case "CONTRADICTION":
		return fmt.Sprintf("Which %s is right: %s? A grade-A source (audited statements, bank data) would settle it.", what, docs)
	case "SINGLE_SOURCE", "WEAK_GRADE":
		return fmt.Sprintf("What independent source of a better grade states %s (now only %s)?", what, docs)
	case "MISSING_SOURCE":
		return fmt.Sprintf("Where is the source %s cites for %s?", docs, what)
	case "STALE_PERIOD":
		return fmt.Sprintf("What are the figures after %s for %s?", it.Period, strings.ReplaceAll(it.Metric, "_", " "))
	case "INCONSISTENT_ARITHMETIC":
		return fmt.Sprintf("Which is right for %s: the stated rate or the figures it is computed from (%s)?", what, docs)
	}
	return fmt.Sprintf("What settles %s of %s?", strings.ToLower(strings.ReplaceAll(it.Type, "_", " ")), what)
}

func metricName(it Item) string {
	s := strings.ReplaceAll(it.Metric, "_", " ")
	if it.Period != "" {
		s += " " + it.Period
	}
	return s
}

// keyMetrics states the headline figures of the deal, each from its best
// claim as the document wrote it.
func keyMetrics(d Deal, f Findings) []Statement {
	var out []Statement
	for _, metric := range []string{"revenue", "arr", "gross_margin", "ebitda", "net_income", "cash", "customers", "headcount"} {
		var best *claim.Fact
		for i := range d.Facts {
			fa := &d.Facts[i]
			if fa.Metric != metric || len(fa.Qualifiers) > 0 {
				continue
			}
			if best == nil || periodRank(fa.Period) > periodRank(best.Period) || fa.Period == best.Period && fa.Grade < best.Grade {
				best = fa
			}
		}
		if best == nil || len(best.Claims) == 0 {
			continue
		}
		c := best.Claims[0]
		for _, x := range best.Claims {
			if x.Grade < c.Grade {
				c = x
			}
		}
		_, doc, ok := d.Claim(c.ID)
		if !ok || doc == nil {
			continue
		}
		out = append(out, Statement{Text: fmt.Sprintf("%s %s: %s (%s, grade %s)", strings.ReplaceAll(metric, "_", " "), best.Period, FormatValue(c.Value), doc.File, c.Grade), Claims: []string{c.ID}})
	}
	for _, r := range f.Calcs {
		out = append(out, Statement{Text: fmt.Sprintf("%s: %s (a recorded calc over grade-%s inputs)", strings.ReplaceAll(r.Name, "_", " "), formatCalc(r), r.CalcSanad), Calcs: []string{r.CalcID}})
	}
	return out
}

// periodRank orders periods for "the latest": a financial year counts as
// its last month, a quarter as its last, a month as itself.
func periodRank(p string) string {
	var y, m string
	switch {
	case strings.HasPrefix(p, "FY") && len(p) == 6:
		y, m = p[2:], "12"
	case strings.HasPrefix(p, "LTM-") && len(p) == 11:
		y, m = p[4:8], p[9:]
	case strings.HasPrefix(p, "Q") && len(p) == 7:
		y, m = p[3:], fmt.Sprintf("%02d", 3*int(p[1]-'0'))
	case strings.HasPrefix(p, "H") && len(p) == 7:
		y, m = p[3:], fmt.Sprintf("%02d", 6*int(p[1]-'0'))
	case len(p) == 7 && p[4] == '-':
		y, m = p[:4], p[5:]
	default:
		return ""
	}
	// A year's figure beats a part of the same year ending the same month.
	rank := "1"
	if strings.HasPrefix(p, "FY") || strings.HasPrefix(p, "LTM") {
		rank = "2"
	}
	return y + m + rank
}

// FormatValue writes a claim's value for a reader: £48.2m, 73.4%, 412.
func FormatValue(v claim.Value) string {
	num := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	switch v.Unit {
	case "percent":
		return num(v.Value) + "%"
	case "currency":
		sym := map[string]string{"GBP": "£", "USD": "$", "EUR": "€"}[v.Currency]
		if sym == "" && v.Currency != "" {
			sym = v.Currency + " "
		}
		a := math.Abs(v.Value)
		sign := ""
		if v.Value < 0 {
			sign = "-"
		}
		switch {
		case a >= 1e9:
			return sign + sym + num(math.Round(a/1e7)/100) + "bn"
		case a >= 1e6:
			return sign + sym + num(math.Round(a/1e4)/100) + "m"
		case a >= 1e3:
			return sign + sym + num(math.Round(a/10)/100) + "k"
		}
		return sign + sym + num(a)
	case "months":
		return num(math.Round(v.Value*10)/10) + " months"
	}
	return num(v.Value)
}

func formatCalc(r calc.Result) string {
	return strconv.FormatFloat(r.Value, 'f', 2, 64) + " " + r.Unit
}

func nonNil(items []Item) []Item {
	if items == nil {
		return []Item{}
	}
	return items
}

func (m Memo) statements() []Statement {
	return append(append([]Statement{}, m.Reasons...), m.KeyMetrics...)
}

func (m Memo) items() []Item {
	return append(append(append([]Item{}, m.Contradictions...), m.Defects...), m.Risks...)
}

var figureRE = regexp.MustCompile(`\d[\d,]*(\.\d+)?`)

// CheckFigures walks every figure of the memo's statements: each must be
// written in the span of a claim the statement cites, or be the value of a
// calc it cites. A figure that traces to neither is NO_FREE_FACTS and
// blocks the memo.
func (m Memo) CheckFigures() error {
	quotes := map[string]string{}
	for _, c := range m.Citations {
		quotes[c.ClaimID] = c.Quote
	}
	calcs := map[string]calc.Result{}
	for _, r := range m.Calcs {
		calcs[r.CalcID] = r
	}
	for _, st := range m.statements() {
		var hay strings.Builder
		for _, id := range st.Claims {
			hay.WriteString(quotes[id] + " ")
			if c, ok := m.claims[id]; ok {
				// The claim's value as the memo writes it comes from the
				// claim itself.
				hay.WriteString(c.Text + " " + c.Value.Period + " " + FormatValue(c.Value) + " ")
			}
		}
		for _, id := range st.Calcs {
			if r, ok := calcs[id]; ok {
				hay.WriteString(formatCalc(r) + " " + r.FormulaHash + " ")
			}
		}
		hay.WriteString(m.AsOf)
		for _, f := range figureRE.FindAllString(st.Text, -1) {
			if !strings.Contains(hay.String(), f) {
				return sanad.Errorf(sanad.CodeMuhasabahGate, "diligence.memo", "NO_FREE_FACTS: the figure %s in %q traces to no cited claim or calc", f, st.Text)
			}
		}
	}
	return nil
}

// sentenceAround returns the line of md that holds [start, end).
func sentenceAround(md string, start, end int) string {
	s := strings.LastIndexByte(md[:start], '\n') + 1
	e := strings.IndexByte(md[end:], '\n')
	if e < 0 {
		e = len(md)
	} else {
		e += end
	}
	line := strings.TrimSpace(md[s:e])
	if len(line) > 400 {
		from := max(start-s-150, 0)
		to := min(end-s+150, len(md[s:e]))
		line = "…" + md[s:e][from:to] + "…"
	}
	return line
}

// Markdown renders the memo for people: every statement followed by the
// claims it rests on, and the citations at the end.
func (m Memo) Markdown() string {
	var b strings.Builder
	ref := map[string]int{}
	for i, c := range m.Citations {
		ref[c.ClaimID] = i + 1
	}
	cite := func(ids []string, calcs []string) string {
		var parts []string
		for _, id := range ids {
			if n, ok := ref[id]; ok {
				parts = append(parts, fmt.Sprintf("[%d]", n))
			}
		}
		for _, id := range calcs {
			parts = append(parts, "[calc "+shortID(id)+"]")
		}
		return strings.Join(parts, "")
	}
	fmt.Fprintf(&b, "# Decision memo: %s\n\n", m.Company)
	fmt.Fprintf(&b, "Deal %s, evidence as of %s. Recommendation: **%s** (the debate stopped: %s).\n\n", m.Deal, m.AsOf, m.Recommendation, m.StopReason)
	section := func(title string, sts []Statement) {
		if len(sts) == 0 {
			return
		}
		fmt.Fprintf(&b, "## %s\n\n", title)
		for _, st := range sts {
			fmt.Fprintf(&b, "- %s %s\n", st.Text, cite(st.Claims, st.Calcs))
		}
		b.WriteString("\n")
	}
	section("Why", m.Reasons)
	section("Key metrics", m.KeyMetrics)
	items := func(title string, its []Item) {
		if len(its) == 0 {
			return
		}
		fmt.Fprintf(&b, "## %s\n\n", title)
		for _, it := range its {
			line := strings.ReplaceAll(it.Type, "_", " ")
			if it.Metric != "" {
				line += ": " + metricName(it)
			}
			if len(it.Documents) > 0 {
				line += " (" + strings.Join(it.Documents, ", ") + ")"
			}
			if it.Resolved != "" {
				line += "; resolved: " + it.Resolved
			}
			fmt.Fprintf(&b, "- %s %s\n", line, cite(it.Claims, it.Calcs))
		}
		b.WriteString("\n")
	}
	items("Contradictions", m.Contradictions)
	items("Defects", m.Defects)
	items("Risks", m.Risks)
	if len(m.Upheld)+len(m.Dismissed) > 0 {
		b.WriteString("## Challenges\n\n")
		for _, r := range append(append([]Ruling{}, m.Upheld...), m.Dismissed...) {
			fmt.Fprintf(&b, "- %s by %s, %s: %s %s\n", r.DefectType, r.By, r.Ruling, r.Reason, cite(r.ClaimRefs, nil))
		}
		b.WriteString("\n")
	}
	if len(m.Dissent) > 0 {
		b.WriteString("## Preserved dissent\n\n")
		for _, d := range m.Dissent {
			fmt.Fprintf(&b, "- %s (%s): %s %s\n", d.Role, d.AgentID, d.Position, cite(d.ClaimRefs, nil))
		}
		b.WriteString("\n")
	}
	if len(m.Deliberation) > 0 {
		b.WriteString("## Deliberation\n\n")
		for _, p := range m.Deliberation {
			// A claim the memo's sources do not list is named by its id.
			refs := cite(p.Claims, p.Calcs)
			for _, id := range p.Claims {
				if _, ok := ref[id]; !ok {
					refs += "[claim " + shortID(id) + "]"
				}
			}
			fmt.Fprintf(&b, "- Round %d, %s (%s, confidence %.2f): %s %s\n", p.Round, strings.ReplaceAll(p.Role, "_", " "), strings.ReplaceAll(p.Mode, "_", " "), p.Confidence, p.Content, refs)
		}
		b.WriteString("\n")
	}
	if r := m.Review; r != nil {
		fmt.Fprintf(&b, "## Human review\n\nIn round %d the arbiter asked a person of role %s to review (priority %s): %s Gate %s. %s\n\n", r.Round, r.RequiredRole, r.Priority, r.Reason, r.GateID, cite(r.Claims, nil))
	}
	if len(m.OpenQuestions) > 0 {
		b.WriteString("## Open questions\n\n")
		for _, q := range m.OpenQuestions {
			fmt.Fprintf(&b, "- %s\n", q)
		}
		b.WriteString("\n")
	}
	if len(m.Excluded) > 0 {
		fmt.Fprintf(&b, "## Left out\n\n%d statements dated after %s were left out of the analysis.\n\n", len(m.Excluded), m.AsOf)
	}
	b.WriteString("## Sources\n\n")
	for i, c := range m.Citations {
		page := ""
		if c.Page > 0 {
			page = fmt.Sprintf(", page %d", c.Page)
		}
		fmt.Fprintf(&b, "%d. %s%s, bytes %d–%d, grade %s: %q\n", i+1, c.Document, page, c.Start, c.End, c.Grade, c.Quote)
	}
	if m.Trace != "" {
		fmt.Fprintf(&b, "\nSigned record: trace %s (run %s); verify the exported bundle with sanad verify.\n", m.Trace, m.Run)
	}
	return b.String()
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

func orGrade(a, b claim.Grade) claim.Grade {
	if a != "" {
		return a
	}
	return b
}

func orString(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
