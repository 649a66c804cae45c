package pii

import (
	"crypto/sha256"
	"math/big"
	"regexp"
	"strings"
)

// Card numbers: 13 to 19 digits together, or in groups of 4-4-4-4 or
// 4-6-5 / 4-6-4 (American Express, Diners) with spaces or dashes.
var cardRe = func() *regexp.Regexp {
	re := regexp.MustCompile(`\d{13,19}|\d{4}-\d{4}-\d{4}-\d{4}|\d{4} \d{4} \d{4} \d{4}|\d{4}-\d{6}-\d{4,5}|\d{4} \d{6} \d{4,5}`)
	re.Longest()
	return re
}()

func findCards(_ *Detector, text string, c *collector) {
	for _, m := range c.matches(cardRe, c.numberRuns()) {
		if !c.take() {
			return
		}
		s, e := m[0], m[1]
		if alnumBefore(text, s) || alnumAfter(text, e) {
			continue
		}
		d := digitsOf(text[s:e])
		if cardBrand(d) && luhn(d) {
			c.add(TypeCreditCard, s, e, 0.9)
		}
	}
}

// cardBrand reports whether the digits start with an issuer prefix that
// issues numbers of that length: Visa, Mastercard, Mir, American Express,
// Diners, Discover, JCB, UnionPay, Maestro, UATP.
func cardBrand(d []byte) bool {
	n := len(d)
	p2 := int(d[0]-'0')*10 + int(d[1]-'0')
	p4 := p2*100 + int(d[2]-'0')*10 + int(d[3]-'0')
	switch {
	case d[0] == '4':
		return n == 13 || n == 16 || n == 19
	case p2 >= 51 && p2 <= 55, p4 >= 2221 && p4 <= 2720, p4 >= 2200 && p4 <= 2204:
		return n == 16
	case p2 == 34 || p2 == 37:
		return n == 15
	case p2 == 36 || p2 == 38 || p2 == 39 || (p4 >= 3000 && p4 <= 3059):
		return n >= 14 && n <= 19
	case p4 >= 3528 && p4 <= 3589, p2 == 62, p4 == 6011, p2 == 65, p4 >= 6440 && p4 <= 6499:
		return n >= 16 && n <= 19
	case p2 == 50, p2 >= 56 && p2 <= 69:
		return n >= 13 && n <= 19
	case d[0] == '1':
		return n == 15
	}
	return false
}

// IBAN lengths by country (the SWIFT IBAN registry).
var ibanLen = map[string]int{
	"AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22,
	"BH": 22, "BI": 27, "BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24,
	"DE": 22, "DJ": 27, "DK": 18, "DO": 28, "EE": 20, "EG": 29, "ES": 24, "FI": 18,
	"FK": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27,
	"GT": 28, "HN": 28, "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26,
	"IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32, "LI": 21, "LT": 20,
	"LU": 20, "LV": 21, "LY": 25, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MN": 20,
	"MR": 27, "MT": 31, "MU": 30, "NI": 28, "NL": 18, "NO": 15, "OM": 23, "PK": 24,
	"PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "RU": 33, "SA": 24,
	"SC": 31, "SD": 18, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "SO": 23, "ST": 25,
	"SV": 28, "TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
	"YE": 30,
}

var ibanStartRe = regexp.MustCompile(`[A-Z]{2}\d{2}`)

// findIBANs finds IBANs written whole or in groups of four separated by
// single spaces or dashes, checked by length for the country and mod 97.
func findIBANs(_ *Detector, text string, c *collector) {
	for _, m := range ibanStartRe.FindAllStringIndex(text, c.d.max+1) {
		if !c.take() {
			return
		}
		s := m[0]
		if alnumBefore(text, s) {
			continue
		}
		n := ibanLen[text[s:s+2]]
		if n == 0 {
			continue
		}
		e, code, ok := ibanSpan(text, s, n)
		if ok && mod97(code) {
			c.add(TypeIBAN, s, e, 0.95)
		}
	}
}

// ibanSpan walks n characters of an IBAN from s, allowing one separator
// (the same throughout) after every group of four, and returns where it
// ends and its characters without separators.
func ibanSpan(text string, s, n int) (end int, code []byte, ok bool) {
	code = make([]byte, 0, n)
	sep := byte(0)
	i := s
	for len(code) < n {
		if len(code) > 0 && len(code)%4 == 0 {
			b := byteAt(text, i)
			if len(code) == 4 && (b == ' ' || b == '-') {
				sep = b
			}
			if sep != 0 {
				if b != sep {
					return 0, nil, false
				}
				i++
			}
		}
		b := byteAt(text, i)
		if !isDigit(b) && (b < 'A' || b > 'Z') {
			return 0, nil, false
		}
		code = append(code, b)
		i++
	}
	if alnumAfter(text, i) {
		return 0, nil, false
	}
	return i, code, true
}

// mod97 reports whether an IBAN passes ISO 7064 mod 97-10.
func mod97(code []byte) bool {
	r := 0
	for _, b := range append(code[4:len(code):len(code)], code[:4]...) {
		if isDigit(b) {
			r = (r*10 + int(b-'0')) % 97
		} else {
			r = (r*100 + int(b-'A'+10)) % 97
		}
	}
	return r == 1
}

// Bitcoin addresses: legacy and script addresses in Base58Check, segwit
// addresses in bech32 (version 0) or bech32m (later versions), each checked
// by its checksum.
var (
	base58AddrRe = regexp.MustCompile(`[13][1-9A-HJ-NP-Za-km-z]{25,34}`)
	bech32AddrRe = regexp.MustCompile(`(?:bc1|BC1)[ac-hj-np-zAC-HJ-NP-Z02-9]{8,87}`)
)

func findCrypto(_ *Detector, text string, c *collector) {
	for _, re := range []*regexp.Regexp{base58AddrRe, bech32AddrRe} {
		if re == bech32AddrRe && !strings.Contains(text, "bc1") && !strings.Contains(text, "BC1") {
			continue
		}
		for _, m := range re.FindAllStringIndex(text, c.d.max+1) {
			if !c.take() {
				return
			}
			s, e := m[0], m[1]
			if alnumBefore(text, s) || alnumAfter(text, e) {
				continue
			}
			a := text[s:e]
			if (a[0] == '1' || a[0] == '3') && base58Check(a) || bech32Check(a) {
				c.add(TypeCrypto, s, e, 0.9)
			}
		}
	}
}

const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// base58Check reports whether a is a Base58Check P2PKH or P2SH address.
func base58Check(a string) bool {
	n := new(big.Int)
	radix := big.NewInt(58)
	for i := 0; i < len(a); i++ {
		v := strings.IndexByte(base58Alphabet, a[i])
		if v < 0 {
			return false
		}
		n.Mul(n, radix).Add(n, big.NewInt(int64(v)))
	}
	raw := n.Bytes()
	for i := 0; i < len(a) && a[i] == '1'; i++ {
		raw = append([]byte{0}, raw...)
	}
	if len(raw) != 25 || (raw[0] != 0x00 && raw[0] != 0x05) {
		return false
	}
	h1 := sha256.Sum256(raw[:21])
	h2 := sha256.Sum256(h1[:])
	return string(h2[:4]) == string(raw[21:])
}

const bech32Charset = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"

// bech32Check reports whether a is a bech32 (witness version 0) or bech32m
// (versions 1 to 16) mainnet segwit address.
func bech32Check(a string) bool {
	if strings.ToLower(a) != a && strings.ToUpper(a) != a {
		return false
	}
	a = strings.ToLower(a)
	if !strings.HasPrefix(a, "bc1") || len(a) < 14 || len(a) > 90 {
		return false
	}
	data := make([]int, 0, len(a)-3)
	for i := 3; i < len(a); i++ {
		v := strings.IndexByte(bech32Charset, a[i])
		if v < 0 {
			return false
		}
		data = append(data, v)
	}
	values := []int{3, 3, 0, 2, 3} // "bc" expanded
	chk := bech32Polymod(append(values, data...))
	version := data[0]
	switch {
	case version == 0:
		return chk == 1 && (len(a) == 42 || len(a) == 62)
	case version <= 16:
		return chk == 0x2bc830a3
	}
	return false
}

func bech32Polymod(values []int) int {
	gen := [5]int{0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3}
	chk := 1
	for _, v := range values {
		top := chk >> 25
		chk = (chk&0x1ffffff)<<5 ^ v
		for i := range 5 {
			if (top>>i)&1 == 1 {
				chk ^= gen[i]
			}
		}
	}
	return chk
}
