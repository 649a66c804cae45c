package claim

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/sanadhq/sanad/document"
)

// Extract reads the claims of a parsed document: figures in its text with
// the metric named around them, and the cells of its tables read with their
// row and column headers. docID and version name the document in each
// claim's span and id; spans are bytes of doc.MarkdownSpans. Extract never
// fails: text it cannot read as a claim is left out. The result depends only
// on its arguments.
func Extract(doc *document.Document, docID, version string) []Claim {
	if doc == nil {
		return nil
	}
	md, spans := doc.MarkdownSpans()
	x := &extractor{doc: doc, md: md, spans: spans, docID: docID, version: version}
	x.entity = entityOf(doc)
	x.period = documentPeriod(doc)
	for i, b := range doc.Blocks {
		switch b.Kind {
		case document.Table:
			x.table(i)
		case document.Header:
			x.text(i)
			x.heading(b)
		default:
			x.text(i)
			if s, _ := tableScale(b.Text); s != 0 && docScaleRE.MatchString(b.Text) {
				x.scale = s
			}
		}
	}
	return x.claims
}

// docScaleRE finds a note that scales every table after it: "All amounts
// are in thousands", "figures in £000".
var docScaleRE = regexp.MustCompile(`(?i)\b(?:amounts|figures|numbers|values)\b[^.]{0,40}\bin\b`)

type extractor struct {
	doc      *document.Document
	md       string
	spans    []document.Span
	docID    string
	version  string
	entity   string
	period   string  // the document's period: "year ended …" in its title
	scale    float64 // a document note's scale for the tables after it
	headings []heading
	claims   []Claim
}

type heading struct {
	level int
	text  string
}

func (x *extractor) heading(b document.Block) {
	for len(x.headings) > 0 && x.headings[len(x.headings)-1].level >= b.Level {
		x.headings = x.headings[:len(x.headings)-1]
	}
	x.headings = append(x.headings, heading{b.Level, b.Text})
}

// contextPeriod is the period of the innermost heading that names one, or
// the document's.
func (x *extractor) contextPeriod() string {
	for i := len(x.headings) - 1; i >= 0; i-- {
		for _, p := range periods(x.headings[i].text) {
			if p.period != "" || p.unresolved {
				return closedPeriod(p)
			}
		}
	}
	return x.period
}

func (x *extractor) headingText() string {
	if len(x.headings) == 0 {
		return ""
	}
	return x.headings[len(x.headings)-1].text
}

// entityOf is the company a document is about: the first company name in
// its title or first blocks.
func entityOf(doc *document.Document) string {
	texts := []string{doc.Title}
	for i := 0; i < len(doc.Blocks) && i < 3; i++ {
		texts = append(texts, doc.Blocks[i].Text)
	}
	for _, t := range texts {
		if m := entityRE.FindString(t); m != "" {
			return strings.TrimSuffix(m, ".")
		}
	}
	return ""
}

// documentPeriod is the period a document's title or opening headings name
// as such ("for the year ended 31 December 2024").
func documentPeriod(doc *document.Document) string {
	texts := []string{doc.Title}
	for i := 0; i < len(doc.Blocks) && i < 5; i++ {
		if doc.Blocks[i].Kind == document.Header {
			texts = append(texts, doc.Blocks[i].Text)
		}
	}
	for _, t := range texts {
		for _, p := range periods(t) {
			if p.strong && p.period != "" {
				return closedPeriod(p)
			}
		}
	}
	return ""
}

// comparativeRE finds the label of a comparative figure right before it:
// "(2023: " or "(prior year: ", a currency symbol allowed.
var comparativeRE = regexp.MustCompile(`(?i)\(\s*(?:(?:FY\s?)?((?:19|20)\d{2})|(?:prior|previous) year|last year)\s*:\s*(?:` + currencySymbols + `)?\s*$`)

// rangeBeforeRE finds "between" right before a figure, or "between X and"
// before the second bound.
var rangeBeforeRE = regexp.MustCompile(`(?i)\bbetween\s+(?:(?:\S+\s+){1,3}and\s+)?$`)

// relativeLabelRE finds a relative comparative label with its figure,
// "(prior year: TEUR 14,960)": it dates that figure, not its clause.
var relativeLabelRE = regexp.MustCompile(`(?i)\(\s*(?:prior|previous|last) year\s*:[^)]*\)`)

var relativeRE = regexp.MustCompile(`(?i)\b(?:a year earlier|the year before|prior year|previous year|last year)\b`)

// text reads the claims of a block of text.
func (x *extractor) text(i int) {
	b := x.doc.Blocks[i]
	sp := x.spans[i]
	seg := x.md[sp.Start:sp.End]
	off := 0
	if b.Kind == document.Header || b.Kind == document.List {
		if line := oneLine(b.Text); strings.HasSuffix(seg, line) {
			off = len(seg) - len(line)
		}
	}
	text := seg[off:]
	base := sp.Start + off
	for _, s := range sentences(text) {
		x.sentence(b, text[s.start:s.end], base+s.start, text)
	}
}

// sentence reads the claims of one sentence; base is its first byte in the
// Markdown and block the text of its block.
// profitMetrics are the metrics a loss states negatively.
var profitMetrics = map[string]bool{"gross_profit": true, "ebitda": true, "operating_profit": true, "profit_before_tax": true, "net_income": true}

// lossBeforeRE finds "loss" in the words just before a figure, with no
// clause break between.
var lossBeforeRE = regexp.MustCompile(`(?i)\bloss(es)?\b[^.;:]*$`)

func (x *extractor) sentence(b document.Block, s string, base int, block string) {
	toks := tokens(s)
	ments := mentions(toks)
	pers := periods(s)
	// Period labels of comparatives are not periods of other figures.
	label := make([]bool, len(pers))
	for k, p := range pers {
		if p.start > 0 && strings.HasSuffix(strings.TrimRight(s[:p.start], " "), "(") && strings.HasPrefix(strings.TrimLeft(s[p.end:], " "), ":") {
			label[k] = true
		}
	}
	cls := clauses(s)
	sentenceStart := len(x.claims)
	var last *Value
	for _, a := range amounts(s) {
		if overlapsPeriod(a, pers) || clock(s, a) {
			continue
		}
		cl := clauseOf(cls, a.start)
		var v Value
		if m := comparativeRE.FindStringSubmatch(s[:a.start]); m != nil {
			if last == nil || !compatible(a, last.Unit) {
				continue
			}
			v = *last
			v.Qualifiers = append([]string(nil), last.Qualifiers...)
			if m[1] != "" {
				v.Period = "FY" + m[1]
			} else {
				v.Period = previousYear(last.Period)
			}
		} else {
			met, quals, ok := x.metricFor(s, toks, ments, cls, cl, a)
			if !ok {
				continue
			}
			v = Value{Metric: met.Name, Unit: met.Unit, Entity: x.entity, Qualifiers: quals}
			v.Period = x.periodFor(s, pers, label, cl, a)
			if total := totalBefore(x.claims[sentenceStart:], base, v); total >= 0 && breakdown(s[total:a.start]) && !isPart(v) {
				v.Qualifiers = append(v.Qualifiers, "part")
			}
			// Budget, forecast and target words just before the figure.
			for k := len(toks) - 1; k >= 0; k-- {
				if toks[k].end > a.start || toks[k].start < cl.start {
					continue
				}
				if toks[k].end < a.start-30 {
					break
				}
				if q, ok := budgetWords[toks[k].w]; ok {
					v.Qualifiers = appendUnique(v.Qualifiers, q)
				}
				if q, ok := averageWords[toks[k].w]; ok {
					v.Qualifiers = appendUnique(v.Qualifiers, q)
				}
			}
			// "between £4.2m and £4.7m": the bounds of a range, not the figure.
			if rangeBeforeRE.MatchString(s[cl.start:a.start]) {
				v.Qualifiers = appendUnique(v.Qualifiers, "range")
			}
			// A label before a colon governs the figures after it:
			// "Budget 2023 approved in January: revenue of €52m".
			if c := strings.LastIndexByte(s[:a.start], ':'); c > 0 {
				for _, t := range tokens(s[:c]) {
					if q, ok := budgetWords[t.w]; ok {
						v.Qualifiers = appendUnique(v.Qualifiers, q)
					}
				}
			}
		}
		v.Value, v.Currency, v.Precision = a.value, a.currency, a.precision
		// "an EBITDA loss of £380,000", "(2023: loss of £1.2m)": a loss is
		// a negative profit.
		if profitMetrics[v.Metric] && v.Value > 0 && lossBeforeRE.MatchString(s[max(cl.start, a.start-40):a.start]) {
			v.Value = -v.Value
		}
		if v.Unit != Currency {
			v.Currency = ""
		}
		x.add(Claim{
			Text:        strings.TrimSpace(s),
			Value:       v,
			Span:        Span{Document: x.docID, Version: x.version, Page: b.Page, Start: base + a.start, End: base + a.end},
			CitedSource: cited(s, block, x.headingText()),
		})
		last = &x.claims[len(x.claims)-1].Value
	}
}

// breakdownRE finds the words that open a breakdown of a figure into its
// parts: "of which", "comprising", "split between".
var breakdownRE = regexp.MustCompile(`(?i)\b(?:of which|comprising|comprised of|consisting of|made up of|split (?:between|into|as)|broken down (?:as|into))\b`)

// breakdown says whether the text between a total and a later figure puts
// that figure in the total's breakdown: an opening parenthesis left open
// ("£6.6m (£5.4m term loan, …"), or a breakdown word.
func breakdown(between string) bool {
	return strings.Count(between, "(") > strings.Count(between, ")") || breakdownRE.MatchString(between)
}

// totalBefore is the end, in the sentence at base, of the first earlier
// figure of the sentence that is not itself a part and has v's metric,
// unit and period: the total v may be a part of; -1 when there is none.
func totalBefore(earlier []Claim, base int, v Value) int {
	for _, c := range earlier {
		if c.Value.Metric == v.Metric && c.Value.Unit == v.Unit && c.Value.Period == v.Period && !isPart(c.Value) {
			return c.Span.End - base
		}
	}
	return -1
}

// isPart says whether a value is a component of a total ("part",
// "part:term loan").
func isPart(v Value) bool {
	for _, q := range v.Qualifiers {
		if q == "part" || strings.HasPrefix(q, "part:") {
			return true
		}
	}
	return false
}

// debtFacilities are the facilities whose drawings are one part of a
// company's debt: a figure qualified by one is that facility's, not the
// debt's.
var debtFacilities = map[string]string{"term loan": "term loan", "revolving credit": "revolving credit", "rcf": "revolving credit", "overdraft": "overdraft"}

// facilityOf is the facility a debt qualifier names ("revolving credit
// facility" names the revolving credit), or "".
func facilityOf(q string) string {
	for words, name := range debtFacilities {
		if q == words || strings.HasPrefix(q, words+" ") || strings.HasSuffix(q, " "+words) || strings.Contains(q, " "+words+" ") {
			return name
		}
	}
	return ""
}

func (x *extractor) add(c Claim) {
	if m, ok := MetricNamed(c.Value.Metric); ok {
		c.Class = m.Class
	}
	if c.Value.Metric == "debt" && !isPart(c.Value) {
		for _, q := range c.Value.Qualifiers {
			if f := facilityOf(q); f != "" {
				c.Value.Qualifiers = append(c.Value.Qualifiers, "part:"+f)
				break
			}
		}
	}
	// A cost is an amount spent and debt an amount owed: "(3,977,000)" in
	// a statement, where the brackets show the side of the ledger, and
	// 3977000 in a deck state the same amount. Net debt keeps its sign.
	if (c.Value.Metric == "cost_of_sales" || c.Value.Metric == "debt") && c.Value.Value < 0 {
		c.Value.Value = -c.Value.Value
	}
	c.ID = ID(x.version, c.Span, c.Value)
	x.claims = append(x.claims, c)
}

func appendUnique(qs []string, q string) []string {
	for _, x := range qs {
		if x == q {
			return qs
		}
	}
	return append(qs, q)
}

func overlapsPeriod(a amount, pers []periodExpr) bool {
	for _, p := range pers {
		if a.start < p.end && p.start < a.end {
			return true
		}
	}
	return false
}

// clock reports whether a is part of a time of day or a ratio ("10:00").
func clock(s string, a amount) bool {
	return a.end+1 < len(s) && s[a.end] == ':' && isDigit(s[a.end+1]) ||
		a.start > 1 && s[a.start-1] == ':' && isDigit(s[a.start-2])
}

func clauseOf(cls []bounds, at int) bounds {
	for _, c := range cls {
		if at >= c.start && at < c.end {
			return c
		}
	}
	return cls[len(cls)-1]
}

// compatible reports whether a figure as written can be a value of a metric
// of unit u: a percentage of a percent metric, money of a currency metric,
// a bare number of a count.
func compatible(a amount, u string) bool {
	if a.bare {
		return u == Count
	}
	return a.unit == u
}

// metricFor finds the metric a figure is a value of: a metric phrase right
// after it ("412 people"), else the nearest phrase before it in its clause
// that its unit fits, else, when the clause starts with a verb, the
// sentence's subject.
func (x *extractor) metricFor(s string, toks []token, ments []mention, cls []bounds, cl bounds, a amount) (*Metric, []string, bool) {
	// After: within four words, inside the clause.
	after := -1
	for k, t := range toks {
		if t.start >= a.end {
			after = k
			break
		}
	}
	// "EBITDA was £2.9m, or 10.4% of turnover": a percentage of revenue
	// after a profit states that profit's margin.
	if a.unit == Percent && after >= 0 && toks[after].w == "of" {
		for _, m := range ments {
			if m.first != after+1 || m.metric.Name != "revenue" {
				continue
			}
			for k := len(ments) - 1; k >= 0; k-- {
				if p := ments[k]; p.end <= a.start {
					if mm := marginOf(p.metric); mm != nil {
						return mm, x.qualifiersOf(s, toks, p, clauseOf(cls, p.start)), true
					}
				}
			}
		}
	}
	if after >= 0 {
		for _, m := range ments {
			if m.first >= after && m.first < after+4 && m.end <= cl.end {
				between := toks[after:m.first]
				if compatible(a, m.metric.Unit) && wordsOnly(between) && plainGap(s[a.end:m.start]) {
					quals := modifiers(between)
					if m.qualifier != "" {
						quals = appendUnique(quals, m.qualifier)
					}
					return m.metric, quals, true
				}
				break
			}
		}
	}
	// A bare number followed by another noun counts that noun ("11
	// countries"), not a metric named before it.
	if a.bare && after >= 0 && toks[after].start-a.end <= 1 && alpha(toks[after].w) && !stopWords[toks[after].w] && !linkWords[toks[after].w] {
		return nil, nil, false
	}
	// Before, in the clause.
	for k := len(ments) - 1; k >= 0; k-- {
		m := ments[k]
		if m.end > a.start || m.start < cl.start {
			continue
		}
		if !compatible(a, m.metric.Unit) {
			continue
		}
		if a.unit != Currency && !linked(toks, m, a) {
			break
		}
		return m.metric, x.qualifiersOf(s, toks, m, cl), true
	}
	// "a margin of 18.5%" after a sentence about EBITDA is the EBITDA
	// margin.
	if a.unit == Percent {
		for _, t := range toks {
			if t.start < cl.start || t.end > a.start || t.w != "margin" {
				continue
			}
			for k := len(ments) - 1; k >= 0; k-- {
				m := ments[k]
				if m.end > t.start {
					continue
				}
				if mm := marginOf(m.metric); mm != nil {
					return mm, x.qualifiersOf(s, toks, m, clauseOf(cls, m.start)), true
				}
			}
		}
	}
	// A clause that starts with a verb continues its sentence's subject.
	first := -1
	for k, t := range toks {
		if t.start >= cl.start {
			first = k
			break
		}
	}
	if first < 0 || !leadVerbs[toks[first].w] || toks[first].start > a.start {
		return nil, nil, false
	}
	for k := len(ments) - 1; k >= 0; k-- {
		m := ments[k]
		if m.end > cl.start {
			continue
		}
		if compatible(a, m.metric.Unit) && clauseOf(cls, m.start).start == 0 {
			return m.metric, x.qualifiersOf(s, toks, m, clauseOf(cls, m.start)), true
		}
		break
	}
	return nil, nil, false
}

// wordsOnly reports whether ts are words that may stand between a figure
// and the metric after it: "412 people", "£4.0 million was drawn", but not
// "£5.3 million and profit before tax".
// marginOf is the margin metric of a metric: ebitda_margin of ebitda.
func marginOf(m *Metric) *Metric {
	name := m.Name + "_margin"
	if m.Name == "gross_profit" {
		name = "gross_margin"
	}
	for i := range Metrics {
		if Metrics[i].Name == name {
			return &Metrics[i]
		}
	}
	return nil
}

func wordsOnly(ts []token) bool {
	for _, t := range ts {
		if !alpha(t.w) || stopWords[t.w] && !linkWords[t.w] {
			return false
		}
	}
	return true
}

// plainGap reports whether s holds only letters, spaces and hyphens.
func plainGap(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) && r != ' ' && r != '-' {
			return false
		}
	}
	return true
}

// linked reports whether only link words, dates and figures stand between
// a metric phrase and a figure.
func linked(toks []token, m mention, a amount) bool {
	for _, t := range toks[m.last+1:] {
		if t.start >= a.start {
			break
		}
		if !alpha(t.w) || linkWords[t.w] || monthOf(t.w) != 0 {
			continue
		}
		return false
	}
	return true
}

// modifiers are the words of ts that narrow a metric.
func modifiers(ts []token) []string {
	var q []string
	for _, t := range ts {
		if alpha(t.w) && !stopWords[t.w] && !linkWords[t.w] {
			q = append(q, t.w)
		}
	}
	if len(q) == 0 {
		return nil
	}
	return []string{strings.Join(q, " ")}
}

// qualifiersOf are the qualifier of a metric phrase and the words right
// before it that narrow it ("subscription revenue").
func (x *extractor) qualifiersOf(s string, toks []token, m mention, cl bounds) []string {
	var q []string
	if m.qualifier != "" {
		q = append(q, m.qualifier)
	}
	// Up to two words, or "X and Y" ("hardware and other revenue").
	var words []string
	for k := m.first - 1; k >= 0 && len(words) < 3; k-- {
		t := toks[k]
		if t.start < cl.start || strings.TrimSpace(s[t.end:toks[k+1].start]) != "" {
			break
		}
		if t.w == "and" && len(words) == 1 && k > 0 && qualifierWord(toks[k-1].w) && toks[k-1].start >= cl.start {
			words = append([]string{toks[k-1].w, "and"}, words...)
			break
		}
		if !qualifierWord(t.w) || len(words) == 2 {
			break
		}
		words = append([]string{t.w}, words...)
	}
	if len(words) > 0 {
		q = append(q, strings.Join(words, " "))
	}
	return q
}

func qualifierWord(w string) bool {
	return alpha(w) && !stopWords[w] && !linkWords[w] && !leadVerbs[w]
}

// periodFor is the period of a figure: the nearest period named in its
// clause, else before it in its sentence, else a year before the context's when the
// clause says "a year earlier", else the heading's or document's.
func (x *extractor) periodFor(s string, pers []periodExpr, label []bool, cl bounds, a amount) string {
	best, bestDist := "", -1
	inClause := false
	for k, p := range pers {
		if label[k] || p.period == "" && !p.unresolved && p.yearless == "" {
			continue
		}
		in := p.start >= cl.start && p.end <= cl.end
		if inClause && !in || !in && p.start >= a.end {
			continue
		}
		d := a.start - p.end
		if p.start >= a.end {
			d = p.start - a.end
		}
		if in && !inClause || bestDist < 0 || d < bestDist {
			best, bestDist, inClause = p.period, d, in
			if p.yearless != "" {
				best = datedBy(p.yearless, x.contextPeriod())
			}
		}
	}
	if bestDist >= 0 {
		return best
	}
	ctx := x.contextPeriod()
	if relativeRE.MatchString(relativeLabelRE.ReplaceAllString(s[cl.start:cl.end], "")) {
		return previousYear(ctx)
	}
	return ctx
}
