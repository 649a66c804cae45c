package web

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"time"
)

// MaxRobotsBytes is how much of a robots.txt is read and parsed; RFC 9309
// asks crawlers to parse at least 500 KiB.
const MaxRobotsBytes = 512 << 10

// Robots is a parsed robots.txt (RFC 9309).
type Robots struct {
	groups []robotsGroup
}

type robotsGroup struct {
	agents     []string // lowercased product tokens, or "*"
	rules      []robotsRule
	crawlDelay time.Duration
	hasDelay   bool
}

type robotsRule struct {
	allow   bool
	pattern string // normalised
}

// ParseRobots parses a robots.txt. It never fails: lines it does not
// understand are ignored, as RFC 9309 asks, and only the first
// MaxRobotsBytes are read.
//
// Groups start with one or more User-agent lines; Allow, Disallow and
// Crawl-delay lines belong to the group above them, and rules before any
// User-agent line are ignored. Keys are case-insensitive and a few common
// misspellings of "disallow" and "user-agent" are accepted, as major
// crawlers do.
func ParseRobots(b []byte) *Robots {
	if len(b) > MaxRobotsBytes {
		b = b[:MaxRobotsBytes]
	}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	r := &Robots{}
	var cur *robotsGroup
	inAgents := false // the last meaningful line was a User-agent line
	for len(b) > 0 {
		var line []byte
		if i := bytes.IndexAny(b, "\r\n"); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			line, b = b, nil
		}
		if i := bytes.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		key, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		k := strings.ToLower(strings.TrimSpace(string(key)))
		v := strings.TrimSpace(string(value))
		switch k {
		case "user-agent", "useragent", "user agent", "user-agents":
			if !inAgents || cur == nil {
				r.groups = append(r.groups, robotsGroup{})
				cur = &r.groups[len(r.groups)-1]
			}
			inAgents = true
			cur.agents = append(cur.agents, productToken(v))
		case "allow", "disallow", "dissallow", "dissalow", "disalow", "diasllow", "disallaw":
			inAgents = false
			if cur == nil || v == "" {
				// An empty rule matches nothing: it only ends the agents.
				continue
			}
			cur.rules = append(cur.rules, robotsRule{allow: k == "allow", pattern: normalise(v)})
		case "crawl-delay", "crawl_delay", "crawldelay":
			inAgents = false
			if cur == nil {
				continue
			}
			if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 && !math.IsInf(s, 0) && !math.IsNaN(s) {
				if s > 86400 {
					s = 86400
				}
				cur.crawlDelay = time.Duration(s * float64(time.Second))
				cur.hasDelay = true
			}
		case "sitemap":
			// Sitemaps belong to no group and do not end one.
		default:
			inAgents = false
		}
	}
	return r
}

// productToken returns the lowercased product token of a User-agent value:
// its leading letters, '-' and '_' ("Googlebot/2.1" is "googlebot"), or "*".
func productToken(v string) string {
	if strings.HasPrefix(v, "*") {
		return "*"
	}
	end := 0
	for end < len(v) {
		c := v[end]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '-' || c == '_') {
			break
		}
		end++
	}
	return strings.ToLower(v[:end])
}

// Rules are the rules of a robots.txt for one crawler.
type Rules struct {
	rules []robotsRule
	// CrawlDelay is the group's Crawl-delay (0 when none).
	CrawlDelay time.Duration
}

// AllowAll is the rule set when a site has no robots.txt.
var AllowAll = &Rules{}

// DisallowAll is the rule set when a site's robots.txt is unreachable
// (RFC 9309 §2.3.1.4).
var DisallowAll = &Rules{rules: []robotsRule{{allow: false, pattern: "/"}}}

// For returns the rules for the crawler whose User-agent is agent. The
// groups naming its product token (case-insensitively) apply, merged; when
// none does, the groups for "*"; when none is, nothing is disallowed.
func (r *Robots) For(agent string) *Rules {
	token := productToken(agent)
	pick := func(name string) *Rules {
		var out *Rules
		for _, g := range r.groups {
			for _, a := range g.agents {
				if a != name || a == "" {
					continue
				}
				if out == nil {
					out = &Rules{}
				}
				out.rules = append(out.rules, g.rules...)
				if g.hasDelay && g.crawlDelay > out.CrawlDelay {
					out.CrawlDelay = g.crawlDelay
				}
				break
			}
		}
		return out
	}
	if token != "" && token != "*" {
		if rs := pick(token); rs != nil {
			return rs
		}
	}
	if rs := pick("*"); rs != nil {
		return rs
	}
	return AllowAll
}

// Allowed reports whether the rules allow a URL's path and query
// (u.EscapedPath, then '?' and the raw query if any). The longest matching
// pattern wins, an Allow winning a tie; '*' matches any run of characters
// and a final '$' the end. /robots.txt is always allowed.
func (rs *Rules) Allowed(pathQuery string) bool {
	if pathQuery == "" {
		pathQuery = "/"
	}
	if pathQuery == "/robots.txt" {
		return true
	}
	p := normalise(pathQuery)
	best, allow := -1, true
	for _, r := range rs.rules {
		n := len(r.pattern)
		if n < best || n == best && !r.allow {
			continue
		}
		if matchPattern(p, r.pattern) {
			best, allow = n, r.allow
		}
	}
	return allow
}

// matchPattern reports whether pattern matches a prefix of path ('*' any
// run, a final '$' the end of path). It runs in O(len(path)·len(pattern))
// time and O(len(path)) space.
func matchPattern(path, pattern string) bool {
	// pos holds the offsets into path the pattern so far can end at, in
	// increasing order.
	pos := make([]int, 1, 8)
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch {
		case c == '$' && i == len(pattern)-1:
			return pos[len(pos)-1] == len(path)
		case c == '*':
			from := pos[0]
			pos = pos[:0]
			for j := from; j <= len(path); j++ {
				pos = append(pos, j)
			}
		default:
			next := pos[:0]
			for _, p := range pos {
				if p < len(path) && path[p] == c {
					next = append(next, p+1)
				}
			}
			pos = next
			if len(pos) == 0 {
				return false
			}
		}
	}
	return true
}

// normalise puts a path or pattern in one form for comparison: octets
// outside printable ASCII percent-encoded, percent-encoded unreserved
// characters decoded, and hex digits upper-cased. A pattern's '*' and '$'
// are left as they are; matchPattern gives them their meaning.
func normalise(s string) string {
	const hexd = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && ishex(s[i+1]) && ishex(s[i+2]):
			v := unhex(s[i+1])<<4 | unhex(s[i+2])
			if unreserved(v) {
				b.WriteByte(v)
			} else {
				b.WriteByte('%')
				b.WriteByte(hexd[v>>4])
				b.WriteByte(hexd[v&15])
			}
			i += 2
		case c <= 0x20 || c >= 0x7f:
			b.WriteByte('%')
			b.WriteByte(hexd[c>>4])
			b.WriteByte(hexd[c&15])
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func ishex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}
