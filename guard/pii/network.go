package pii

import (
	"net/netip"
	"regexp"
	"strconv"
	"strings"
)

// IP addresses: candidates are dotted quads and runs of hex digits, colons
// and dots with at least two colons, each with an optional zone and prefix
// length; net/netip decides which are addresses.
var (
	ipv4Re = regexp.MustCompile(`\d{1,3}(?:\.\d{1,3}){3}(?:/\d{1,3})?`)
	ipv6Re = regexp.MustCompile(`[0-9A-Fa-f.]*:[0-9A-Fa-f.]*:[0-9A-Fa-f:.]*(?:%[0-9A-Za-z_.\-]+)?(?:/\d{1,4})?`)
)

func findIPs(_ *Detector, text string, c *collector) {
	if strings.Contains(text, ".") {
		for _, m := range c.matches(ipv4Re, c.numberRuns()) {
			if !c.take() {
				return
			}
			if s, e, ok := ipSpan(text, m[0], m[1], false); ok {
				c.add(TypeIP, s, e, 0.8)
			}
		}
	}
	if strings.Contains(text, "::") || strings.Count(text, ":") >= 2 {
		for _, m := range c.matches(ipv6Re, v6Spans(text)) {
			if !c.take() {
				return
			}
			s, e := m[0], m[1]
			if strings.HasPrefix(text[s:e], ":") && !strings.HasPrefix(text[s:e], "::") {
				s++ // the colon ends a label before the address ("addr:fe80::1")
			}
			if s, e, ok := ipSpan(text, s, e, true); ok {
				score := 0.8
				if text[s:e] == "::" {
					score = 0.3 // the unspecified address, or punctuation
				}
				c.add(TypeIP, s, e, score)
			}
		}
	}
}

// ipSpan validates the candidate text[s:e] and returns the span of the
// address it holds, with its prefix length when that is valid. A trailing
// dot or colon is taken as punctuation when the candidate is not an address
// with it.
func ipSpan(text string, s, e int, v6 bool) (int, int, bool) {
	if alnumBefore(text, s) || alnumAfter(text, e) {
		return 0, 0, false
	}
	cand := text[s:e]
	prefix := ""
	if i := strings.LastIndexByte(cand, '/'); i >= 0 {
		cand, prefix = cand[:i], cand[i+1:]
	}
	addrEnd := s + len(cand)
	addr, err := netip.ParseAddr(cand)
	if err != nil && len(cand) > 2 && (cand[len(cand)-1] == '.' || cand[len(cand)-1] == ':' && cand[len(cand)-2] != ':') {
		cand = cand[:len(cand)-1]
		addrEnd--
		prefix = ""
		addr, err = netip.ParseAddr(cand)
	}
	if err != nil || addr.Is6() != v6 {
		return 0, 0, false
	}
	if v6 && !strings.Contains(cand, ":") {
		return 0, 0, false
	}
	if prefix != "" {
		bits, err := strconv.Atoi(prefix)
		if err == nil && bits <= addr.BitLen() && !isDigit(byteAt(text, e)) {
			return s, e, true
		}
	}
	return s, addrEnd, true
}

// MAC addresses: six hex pairs joined by colons or by dashes, or three
// groups of four joined by dots. The broadcast and all-zero addresses name
// no device and are not reported.
var macRe = regexp.MustCompile(`(?i)[0-9a-f]{2}(?::[0-9a-f]{2}){5}|[0-9a-f]{2}(?:-[0-9a-f]{2}){5}|[0-9a-f]{4}\.[0-9a-f]{4}\.[0-9a-f]{4}`)

func findMACs(_ *Detector, text string, c *collector) {
	if strings.Count(text, ":") < 5 && strings.Count(text, "-") < 5 && strings.Count(text, ".") < 2 {
		return
	}
	macByte := func(b byte) bool { return isHex(b) || b == ':' || b == '-' || b == '.' }
	for _, m := range c.matches(macRe, spansOf(text, macByte, 14)) {
		if !c.take() {
			return
		}
		s, e := m[0], m[1]
		if alnumBefore(text, s) || alnumAfter(text, e) {
			continue
		}
		if b := byteAt(text, e); (b == ':' || b == '-' || b == '.') && alnumAfter(text, e+1) {
			continue
		}
		if b := byteAt(text, s-1); (b == ':' || b == '-' || b == '.') && alnumBefore(text, s-1) {
			continue
		}
		hex := strings.ToLower(strings.NewReplacer(":", "", "-", "", ".", "").Replace(text[s:e]))
		if hex == "ffffffffffff" || hex == "000000000000" {
			continue
		}
		score := 0.8
		if text[s+4] == '.' {
			score = 0.6
		}
		c.add(TypeMAC, s, e, score)
	}
}

// v6Spans returns the runs of hex digits, colons, dots and slashes that
// hold two colons, each with the zone that may follow it: the only places
// ipv6Re can match.
func v6Spans(text string) [][2]int {
	in := func(b byte) bool { return isHex(b) || b == ':' || b == '.' || b == '/' }
	var out [][2]int
	for _, sp := range spansOf(text, in, 2) {
		if strings.Count(text[sp[0]:sp[1]], ":") < 2 {
			continue
		}
		if byteAt(text, sp[1]) == '%' {
			sp[1]++
			for sp[1] < len(text) && (isAlnum(text[sp[1]]) || strings.IndexByte("_.-/", text[sp[1]]) >= 0) {
				sp[1]++
			}
		}
		out = append(out, sp)
	}
	return out
}
