package claim

import (
	"regexp"
	"strings"

	"github.com/sanadhq/sanad/document"
)

// mdCell is a cell of a rendered pipe table, with its bytes.
type mdCell struct {
	text       string
	start, end int
}

// tableCells reads back the cells of a table from its Markdown, which
// begins at base: one row per line, the separator line left out.
func tableCells(md string, base int, t *document.TableData) [][]mdCell {
	off := 0
	if t.Caption != "" {
		off = len(oneLine(t.Caption)) + 2
	}
	var rows [][]mdCell
	line := 0
	for off <= len(md) {
		nl := strings.IndexByte(md[off:], '\n')
		end := len(md)
		if nl >= 0 {
			end = off + nl
		}
		if line != 1 && strings.HasPrefix(md[off:end], "|") {
			rows = append(rows, splitRow(md[off:end], base+off))
		}
		line++
		if nl < 0 {
			break
		}
		off = end + 1
	}
	return rows
}

// splitRow splits "| a | b |" at the pipes not escaped by a backslash.
func splitRow(s string, base int) []mdCell {
	var out []mdCell
	start := 1
	for i := 1; i < len(s); i++ {
		if s[i] != '|' || s[i-1] == '\\' {
			continue
		}
		a, b := start, i
		for a < b && s[a] == ' ' {
			a++
		}
		for b > a && s[b-1] == ' ' {
			b--
		}
		out = append(out, mdCell{strings.ReplaceAll(s[a:b], `\|`, "|"), base + a, base + b})
		start = i + 1
	}
	return out
}

// headerRow reports whether a row holds headers rather than figures: past
// its first cell, nothing but periods and words.
func headerRow(row []mdCell) bool {
	for c, cell := range row {
		if c == 0 {
			continue
		}
		pers := periods(cell.text)
		for _, a := range amounts(cell.text) {
			if !overlapsPeriod(a, pers) {
				return false
			}
		}
	}
	return true
}

// table reads the claims of a table block: each cell with a figure, its
// metric from the row header (or else the column header), its period from
// the column header (or else the row header, the caption, the heading, the
// document), its scale and currency from the cell, the headers, the caption
// or the text just before the table.
func (x *extractor) table(i int) {
	b := x.doc.Blocks[i]
	if b.Table == nil {
		return
	}
	sp := x.spans[i]
	rows := tableCells(x.md[sp.Start:sp.End], sp.Start, b.Table)
	if len(rows) == 0 {
		return
	}
	h := max(b.Table.HeaderRows, 1)
	for h < len(rows) && headerRow(rows[h]) {
		h++
	}
	h = min(h, len(rows))
	width := 0
	for _, r := range rows {
		width = max(width, len(r))
	}
	colHead := make([]string, width)
	for c := range width {
		var parts []string
		for r := 0; r < h; r++ {
			if c < len(rows[r]) && rows[r][c].text != "" && (len(parts) == 0 || parts[len(parts)-1] != rows[r][c].text) {
				parts = append(parts, rows[r][c].text)
			}
		}
		colHead[c] = strings.Join(parts, " ")
	}
	// The table's own scale: caption, header rows, the text just before.
	var heads []string
	heads = append(heads, b.Table.Caption)
	for r := 0; r < h; r++ {
		for _, c := range rows[r] {
			heads = append(heads, c.text)
		}
	}
	tScale, tCur := tableScale(strings.Join(heads, " "))
	if tScale == 0 {
		for k := i - 1; k >= 0 && k >= i-2; k-- {
			pb := x.doc.Blocks[k]
			if pb.Kind == document.Table || pb.Kind == document.Header {
				break
			}
			if s, cur := tableScale(pb.Text); s != 0 {
				tScale, tCur = s, cur
				break
			}
		}
	}
	if tScale == 0 {
		// A note right after the table: "Amounts in thousands".
		for k := i + 1; k < len(x.doc.Blocks) && k <= i+2; k++ {
			nb := x.doc.Blocks[k]
			if nb.Kind == document.Table || nb.Kind == document.Header {
				break
			}
			if s, cur := tableScale(nb.Text); s != 0 {
				tScale, tCur = s, cur
				break
			}
		}
	}
	if tScale == 0 {
		tScale = x.scale
	}
	if tScale == 0 {
		tScale = 1
	}
	tPeriod, named := periodOf(b.Table.Caption)
	if !named {
		tPeriod = x.contextPeriod()
	}
	colMet := make([]*mention, width)
	colToks := make([][]token, width)
	for c := range width {
		colToks[c] = tokens(stripParens(colHead[c]))
		if ms := mentions(colToks[c]); len(ms) > 0 {
			colMet[c] = &ms[0]
		}
	}
	for r := h; r < len(rows); r++ {
		row := rows[r]
		rh := -1
		for c, cell := range row {
			if alphaText(cell.text) {
				rh = c
				break
			}
		}
		var rowHead string
		var rowMet *mention
		var rowToks []token
		if rh >= 0 {
			rowHead = row[rh].text
			rowToks = tokens(stripParens(rowHead))
			if ms := mentions(rowToks); len(ms) > 0 {
				rowMet = &ms[0]
			}
		}
		for c, cell := range row {
			if c == rh {
				continue
			}
			a, ok := cellAmount(cell.text)
			if !ok {
				continue
			}
			met, toks, fromCol := rowMet, rowToks, false
			if met == nil && c < width && colMet[c] != nil {
				met, toks, fromCol = colMet[c], colToks[c], true
			}
			// The header over the row headers may name the metric of
			// every row: "Operating revenues" over "Bell Wireless".
			if met == nil && rh >= 0 && rh < width && colMet[rh] != nil {
				met, toks, fromCol = colMet[rh], colToks[rh], true
			}
			if met == nil {
				continue
			}
			ch := ""
			if c < width {
				ch = colHead[c]
			}
			v, ok := x.cellValue(a, met, toks, rowHead, ch, fromCol, tScale, tCur)
			if !ok {
				continue
			}
			v.Period = tablePeriod(headerWords(ch), rowHead, tPeriod)
			for _, t := range tokens(ch) {
				if q, ok := budgetWords[t.w]; ok {
					v.Qualifiers = appendUnique(v.Qualifiers, q)
				}
			}
			if subtracted(ch) {
				v.Qualifiers = appendUnique(v.Qualifiers, "less")
			}
			text := rowHead
			if ch != "" {
				text += " (" + ch + ")"
			}
			x.add(Claim{
				Text:  text + ": " + cell.text,
				Value: v,
				Span: Span{Document: x.docID, Version: x.version, Page: b.Page, Start: cell.start, End: cell.end,
					Table: &Cell{Row: r, Col: c, RowHeader: rowHead, ColHeader: ch}},
				CitedSource: cited(ch, b.Table.Caption, x.headingText()),
			})
		}
	}
}

// tablePeriod is the period of a cell: the one its column header names,
// else the part of the table's year it names ("Q1"), else the one its row
// header names, else the table's. A header that names a stretch of months
// with no normal form ("YTD May 2025") leaves the cell without a period.
func tablePeriod(colHead, rowHead, tPeriod string) string {
	if p, named := periodOf(colHead); named {
		return p
	}
	if p := partOfYear(colHead, tPeriod); p != "" {
		return p
	}
	if p, named := periodOf(rowHead); named {
		return p
	}
	return tPeriod
}

// subtracted says whether a column header names a deduction ("less H1
// 2024", "minus Q1"), as in a bridge from a year to the last twelve months:
// its cells are subtracted, not statements of the period's figure.
func subtracted(colHead string) bool {
	toks := tokens(headerWords(colHead))
	return len(toks) > 0 && (toks[0].w == "less" || toks[0].w == "minus" || toks[0].w == "deduct")
}

// cellAmount is the figure of a cell: its first number that is not a
// period.
func cellAmount(s string) (amount, bool) {
	pers := periods(s)
	for _, a := range amounts(s) {
		if !overlapsPeriod(a, pers) {
			return a, true
		}
	}
	return amount{}, false
}

// cellValue makes a cell's figure a value of metric m named in header toks.
func (x *extractor) cellValue(a amount, m *mention, toks []token, rowHead, colHead string, fromCol bool, tScale float64, tCur string) (Value, bool) {
	u := m.metric.Unit
	if !a.bare && a.unit != u && !(a.unit == Currency && a.currency == "" && u == Count) {
		return Value{}, false
	}
	v := Value{Metric: m.metric.Name, Unit: u, Entity: x.entity, Value: a.value, Precision: a.precision}
	if m.qualifier != "" {
		v.Qualifiers = append(v.Qualifiers, m.qualifier)
	}
	var words []token
	for k := m.first - 1; k >= 0; k-- {
		if stopWords[toks[k].w] || !alpha(toks[k].w) {
			break
		}
		words = append([]token{toks[k]}, words...)
	}
	if q := modifiers(words); q != nil {
		v.Qualifiers = append(v.Qualifiers, q...)
	}
	if fromCol && rowHead != "" && !strings.HasPrefix(strings.ToLower(rowHead), "total") {
		v.Qualifiers = append(v.Qualifiers, "segment:"+rowHead)
	}
	switch u {
	case Currency:
		v.Currency = a.currency
		if !a.scaled {
			// The header nearest the cell says the scale first.
			s, cur := tableScale(rowHead)
			if s == 0 {
				s, cur = tableScale(colHead)
			}
			if s == 0 {
				s, cur = tScale, tCur
			}
			v.Value, v.Precision = scaled(v.Value, s), scaled(v.Precision, s)
			if v.Currency == "" {
				v.Currency = cur
			}
		}
		if v.Currency == "" {
			_, v.Currency = tableScale(rowHead + " " + colHead)
		}
		if v.Currency == "" {
			v.Currency = tCur
		}
	case Count:
		if a.scaled {
			return Value{}, false
		}
		if s, _ := tableScale(rowHead); s != 0 {
			v.Value, v.Precision = scaled(v.Value, s), scaled(v.Precision, s)
		}
	}
	return v, true
}

// headerWords reads a snake_case header ("fy2024_revenue_eur", the
// column names of an export) as the words it joins, so that the period it
// names is found like the period of "FY2024 revenue".
func headerWords(s string) string { return strings.ReplaceAll(s, "_", " ") }

// stripParens removes parenthesised text: "Revenue (£m)" names revenue.
func stripParens(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')':
			depth = max(depth-1, 0)
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// explanationRE finds bracketed words that explain a label, with a number
// among them: "(MRR x 12)", "(at 30 June)".
var explanationRE = regexp.MustCompile(`\([^()]*[A-Za-z][^()]*\)`)

// alphaText reports whether s has a letter and no figure: a header.
func alphaText(s string) bool {
	// "ARR (MRR x 12)": a formula in brackets explains a label; a bare
	// number in brackets ("Other customers (69)") is a figure.
	s = explanationRE.ReplaceAllString(s, "")
	if _, ok := cellAmount(s); ok {
		return false
	}
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return true
		}
	}
	return false
}
