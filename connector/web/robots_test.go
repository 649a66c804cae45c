package web

import (
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

const googleStyle = `# comment
User-agent: *
Disallow: /search
Allow: /search/about
Disallow: /*.gif$
Disallow: /tmp/*/private
Crawl-delay: 2

User-agent: SanadBot
User-agent: otherbot
Disallow: /bots-only
Allow: /

user-agent: sanadbot
disallow: /merged
crawl-delay: 0.5

Sitemap: https://example.com/sitemap.xml
`

func TestRobotsRules(t *testing.T) {
	r := ParseRobots([]byte(googleStyle))
	for _, tc := range []struct {
		agent, path string
		want        bool
	}{
		{"AnyBot/1.0", "/", true},
		{"AnyBot/1.0", "/search", false},
		{"AnyBot/1.0", "/search?q=x", false},
		{"AnyBot/1.0", "/search/about", true},
		{"AnyBot/1.0", "/search/about/more", true},
		{"AnyBot/1.0", "/img/a.gif", false},
		{"AnyBot/1.0", "/img/a.gif?x", true},
		{"AnyBot/1.0", "/tmp/a/b/private/x", false},
		{"AnyBot/1.0", "/tmp/private", true},
		{"AnyBot/1.0", "/robots.txt", true},
		{"SanadBot/2.0 (+https://x)", "/search", true},
		{"sanadbot", "/bots-only/x", false},
		{"SANADBOT/1", "/merged", false},
		{"sanadbot", "/img/a.gif", true},
		{"otherbot", "/merged", true},
	} {
		if got := r.For(tc.agent).Allowed(tc.path); got != tc.want {
			t.Errorf("%s %s: got %v, want %v", tc.agent, tc.path, got, tc.want)
		}
	}
	if got := r.For("x").CrawlDelay; got != 2*time.Second {
		t.Errorf("got crawl delay %v for *, want 2s", got)
	}
	if got := r.For("sanadbot").CrawlDelay; got != 500*time.Millisecond {
		t.Errorf("got crawl delay %v for sanadbot, want 0.5s", got)
	}
}

func TestRobotsLongestMatchAndTies(t *testing.T) {
	for _, tc := range []struct {
		robots, path string
		want         bool
	}{
		{"User-agent: *\nAllow: /p\nDisallow: /\n", "/page", true},
		{"User-agent: *\nAllow: /folder\nDisallow: /folder\n", "/folder/x", true}, // tie: allow
		{"User-agent: *\nAllow: /page\nDisallow: /*.htm\n", "/page.htm", false},   // longer wins
		{"User-agent: *\nAllow: /$\nDisallow: /\n", "/", true},
		{"User-agent: *\nAllow: /$\nDisallow: /\n", "/page.htm", false},
		{"User-agent: *\nDisallow:\n", "/anything", true},
		{"User-agent: *\nDisallow: /fish*\n", "/fishheads", false},
		{"User-agent: *\nDisallow: /*.php$\n", "/filename.php", false},
		{"User-agent: *\nDisallow: /*.php$\n", "/filename.php?parameters", true},
		{"User-agent: *\nDisallow: /*.php$\n", "/filename.php/", true},
		{"User-agent: *\nDisallow: /fish$x\n", "/fish$x", false}, // '$' not at the end is literal
		{"Disallow: /\nUser-agent: *\nAllow: /\n", "/x", true},   // rules before any group are ignored
		{"User-agent: *\nDisallow: /%7Euser\n", "/~user/x", false},
		{"User-agent: *\nDisallow: /~user\n", "/%7euser/x", false},
		{"User-agent: *\nDisallow: /caf\u00e9\n", "/caf%C3%A9", false},
		{"User-agent: *\nDisallow: /a%2fb\n", "/a%2Fb", false},
		{"User-agent: *\nDisallow: /a%2Fb\n", "/a/b", true},
		{"\xef\xbb\xbfUser-agent: *\r\nDisallow: /x\r\n", "/x", false},
		{"User-agent: *\rDisallow: /x\r", "/x", false},
		{"User-agent: other\nDisallow: /\n", "/x", true}, // no group for us, no '*'
	} {
		if got := ParseRobots([]byte(tc.robots)).For("sanad").Allowed(tc.path); got != tc.want {
			t.Errorf("%q %s: got %v, want %v", tc.robots, tc.path, got, tc.want)
		}
	}
}

func TestRobotsTruncated(t *testing.T) {
	big := "User-agent: *\n" + strings.Repeat("# padding\n", MaxRobotsBytes/10) + "Disallow: /late\n"
	if !ParseRobots([]byte(big)).For("x").Allowed("/late") {
		t.Error("got a rule past the parse limit applied, want it ignored")
	}
}

// reference matches a robots pattern with a regular expression.
func reference(path, pattern string) bool {
	var b strings.Builder
	b.WriteString(`^`)
	end := strings.HasSuffix(pattern, "$")
	if end {
		pattern = pattern[:len(pattern)-1]
	}
	for i, part := range strings.Split(pattern, "*") {
		if i > 0 {
			b.WriteString(`(?s:.*)`)
		}
		b.WriteString(regexp.QuoteMeta(part))
	}
	if end {
		b.WriteString(`$`)
	}
	return regexp.MustCompile(b.String()).MatchString(path)
}

// FuzzRobots parses any bytes as robots.txt and checks the decisions: no
// panic, /robots.txt allowed, and every pattern matched as a regular
// expression would.
func FuzzRobots(f *testing.F) {
	f.Add([]byte(googleStyle), "/search/about", "sanadbot")
	f.Add([]byte("User-agent: *\nDisallow: /*a*a*a*a*a*b$\n"), "/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "x")
	f.Add([]byte("User-agent:*\nCrawl-delay: 1e400\nDisallow: %zz\n"), "/%zz", "*")
	f.Fuzz(func(t *testing.T, robots []byte, path, agent string) {
		r := ParseRobots(robots)
		rules := r.For(agent)
		if !rules.Allowed("/robots.txt") {
			t.Fatal("got /robots.txt disallowed")
		}
		if rules.CrawlDelay < 0 {
			t.Fatalf("got crawl delay %v", rules.CrawlDelay)
		}
		p := normalise(path)
		for _, rule := range rules.rules {
			if got, want := matchPattern(p, rule.pattern), reference(p, rule.pattern); got != want {
				t.Fatalf("pattern %q on %q: got %v, want %v", rule.pattern, p, got, want)
			}
		}
		_ = rules.Allowed(path)
	})
}

func TestCanonical(t *testing.T) {
	base, _ := url.Parse("https://Example.com:443/dir/page?x=1")
	for _, tc := range []struct {
		ref  string
		base *url.URL
		want string
	}{
		{"HTTP://Example.COM:80/a#frag", nil, "http://example.com/a"},
		{"https://example.com", nil, "https://example.com/"},
		{"https://example.com:8443/a?b=1&a=2", nil, "https://example.com:8443/a?b=1&a=2"},
		{"other", base, "https://example.com/dir/other"},
		{"../up/./x", base, "https://example.com/up/x"},
		{"?q=2", base, "https://example.com/dir/page?q=2"},
		{"//cdn.example.org/f.pdf", base, "https://cdn.example.org/f.pdf"},
		{"#top", base, "https://example.com/dir/page?x=1"},
		{"http://[::1]:80/x", nil, "http://[::1]/x"},
		{"mailto:a@b.c", base, ""},
		{"javascript:alert(1)", base, ""},
		{"ftp://example.com/f", nil, ""},
		{"https://u:p@example.com/", nil, ""},
		{"https:///nohost", nil, ""},
	} {
		u, ok := Canonical(tc.ref, tc.base)
		got := ""
		if ok {
			got = u.String()
		}
		if got != tc.want {
			t.Errorf("Canonical(%q): got %q, want %q", tc.ref, got, tc.want)
		}
	}
}

func TestLinks(t *testing.T) {
	base, _ := url.Parse("https://example.com/docs/index.html")
	doc := `<html><head><base href="/root/"><base href="/ignored/"></head><body>
	<a href="a.html">a</a><A HREF="b.html#x">b</A><a href='b.html'>dup</a>
	<a href="https://other.org/x">other</a><a href="mailto:x@y">m</a>
	<a rel="external nofollow" href="no.html">n</a><area href="/map"><a>none</a>
	<a href="  spaced.html  ">s</a></body></html>`
	pl := Links(strings.NewReader(doc), base)
	var got []string
	for _, u := range pl.URLs {
		got = append(got, u.String())
	}
	want := []string{"https://example.com/root/a.html", "https://example.com/root/b.html", "https://other.org/x", "https://example.com/map", "https://example.com/root/spaced.html"}
	if strings.Join(got, " ") != strings.Join(want, " ") || pl.NoFollow {
		t.Errorf("got %v (nofollow %v), want %v", got, pl.NoFollow, want)
	}
	if !Links(strings.NewReader(`<META NAME="Robots" CONTENT="NONE"><a href="/x">x</a>`), base).NoFollow {
		t.Error("got follow, want nofollow from meta robots none")
	}
}

// FuzzLinks extracts links from any bytes: no panic, only canonical http(s)
// URLs, no repeats, at most MaxLinks.
func FuzzLinks(f *testing.F) {
	f.Add(`<a href="/x">x</a><base href="//evil/"><a href="y">`)
	f.Add(`<a href="http://[::1]:80/%zz">`)
	f.Add(`<meta name=robots content=nofollow><area href=?q#f>`)
	base, _ := url.Parse("https://example.com/a/b")
	f.Fuzz(func(t *testing.T, doc string) {
		pl := Links(strings.NewReader(doc), base)
		if len(pl.URLs) > MaxLinks {
			t.Fatalf("got %d links", len(pl.URLs))
		}
		seen := map[string]bool{}
		for _, u := range pl.URLs {
			if u.Scheme != "http" && u.Scheme != "https" || u.Fragment != "" || u.User != nil || u.Host == "" {
				t.Fatalf("got link %q", u)
			}
			c, ok := Canonical(u.String(), nil)
			if !ok || c.String() != u.String() {
				t.Fatalf("got %q, which canonicalises to %v (%v)", u, c, ok)
			}
			if seen[u.String()] {
				t.Fatalf("got %q twice", u)
			}
			seen[u.String()] = true
		}
	})
}
