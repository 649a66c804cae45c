package pii

import "regexp"

// US social security and taxpayer numbers: 3-2-4 digits with one kind of
// separator (dash, dot or space), or nine digits together.
var ssnRe = regexp.MustCompile(`\d{3}-\d{2}-\d{4}|\d{3}\.\d{2}\.\d{4}|\d{3} \d{2} \d{4}|\d{9}`)

// ssnSamples are numbers the Social Security Administration voided after
// they were printed in advertising and on sample cards.
var ssnSamples = map[string]bool{
	"078051120": true, "219099999": true, "123456789": true,
	"987654320": true, "987654321": true, "987654322": true, "987654323": true, "987654324": true,
	"987654325": true, "987654326": true, "987654327": true, "987654328": true, "987654329": true,
}

// findSSNs finds US_SSN and US_ITIN. A social security number never has
// area 000, 666 or 900–999, group 00 or serial 0000; an ITIN has area 9xx
// and group 50–65, 70–88, 90–92 or 94–99. Written with separators a number
// scores 0.6; as nine bare digits, which any nine-digit number can be, 0.3.
func findSSNs(_ *Detector, text string, c *collector) {
	for _, m := range c.matches(ssnRe, c.numberRuns()) {
		if !c.take() {
			return
		}
		s, e := m[0], m[1]
		if !isolatedNumber(text, s, e) {
			continue
		}
		d := digitsOf(text[s:e])
		score := 0.6
		if e-s == 9 {
			score = 0.3
		}
		area := string(d[:3])
		group := int(d[3]-'0')*10 + int(d[4]-'0')
		if allSame(d) || string(d[5:]) == "0000" || group == 0 {
			continue
		}
		if d[0] == '9' {
			if group >= 50 && group <= 65 || group >= 70 && group <= 88 || group >= 90 && group <= 92 || group >= 94 {
				c.add(TypeITIN, s, e, score)
			}
			continue
		}
		if area == "000" || area == "666" || ssnSamples[string(d)] {
			continue
		}
		c.add(TypeSSN, s, e, score)
	}
}

// isolatedNumber reports whether text[s:e] stands alone: no letter or digit
// next to it, and no separator that continues it into more digits.
func isolatedNumber(text string, s, e int) bool {
	if alnumBefore(text, s) || alnumAfter(text, e) {
		return false
	}
	if b := byteAt(text, s-1); (b == '-' || b == '.' || b == '/') && isDigit(byteAt(text, s-2)) {
		return false
	}
	if b := byteAt(text, e); (b == '-' || b == '.' || b == '/') && isDigit(byteAt(text, e+1)) {
		return false
	}
	return true
}

// NHS numbers: ten digits, 3-3-4 with spaces or dashes or together, whose
// last digit is the mod 11 check digit of the first nine.
var nhsRe = regexp.MustCompile(`\d{3}-\d{3}-\d{4}|\d{3} \d{3} \d{4}|\d{10}`)

func findNHS(_ *Detector, text string, c *collector) {
	for _, m := range c.matches(nhsRe, c.numberRuns()) {
		if !c.take() {
			return
		}
		s, e := m[0], m[1]
		if !isolatedNumber(text, s, e) {
			continue
		}
		d := digitsOf(text[s:e])
		if !allSame(d) && nhsCheck(d) {
			c.add(TypeNHS, s, e, 0.4)
		}
	}
}

func nhsCheck(d []byte) bool {
	sum := 0
	for i := range 9 {
		sum += int(d[i]-'0') * (10 - i)
	}
	check := 11 - sum%11
	if check == 11 {
		check = 0
	}
	return check != 10 && check == int(d[9]-'0')
}
