package claim

import (
	"math"
	"regexp"
	"strconv"
	"strings"
)

// amount is a number as a document writes it.
type amount struct {
	start, end int     // bytes of the text, symbol and scale word included
	value      float64 // scaled, signed
	unit       string  // Currency, Percent or Months when written; empty when bare
	currency   string
	scaled     bool    // a scale word or letter followed the number
	precision  float64 // half the unit of the last digit, scaled
	bare       bool    // no symbol, no scale, no unit: a count or a year
}

var numberRE = regexp.MustCompile(`(?i)(` + currencySymbols + `)?\s{0,3}(\()?([-−]?)(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?:\s?(million|billion|thousand|mn|bn|m|k|%|per\s?cent|percent|months?)\b|\s?(%))?`)

// currencySymbols are the ways a currency is written before an amount: a
// symbol, an ISO code, or a code with the thousands prefix of German and
// Nordic accounts ("TEUR", "kSEK") or a millions prefix ("MSEK").
const currencySymbols = `US\$|A\$|AU\$|\$|£|€|[TkM]?(?:GBP|USD|EUR|AUD|SEK|NOK|DKK|CHF)\b`

var currencyCodes = map[string]string{"$": "USD", "us$": "USD", "usd": "USD", "£": "GBP", "gbp": "GBP", "€": "EUR", "eur": "EUR",
	"a$": "AUD", "au$": "AUD", "aud": "AUD", "sek": "SEK", "nok": "NOK", "dkk": "DKK", "chf": "CHF"}

// currencyOf reads a currency as written before an amount, and the scale
// a prefix gives it: "TEUR" is EUR in thousands, "MSEK" SEK in millions.
func currencyOf(sym string) (currency string, scale float64) {
	l := strings.ToLower(sym)
	if c, ok := currencyCodes[l]; ok {
		return c, 1
	}
	if len(l) == 4 {
		if c, ok := currencyCodes[l[1:]]; ok {
			switch sym[0] {
			case 'T', 't', 'k', 'K':
				return c, 1e3
			case 'M', 'm':
				return c, 1e6
			}
		}
	}
	return "", 1
}

// scaleOf maps a scale word or letter to its multiplier.
func scaleOf(w string) float64 {
	switch strings.ToLower(w) {
	case "k", "thousand", "thousands", "000", "'000":
		return 1e3
	case "m", "mn", "million", "millions":
		return 1e6
	case "bn", "billion", "billions":
		return 1e9
	}
	return 1
}

// amounts finds the numbers of text. A number glued to a letter or digit
// ("Q3", "ISO27001") is not one.
func amounts(text string) []amount {
	var out []amount
	for _, m := range numberRE.FindAllStringSubmatchIndex(text, -1) {
		start, end := m[0], m[1]
		numStart := m[8]
		// The symbol group may have eaten a leading space; keep the span tight.
		for start < numStart && text[start] == ' ' {
			start++
		}
		if start > 0 {
			r := text[start-1]
			if isWordByte(r) || r == '.' || (r == ',' && start > 1 && isDigit(text[start-2])) {
				continue
			}
		}
		if end < len(text) && isDigit(text[end]) {
			continue
		}
		digits := strings.ReplaceAll(text[m[8]:m[9]], ",", "")
		v, err := strconv.ParseFloat(digits, 64)
		if err != nil || math.IsInf(v, 0) {
			continue
		}
		a := amount{start: start, end: end}
		decimals := 0
		if i := strings.IndexByte(digits, '.'); i >= 0 {
			decimals = len(digits) - i - 1
		}
		scale := 1.0
		word := ""
		if m[10] >= 0 {
			word = strings.ToLower(text[m[10]:m[11]])
		} else if m[12] >= 0 {
			word = "%"
		}
		switch {
		case word == "%" || strings.HasPrefix(word, "per"):
			a.unit = Percent
		case strings.HasPrefix(word, "month"):
			a.unit = Months
		case word != "":
			scale = scaleOf(word)
			a.scaled = true
		}
		if m[2] >= 0 {
			var prefix float64
			a.currency, prefix = currencyOf(text[m[2]:m[3]])
			if prefix != 1 && !a.scaled {
				scale, a.scaled = prefix, true
			}
			if a.unit == "" {
				a.unit = Currency
			}
		}
		if a.scaled && a.unit == "" {
			a.unit = Currency // "4.2m" is an amount of money far more often than a count
		}
		// A trailing "(in thousands)" scales the number it follows.
		if rest := text[end:]; a.unit != Percent {
			if sm := inScaleRE.FindStringSubmatch(rest); sm != nil && !a.scaled {
				scale = scaleOf(sm[1])
				a.scaled = true
				if a.unit == "" {
					a.unit = Currency
				}
			}
		}
		if m[6] < m[7] {
			v = -v
		}
		// "(1,234)", "£(1,234)" and "(£1.2m)" are negative: a parenthesis
		// right before and right after.
		if end < len(text) && text[end] == ')' && (m[4] >= 0 || start > 0 && text[start-1] == '(') {
			v = -v
			// "$(2.55)m": the scale follows the bracket.
			if sm := scaleAfterBracketRE.FindStringSubmatch(text[end+1:]); sm != nil && !a.scaled && a.unit != Percent {
				scale, a.scaled = scaleOf(sm[1]), true
				a.end = end + 1 + len(sm[0])
				if a.unit == "" {
					a.unit = Currency
				}
			}
		}
		a.value = scaled(v, scale)
		a.precision = scaled(0.5*math.Pow(10, -float64(decimals)), scale)
		a.bare = a.unit == "" && !a.scaled
		out = append(out, a)
	}
	return out
}

var scaleAfterBracketRE = regexp.MustCompile(`(?i)^(million|billion|thousand|mn|bn|m|k)\b`)

var inScaleRE = regexp.MustCompile(`(?i)^\s*\(\s*in\s+(thousands|millions|billions)\s*\)`)

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

func isWordByte(b byte) bool {
	return isDigit(b) || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b == '_'
}

// tableScaleRE finds a statement of the scale of a table's amounts: "£m",
// "(£000)", "$ in millions", "in thousands", "€k".
var tableScaleRE = regexp.MustCompile(`(?i)(?:\b([TkM](?:GBP|USD|EUR|AUD|SEK|NOK|DKK|CHF))\b|(` + currencySymbols + `)\s?(?:in\s+)?((?:'|’)?000|m|mn|bn|k|thousands?|millions?|billions?)\b|\b(?:in|of)\s+(thousands|millions|billions)(?:\s+of\s+(dollars|pounds|euros))?\b|\b(thousands|millions|billions)\s+of\s+(dollars|pounds|euros|sterling)\b)`)

var currencyRE = regexp.MustCompile(`(?i)(US\$|A\$|AU\$|\$|£|€|\b(?:GBP|USD|EUR|AUD|SEK|NOK|DKK|CHF)\b|\bdollars\b|\bpounds\b|\beuros\b|\bsterling\b)`)

var currencyWords = map[string]string{"dollars": "USD", "pounds": "GBP", "euros": "EUR", "sterling": "GBP"}

// tableScale reads the scale and currency a header or note states for the
// amounts of a table; scale is 0 when it states none. A snake_case header
// ("revenue_eur_thousands") reads as its words.
func tableScale(s string) (scale float64, currency string) {
	s = headerWords(s)
	if m := tableScaleRE.FindStringSubmatch(s); m != nil {
		switch {
		case m[1] != "":
			currency, scale = currencyOf(m[1])
		case m[3] != "":
			currency, _ = currencyOf(m[2])
			scale = scaleOf(strings.TrimLeft(m[3], "'’"))
		case m[4] != "":
			scale, currency = scaleOf(m[4]), currencyWords[strings.ToLower(m[5])]
		default:
			scale, currency = scaleOf(m[6]), currencyWords[strings.ToLower(m[7])]
		}
	}
	if currency == "" {
		if m := currencyRE.FindString(s); m != "" {
			l := strings.ToLower(m)
			currency, _ = currencyOf(m)
			if currency == "" {
				currency = currencyWords[l]
			}
		}
	}
	return scale, currency
}

// scaled multiplies v by a power of ten exactly as written: 8.3 by a
// million is 8.3e6, not 8.300000000000001e6.
func scaled(v, scale float64) float64 {
	if scale == 1 {
		return v
	}
	e := math.Round(math.Log10(scale))
	if math.Pow(10, e) != scale {
		return v * scale
	}
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', -1, 64)+"e"+strconv.Itoa(int(e)), 64)
	if err != nil {
		return v * scale
	}
	return r
}
