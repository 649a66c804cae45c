package claim

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// periodExpr is a period a text names, with its bytes.
type periodExpr struct {
	start, end int
	period     string // normalised; empty for a day and month without a year
	// strong marks a period named as such ("year ended …", "FY2024",
	// "Q3 2025"), not merely a date or a year.
	strong bool
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
		func(m []string) string { return "" }},
	{regexp.MustCompile(`(?i)\b` + monthNames + `\s+(\d{1,2})(?:st|nd|rd|th)?\b`),
		func(m []string) string { return "" }},
	{regexp.MustCompile(`\b((?:19|20)\d{2})\b`),
		func(m []string) string { return "FY" + m[1] }},
}

// strongPatterns is how many of the first periodRE name a period as such.
const strongPatterns = 7

// dayPeriod is the period a date names: the financial year when it is the
// last day of December, the month otherwise.
func dayPeriod(year string, month int, day string) string {
	if month == 12 && day == "31" {
		return "FY" + year
	}
	return fmt.Sprintf("%s-%02d", year, month)
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
			out = append(out, periodExpr{idx[0], idx[1], p.norm(m), i < strongPatterns})
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
// 2024", "Q3 2025", "June 2025", "last twelve months to June 2025") and
// returns its normal form ("FY2024", "Q3-2025", "2025-06", "LTM-2025-06"),
// or "" when s names no period.
func NormalizePeriod(s string) string {
	for _, p := range periods(s) {
		if p.period != "" {
			return p.period
		}
	}
	return ""
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
	ordinal       = map[string]string{"first": "1", "second": "2", "third": "3", "fourth": "4"}
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
