// Package web reads HTML pages into a [document.Document]: headings,
// paragraphs, lists (description lists as nested items), tables with row
// and column spans, code, images and links, walked from the DOM that
// golang.org/x/net/html builds.
//
// A page that is an article among navigation and link lists is cut to its
// main content with readability (codeberg.org/readeck/go-readability); a
// page that is all content (a form, a table, a short note) is read whole.
// The rule that tells them apart is in [Config.Parse].
//
// Parsing keeps no state between calls: Parse is safe for concurrent use.
package web

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"

	readability "codeberg.org/readeck/go-readability"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/transform"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/document"
	"github.com/sanadhq/sanad/parse/internal/textcheck"
)

// Mode says which part of a page is read.
type Mode int

// Modes of [Config].
const (
	// Auto reads the main content when readability finds an article among
	// boilerplate, and the whole body otherwise.
	Auto Mode = iota
	// Article always reads readability's main content (the whole body
	// when it finds none).
	Article
	// Full reads the whole body.
	Full
)

// DefaultMaxBytes bounds the size of a page.
const DefaultMaxBytes = 32 << 20

// maxReadabilityElems bounds the pages readability is run on.
const maxReadabilityElems = 100000

// Thresholds of the Auto rule.
const (
	// minArticleChars is the least text an extract must have to be
	// trusted (readability's own default threshold).
	minArticleChars = 500
	// minRemovedShare is the least share of the body's text the extract
	// must leave out: if it keeps nearly everything, the whole page is
	// read and nothing is lost.
	minRemovedShare = 0.1
	// minRemovedLinkShare is the least share of the left-out text that
	// must be link text: navigation, language lists, footers. Leaving out
	// prose or table cells is a loss, not a cleanup.
	minRemovedLinkShare = 0.5
)

// Config configures parsing. The zero value is ready: Auto mode,
// DefaultMaxBytes.
type Config struct {
	Mode Mode
	// MaxBytes bounds the input; 0 means DefaultMaxBytes.
	MaxBytes int
}

// Validate reports an unknown mode or a negative bound.
func (c Config) Validate() error {
	if c.Mode < Auto || c.Mode > Full || c.MaxBytes < 0 {
		return sanad.Errorf(sanad.CodeInvalidInput, "parse.html", "invalid web parser config")
	}
	return nil
}

// Parse reads an HTML page with the default configuration.
func Parse(ctx context.Context, data []byte) (*document.Document, error) {
	return Config{}.Parse(ctx, data)
}

// Parse reads an HTML page. In Auto mode the page is cut to readability's
// extract when all of these hold: the extract has at least 500 characters
// of text, it leaves out at least a tenth of the body's text, and at least
// half of what it leaves out is link text. Otherwise the whole body is
// read.
//
// Errors are *sanad.Error: CodeParserUnsupported for empty, oversized or
// binary input, CodeTimeout or CodeCancelled when ctx ends.
func (c Config) Parse(ctx context.Context, data []byte) (doc *document.Document, err error) {
	const op = "parse.html"
	if err := c.Validate(); err != nil {
		return nil, err
	}
	defer func() {
		// A bug in the walker or in readability must not take the caller
		// down with it.
		if r := recover(); r != nil {
			doc, err = nil, sanad.Wrap(sanad.NewPanicError(r), sanad.CodeInternal, op, "the HTML reader failed on this page")
		}
	}()
	maxBytes := c.MaxBytes
	if maxBytes == 0 {
		maxBytes = DefaultMaxBytes
	}
	switch {
	case len(bytes.TrimSpace(data)) == 0:
		return nil, sanad.Errorf(sanad.CodeParserUnsupported, op, "empty file")
	case len(data) > maxBytes:
		return nil, sanad.Errorf(sanad.CodeParserUnsupported, op, "too large: %d bytes, more than %d", len(data), maxBytes)
	}
	text, err := decode(data)
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeParserUnsupported, op, "cannot decode the page's text encoding")
	}
	if textcheck.Binary(text) {
		return nil, sanad.Errorf(sanad.CodeParserUnsupported, op, "not HTML: the file holds binary data")
	}
	root, err := html.Parse(strings.NewReader(text))
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeParserUnsupported, op, "malformed HTML")
	}
	if err := ctx.Err(); err != nil {
		return nil, ctxError(err, op)
	}
	doc = &document.Document{Format: "html", Pages: 1, Metadata: map[string]any{}}
	meta(root, doc)

	body := find(root, atom.Body)
	if body == nil {
		body = root
	}
	content := body
	if c.Mode != Full {
		if art, ok := article(root, body, c.Mode == Article); ok {
			content = art.Node
			doc.Metadata["extract"] = "readability"
			if art.Byline != "" {
				doc.Metadata["byline"] = art.Byline
			}
			if art.PublishedTime != nil {
				doc.Metadata["published"] = art.PublishedTime.UTC().Format("2006-01-02T15:04:05Z")
			}
			if doc.Title == "" {
				doc.Title = art.Title
			}
			doc.Notes = append(doc.Notes, document.Note{Code: "main_content", Text: "navigation and other page furniture were left out; only the main content was read"})
		}
	}
	w := newWalker(ctx)
	w.block(content, 0)
	w.flush()
	if err := ctx.Err(); err != nil {
		return nil, ctxError(err, op)
	}
	doc.Blocks = w.blocks
	if doc.Title == "" {
		for _, b := range doc.Blocks {
			if b.Kind == document.Header {
				doc.Title = b.Text
				break
			}
		}
	}
	if len(doc.Metadata) == 0 {
		doc.Metadata = nil
	}
	return doc, nil
}

func ctxError(err error, op string) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return sanad.Wrap(err, sanad.CodeTimeout, op, "parsing took longer than allowed")
	}
	return sanad.Wrap(err, sanad.CodeCancelled, op, "parsing was cancelled")
}

// decode returns the page as UTF-8, from its byte-order mark, its meta
// charset or a guess (invalid UTF-8 is read as Windows-1252).
func decode(data []byte) (string, error) {
	enc, name, _ := charset.DetermineEncoding(data, "text/html")
	if name == "utf-8" && utf8.Valid(data) {
		return strings.TrimPrefix(string(data), "\uFEFF"), nil
	}
	out, _, err := transform.Bytes(enc.NewDecoder(), data)
	if err != nil {
		return "", err
	}
	return strings.TrimPrefix(string(out), "\uFEFF"), nil
}

// article runs readability and applies the Auto rule (or, when forced,
// only asks that it found something).
func article(root, body *html.Node, force bool) (readability.Article, bool) {
	p := readability.NewParser()
	// Past this many elements readability's scoring gets slow; such a page
	// is read whole.
	p.MaxElemsToParse = maxReadabilityElems
	art, err := p.ParseDocument(root, nil)
	if err != nil || art.Node == nil {
		return art, false
	}
	a := textStats(art.Node)
	if force {
		return art, a.chars > 0
	}
	b := textStats(body)
	removed := b.chars - a.chars
	removedLinks := b.links - a.links
	ok := a.chars >= minArticleChars &&
		float64(removed) >= minRemovedShare*float64(b.chars) &&
		float64(removedLinks) >= minRemovedLinkShare*float64(removed)
	return art, ok
}

type stats struct{ chars, links int }

// textStats counts the non-space characters of a subtree and those inside
// links, leaving out scripts and styles.
func textStats(n *html.Node) stats {
	var s stats
	var walk func(n *html.Node, inLink bool, depth int)
	walk = func(n *html.Node, inLink bool, depth int) {
		if depth > maxDepth {
			return
		}
		switch n.Type {
		case html.TextNode:
			c := 0
			for _, r := range n.Data {
				if !unicode.IsSpace(r) {
					c++
				}
			}
			s.chars += c
			if inLink {
				s.links += c
			}
			return
		case html.ElementNode:
			switch n.DataAtom {
			case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Head:
				return
			case atom.A:
				inLink = true
			}
		}
		for k := n.FirstChild; k != nil; k = k.NextSibling {
			walk(k, inLink, depth+1)
		}
	}
	walk(n, false, 0)
	return s
}

// find returns the first element of a kind, breadth-first.
func find(n *html.Node, a atom.Atom) *html.Node {
	queue := []*html.Node{n}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		if x.Type == html.ElementNode && x.DataAtom == a {
			return x
		}
		for k := x.FirstChild; k != nil; k = k.NextSibling {
			queue = append(queue, k)
		}
	}
	return nil
}

// meta reads the title and the meta tags a page says of itself.
func meta(root *html.Node, doc *document.Document) {
	md := doc.Metadata
	if h := find(root, atom.Html); h != nil {
		if lang := attr(h, "lang"); lang != "" {
			md["language"] = lang
		}
	}
	head := find(root, atom.Head)
	if head == nil {
		return
	}
	title := ""
	if t := find(head, atom.Title); t != nil {
		title = collapse(nodeText(t))
	}
	for n := head.FirstChild; n != nil; n = n.NextSibling {
		if n.Type != html.ElementNode {
			continue
		}
		switch n.DataAtom {
		case atom.Meta:
			key := strings.ToLower(attr(n, "property"))
			if key == "" {
				key = strings.ToLower(attr(n, "name"))
			}
			val := collapse(attr(n, "content"))
			if key == "" || val == "" || len(val) > 4096 {
				continue
			}
			switch {
			case key == "description", key == "author", key == "keywords", key == "generator",
				strings.HasPrefix(key, "og:"), strings.HasPrefix(key, "article:"),
				strings.HasPrefix(key, "dc."), strings.HasPrefix(key, "dcterms."), strings.HasPrefix(key, "twitter:title"):
				if _, dup := md[key]; !dup {
					md[key] = val
				}
			}
		case atom.Link:
			if strings.EqualFold(attr(n, "rel"), "canonical") && attr(n, "href") != "" {
				md["canonical"] = attr(n, "href")
			}
		}
	}
	if og, ok := md["og:title"].(string); ok && og != "" {
		doc.Title = og
	} else {
		doc.Title = title
	}
	if title != "" {
		md["title"] = title
	}
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return true
		}
	}
	return false
}

// nodeText returns the text of a subtree, scripts and styles left out.
func nodeText(n *html.Node) string {
	var b strings.Builder
	var walk func(n *html.Node, depth int)
	walk = func(n *html.Node, depth int) {
		if depth > maxDepth || b.Len() > maxTextBytes {
			return
		}
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			return
		}
		if n.Type == html.ElementNode && (n.DataAtom == atom.Script || n.DataAtom == atom.Style) {
			return
		}
		for k := n.FirstChild; k != nil; k = k.NextSibling {
			walk(k, depth+1)
		}
	}
	walk(n, 0)
	return b.String()
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }
