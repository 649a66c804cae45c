package web

import (
	"io"
	"net/netip"
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// MaxLinks bounds the links taken from one page.
const MaxLinks = 10000

// Canonical parses ref, resolved against base when base is not nil, into
// the form URLs are compared and recorded in: scheme and host lower-cased,
// the default port dropped, the fragment removed, an empty path made "/".
// The query is kept as it is. Only http and https URLs with a host and no
// user information are accepted.
func Canonical(ref string, base *url.URL) (*url.URL, bool) {
	u, err := url.Parse(strings.TrimSpace(ref))
	if err != nil {
		return nil, false
	}
	if base != nil {
		u = base.ResolveReference(u)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.User != nil || u.Opaque != "" {
		return nil, false
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if port == "80" && u.Scheme == "http" || port == "443" && u.Scheme == "https" {
		port = ""
	}
	if strings.Contains(host, ":") {
		if _, err := netip.ParseAddr(host); err != nil {
			return nil, false
		}
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	u.Host = host
	u.Fragment, u.RawFragment = "", ""
	if u.Path == "" {
		u.Path, u.RawPath = "/", ""
	}
	u.ForceQuery = false
	// The canonical form must read back as itself.
	if v, err := url.Parse(u.String()); err != nil || v.String() != u.String() {
		return nil, false
	}
	return u, true
}

// sameOrigin reports whether a and b, both canonical, share scheme, host
// and port.
func sameOrigin(a, b *url.URL) bool { return a.Scheme == b.Scheme && a.Host == b.Host }

// PageLinks is what a page says about its links.
type PageLinks struct {
	// URLs are the canonical http(s) targets of <a> and <area> elements
	// without rel="nofollow", in document order, without repeats.
	URLs []*url.URL
	// NoFollow is set when a <meta name="robots"> asks that no link be
	// followed (nofollow or none).
	NoFollow bool
}

// Links reads an HTML document from r and returns its links, resolved
// against the document's <base href> if it has one, else against base. It
// never fails: a malformed document yields the links found before the
// tokenizer gave up, and at most MaxLinks.
func Links(r io.Reader, base *url.URL) PageLinks {
	var out PageLinks
	seen := map[string]bool{}
	z := html.NewTokenizer(r)
	z.SetMaxBuf(1 << 20)
	baseSet := false
	for len(out.URLs) < MaxLinks {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		name, hasAttr := z.TagName()
		if !hasAttr {
			continue
		}
		switch atom.Lookup(name) {
		case atom.A, atom.Area:
			attrs := attributes(z, "href", "rel")
			href, ok := attrs["href"]
			if !ok || hasToken(attrs["rel"], "nofollow") {
				continue
			}
			u, ok := Canonical(href, base)
			if !ok || seen[u.String()] {
				continue
			}
			seen[u.String()] = true
			out.URLs = append(out.URLs, u)
		case atom.Base:
			if baseSet {
				continue
			}
			if href, ok := attributes(z, "href")["href"]; ok {
				if u, err := url.Parse(strings.TrimSpace(href)); err == nil {
					if base != nil {
						u = base.ResolveReference(u)
					}
					if u.Scheme == "http" || u.Scheme == "https" {
						base, baseSet = u, true
					}
				}
			}
		case atom.Meta:
			attrs := attributes(z, "name", "content")
			if strings.EqualFold(strings.TrimSpace(attrs["name"]), "robots") &&
				(hasToken(attrs["content"], "nofollow") || hasToken(attrs["content"], "none")) {
				out.NoFollow = true
			}
		}
	}
	return out
}

// attributes returns the values of the wanted attributes of the current
// tag (the first of each name).
func attributes(z *html.Tokenizer, want ...string) map[string]string {
	m := map[string]string{}
	for {
		k, v, more := z.TagAttr()
		key := string(k)
		for _, w := range want {
			if key == w {
				if _, ok := m[key]; !ok {
					m[key] = string(v)
				}
			}
		}
		if !more {
			return m
		}
	}
}

// hasToken reports whether a space- or comma-separated list holds tok,
// case-insensitively.
func hasToken(list, tok string) bool {
	for _, f := range strings.FieldsFunc(list, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' || r == '\n' }) {
		if strings.EqualFold(f, tok) {
			return true
		}
	}
	return false
}
