package diligence

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sanadhq/sanad/calc"
	"github.com/sanadhq/sanad/claim"
	"github.com/sanadhq/sanad/playbook/debate"
)

// Kinds of finding.
const (
	KindContradiction = "contradiction"
	KindDefect        = "defect"
	KindRisk          = "risk"
)

// Defect and risk types.
const (
	TypeContradiction          = "CONTRADICTION"
	TypeInconsistentArithmetic = "INCONSISTENT_ARITHMETIC"
	TypeSingleSource           = "SINGLE_SOURCE"
	TypeWeakGrade              = "WEAK_GRADE"
	TypeMissingSource          = "MISSING_SOURCE"
	TypeStalePeriod            = "STALE_PERIOD"

	RiskRunway        = "RUNWAY"
	RiskConcentration = "CUSTOMER_CONCENTRATION"
	RiskChurn         = "CHURN"
	RiskNegative      = "NEGATIVE_MARGIN"
	RiskLitigation    = "LITIGATION"
	RiskRelatedParty  = "RELATED_PARTY"
	RiskKeyPerson     = "KEY_PERSON"
	RiskCovenant      = "COVENANT"
	RiskGoingConcern  = "GOING_CONCERN"
)

// Thresholds of the rules, written once for every deal.
const (
	// OverstatementFatal: a figure above a grade A source's by more than
	// this share is a fatal defect.
	OverstatementFatal = 0.25
	// StaleMonths: a headline metric whose latest period ends more than
	// this many months before as_of is stale.
	StaleMonths = 9
	// RunwayMonths: less cash than this many months of burn is a risk.
	RunwayMonths = 12.0
	// ConcentrationShare: one customer with this share of revenue or more.
	ConcentrationShare = 0.25
	// MonthlyChurn and AnnualChurn, in percent.
	MonthlyChurn = 2.0
	AnnualChurn  = 15.0
)

// material are the metrics a valuation rests on: the sanad breaker checks
// their sources.
var material = []string{"revenue", "arr", "ebitda", "net_income", "cash"}

// headline are the flow metrics whose period must be recent.
var headline = []string{"revenue", "ebitda"}

// Item is one finding: a contradiction, a defect or a risk, with the claims
// (and calcs) it rests on.
type Item struct {
	Kind      string   `json:"kind"`
	Type      string   `json:"type"`
	Metric    string   `json:"metric,omitempty"`
	Period    string   `json:"period,omitempty"`
	Documents []string `json:"documents,omitempty"`
	Claims    []string `json:"claim_ids"`
	Calcs     []string `json:"calc_ids,omitempty"`
	Severity  string   `json:"severity,omitempty"`
	Text      string   `json:"description"`
	// Resolved says why a later round closed the item; empty while open.
	Resolved string `json:"resolved,omitempty"`
}

// Findings is the analysis of a deal: what each role found, the arbiter's
// rulings, the rounds and why the debate stopped.
type Findings struct {
	Deal           string                   `json:"deal"`
	Contradictions []Item                   `json:"contradictions"`
	Defects        []Item                   `json:"defects"`
	Risks          []Item                   `json:"risks"`
	Challenges     []debate.Challenge       `json:"challenges"`
	Rulings        []debate.ArbiterDecision `json:"rulings"`
	Rounds         []Round                  `json:"rounds"`
	StopReason     string                   `json:"stop_reason"`
	Dissent        []debate.Dissent         `json:"dissent,omitempty"`
	Calcs          []calc.Result            `json:"calcs,omitempty"`
	Claims         map[string]claim.Claim   `json:"claims"`
	Excluded       []Excluded               `json:"excluded,omitempty"`
}

// Round is one simulated round as recorded.
type Round struct {
	Number      int      `json:"round"`
	Open        []string `json:"open"`
	NewEvidence bool     `json:"new_evidence"`
	Note        string   `json:"note,omitempty"`
}

// analysis carries the state of one Analyze call.
type analysis struct {
	deal  *Deal
	f     Findings
	extra []claim.Claim
}

// Analyze runs the offline roles over a loaded deal: the contradiction
// finder, the sanad breaker, the risk officer and the arbiter, then the
// stop reason over the rounds (see rounds). It reads only the deal; every
// item cites claim ids present in Findings.Claims, each with its span.
func Analyze(d Deal) Findings {
	a := &analysis{deal: &d, f: Findings{Deal: d.Manifest.Name, Claims: map[string]claim.Claim{}, Excluded: d.Excluded}}
	for _, doc := range d.Docs {
		for _, c := range doc.Claims {
			a.f.Claims[c.ID] = c
		}
	}
	a.contradictions()
	a.growth()
	a.sums()
	a.sources()
	a.stale()
	a.runway()
	a.concentration()
	a.churn()
	a.negative()
	a.text()
	for _, c := range a.extra {
		a.f.Claims[c.ID] = c
	}
	a.arbitrate()
	return a.f
}

// usable says whether a claim states the metric itself, not a part (a
// segment, or a component of a total: "part", "part:term loan"), an
// adjusted, planned or averaged version, the bound of a range or a
// movement ("net", "more", "less").
func usable(c claim.Claim) bool {
	for _, q := range c.Value.Qualifiers {
		switch {
		case strings.HasPrefix(q, "segment:"), q == "part", strings.HasPrefix(q, "part:"), q == "average", q == "range",
			q == "adjusted", q == "budget", q == "forecast", q == "target", q == "opening", q == "net", q == "more", q == "less":
			return false
		}
	}
	return true
}

func (a *analysis) grade(doc string) claim.Grade {
	if d := a.deal.Doc(doc); d != nil {
		return d.Source.Grade
	}
	return claim.GradeD
}

type stated struct {
	doc    string
	claims []claim.Claim
}

// byDocument groups the usable claims of a metric and period by document,
// in manifest order.
func (a *analysis) byDocument(metric, period string) []stated {
	var out []stated
	for _, d := range a.deal.Docs {
		var cs []claim.Claim
		for _, c := range d.Claims {
			if c.Value.Metric == metric && c.Value.Period == period && usable(c) {
				cs = append(cs, c)
			}
		}
		if len(cs) > 0 {
			out = append(out, stated{d.File, cs})
		}
	}
	return out
}

// agree says whether some value of one document is the same amount as some
// value of the other: a document that states a figure among others (a
// total among its months) agrees with one that states only the figure.
func agree(x, y []claim.Claim) bool {
	for _, c := range x {
		for _, e := range y {
			if same, _ := claim.Compare(c.Value, e.Value); same {
				return true
			}
		}
	}
	return false
}

// contradictions are the facts two documents state with no value in
// common, beyond each figure's rounding (claim.Compare, which reads £m and
// £'000 alike). A fact without a period is not compared.
func (a *analysis) contradictions() {
	type key struct{ metric, period string }
	seen := map[key]bool{}
	var keys []key
	for _, f := range a.deal.Facts {
		k := key{f.Metric, f.Period}
		if f.Period == "" || seen[k] {
			continue
		}
		seen[k] = true
		keys = append(keys, k)
	}
	for _, k := range keys {
		st := a.byDocument(k.metric, k.period)
		docs := map[string]bool{}
		var worst float64
		var fatal string
		for i := range st {
			for j := i + 1; j < len(st); j++ {
				if agree(st[i].claims, st[j].claims) {
					continue
				}
				docs[st[i].doc], docs[st[j].doc] = true, true
				for _, p := range [][2]stated{{st[i], st[j]}, {st[j], st[i]}} {
					if a.grade(p[1].doc) != claim.GradeA || a.grade(p[0].doc) == claim.GradeA {
						continue
					}
					if over := overstatement(p[0].claims, p[1].claims); over > worst {
						worst = over
						if over > OverstatementFatal {
							fatal = fmt.Sprintf("%s states %s %.0f%% above the grade A %s", p[0].doc, k.metric, over*100, p[1].doc)
						}
					}
				}
			}
		}
		if len(docs) == 0 {
			continue
		}
		it := Item{Kind: KindContradiction, Type: TypeContradiction, Metric: k.metric, Period: k.period, Severity: debate.SeverityMajor}
		var parts []string
		for _, s := range st {
			if !docs[s.doc] {
				continue
			}
			it.Documents = append(it.Documents, s.doc)
			parts = append(parts, fmt.Sprintf("%s %s", s.doc, figure(s.claims[0].Value)))
			for _, c := range s.claims {
				it.Claims = append(it.Claims, c.ID)
			}
		}
		it.Text = fmt.Sprintf("%s %s differs between documents: %s", k.metric, k.period, strings.Join(parts, "; "))
		if fatal != "" {
			it.Severity = debate.SeverityFatal
			it.Text += "; " + fatal
		}
		a.f.Contradictions = append(a.f.Contradictions, it)
	}
}

// overstatement is by how much the claims of x exceed the closest positive
// value of the grade A claims of y, as a share of it; 0 when none does.
func overstatement(x, y []claim.Claim) float64 {
	best := math.Inf(1)
	for _, c := range x {
		for _, e := range y {
			if e.Value.Value <= 0 || c.Value.Value <= 0 {
				continue
			}
			r := c.Value.Value/e.Value.Value - 1
			if math.Abs(r) < math.Abs(best) {
				best = r
			}
		}
	}
	if math.IsInf(best, 0) || best < 0 {
		return 0
	}
	return best
}

func figure(v claim.Value) string {
	return strconv.FormatFloat(v.Value, 'f', -1, 64)
}

func input(name string, c claim.Claim, g claim.Grade) calc.Input {
	return calc.Input{Name: name, ClaimID: c.ID, Value: c.Value.Value, Unit: c.Value.Unit, Currency: c.Value.Currency, Period: c.Value.Period, Grade: string(g)}
}

var (
	sentenceRE = regexp.MustCompile(`[^.\n]*(?:\.\d[^.\n]*)*[.\n]?`)
	growthRE   = regexp.MustCompile(`(?i)\b(revenue|revenues|arr|mrr|ebitda|sales|turnover)\b[^.\n%]*?\bgrew\s+(?:by\s+)?(\d+(?:\.\d+)?)\s*%`)
	fromToRE   = regexp.MustCompile(`(?i)\bfrom\s+([£$€]?\s?\d[\d,]*(?:\.\d+)?\s*(?:m|k|bn|million|billion)?)\b(.*?)\bto\s+([£$€]?\s?\d[\d,]*(?:\.\d+)?\s*(?:m|k|bn|million|billion)?)\b(.*)$`)
	inYearRE   = regexp.MustCompile(`(?i)\bin\s+(FY\s?\d{4}|\d{4})\b`)
	amountRE   = regexp.MustCompile(`(?i)^([£$€])?\s?(\d[\d,]*(?:\.\d+)?)\s*(m|k|bn|million|billion)?$`)
)

// amount reads "£5.0m" as 5e6 with the rounding it was written with.
func amount(s string) (v, precision float64, ok bool) {
	m := amountRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, 0, false
	}
	num := strings.ReplaceAll(m[2], ",", "")
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, 0, false
	}
	scale := map[string]float64{"": 1, "k": 1e3, "m": 1e6, "million": 1e6, "bn": 1e9, "billion": 1e9}[strings.ToLower(m[3])]
	decimals := 0
	if i := strings.IndexByte(num, '.'); i >= 0 {
		decimals = len(num) - i - 1
	}
	return v * scale, 0.5 * math.Pow(10, -float64(decimals)) * scale, true
}

// sentences returns the byte ranges of the sentences of a document's
// Markdown.
func sentences(md string) [][2]int {
	var out [][2]int
	for _, loc := range sentenceRE.FindAllStringIndex(md, -1) {
		if strings.TrimSpace(md[loc[0]:loc[1]]) != "" {
			out = append(out, [2]int{loc[0], loc[1]})
		}
	}
	return out
}

// spanClaim is a claim for a figure a rule read from a sentence, whose id
// resolves to the sentence like any extracted claim.
func spanClaim(d *Document, start, end int, v claim.Value) claim.Claim {
	s := claim.Span{Document: d.File, Version: d.Version, Start: start, End: end}
	return claim.Claim{ID: claim.ID(d.Version, s, v), Text: strings.TrimSpace(d.Markdown[start:end]), Class: claim.Financial, Value: v, Grade: d.Source.Grade, Span: s}
}

// growth checks every stated growth rate against the two figures it
// follows from: those the sentence names ("from £5.0m … to £7.1m"), or
// else the document's own figures for the year and the year before. The
// rate is inconsistent when no pair of values within the figures' rounding
// gives the stated rate within its own.
func (a *analysis) growth() {
	for i := range a.deal.Docs {
		d := &a.deal.Docs[i]
		for _, s := range sentences(d.Markdown) {
			text := d.Markdown[s[0]:s[1]]
			m := growthRE.FindStringSubmatchIndex(text)
			if m == nil {
				continue
			}
			metric := metricOf(text[m[2]:m[3]])
			rate, _ := strconv.ParseFloat(text[m[4]:m[5]], 64)
			ratePrec := 0.5
			if strings.Contains(text[m[4]:m[5]], ".") {
				ratePrec = 0.05
			}
			var prev, cur claim.Claim
			rest := text[m[1]:]
			if ft := fromToRE.FindStringSubmatch(rest); ft != nil {
				v0, p0, ok0 := amount(ft[1])
				v1, p1, ok1 := amount(ft[3])
				if !ok0 || !ok1 {
					continue
				}
				per0, per1 := claim.NormalizePeriod(ft[2]), claim.NormalizePeriod(ft[4])
				cur0 := currencyOf(ft[1] + ft[3])
				prev = spanClaim(d, s[0], s[1], claim.Value{Metric: metric, Value: v0, Unit: claim.Currency, Currency: cur0, Period: per0, Precision: p0})
				cur = spanClaim(d, s[0], s[1], claim.Value{Metric: metric, Value: v1, Unit: claim.Currency, Currency: cur0, Period: per1, Precision: p1})
				a.extra = append(a.extra, prev, cur)
			} else if y := inYearRE.FindStringSubmatch(text); y != nil {
				period := claim.NormalizePeriod("FY" + strings.TrimPrefix(strings.ToUpper(strings.ReplaceAll(y[1], " ", "")), "FY"))
				var ok0, ok1 bool
				year, _ := strconv.Atoi(strings.TrimPrefix(period, "FY"))
				prev, ok0 = a.figureOf(d.File, metric, fmt.Sprintf("FY%d", year-1))
				cur, ok1 = a.figureOf(d.File, metric, period)
				if !ok0 || !ok1 {
					continue
				}
			} else {
				continue
			}
			res, err := calc.Growth(input("previous", prev, d.Source.Grade), input("current", cur, d.Source.Grade))
			if err != nil {
				continue
			}
			lo := ((cur.Value.Value-prec(cur.Value))/(prev.Value.Value+prec(prev.Value)) - 1) * 100
			hi := ((cur.Value.Value+prec(cur.Value))/(prev.Value.Value-prec(prev.Value)) - 1) * 100
			if rate+ratePrec >= lo && rate-ratePrec <= hi {
				continue
			}
			a.f.Calcs = append(a.f.Calcs, *res)
			rc := spanClaim(d, s[0], s[1], claim.Value{Metric: metric + "_growth", Value: rate, Unit: claim.Percent, Period: cur.Value.Period})
			a.extra = append(a.extra, rc)
			a.f.Defects = append(a.f.Defects, Item{
				Kind: KindDefect, Type: TypeInconsistentArithmetic, Metric: metric, Period: cur.Value.Period,
				Documents: []string{d.File}, Claims: []string{rc.ID, prev.ID, cur.ID}, Calcs: []string{res.CalcID},
				Severity: debate.SeverityMajor,
				Text:     fmt.Sprintf("%s states %s growth of %g%%, but %s to %s is %.1f%% (%s)", d.File, metric, rate, figure(prev.Value), figure(cur.Value), res.Value*100, res.CalcID),
			})
		}
	}
}

func prec(v claim.Value) float64 {
	if v.Precision > 0 {
		return v.Precision
	}
	return 0.5
}

func currencyOf(s string) string {
	switch {
	case strings.Contains(s, "£"):
		return "GBP"
	case strings.Contains(s, "$"):
		return "USD"
	case strings.Contains(s, "€"):
		return "EUR"
	}
	return ""
}

func metricOf(word string) string {
	w := strings.ToLower(word)
	for _, m := range claim.Metrics {
		if slices.Contains(m.Phrases, w) {
			return m.Name
		}
	}
	return w
}

// figureOf is the first usable claim of a document for a metric and period.
func (a *analysis) figureOf(doc, metric, period string) (claim.Claim, bool) {
	for _, st := range a.byDocument(metric, period) {
		if st.doc == doc {
			return st.claims[0], true
		}
	}
	return claim.Claim{}, false
}

// sources is the sanad breaker: a material metric that one document alone
// states, anywhere in the room, when that document is not a book of
// account (graded below B), is SINGLE_SOURCE; and when its best source is
// graded C or D, WEAK_GRADE. Management accounts alone are the ordinary
// basis of a private company's figures and are not flagged. A claim that
// says it rests on audited accounts, in a room without them, is
// MISSING_SOURCE.
func (a *analysis) sources() {
	for _, metric := range material {
		var docs []string
		var cs []claim.Claim
		best := claim.GradeD
		for _, d := range a.deal.Docs {
			var mine []claim.Claim
			for _, c := range d.Claims {
				if c.Value.Metric == metric && usable(c) {
					mine = append(mine, c)
				}
			}
			if len(mine) == 0 {
				continue
			}
			docs = append(docs, d.File)
			cs = append(cs, mine...)
			if d.Source.Grade.Better(best) || d.Source.Grade == best {
				best = d.Source.Grade
			}
		}
		if len(docs) == 0 || best == claim.GradeA || best == claim.GradeB {
			continue
		}
		d := a.deal.Doc(docs[0])
		period := a.latestPeriod(d, cs)
		ids := claimIDs(cs)
		if len(docs) == 1 {
			a.f.Defects = append(a.f.Defects, Item{Kind: KindDefect, Type: TypeSingleSource, Metric: metric, Period: period, Documents: docs, Claims: ids, Severity: debate.SeverityMajor,
				Text: fmt.Sprintf("%s rests on %s alone (%s, grade %s): no other document states it", metric, docs[0], d.Kind, d.Source.Grade)})
		}
		a.f.Defects = append(a.f.Defects, Item{Kind: KindDefect, Type: TypeWeakGrade, Metric: metric, Period: period, Documents: docs, Claims: ids, Severity: debate.SeverityMajor,
			Text: fmt.Sprintf("the best source of %s is graded %s", metric, best)})
	}
	hasAudit := false
	for _, d := range a.deal.Docs {
		hasAudit = hasAudit || d.Kind == "audited_statements"
	}
	if hasAudit {
		return
	}
	for _, d := range a.deal.Docs {
		for _, c := range d.Claims {
			if c.CitedSource == "audited" && d.Kind != "audited_statements" {
				a.f.Defects = append(a.f.Defects, Item{Kind: KindDefect, Type: TypeMissingSource, Metric: c.Value.Metric, Period: c.Value.Period, Documents: []string{d.File}, Claims: []string{c.ID}, Severity: debate.SeverityMajor,
					Text: fmt.Sprintf("%s says its %s rests on audited accounts; the data room has none", d.File, c.Value.Metric)})
			}
		}
	}
}

var documentDateRE = regexp.MustCompile(`(?i)\b(\d{1,2}\s+(?:January|February|March|April|May|June|July|August|September|October|November|December)\s+\d{4}|(?:January|February|March|April|May|June|July|August|September|October|November|December)\s+\d{1,2},\s+\d{4})\b`)

// latestPeriod is the latest period of the claims; for claims that name
// none, the month of the date the document bears near its top (a press
// article states a figure as at its publication).
func (a *analysis) latestPeriod(d *Document, cs []claim.Claim) string {
	var best string
	var end time.Time
	for _, c := range cs {
		if e, ok := periodEnd(c.Value.Period); ok && e.After(end) {
			best, end = c.Value.Period, e
		}
	}
	if best != "" || d == nil {
		return best
	}
	top := d.Markdown
	if len(top) > 600 {
		top = top[:600]
	}
	if m := documentDateRE.FindString(top); m != "" {
		for _, layout := range []string{"2 January 2006", "January 2, 2006"} {
			if t, err := time.Parse(layout, m); err == nil {
				return t.Format("2006-01")
			}
		}
	}
	return ""
}

func claimIDs(cs []claim.Claim) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return out
}

// stale flags a headline metric whose latest period, over every document,
// ends more than StaleMonths before as_of.
func (a *analysis) stale() {
	limit := a.deal.AsOf.AddDate(0, -StaleMonths, 0)
	for _, metric := range headline {
		var latest string
		var end time.Time
		var cs []claim.Claim
		var docs []string
		for _, d := range a.deal.Docs {
			for _, c := range d.Claims {
				if c.Value.Metric != metric || !usable(c) {
					continue
				}
				e, ok := periodEnd(c.Value.Period)
				if !ok {
					continue
				}
				switch {
				case e.After(end):
					latest, end, cs, docs = c.Value.Period, e, []claim.Claim{c}, []string{d.File}
				case c.Value.Period == latest:
					cs = append(cs, c)
					if !slices.Contains(docs, d.File) {
						docs = append(docs, d.File)
					}
				}
			}
		}
		if latest == "" || !end.Before(limit) {
			continue
		}
		months := int(a.deal.AsOf.Sub(end).Hours() / 24 / 30.44)
		a.f.Defects = append(a.f.Defects, Item{Kind: KindDefect, Type: TypeStalePeriod, Metric: metric, Period: latest, Documents: docs, Claims: claimIDs(cs), Severity: debate.SeverityMajor,
			Text: fmt.Sprintf("the latest %s is for %s, %d months before as_of %s", metric, latest, months, a.deal.Manifest.AsOf)})
	}
}

// latest returns the usable claims of a metric for its latest period, in
// document order, and the qualifier filter keep.
func (a *analysis) latest(metric string, keep func(claim.Claim) bool) []claim.Claim {
	var out []claim.Claim
	var end time.Time
	for _, d := range a.deal.Docs {
		for _, c := range d.Claims {
			if c.Value.Metric != metric || !keep(c) {
				continue
			}
			e, ok := periodEnd(c.Value.Period)
			if !ok {
				continue
			}
			switch {
			case e.After(end):
				out, end = []claim.Claim{c}, e
			case e.Equal(end):
				out = append(out, c)
			}
		}
	}
	return out
}

func hasQualifier(c claim.Claim, q string) bool { return slices.Contains(c.Value.Qualifiers, q) }

// runway divides the latest cash by the monthly burn: a stated burn, or
// else the average of the net cash movements of the latest period.
func (a *analysis) runway() {
	cash := a.latest("cash", usable)
	if len(cash) == 0 {
		return
	}
	// The last figure of the latest period is its end: a table of months
	// lists them in order.
	c := cash[0]
	for _, x := range cash {
		if x.Span.Document == c.Span.Document && x.Span.Start > c.Span.Start {
			c = x
		}
	}
	var burn claim.Claim
	var burnClaims []string
	if b := a.latest("monthly_burn", func(claim.Claim) bool { return true }); len(b) > 0 {
		burn = b[0]
		burnClaims = []string{burn.ID}
	} else {
		nets := a.latest("cash", func(x claim.Claim) bool { return hasQualifier(x, "net") })
		var sum float64
		var n int
		for _, x := range nets {
			if x.Value.Value < 0 {
				sum += -x.Value.Value
				n++
				burnClaims = append(burnClaims, x.ID)
			}
		}
		if n == 0 {
			return
		}
		d := a.deal.Doc(nets[0].Span.Document)
		burn = spanClaim(d, nets[0].Span.Start, nets[len(nets)-1].Span.End, claim.Value{Metric: "monthly_burn", Value: sum / float64(n), Unit: claim.Currency, Currency: nets[0].Value.Currency, Period: nets[0].Value.Period})
		a.extra = append(a.extra, burn)
		burnClaims = append([]string{burn.ID}, burnClaims...)
	}
	if burn.Value.Value <= 0 {
		return
	}
	cin := input("cash", c, a.grade(c.Span.Document))
	bin := input("monthly_burn", burn, a.grade(burn.Span.Document))
	bin.Value = math.Abs(bin.Value)
	if cin.Currency == "" || bin.Currency == "" {
		cin.Currency, bin.Currency = "", ""
	}
	res, err := calc.Runway(cin, bin)
	if err != nil || res.Value >= RunwayMonths {
		return
	}
	a.f.Calcs = append(a.f.Calcs, *res)
	a.f.Risks = append(a.f.Risks, Item{Kind: KindRisk, Type: RiskRunway, Metric: "runway_months", Period: c.Value.Period, Documents: uniqueDocs(c.Span.Document, burn.Span.Document),
		Claims: append([]string{c.ID}, burnClaims...), Calcs: []string{res.CalcID}, Severity: debate.SeverityMajor,
		Text: fmt.Sprintf("cash %s over a monthly burn of %.0f is %.1f months of runway, under %g", figure(c.Value), burn.Value.Value, res.Value, RunwayMonths)})
}

func uniqueDocs(ds ...string) []string {
	var out []string
	for _, d := range ds {
		if d != "" && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// concentration reads each customer list (only a list names customers
// as its rows): the largest customer's share of revenue as the list states
// it in a share column, or else its revenue over a total, which is the
// list's own total row or else the company's revenue for the list's period
// (or its latest full year when the list names none). A total smaller than
// the customers the list names together is not their total (a month's
// revenue against a year's customers) and is never divided by.
func (a *analysis) concentration() {
	for _, d := range a.deal.Docs {
		if d.Kind != "customer_list" {
			continue
		}
		var top, total *claim.Claim
		var listed float64
		for i, c := range d.Claims {
			if c.Value.Metric != "revenue" && c.Value.Metric != "contract_value" {
				continue
			}
			if customerRow(c) {
				listed += c.Value.Value
				if !strings.Contains(strings.ToLower(segmentOf(c)), "other") && (top == nil || c.Value.Value > top.Value.Value) {
					top = &d.Claims[i]
				}
				continue
			}
			if c.Value.Metric == "revenue" && (total == nil || c.Value.Value > total.Value.Value) {
				total = &d.Claims[i]
			}
		}
		if top == nil {
			continue
		}
		if share, ok := statedShare(d.Markdown, *top); ok {
			if share >= ConcentrationShare && share <= 1 {
				a.f.Risks = append(a.f.Risks, Item{Kind: KindRisk, Type: RiskConcentration, Metric: "revenue", Documents: []string{d.File}, Claims: []string{top.ID}, Severity: debate.SeverityMajor,
					Text: fmt.Sprintf("one customer is %.1f%% of revenue, as the list states (%s)", share*100, figure(top.Value))})
			}
			continue
		}
		if total != nil && total.Value.Value < listed {
			total = nil
		}
		if total == nil {
			total = a.revenueTotal(top.Value.Period, listed)
		}
		if total == nil {
			continue
		}
		share := top.Value.Value / total.Value.Value
		if share < ConcentrationShare || share > 1 {
			continue
		}
		a.f.Risks = append(a.f.Risks, Item{Kind: KindRisk, Type: RiskConcentration, Metric: "revenue", Documents: uniqueDocs(d.File, total.Span.Document), Claims: []string{top.ID, total.ID}, Severity: debate.SeverityMajor,
			Text: fmt.Sprintf("one customer is %.1f%% of revenue (%s of %s)", share*100, figure(top.Value), figure(total.Value))})
	}
}

// customerRow says whether a claim of a customer list is one row's figure
// (a segment), not a total.
func customerRow(c claim.Claim) bool { return segmentOf(c) != "" }

func segmentOf(c claim.Claim) string {
	for _, q := range c.Value.Qualifiers {
		if name, ok := strings.CutPrefix(q, "segment:"); ok {
			return name
		}
	}
	return ""
}

// revenueTotal is the company's revenue that can be the total of a
// customer list of that period: the revenue stated for the period, or,
// when the list names none or no document states it, the latest revenue
// for a full year (FY or LTM); never one below listed, the sum of the
// customers the list names.
func (a *analysis) revenueTotal(period string, listed float64) *claim.Claim {
	var best *claim.Claim
	var bestEnd time.Time
	for _, d := range a.deal.Docs {
		if d.Kind == "customer_list" {
			continue
		}
		for i, c := range d.Claims {
			if c.Value.Metric != "revenue" || !usable(c) || c.Value.Value < listed {
				continue
			}
			if period != "" && c.Value.Period == period {
				return &d.Claims[i]
			}
			if !fullYear(c.Value.Period) {
				continue
			}
			if e, ok := periodEnd(c.Value.Period); ok && (best == nil || e.After(bestEnd)) {
				best, bestEnd = &d.Claims[i], e
			}
		}
	}
	return best
}

// fullYear says whether a normal period covers twelve months.
func fullYear(p string) bool { return strings.HasPrefix(p, "FY") || strings.HasPrefix(p, "LTM-") }

// statedShare is the share of revenue the table row of a customer claim
// states in a column whose header names a share ("share_of_revenue", "% of
// revenue"): 0.037 for "3.7%".
func statedShare(md string, c claim.Claim) (float64, bool) {
	if c.Span.Table == nil || c.Span.Start < 0 || c.Span.Start > len(md) {
		return 0, false
	}
	lineStart := strings.LastIndexByte(md[:c.Span.Start], '\n') + 1
	row := md[lineStart:]
	if i := strings.IndexByte(row, '\n'); i >= 0 {
		row = row[:i]
	}
	// The header is the first line of the pipe table the row is in.
	head := lineStart
	for head > 0 {
		prev := strings.LastIndexByte(md[:head-1], '\n') + 1
		if !strings.HasPrefix(md[prev:head-1], "|") {
			break
		}
		head = prev
	}
	header := md[head:]
	if i := strings.IndexByte(header, '\n'); i >= 0 {
		header = header[:i]
	}
	names, cells := pipeCells(header), pipeCells(row)
	for i, name := range names {
		n := strings.ToLower(strings.ReplaceAll(name, "_", " "))
		if i >= len(cells) || !(strings.Contains(n, "share") || strings.Contains(n, "%") || strings.Contains(n, "percent")) {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(cells[i]), "%")), 64)
		if err == nil && strings.HasSuffix(strings.TrimSpace(cells[i]), "%") {
			return v / 100, true
		}
	}
	return 0, false
}

// pipeCells splits a Markdown table row "| a | b |" into its cells.
func pipeCells(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|")
	cells := strings.Split(line, "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

// churn averages the churn rates stated, monthly or annual as the claim
// says (monthly when its text or qualifiers name a month).
func (a *analysis) churn() {
	var sum float64
	var ids, docs []string
	monthly := false
	for _, d := range a.deal.Docs {
		for _, c := range d.Claims {
			if c.Value.Metric != "churn_rate" {
				continue
			}
			sum += c.Value.Value
			ids = append(ids, c.ID)
			docs = uniqueDocs(append(docs, d.File)...)
			if hasQualifier(c, "monthly") || strings.Contains(strings.ToLower(c.Text), "month") {
				monthly = true
			}
		}
	}
	if len(ids) == 0 {
		return
	}
	avg := sum / float64(len(ids))
	limit, per := AnnualChurn, "a year"
	if monthly {
		limit, per = MonthlyChurn, "a month"
	}
	if avg < limit {
		return
	}
	a.f.Risks = append(a.f.Risks, Item{Kind: KindRisk, Type: RiskChurn, Metric: "churn_rate", Documents: docs, Claims: ids, Severity: debate.SeverityMajor,
		Text: fmt.Sprintf("churn averages %.1f%% %s, at or above %g%%", avg, per, limit)})
}

// negative flags a loss in the latest EBITDA or net income.
func (a *analysis) negative() {
	for _, metric := range []string{"ebitda", "net_income"} {
		cs := a.latest(metric, func(c claim.Claim) bool { return usable(c) && c.Value.Period != "" })
		var neg []claim.Claim
		for _, c := range cs {
			if c.Value.Value < 0 {
				neg = append(neg, c)
			}
		}
		if len(neg) == 0 || len(neg)*2 < len(cs) {
			continue
		}
		var docs []string
		for _, c := range neg {
			docs = uniqueDocs(append(docs, c.Span.Document)...)
		}
		a.f.Risks = append(a.f.Risks, Item{Kind: KindRisk, Type: RiskNegative, Metric: metric, Period: neg[0].Value.Period, Documents: docs, Claims: claimIDs(neg), Severity: debate.SeverityMajor,
			Text: fmt.Sprintf("%s for %s is negative (%s)", metric, neg[0].Value.Period, figure(neg[0].Value))})
		return
	}
}

// textRisks are the risks read from sentences: a sentence that matches re
// raises the risk unless it matches unless (boilerplate that denies it).
var textRisks = []struct {
	typ    string
	re     *regexp.Regexp
	unless *regexp.Regexp
}{
	{RiskGoingConcern, regexp.MustCompile(`(?i)material uncertainty[^.]*going concern`), nil},
	{RiskLitigation, litigationRE, noLitigationRE},
	{RiskRelatedParty, regexp.MustCompile(`(?i)\brelated[- ]party\b|\bdeclared an interest\b`), nil},
	{RiskKeyPerson, regexp.MustCompile(`(?i)\bkey[- ]person\b|\bpersonally holds\b|\bdepends? (?:heavily )?on (?:the|its) (?:founder|chief executive)`), nil},
	{RiskCovenant, regexp.MustCompile(`(?i)\bcovenant\b[^.]*\b(?:breach|breached|waived?)\b|\b(?:breach|waives?)\b[^.]*\b(?:covenant|clause 7)`), nil},
}

// litigationRE is the language of a dispute before a court, a tribunal or
// an arbitrator, as auditors, lawyers and minutes write it: proceedings
// issued or brought, a claim against the company or for damages, a claim
// the company is defending, a court or tribunal named with a claim, trial
// or hearing, arbitration commenced, a contingent liability for a claim.
var litigationRE = regexp.MustCompile(`(?i)` + strings.Join([]string{
	`\b(?:High Court|litigation|lawsuits?|legal proceedings)\b`,
	`\b(?:issued|commenced|brought|filed|served|instituted|started)\s+(?:legal\s+)?(?:proceedings|an?\s+(?:claim|suit|lawsuit))\b`,
	`\bproceedings\s+(?:(?:were|have been|had been|was|has been)\s+)?(?:issued|commenced|brought|filed|served)\b`,
	`\b(?:claims?|proceedings)\s+against\s+(?:the|our)\s+(?:company|group|business)\b`,
	`\bclaim(?:s|ed|ing)?\s+(?:for\s+)?damages\b`,
	`\bdefend(?:s|ing|ed)?\s+(?:the|a|this|that)\s+(?:claim|action|proceedings)\b`,
	`\b(?:court|tribunal)\b[^.]*\b(?:claim|proceedings|trial|hearing|damages|judgment)`,
	`\b(?:claim|proceedings|trial|hearing|damages|judgment)[^.]*\b(?:court|tribunal)\b`,
	`\b(?:commenced|started|brought|filed|initiated)\s+(?:an?\s+)?arbitration\b`,
	`\bcontingent liabilit(?:y|ies)\b[^.]*\bclaim`,
}, "|"))

// noLitigationRE is the boilerplate that says there is no dispute: "no
// litigation", "not party to any legal proceedings", "not aware of any
// claims".
var noLitigationRE = regexp.MustCompile(`(?i)\bno\s+(?:\w+\s+){0,3}(?:litigation|legal proceedings|proceedings|claims|lawsuits|disputes)\b|\bnot\s+(?:a\s+)?party\s+to\s+any\b|\bnot\s+aware\s+of\s+any\b[^.]*\b(?:litigation|proceedings|claims?|disputes?)\b|\bnor\s+(?:is|are)\s+(?:any\s+)?(?:litigation|proceedings|claims)\b`)

// text is the risk officer's reading of the documents' words: one risk of
// each type, citing every sentence that raises it.
func (a *analysis) text() {
	for _, r := range textRisks {
		var it *Item
		for i := range a.deal.Docs {
			d := &a.deal.Docs[i]
			for _, s := range sentences(d.Markdown) {
				sent := d.Markdown[s[0]:s[1]]
				if !r.re.MatchString(sent) || r.unless != nil && r.unless.MatchString(sent) {
					continue
				}
				c := spanClaim(d, s[0], s[1], claim.Value{Metric: strings.ToLower(r.typ), Unit: claim.Count})
				c.Class = claim.Legal
				a.extra = append(a.extra, c)
				if it == nil {
					it = &Item{Kind: KindRisk, Type: r.typ, Severity: debate.SeverityMajor, Text: strings.TrimSpace(sent)}
				}
				it.Claims = append(it.Claims, c.ID)
				it.Documents = uniqueDocs(append(it.Documents, d.File)...)
			}
		}
		if it != nil {
			if r.typ == RiskGoingConcern {
				it.Severity = debate.SeverityFatal
			}
			a.f.Risks = append(a.f.Risks, *it)
		}
	}
}

// byType sorts items for stable output.
func byType(items []Item) {
	sort.SliceStable(items, func(i, j int) bool {
		if items[i].Type != items[j].Type {
			return items[i].Type < items[j].Type
		}
		return items[i].Metric < items[j].Metric
	})
}
