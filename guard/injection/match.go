package injection

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Match is what a rule found: its id, the bytes [Start, End) of the
// original text it covers, and what it saw there.
type Match struct {
	Rule   string
	Start  int
	End    int
	Detail string
}

// Bounds of the decoding of encoded payloads.
const (
	maxDecodeDepth = 2       // a payload inside a payload is decoded; one more level is not
	maxBlobs       = 16      // encoded blobs decoded per text
	maxBlobBytes   = 1 << 16 // longer blobs are not decoded
	maxSignals     = 8       // signal matches reported per kind
	detailMax      = 120     // bytes of matched text quoted in a Detail
)

// Rules returns what the rules find in text, in order of position. It
// never fails; text that is not valid UTF-8 is read with each bad byte as
// U+FFFD.
func Rules(text string) []Match {
	v, h := fold(text)
	return rules(text, &v, &h, 0)
}

func rules(text string, v *view, h *hidden, depth int) []Match {
	out := matchPatterns(nil, v, patterns, func(p *pattern, m string) string {
		return p.detail + ": " + quote(m)
	})
	sq := squash(v)
	for _, m := range matchPatterns(nil, &sq, squashedPatterns, func(p *pattern, m string) string {
		return "spaced out or split: " + quote(m) + " (" + p.rule + ")"
	}) {
		if !overlaps(out, m) {
			m.Rule = RuleSplit
			out = append(out, m)
		}
	}
	for k, t := range h.tags {
		if flagTags(text, t) {
			continue
		}
		d := "invisible tag characters spell " + quote(h.tagText[k])
		if sub := Rules(h.tagText[k]); decisive(sub) {
			d += " (" + sub[0].Rule + ")"
		}
		out = append(out, Match{Rule: RuleHiddenText, Start: t.start, End: t.end, Detail: d})
	}
	if depth < maxDecodeDepth {
		out = append(out, encoded(text, v, depth)...)
	}
	out = appendSignals(out, text, SignalInvisible, wordInternal(text, h.invisible), "invisible characters inside a word")
	out = appendSignals(out, text, SignalBidi, h.bidi, "bidirectional control characters")
	out = appendSignals(out, text, SignalMixed, h.mixed, "a word mixing Latin letters with look-alikes of other scripts")
	return dedupe(out)
}

// decisive reports whether ms holds a match that is not a signal.
func decisive(ms []Match) bool {
	for _, m := range ms {
		if !Signal(m.Rule) {
			return true
		}
	}
	return false
}

func overlaps(ms []Match, m Match) bool {
	for _, x := range ms {
		if x.Start < m.End && m.Start < x.End && !Signal(x.Rule) {
			return true
		}
	}
	return false
}

// dedupe sorts matches by position and drops a match that another match of
// the same rule contains.
func dedupe(ms []Match) []Match {
	sort.SliceStable(ms, func(i, j int) bool {
		if ms[i].Start != ms[j].Start {
			return ms[i].Start < ms[j].Start
		}
		return ms[i].End > ms[j].End
	})
	out := ms[:0]
	for _, m := range ms {
		dup := false
		for _, x := range out {
			if x.Rule == m.Rule && x.Start <= m.Start && m.End <= x.End {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, m)
		}
	}
	return out
}

// flagTags reports whether a run of tag characters is an emoji flag of a
// region (U+1F3F4 followed by tag letters and U+E007F), their one ordinary
// use.
func flagTags(text string, t runeSpan) bool {
	return strings.HasSuffix(text[:t.start], "\U0001F3F4") && strings.HasSuffix(text[t.start:t.end], "\U000E007F") && t.end-t.start <= 4*8
}

// wordInternal keeps the invisible characters that sit between two letters
// or digits (where they split a word for a filter but not for a reader).
func wordInternal(text string, spans []runeSpan) []runeSpan {
	var out []runeSpan
	for _, s := range spans {
		before, _ := utf8.DecodeLastRuneInString(text[:s.start])
		after, _ := utf8.DecodeRuneInString(text[s.end:])
		if (unicode.IsLetter(before) || unicode.IsDigit(before)) && (unicode.IsLetter(after) || unicode.IsDigit(after)) {
			out = append(out, s)
		}
	}
	return out
}

// appendSignals appends one match per run of adjacent spans, at most
// maxSignals.
func appendSignals(out []Match, text, rule string, spans []runeSpan, what string) []Match {
	n := 0
	for i := 0; i < len(spans) && n < maxSignals; n++ {
		s, count := spans[i], 1
		for i++; i < len(spans) && spans[i].start <= s.end+4; i++ {
			s.end = spans[i].end
			count++
		}
		out = append(out, Match{Rule: rule, Start: s.start, End: s.end, Detail: fmt.Sprintf("%s (%d)", what, count)})
	}
	return out
}

// runs returns the spans of text, at most maxBlobs, that are runs of at
// least minLen bytes for which in reports true.
func runs(text string, minLen int, in func(c byte) bool) [][2]int {
	var out [][2]int
	for i := 0; i < len(text) && len(out) < maxBlobs; {
		if !in(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && in(text[j]) {
			j++
		}
		if j-i >= minLen {
			out = append(out, [2]int{i, j})
		}
		i = j
	}
	return out
}

func base64Byte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '_' || c == '-' || c == '='
}

// hexByte reports the bytes of hex dumps: digits, the separators space,
// colon and comma, and the x of \x and 0x.
func hexByte(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' || c == ' ' || c == ':' || c == ',' || c == '\\' || c == 'x'
}

// rot13Keywords are keywords of the patterns, rot13-encoded: text that
// holds none of them holds no rot13 injection the patterns could find.
var rot13Keywords = []string{rot13("ignor"), rot13("disregard"), rot13("forget"), rot13("prompt"), rot13("instruction"), rot13("anything now"), rot13("mode"), rot13("vergiss"), rot13("anweisung")}

// encoded decodes the base64, hex and rot13 in text and checks what they
// decode to with the rules.
func encoded(text string, v *view, depth int) []Match {
	var out []Match
	blobs := 0
	check := func(kind string, start, end int, decoded []byte) {
		if !utf8.Valid(decoded) || !printable(decoded) {
			return
		}
		dt := string(decoded)
		dv, dh := fold(dt)
		sub := rules(dt, &dv, &dh, depth+1)
		for _, m := range sub {
			if !Signal(m.Rule) {
				out = append(out, Match{Rule: RuleEncoded, Start: start, End: end,
					Detail: kind + " that decodes to text with " + m.Rule + ": " + quote(dt)})
				return
			}
		}
	}
	for _, loc := range runs(text, 16, base64Byte) {
		if blobs >= maxBlobs || loc[1]-loc[0] > maxBlobBytes {
			continue
		}
		s := strings.TrimRight(text[loc[0]:loc[1]], "=")
		if !mixedCase(s) {
			continue
		}
		blobs++
		enc := base64.RawStdEncoding
		if strings.ContainsAny(s, "-_") {
			enc = base64.RawURLEncoding
		}
		if b, err := enc.DecodeString(s[:len(s)/4*4+rawTail(len(s))]); err == nil {
			check("base64", loc[0], loc[1], b)
		}
	}
	for _, loc := range runs(text, 16, hexByte) {
		if blobs >= maxBlobs || loc[1]-loc[0] > maxBlobBytes {
			continue
		}
		s := strings.NewReplacer(`\x`, "", "0x", "", " ", "", ":", "", ",", "").Replace(text[loc[0]:loc[1]])
		if len(s) < 16 || strings.ContainsAny(s, "x\\") {
			continue // a run of spaces and words, or a stray x: not a hex dump
		}
		blobs++
		if b, err := hex.DecodeString(s[:len(s)/2*2]); err == nil {
			check("hex", loc[0], loc[1], b)
		}
	}
	if depth == 0 && hasAny(v.s, rot13Keywords) {
		r := rot13(text)
		rv, rh := fold(r)
		for _, m := range matchPatterns(nil, &rv, patterns, func(p *pattern, m string) string { return quote(m) }) {
			_ = rh
			out = append(out, Match{Rule: RuleEncoded, Start: m.Start, End: m.End,
				Detail: "rot13 that decodes to text with " + m.Rule + ": " + m.Detail})
		}
	}
	return out
}

// rawTail is how many characters of an unpadded base64 tail of n
// characters decode (a tail of one character does not).
func rawTail(n int) int {
	if n%4 == 1 {
		return 0
	}
	return n % 4
}

// mixedCase reports whether s has lower and upper case letters or digits
// mixed in the way base64 has: plain words and identifiers do not.
func mixedCase(s string) bool {
	var lo, up, dig bool
	for i := 0; i < len(s); i++ {
		c := s[i]
		lo = lo || 'a' <= c && c <= 'z'
		up = up || 'A' <= c && c <= 'Z'
		dig = dig || '0' <= c && c <= '9' || c == '+' || c == '/'
	}
	return lo && up || (lo || up) && dig
}

// printable reports whether b is mostly text: at least 90% of its runes
// are letters, digits, punctuation or white space.
func printable(b []byte) bool {
	if len(b) < 8 {
		return false
	}
	n, ok := 0, 0
	for _, r := range string(b) {
		n++
		if unicode.IsPrint(r) || unicode.IsSpace(r) {
			ok++
		}
	}
	return ok*10 >= n*9
}

func rot13(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case 'a' <= c && c <= 'z':
			b[i] = 'a' + (c-'a'+13)%26
		case 'A' <= c && c <= 'Z':
			b[i] = 'A' + (c-'A'+13)%26
		}
	}
	return string(b)
}

// quote quotes at most detailMax bytes of s.
func quote(s string) string {
	if len(s) > detailMax {
		cut := detailMax
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return fmt.Sprintf("%q", s)
}
