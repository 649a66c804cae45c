package pii

import (
	"net/netip"
	"net/url"
	"regexp"
	"strings"

	"github.com/nyaruka/phonenumbers"
)

// Email addresses: a dotted local part of the characters people use
// (letters, digits, _ % + -) and a domain whose last label is alphabetic or
// an IDNA label (xn--).
var emailRe = regexp.MustCompile(`[A-Za-z0-9_%+-]+(?:\.[A-Za-z0-9_%+-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z][A-Za-z0-9-]{0,61}[A-Za-z0-9]`)

func findEmails(_ *Detector, text string, c *collector) {
	if !strings.Contains(text, "@") {
		return
	}
	for _, m := range emailRe.FindAllStringIndex(text, c.d.max+1) {
		if !c.take() {
			return
		}
		s, e := m[0], m[1]
		if alnumBefore(text, s) || byteAt(text, s-1) == '.' || alnumAfter(text, e) {
			continue
		}
		if !alphaTLD(text[strings.LastIndexByte(text[s:e], '.')+s+1 : e]) {
			continue
		}
		c.add(TypeEmail, s, e, 0.9)
	}
}

// alphaTLD reports whether a top-level label is a plausible one: letters
// only, or an IDNA label.
func alphaTLD(l string) bool {
	if strings.HasPrefix(strings.ToLower(l), "xn--") {
		return len(l) > 4
	}
	for i := 0; i < len(l); i++ {
		if b := l[i] | 0x20; b < 'a' || b > 'z' {
			return false
		}
	}
	return len(l) >= 2
}

// URLs with a scheme; the match is cut back to the URL by trimURL.
var schemeURLRe = regexp.MustCompile("(?i)\\b(?:https?|ftps?|sftp|ssh|wss?|git|s3|postgres(?:ql)?|mysql|mongodb(?:\\+srv)?|rediss?|amqps?|smb|ldaps?)://[^\\s<>\"'`{}|\\\\^]+")

// Bare domains, with an optional path. Only the top-level domains in
// bareTLDs count, so that file names (report.pdf, main.py, README.md) do not.
var bareURLRe = regexp.MustCompile(`(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,13}(?:/[^\s<>"'` + "`" + `{}|\\^]*)?`)

var bareTLDs = func() map[string]bool {
	m := map[string]bool{}
	for _, t := range strings.Fields(`com net org edu gov mil int info biz name pro io ai app dev co me tv
		us uk ca au nz ie de fr it es nl be ch at se no dk fi pt gr cz hu ro ru ua cn jp kr tw hk sg
		in il za br mx ar cl eu asia site online tech store xyz cloud blog news shop email page link
		live world today club design agency digital media network systems solutions services company group`) {
		m[t] = true
	}
	return m
}()

// secretParam names query parameters whose value is a credential.
var secretParam = regexp.MustCompile(`(?i)(?:^|[_-])(?:key|api[_-]?key|token|secret|password|passwd|pwd|sig|signature|access[_-]?token|auth)$`)

func findURLs(_ *Detector, text string, c *collector) {
	if strings.Contains(text, "://") {
		for _, m := range schemeURLRe.FindAllStringIndex(text, c.d.max+1) {
			if !c.take() {
				return
			}
			s, e := m[0], trimURL(text, m[0], m[1])
			typ, score, ok := classifyURL(text[s:e])
			if ok {
				c.add(typ, s, e, score)
			}
		}
	}
	if !strings.Contains(text, ".") {
		return
	}
	for _, m := range bareURLRe.FindAllStringIndex(text, c.d.max+1) {
		if !c.take() {
			return
		}
		s, e := m[0], trimURL(text, m[0], m[1])
		if b := byteAt(text, s-1); alnumBefore(text, s) || b == '@' || b == '.' || b == '/' || b == ':' || b == '-' || b == '_' {
			continue
		}
		host := text[s:e]
		if i := strings.IndexByte(host, '/'); i >= 0 {
			host = host[:i]
		}
		if alnumAfter(text, s+len(host)) || byteAt(text, s+len(host)) == '@' {
			continue
		}
		tld := strings.ToLower(host[strings.LastIndexByte(host, '.')+1:])
		if !bareTLDs[tld] {
			continue
		}
		c.add(TypeURL, s, e, 0.5)
	}
}

// trimURL drops the punctuation that ends the sentence around a URL, and a
// closing bracket that the URL did not open.
func trimURL(text string, s, e int) int {
	for e > s {
		switch text[e-1] {
		case '.', ',', ';', ':', '!', '?':
			e--
			continue
		case ')', ']':
			open := byte('(')
			if text[e-1] == ']' {
				open = '['
			}
			if strings.Count(text[s:e], string(open)) < strings.Count(text[s:e], string(text[e-1])) {
				e--
				continue
			}
		}
		break
	}
	return e
}

// classifyURL says whether u is a URL worth reporting, and whether it
// carries credentials: a password in its user information, or a query
// parameter named like a key, token, secret or signature.
func classifyURL(u string) (typ string, score float64, ok bool) {
	rest := u[strings.Index(u, "://")+3:]
	auth := rest
	if i := strings.IndexAny(auth, "/?#"); i >= 0 {
		auth = auth[:i]
	}
	host := auth
	creds := false
	if i := strings.LastIndexByte(auth, '@'); i >= 0 {
		user := auth[:i]
		host = auth[i+1:]
		if j := strings.IndexByte(user, ':'); j >= 0 && j < len(user)-1 {
			creds = true
		}
	}
	if !creds {
		if q := strings.IndexByte(rest, '?'); q >= 0 {
			for _, kv := range strings.FieldsFunc(rest[q+1:], func(r rune) bool { return r == '&' || r == ';' || r == '#' }) {
				k, v, _ := strings.Cut(kv, "=")
				if v != "" && secretParam.MatchString(k) {
					creds = true
					break
				}
			}
		}
	}
	if creds {
		return TypeURLCredentials, 0.95, host != ""
	}
	return TypeURL, 0.6, validHost(host)
}

// validHost reports whether host (with an optional port) names a host on a
// network: a dotted domain name ending in an alphabetic label, localhost,
// or an IP address.
func validHost(hp string) bool {
	host := hp
	if strings.HasPrefix(hp, "[") {
		end := strings.IndexByte(hp, ']')
		if end < 0 {
			return false
		}
		_, err := netip.ParseAddr(hp[1:end])
		return err == nil
	}
	if i := strings.LastIndexByte(hp, ':'); i >= 0 {
		host = hp[:i]
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return true
	}
	if _, err := url.Parse("http://" + host); err != nil {
		return false
	}
	dot := strings.LastIndexByte(host, '.')
	return dot > 0 && alphaTLD(host[dot+1:])
}

// Phone numbers: runs of digits with the separators people write, starting
// with +, ( or a digit. A run is cut at spaces into tokens and the longest
// stretch of tokens that is a valid number is taken, so two numbers written
// side by side are two entities.
var (
	phoneRunRe  = regexp.MustCompile(`[+(]?\d[\d\-./() ]*\d`)
	phoneDateRe = regexp.MustCompile(`^(?:\d{4}[-./]\d{1,2}[-./]\d{1,2}|\d{1,2}[-./]\d{1,2}[-./]\d{2,4})$`)
	phoneIPv4Re = regexp.MustCompile(`^\d{1,3}(?:\.\d{1,3}){3}$`)
)

const maxPhoneTokens = 7

func findPhones(d *Detector, text string, c *collector) {
	for _, m := range phoneRunRe.FindAllStringIndex(text, c.d.max+1) {
		toks := tokens(text, m[0], m[1])
		// A number of several tokens starts where the run starts, after a
		// number just found, or at a + or (; elsewhere a token is tried
		// alone, so the tail of a longer figure is not taken for a number.
		anchored := true
		for i := 0; i < len(toks); {
			found := false
			if b := text[toks[i][0]]; b == '+' || b == '(' {
				anchored = true
			}
			last := i
			if anchored {
				last = min(len(toks), i+maxPhoneTokens) - 1
			}
			for j := last; j >= i; j-- {
				s, e := toks[i][0], toks[j][1]
				n := len(digitsOf(text[s:e]))
				if n < 7 || n > 17 {
					continue
				}
				if !c.take() {
					return
				}
				if score, ok := d.phone(text, s, e); ok {
					c.add(TypePhone, s, e, score)
					i, found = j+1, true
					break
				}
			}
			anchored = found
			if !found {
				i++
			}
		}
	}
}

// tokens returns the space-separated [start, end) pieces of text[s:e].
func tokens(text string, s, e int) [][2]int {
	var out [][2]int
	for i := s; i < e; {
		for i < e && text[i] == ' ' {
			i++
		}
		j := i
		for j < e && text[j] != ' ' {
			j++
		}
		if j > i {
			out = append(out, [2]int{i, j})
		}
		i = j
	}
	return out
}

// phone reports whether text[s:e] is a valid phone number, and its score:
// 0.7 written with its country code, 0.5 written with separators, 0.3 as a
// bare run of digits.
func (d *Detector) phone(text string, s, e int) (float64, bool) {
	if letterBefore(text, s) || letterAfter(text, e) || isDigit(byteAt(text, e)) || isDigit(byteAt(text, s-1)) {
		return 0, false
	}
	cand := text[s:e]
	if strings.Count(cand, "(") != strings.Count(cand, ")") || strings.Count(cand, "/") > 1 {
		return 0, false
	}
	if strings.HasSuffix(cand, "(") || phoneDateRe.MatchString(cand) || phoneIPv4Re.MatchString(cand) {
		return 0, false
	}
	if strings.Contains(cand, ".") {
		// Dots separate groups of digits (415.555.0132), never a decimal
		// fraction (3.14159265).
		groups := strings.Split(cand, ".")
		if len(groups) < 3 {
			return 0, false
		}
		for _, g := range groups {
			if len(strings.Trim(g, " ()-")) < 2 {
				return 0, false
			}
		}
	}
	if cand[0] == '+' {
		if !validPhone(cand, "ZZ") {
			return 0, false
		}
		return 0.7, true
	}
	score := 0.3
	if strings.ContainsAny(cand, " -.()/") {
		score = 0.5
	}
	for _, r := range d.regions {
		if validPhone(cand, r) {
			return score, true
		}
	}
	return 0, false
}

// validPhone reports whether cand, read in region, is a valid number
// written as people of that region write it: the checks libphonenumber's
// matcher makes at its default leniency (VALID). A region whose numbers
// are dialled with a national prefix (Germany's 0) needs it written, so
// that an arbitrary run of digits is not a German fixed line.
func validPhone(cand, region string) bool {
	num, err := phonenumbers.ParseAndKeepRawInput(cand, region)
	if err != nil || !phonenumbers.IsValidNumber(num) {
		return false
	}
	return phonenumbers.ContainsOnlyValidXChars(num, cand) && phonenumbers.IsNationalPrefixPresentIfRequired(num)
}

func knownRegion(r string) bool {
	return phonenumbers.GetSupportedRegions()[r]
}
