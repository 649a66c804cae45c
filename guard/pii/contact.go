package pii

import (
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"sync"

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
	for _, m := range c.matches(emailRe, around(text, '@', isLocalByte, isDomainByte)) {
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

// around returns the spans around each occurrence of sep that reach left
// over bytes for which left holds and right over those for which right
// holds, merged where they touch.
func around(text string, sep byte, left, right func(byte) bool) [][2]int {
	var out [][2]int
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], sep)
		if j < 0 {
			break
		}
		at := i + j
		s, e := at, at+1
		for s > 0 && left(text[s-1]) {
			s--
		}
		for e < len(text) && right(text[e]) {
			e++
		}
		if n := len(out); n > 0 && out[n-1][1] >= s {
			out[n-1][1] = e
		} else {
			out = append(out, [2]int{s, e})
		}
		i = e
	}
	return out
}

func isSchemeByte(b byte) bool { return isAlnum(b) || b == '+' }

// isURLByte is true of the bytes schemeURLRe lets a URL hold.
func isURLByte(b byte) bool {
	return b > ' ' && b != 0x7f && strings.IndexByte("<>\"'`{}|\\^", b) < 0
}

func isAlnum(b byte) bool { return isDigit(b) || b|0x20 >= 'a' && b|0x20 <= 'z' }

func isLocalByte(b byte) bool {
	return isAlnum(b) || b == '_' || b == '%' || b == '+' || b == '-' || b == '.'
}

func isDomainByte(b byte) bool { return isAlnum(b) || b == '-' || b == '.' }

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
		for _, m := range c.matches(schemeURLRe, around(text, ':', isSchemeByte, isURLByte)) {
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
	for _, m := range bareDomains(text, c.d.max+1) {
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

// bareDomains returns the matches of bareURLRe that end their host with a
// label of bareTLDs, found from the dots of text rather than by running the
// expression from every letter.
func bareDomains(text string, n int) [][2]int {
	var out [][2]int
	next := 0
	for i := 0; i < len(text) && len(out) < n; i++ {
		if text[i] != '.' || i < next {
			continue
		}
		j := i + 1
		for j < len(text) && (isAlnum(text[j]) || text[j] == '-') {
			j++
		}
		if j < len(text) && text[j] == '.' && j+1 < len(text) && isAlnum(text[j+1]) {
			continue // not the last label
		}
		if !bareTLDs[strings.ToLower(text[i+1:j])] {
			continue
		}
		s := i
		for s > next && isDomainByte(text[s-1]) {
			s--
		}
		m := bareURLRe.FindStringIndex(text[s:min(len(text), j+2048)])
		if m == nil || s+m[1] < j {
			continue
		}
		out = append(out, [2]int{s + m[0], s + m[1]})
		next = s + m[1]
	}
	return out
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

// notPhoneLabel names a number that is not a telephone number: a
// registration, an account, a document's reference.
var notPhoneLabel = regexp.MustCompile(`(?i)\b(company|registration|registered|reg\.?|account|acct\.?|invoice|order|reference|ref\.?|policy|contract|case|file|tax|vat|customer|member|serial|licen[cs]e|passport)\s*(number|no\.?|#|num\.?|id)?\s*[:#]?\s*$`)

// labelledNotPhone reports whether the words just before byte s label what
// follows as a number of another kind.
func labelledNotPhone(text string, s int) bool {
	from := max(s-40, 0)
	return notPhoneLabel.MatchString(text[from:s])
}

func findPhones(d *Detector, text string, c *collector) {
	for _, m := range c.matches(phoneRunRe, c.numberRuns()) {
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
				if c.covered(s, e, 0.7) {
					continue // a card, an IBAN or an address already holds it
				}
				if labelledNotPhone(text, s) {
					continue // "company number 04812233", "invoice 2024-001234"
				}
				if !c.take() {
					return
				}
				if score, ok := c.phone(text, s, e); ok {
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

type phoneVerdict struct {
	score float64
	ok    bool
}

// phone is d.phone with the verdict on a number's text kept for the rest
// of the call: a number quoted twice is parsed once.
func (c *collector) phone(text string, s, e int) (float64, bool) {
	if c.phones == nil {
		c.phones = map[string]phoneVerdict{}
	}
	if letterBefore(text, s) || letterAfter(text, e) || isDigit(byteAt(text, e)) || isDigit(byteAt(text, s-1)) {
		return 0, false
	}
	v, seen := c.phones[text[s:e]]
	if !seen {
		v.score, v.ok = c.d.phone(text, s, e)
		c.phones[text[s:e]] = v
	}
	return v.score, v.ok
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
	n := len(digitsOf(cand))
	for _, r := range d.regions {
		if d.lengths != nil && !d.lengths.fits(r, n) {
			continue
		}
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

// phoneLengths holds the lengths a national significant number may have in
// each region, from libphonenumber's metadata.
type phoneLengths map[string][]int32

var (
	lengthsOnce sync.Once
	lengthsAll  phoneLengths
)

// regionLengths returns the lengths of every region, read from the
// metadata once; nil if it cannot be read, and then every region is tried.
func regionLengths() phoneLengths {
	lengthsOnce.Do(func() {
		coll, err := phonenumbers.MetadataCollection()
		if err != nil {
			return
		}
		lengthsAll = phoneLengths{}
		for _, md := range coll.GetMetadata() {
			if l := md.GetGeneralDesc().GetPossibleLength(); len(l) > 0 {
				lengthsAll[md.GetId()] = l
			}
		}
	})
	return lengthsAll
}

// fits reports whether a number of n digits, written without a country
// code, could be valid in region r: its national significant number is the
// n digits, or what is left after a national prefix, carrier code or
// country code of up to three digits. It only spares a parse that would
// fail; a region without lengths is always tried.
func (pl phoneLengths) fits(r string, n int) bool {
	ls, ok := pl[r]
	if !ok {
		return true
	}
	for _, l := range ls {
		if d := n - int(l); d >= 0 && d <= 3 {
			return true
		}
	}
	return false
}

func knownRegion(r string) bool {
	return phonenumbers.GetSupportedRegions()[r]
}
