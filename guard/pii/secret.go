package pii

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"regexp"
	"strings"
)

// Keys and tokens whose format their vendor fixed: AWS access key ids,
// GitHub tokens, Slack tokens and webhooks, Stripe secret and restricted
// keys and webhook secrets, OpenAI and Anthropic keys, Google API keys.
var vendorKeyRe = regexp.MustCompile(`\b(?:` +
	`(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|APKA|AROA|ASCA)[A-Z0-9]{16}` +
	`|(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,}` +
	`|github_pat_[A-Za-z0-9_]{22,}` +
	`|xox[abposr]-[A-Za-z0-9-]{10,}` +
	`|xapp-\d-[A-Za-z0-9-]{10,}` +
	`|(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}` +
	`|whsec_[A-Za-z0-9+/=]{24,}` +
	`|sk-(?:proj-|svcacct-|admin-|ant-[a-z]+\d\d-)?[A-Za-z0-9_-]{20,}` +
	`|AIza[0-9A-Za-z_-]{35}` +
	`)\b|https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9/_-]{20,}`)

// JSON Web Tokens: three base64url parts, the first two JSON objects.
var jwtRe = regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{0,}`)

// Bearer tokens in an Authorization header or in prose.
var bearerRe = regexp.MustCompile(`(?i)\bbearer[ \t]+([A-Za-z0-9._~+/-]{20,}=*)`)

// PEM private key blocks, to their END line or, when the text was cut
// before it, to the end of the base64 that follows the BEGIN line.
var pemBeginRe = regexp.MustCompile(`-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----`)

// A value assigned to a name that says it is a secret: api_key=…,
// "client_secret": "…", GITHUB_TOKEN: …, password is …. The value is
// reported only when it looks random (see highEntropy), so that a hash or a
// word in ordinary prose is not taken for a secret.
var (
	secretWords     = []string{"key", "token", "secret", "password", "passwd", "pwd", "credential", "auth"}
	assignedValueRe = regexp.MustCompile(`^[\w.-]{0,20}["']?[ \t]{0,3}(?:=>|:=|[:=]|[ \t][iI][sS])[ \t]{0,3}["']?([A-Za-z0-9+/_=.~-]{16,})`)
)

// vendorMarks are literal parts of vendorKeyRe; text without any of them
// cannot match it.
var vendorMarks = []string{"AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AIPA", "ANPA", "ANVA", "APKA", "AROA", "ASCA",
	"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xox", "xapp-", "sk_", "rk_", "whsec_", "sk-", "AIza", "hooks.slack.com"}

func findSecrets(_ *Detector, text string, c *collector) {
	for _, m := range pemBeginRe.FindAllStringIndex(text, c.d.max+1) {
		if !c.take() {
			return
		}
		c.add(TypePrivateKey, m[0], pemEnd(text, m[1]), 1.0)
	}
	if containsAny(text, vendorMarks) {
		for _, m := range vendorKeyRe.FindAllStringIndex(text, c.d.max+1) {
			if !c.take() {
				return
			}
			s, e := m[0], m[1]
			if strings.HasPrefix(text[s:e], "sk-") && !mixedClasses(text[s+3:e]) {
				continue
			}
			c.add(TypeAPIKey, s, e, 0.95)
		}
	}
	if strings.Contains(text, "eyJ") {
		for _, m := range jwtRe.FindAllStringIndex(text, c.d.max+1) {
			if !c.take() {
				return
			}
			if jwtHeader(text[m[0]:m[1]]) {
				c.add(TypeJWT, m[0], m[1], 0.9)
			}
		}
	}
	if strings.Contains(text, "earer") || strings.Contains(text, "EARER") {
		for _, m := range bearerRe.FindAllStringSubmatchIndex(text, c.d.max+1) {
			if !c.take() {
				return
			}
			if highEntropy(text[m[2]:m[3]]) {
				c.add(TypeAPIKey, m[2], m[3], 0.8)
			}
		}
	}
	if !strings.ContainsAny(text, ":=") && !strings.Contains(text, " is") && !strings.Contains(text, " IS") {
		return
	}
	lower := asciiLower(text)
	for _, w := range secretWords {
		for i := 0; i < len(lower); {
			j := strings.Index(lower[i:], w)
			if j < 0 {
				break
			}
			at := i + j + len(w)
			i = at
			if !c.take() {
				return
			}
			m := assignedValueRe.FindStringSubmatchIndex(text[at:min(len(text), at+1024)])
			if m == nil {
				continue
			}
			s, e := at+m[2], at+m[3]
			if alnumAfter(text, e) {
				continue
			}
			v := strings.TrimRight(text[s:e], ".")
			if highEntropy(v) {
				c.add(TypeAPIKey, s, s+len(v), 0.7)
			}
		}
	}
}

// asciiLower lowers the ASCII letters of s, keeping every byte where it is.
func asciiLower(s string) string {
	b := []byte(s)
	for i, x := range b {
		if 'A' <= x && x <= 'Z' {
			b[i] = x + 'a' - 'A'
		}
	}
	return string(b)
}

func containsAny(s string, subs []string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// pemEnd returns where the block whose BEGIN line ends at i ends.
func pemEnd(text string, i int) int {
	if j := strings.Index(text[i:], "-----END "); j >= 0 {
		k := i + j + len("-----END ")
		if l := strings.Index(text[k:], "-----"); l >= 0 && l <= 60 && strings.Contains(text[k:k+l], "PRIVATE KEY") &&
			!strings.Contains(text[i:i+j], "-----BEGIN ") {
			return k + l + len("-----")
		}
	}
	e := i
	for e < len(text) {
		b := text[e]
		if b == '\n' || b == '\r' || b == ' ' || b == '\t' || b == '+' || b == '/' || b == '=' || b == ':' || b == ',' || b == '-' ||
			isDigit(b) || (b|0x20 >= 'a' && b|0x20 <= 'z') {
			if b == '-' && strings.HasPrefix(text[e:], "-----") {
				break
			}
			e++
			continue
		}
		break
	}
	for e > i && (text[e-1] == '\n' || text[e-1] == '\r' || text[e-1] == ' ' || text[e-1] == '\t') {
		e--
	}
	return e
}

// jwtHeader reports whether the first part of a token decodes to a JSON
// object that names its algorithm or type.
func jwtHeader(tok string) bool {
	head, _, _ := strings.Cut(tok, ".")
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(head, "="))
	if err != nil {
		return false
	}
	var h map[string]any
	if json.Unmarshal(raw, &h) != nil {
		return false
	}
	_, alg := h["alg"]
	_, typ := h["typ"]
	return alg || typ
}

// highEntropy reports whether v looks like a random key rather than a word,
// a name or a number: 16 characters or more, letters and digits both, the
// kind of character changing often, and at least 3 bits of Shannon entropy
// per character (random hex has nearly 4, base64 nearly 6).
func highEntropy(v string) bool {
	if len(v) < 16 || !mixedClasses(v) {
		return false
	}
	var counts [256]int
	for i := 0; i < len(v); i++ {
		counts[v[i]]++
	}
	h := 0.0
	for _, n := range counts {
		if n > 0 {
			p := float64(n) / float64(len(v))
			h -= p * math.Log2(p)
		}
	}
	return h >= 3.0
}

// mixedClasses reports whether v has letters and digits and changes between
// lower case, upper case, digits and other characters at least every third
// character on average, as random strings do and identifiers do not.
func mixedClasses(v string) bool {
	class := func(b byte) int {
		switch {
		case isDigit(b):
			return 0
		case b >= 'a' && b <= 'z':
			return 1
		case b >= 'A' && b <= 'Z':
			return 2
		}
		return 3
	}
	var seen [4]bool
	changes := 0
	for i := 0; i < len(v); i++ {
		seen[class(v[i])] = true
		if i > 0 && class(v[i]) != class(v[i-1]) {
			changes++
		}
	}
	return seen[0] && (seen[1] || seen[2]) && float64(changes) >= float64(len(v)-1)/3
}
