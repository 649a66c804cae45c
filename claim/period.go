package claim

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// periodExpr is a period a text names, with its bytes.
type periodExpr struct {
	start, end int
	period     string // normalised; empty for a day and month without a year
	// strong marks a period named as such ("year ended …", "FY2024",
	// "Q3 2025"), not merely a date or a year.
	strong bool
	// unresolved marks a stretch of months with no normal form ("five
	// months to 31 May 2025", "year to date"): a figure it governs has no
	// period, so that it is compared with no single month or year.
	unresolved bool
	// midMonth marks a date before the last day of its month ("12 June
	// 2025"): a document so dated reports the month closed before it.
	midMonth bool
	// yearless is a day and month written without a year ("31 May"), as
	// "MM-DD", for the reader to date by its context.
	yearless string
}

// unresolvedPeriod is what a pattern's norm returns for a stretch of
// months that has no normal form.
const unresolvedPeriod = "?"

// monthsWords reads "five" or "5" as 5.
var monthsWords = map[string]int{"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11}

// monthsTo is the period of the n months to the end of month of year: the
// month itself for one, the calendar quarter or half it closes for three
// or six, and no normal form otherwise (five months to May is neither May
// nor a year).
func monthsTo(n string, month int, year string) string {
	k, ok := monthsWords[strings.ToLower(n)]
	if !ok {
		k, _ = strconv.Atoi(n)
	}
	switch {
	case k == 1:
		return fmt.Sprintf("%s-%02d", year, month)
	case k == 3 && month%3 == 0:
		return fmt.Sprintf("Q%d-%s", month/3, year)
	case k == 6 && month%6 == 0:
		return fmt.Sprintf("H%d-%s", month/6, year)
	}
	return unresolvedPeriod
}

const monthNames = `(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?`

var months = map[string]int{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12}

func monthOf(s string) int {
	s = strings.ToLower(strings.TrimSuffix(s, "."))
	if len(s) > 3 && s != "sept" {
		s = s[:3]
	}
	return months[s]
}

// Period patterns, most specific first; a later pattern never takes bytes an
// earlier one matched.
var periodRE = []struct {
	re   *regexp.Regexp
	norm func(m []string) string
}{
	{regexp.MustCompile(`(?i)\b(?:last|trailing)\s+(?:twelve|12)\s+months\s+(?:to|ended|ending)\s+(?:\d{1,2}(?:st|nd|rd|th)?\s+)?` + monthNames + `,?\s+((?:19|20)\d{2})\b`),
		func(m []string) string { return fmt.Sprintf("LTM-%s-%02d", m[2], monthOf(m[1])) }},
	{regexp.MustCompile(`(?i)\b(?:LTM|TTM)\s+` + monthNames + `,?\s+((?:19|20)\d{2})\b`),
		func(m []string) string { return fmt.Sprintf("LTM-%s-%02d", m[2], monthOf(m[1])) }},
	{regexp.MustCompile(`(?i)\b(?:year|twelve months|12 months|financial year|fiscal year)\s+(?:ended|ending|to)\s+(?:\d{1,2}(?:st|nd|rd|th)?\s+)?` + monthNames + `,?\s+((?:19|20)\d{2})\b`),
		func(m []string) string { return "FY" + m[2] }},
	{regexp.MustCompile(`(?i)\b(?:years?|year ended|years ended)\s+` + monthNames + `\s+\d{1,2},?\s+((?:19|20)\d{2})\b`),
		func(m []string) string { return "FY" + m[2] }},
	// "five months to 31 May 2025", "3 months ended June 30, 2025".
	{regexp.MustCompile(`(?i)\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|[1-9]|1[01])[ -]months?\s+(?:to|ended|ending)\s+(?:\d{1,2}(?:st|nd|rd|th)?\s+)?` + monthNames + `(?:\s+\d{1,2}(?:st|nd|rd|th)?)?,?\s+((?:19|20)\d{2})\b`),
		func(m []string) string { return monthsTo(m[1], monthOf(m[2]), m[3]) }},
	// "YTD May 2025", "year to date to 31 May 2025", "May 2025 YTD", "YTD".
	{regexp.MustCompile(`(?i)(?:\b` + monthNames + `,?\s+(?:19|20)\d{2}\s+(?:YTD|year[- ]to[- ]date)\b|\b(?:YTD|year[- ]to[- ]date)\b(?:\s+(?:to\s+)?(?:\d{1,2}(?:st|nd|rd|th)?\s+)?` + monthNames + `(?:\s+\d{1,2}(?:st|nd|rd|th)?)?(?:,?\s+(?:19|20)\d{2})?\b)?)`),
		func(m []string) string { return unresolvedPeriod }},
	// "the first quarter of 2025", "the December quarter", "first half of
	// 2025": a part of a year, never the year; without its year the figure
	// is left without a period rather than given the year of its context.
	{regexp.MustCompile(`(?i)\b(first|second|third|fourth|1st|2nd|3rd|4th)\s+quarter(?:\s+(?:of\s+)?((?:19|20)\d{2}))?\b`),
		func(m []string) string { return partPeriod("Q", ordinal[strings.ToLower(m[1])], m[2]) }},
	{regexp.MustCompile(`(?i)\b(march|june|september|december)\s+quarter(?:\s+(?:of\s+)?((?:19|20)\d{2}))?\b`),
		func(m []string) string { return partPeriod("Q", strconv.Itoa(monthOf(m[1])/3), m[2]) }},
	{regexp.MustCompile(`(?i)\b(first|second|1st|2nd)\s+half(?:[- ]year)?(?:\s+(?:of\s+)?((?:19|20)\d{2}))?\b`),
		func(m []string) string { return partPeriod("H", ordinal[strings.ToLower(m[1])], m[2]) }},
	{regexp.MustCompile(`(?i)\bFY?\s?-?'?((?:19|20)\d{2}|\d{2})\b`),
		func(m []string) string { return "FY" + fullYear(m[1]) }},
	{regexp.MustCompile(`(?i)\b(Q[1-4]|H[12])\s?-?\s?(?:FY\s?)?'?((?:19|20)\d{2})\b`),
		func(m []string) string { return strings.ToUpper(m[1]) + "-" + m[2] }},
	{regexp.MustCompile(`(?i)\b((?:19|20)\d{2})\s?(Q[1-4]|H[12])\b`),
		func(m []string) string { return strings.ToUpper(m[2]) + "-" + m[1] }},
	{regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th)?\s+` + monthNames + `,?\s+((?:19|20)\d{2})\b`),
		func(m []string) string { return dayPeriod(m[3], monthOf(m[2]), m[1]) }},
	{regexp.MustCompile(`(?i)\b` + monthNames + `\s+(\d{1,2}),?\s+((?:19|20)\d{2})\b`),
		func(m []string) string { return dayPeriod(m[3], monthOf(m[1]), m[2]) }},
	{regexp.MustCompile(`(?i)\b` + monthNames + `,?\s+((?:19|20)\d{2})\b`),
		func(m []string) string { return fmt.Sprintf("%s-%02d", m[2], monthOf(m[1])) }},
	{regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th)?\s+` + monthNames + `\b`),
		func(m []string) string { return yearlessDate(monthOf(m[2]), m[1]) }},
	{regexp.MustCompile(`(?i)\b` + monthNames + `\s+(\d{1,2})(?:st|nd|rd|th)?\b`),
		func(m []string) string { return yearlessDate(monthOf(m[1]), m[2]) }},
	{regexp.MustCompile(`\b((?:19|20)\d{2})\b`),
		func(m []string) string { return "FY" + m[1] }},
}

// strongPatterns is how many of the first periodRE name a period as such.
const strongPatterns = 12

// partPeriod is a quarter or half ("Q", "2", "2024" is "Q2-2024"), or an
// unresolved period when the year is not written.
func partPeriod(kind, n, year string) string {
	if year == "" {
		return unresolvedPeriod
	}
	return kind + n + "-" + year
}

// dayPeriod is the period a date names: the financial year when it is the
// last day of December, the month otherwise (marked when the day is not
// the month's last, see [periodExpr.midMonth]).
func dayPeriod(year string, month int, day string) string {
	if month == 12 && day == "31" {
		return "FY" + year
	}
	p := fmt.Sprintf("%s-%02d", year, month)
	if y, err1 := strconv.Atoi(year); err1 == nil && month >= 1 && month <= 12 {
		if d, err2 := strconv.Atoi(day); err2 == nil && d < time.Date(y, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day() {
			return p + midMonthMark
		}
	}
	return p
}

// Marks a norm adds to a period for [periods] to take off.
const (
	midMonthMark = "~"
	yearlessMark = "--"
)

// yearlessDate marks a day and month written without a year.
func yearlessDate(month int, day string) string {
	if month < 1 {
		return ""
	}
	d, err := strconv.Atoi(day)
	if err != nil || d < 1 || d > 31 {
		return ""
	}
	return fmt.Sprintf("%s%02d-%02d", yearlessMark, month, d)
}

// datedBy dates a yearless "MM-DD" by the period of its context: the
// latest such day not after the context's month ("31 May" in June 2025
// is May 2025, "30 November" in January 2025 is November 2024).
func datedBy(yearless, context string) string {
	m := yearRE.FindString(context)
	if m == "" {
		return ""
	}
	year, _ := strconv.Atoi(m)
	month, _ := strconv.Atoi(yearless[:2])
	if len(context) == 7 && context[4] == '-' {
		if cm, err := strconv.Atoi(context[5:]); err == nil && month > cm {
			year--
		}
	}
	return strings.TrimSuffix(dayPeriod(strconv.Itoa(year), month, yearless[3:]), midMonthMark)
}

// closedPeriod is the period a date heading a document or section
// reports: the month before when the date falls within its month.
func closedPeriod(e periodExpr) string {
	if !e.midMonth {
		return e.period
	}
	t, err := time.Parse("2006-01", e.period)
	if err != nil {
		return e.period
	}
	return t.AddDate(0, -1, 0).Format("2006-01")
}

func fullYear(y string) string {
	if len(y) == 2 {
		return "20" + y
	}
	return y
}

// periods finds the period expressions of text, in order.
func periods(text string) []periodExpr {
	var out []periodExpr
	taken := func(s, e int) bool {
		for _, p := range out {
			if s < p.end && p.start < e {
				return true
			}
		}
		return false
	}
	for i, p := range periodRE {
		for _, idx := range p.re.FindAllStringSubmatchIndex(text, -1) {
			if taken(idx[0], idx[1]) {
				continue
			}
			// "27001:2022" is a standard's edition, not a year.
			if idx[0] > 0 && (text[idx[0]-1] == ':' || text[idx[0]-1] == '/' || text[idx[0]-1] == '-') && isDigit(text[idx[0]]) {
				continue
			}
			m := make([]string, len(idx)/2)
			for i := range m {
				if idx[2*i] >= 0 {
					m[i] = text[idx[2*i]:idx[2*i+1]]
				}
			}
			e := periodExpr{start: idx[0], end: idx[1], period: p.norm(m), strong: i < strongPatterns}
			switch {
			case e.period == unresolvedPeriod:
				e.period, e.unresolved = "", true
			case strings.HasSuffix(e.period, midMonthMark):
				e.period, e.midMonth = strings.TrimSuffix(e.period, midMonthMark), true
			case strings.HasPrefix(e.period, yearlessMark):
				e.period, e.yearless = "", strings.TrimPrefix(e.period, yearlessMark)
			}
			out = append(out, e)
		}
	}
	sortPeriods(out)
	return out
}

func sortPeriods(p []periodExpr) {
	for i := 1; i < len(p); i++ {
		for j := i; j > 0 && p[j].start < p[j-1].start; j-- {
			p[j], p[j-1] = p[j-1], p[j]
		}
	}
}

// NormalizePeriod reads a period expression ("year ended 31 December
// 2024", "Q3 2025", "June 2025", "last twelve months to June 2025", "three
// months to 30 June 2025") and returns its normal form ("FY2024",
// "Q3-2025", "2025-06", "LTM-2025-06", "Q2-2025"), or "" when s names no
// period or first names a stretch of months that has none ("five months
// to 31 May 2025", "YTD May 2025").
func NormalizePeriod(s string) string {
	p, _ := periodOf(s)
	return p
}

// periodOf is the first period s names, and whether it names one: a
// stretch of months with no normal form is named, with period "".
func periodOf(s string) (period string, named bool) {
	for _, p := range periods(s) {
		if p.period != "" || p.unresolved {
			return p.period, true
		}
	}
	return "", false
}

// previousYear is the same period a year before p: "FY2023" for
// "FY2024", "Q3-2024" for "Q3-2025", "2024-06" for "2025-06"; "" when p
// names no year.
func previousYear(p string) string {
	m := yearRE.FindStringIndex(p)
	if m == nil {
		return ""
	}
	n, err := strconv.Atoi(p[m[0]:m[1]])
	if err != nil {
		return ""
	}
	return p[:m[0]] + strconv.Itoa(n-1) + p[m[1]:]
}

var yearRE = regexp.MustCompile(`(?:19|20)\d{2}`)

var (
	bareQuarterRE = regexp.MustCompile(`(?i)^\s*(?:q([1-4])|([1-4])(?:st|nd|rd|th)\s+quarter|(first|second|third|fourth)\s+quarter)\s*$`)
	bareHalfRE    = regexp.MustCompile(`(?i)^\s*(?:h([12])|(first|second)\s+half)\s*$`)
	ordinal       = map[string]string{"first": "1", "second": "2", "third": "3", "fourth": "4", "1st": "1", "2nd": "2", "3rd": "3", "4th": "4"}
	monthNumber   = map[string]string{"jan": "01", "january": "01", "feb": "02", "february": "02", "mar": "03", "march": "03", "apr": "04", "april": "04",
		"may": "05", "jun": "06", "june": "06", "jul": "07", "july": "07", "aug": "08", "august": "08", "sep": "09", "sept": "09", "september": "09",
		"oct": "10", "october": "10", "nov": "11", "november": "11", "dec": "12", "december": "12"}
)

// partOfYear reads a column header that names a part of a year without
// the year ("Q1", "H2", "March") within a table whose period says the
// year: "Q1" under FY2024 is "Q1-2024". It returns "" otherwise.
func partOfYear(header, tablePeriod string) string {
	year := yearRE.FindString(tablePeriod)
	if year == "" {
		return ""
	}
	if m := bareQuarterRE.FindStringSubmatch(header); m != nil {
		q := m[1] + m[2] + ordinal[strings.ToLower(m[3])]
		return "Q" + q + "-" + year
	}
	if m := bareHalfRE.FindStringSubmatch(header); m != nil {
		return "H" + m[1] + ordinal[strings.ToLower(m[2])] + "-" + year
	}
	if n, ok := monthNumber[strings.ToLower(strings.Trim(strings.TrimSpace(header), "."))]; ok {
		return year + "-" + n
	}
	return ""
}
