// Package web is the connector for web pages and files over HTTP(S): one
// URL, or with Recursive a crawl of the same site.
//
// What it does:
//
//   - robots.txt is fetched once per origin (cached 24 hours, an
//     unreachable one 1 minute) and obeyed: the groups naming the
//     product token of Options.UserAgent apply, else those for '*'; Allow
//     and Disallow by longest match with '*' and '$'; Crawl-delay spaces
//     requests to the host (capped at connector.MaxCrawlDelay). A missing
//     robots.txt (4xx) allows everything; an unreachable one (5xx, network)
//     disallows everything, as RFC 9309 asks.
//   - Requests to one host are spaced by Options.MinInterval; 429, 5xx and
//     network errors are retried with backoff, honouring Retry-After.
//   - Each body is written to the workspace, capped at Options.MaxBytes;
//     each request is bounded by Options.Timeout.
//   - Redirects are followed within the site (same host and port; http to
//     https allowed) and checked against robots.txt; a redirect to another
//     site is refused with connector.ErrOffSite, never followed.
//   - A crawl follows <a href> and <area href> links of HTML pages to the
//     same origin (scheme, host, port) as the start page after its
//     redirects, breadth first, to Options.MaxDepth links from the start and
//     at most Options.MaxItems items. rel="nofollow" links and pages with
//     <meta name="robots" content="nofollow"> are not followed. URLs are
//     compared in canonical form (see Canonical), so each is fetched once.
//   - The media type is the Content-Type header's, checked against the
//     bytes (http.DetectContentType) and the URL's extension (see
//     connector.DetectType).
//   - credentials_id names a JSON document {"type":"bearer","token":"…"}
//     or {"type":"basic","username":"…","password":"…"}, sent only to
//     the start URL's site.
//
// What it does not do: run JavaScript, submit forms, keep cookies between
// requests, read sitemaps, or fetch pages in parallel.
package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"os"
	"path"
	"sync"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/connector"
)

const op = "connector.web"

// robots.txt cache lifetimes.
const (
	robotsTTL      = 24 * time.Hour
	robotsErrorTTL = time.Minute
)

// Connector fetches from the web. It is safe for concurrent use; its
// robots.txt cache and per-host spacing are shared by all its fetches.
type Connector struct {
	opt    connector.Options
	ws     string
	pages  *connector.HTTP
	robots *connector.HTTP

	// mu guards cache.
	mu    sync.Mutex
	cache map[string]*robotsEntry // by origin
}

var _ connector.Fetcher = (*Connector)(nil)

type robotsEntry struct {
	ready   chan struct{} // closed when rules and err are set
	rules   *Rules
	err     error // why the site is disallowed when robots.txt is unreachable
	expires time.Time
}

// New returns a web connector writing into opt.Workspace.
func New(opt connector.Options) (*Connector, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	opt = opt.WithDefaults()
	ws, err := opt.OpenWorkspace()
	if err != nil {
		return nil, err
	}
	c := &Connector{opt: opt, ws: ws, cache: map[string]*robotsEntry{}}
	base := connector.NewHTTP(opt, nil, c.interval)
	c.pages = base.WithRedirects(connector.MaxRedirects, c.checkRedirect)
	// RFC 9309 §2.3.1.2: follow at least five redirects for robots.txt,
	// even to another authority.
	c.robots = base.WithRedirects(5, func(*http.Request, []*http.Request) error { return nil })
	return c, nil
}

// interval is the spacing of requests to host: MinInterval, or the host's
// Crawl-delay if longer.
func (c *Connector) interval(host string) time.Duration {
	d := max(c.opt.MinInterval, 0)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, scheme := range []string{"https://", "http://"} {
		if e, ok := c.cache[scheme+host]; ok {
			select {
			case <-e.ready:
				if e.rules != nil {
					d = max(d, min(e.rules.CrawlDelay, connector.MaxCrawlDelay))
				}
			default:
			}
		}
	}
	return d
}

// checkRedirect follows only same-site redirects that robots.txt allows.
func (c *Connector) checkRedirect(req *http.Request, via []*http.Request) error {
	if err := connector.SameSiteRedirects(req, via); err != nil {
		return err
	}
	u, ok := Canonical(req.URL.String(), nil)
	if !ok {
		return sanad.Errorf(sanad.CodePolicyDenied, op, "%s redirected to an unusable URL", connector.Redact(via[0].URL))
	}
	return c.allowed(req.Context(), u)
}

// Fetch yields the page or file at in.SourceIdentifier, and with
// in.Recursive the same-origin pages it links to (see the package
// documentation).
func (c *Connector) Fetch(ctx context.Context, in connector.Input) iter.Seq2[connector.Output, error] {
	return func(yield func(connector.Output, error) bool) {
		start, ok := Canonical(in.SourceIdentifier, nil)
		if !ok {
			yield(connector.Output{}, connector.ItemErr(in.SourceIdentifier, sanad.Errorf(sanad.CodeInvalidInput, op,
				"%q is not an http or https URL with a host and without user information (name credentials with credentials_id)", in.SourceIdentifier)))
			return
		}
		var auth func(context.Context, *http.Request) error
		if in.CredentialsID != "" {
			a, err := c.authorizer(ctx, in.CredentialsID, start)
			if err != nil {
				yield(connector.Output{}, connector.ItemErr(start.String(), err))
				return
			}
			auth = a
		}
		c.crawl(ctx, start, in.Recursive, auth, yield)
	}
}

type queued struct {
	u     *url.URL
	depth int
}

func (c *Connector) crawl(ctx context.Context, start *url.URL, recursive bool, auth func(context.Context, *http.Request) error, yield func(connector.Output, error) bool) {
	visited := map[string]bool{start.String(): true}
	queue := []queued{{start, 0}}
	var site *url.URL // origin of the start page after its redirects
	n := 0
	for len(queue) > 0 {
		q := queue[0]
		queue = queue[1:]
		if err := ctx.Err(); err != nil {
			yield(connector.Output{}, connector.ItemErr(q.u.String(), ctxError(err, q.u.String())))
			return
		}
		if n >= c.opt.MaxItems {
			yield(connector.Output{}, connector.ItemErr(q.u.String(), sanad.Errorf(sanad.CodePolicyDenied, op,
				"stopped before %s: %d items is the most one fetch may yield", q.u, c.opt.MaxItems)))
			return
		}
		n++
		out, links, err := c.page(ctx, q, auth, recursive && q.depth < c.opt.MaxDepth)
		if err != nil {
			if !yield(connector.Output{SourceID: q.u.String()}, connector.ItemErr(q.u.String(), err)) {
				return
			}
			continue
		}
		final, _ := url.Parse(out.SourceID)
		if site == nil {
			site = final
		}
		if q.depth > 0 && visited[out.SourceID] && out.SourceID != q.u.String() {
			// A redirect led to a page already fetched.
			n--
			continue
		}
		visited[out.SourceID] = true
		if !yield(out, nil) {
			return
		}
		for _, l := range links {
			if !sameOrigin(site, l) || visited[l.String()] {
				continue
			}
			visited[l.String()] = true
			queue = append(queue, queued{l, q.depth + 1})
		}
	}
}

// page fetches one URL into the workspace; with follow, it also returns the
// page's links when it is HTML.
func (c *Connector) page(ctx context.Context, q queued, auth func(context.Context, *http.Request) error, follow bool) (connector.Output, []*url.URL, error) {
	src := q.u.String()
	if err := c.allowed(ctx, q.u); err != nil {
		return connector.Output{}, nil, err
	}
	var out connector.Output
	err := c.pages.Get(ctx, connector.Request{URL: src, Source: src, Authorize: auth, Header: http.Header{"Accept": {"*/*"}}}, func(resp *http.Response) error {
		if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusNonAuthoritativeInfo {
			return sanad.Errorf(sanad.CodeDependencyDown, op, "%s answered HTTP %d with no content to fetch", src, resp.StatusCode)
		}
		final, ok := Canonical(resp.Request.URL.String(), nil)
		if !ok {
			final = q.u
		}
		declared := resp.Header.Get("Content-Type")
		var ct connector.ContentType
		st, err := connector.Store(c.ws, resp.Body, c.opt.MaxBytes, src, func(head []byte) string {
			ct = connector.DetectType(declared, final.Path, head)
			if e := connector.ExtForType(ct.Chosen); e != "" {
				return e
			}
			return path.Ext(final.Path)
		})
		if err != nil {
			return err
		}
		meta := map[string]any{
			"url":          src,
			"final_url":    final.String(),
			"status":       resp.StatusCode,
			"content_type": declared,
			"sniffed_type": ct.Sniffed,
			"depth":        q.depth,
			"fetched_at":   c.opt.Now().UTC(),
		}
		for _, h := range []string{"Last-Modified", "ETag", "Content-Length", "Content-Language", "Content-Disposition"} {
			if v := resp.Header.Get(h); v != "" {
				meta[headerKey(h)] = v
			}
		}
		out = connector.Output{
			FilePath:       st.Path,
			FileSizeBytes:  st.Size,
			SourceMetadata: meta,
			Checksum:       st.Checksum,
			SourceID:       final.String(),
			MimeType:       ct.Chosen,
		}
		if t, err := http.ParseTime(resp.Header.Get("Last-Modified")); err == nil {
			out.ModifiedTime = t.UTC()
		}
		return nil
	})
	if err != nil {
		return connector.Output{}, nil, err
	}
	if !follow || (out.MimeType != "text/html" && out.MimeType != "application/xhtml+xml") {
		return out, nil, nil
	}
	f, err := os.Open(out.FilePath)
	if err != nil {
		return out, nil, nil
	}
	defer f.Close()
	final, _ := url.Parse(out.SourceID)
	pl := Links(f, final)
	if pl.NoFollow {
		return out, nil, nil
	}
	return out, pl.URLs, nil
}

func headerKey(h string) string {
	switch h {
	case "Last-Modified":
		return "last_modified"
	case "ETag":
		return "etag"
	case "Content-Length":
		return "content_length"
	case "Content-Language":
		return "content_language"
	}
	return "content_disposition"
}

// allowed returns nil if robots.txt allows fetching u, or the error saying
// why not.
func (c *Connector) allowed(ctx context.Context, u *url.URL) error {
	rules, err := c.rulesFor(ctx, u)
	if err != nil {
		return err
	}
	if !rules.Allowed(u.EscapedPath() + query(u)) {
		return sanad.Wrap(connector.ErrRobots, sanad.CodePolicyDenied, op,
			fmt.Sprintf("robots.txt of %s disallows %s for %s", u.Host, u, c.opt.UserAgent))
	}
	return nil
}

func query(u *url.URL) string {
	if u.RawQuery == "" {
		return ""
	}
	return "?" + u.RawQuery
}

// rulesFor returns the robots.txt rules of u's origin, fetching them once
// per cache lifetime; concurrent callers wait for one fetch.
func (c *Connector) rulesFor(ctx context.Context, u *url.URL) (*Rules, error) {
	origin := u.Scheme + "://" + u.Host
	c.mu.Lock()
	e, ok := c.cache[origin]
	if ok {
		select {
		case <-e.ready:
			if c.opt.Now().After(e.expires) {
				ok = false
			}
		default:
		}
	}
	if !ok {
		e = &robotsEntry{ready: make(chan struct{})}
		c.cache[origin] = e
		c.mu.Unlock()
		e.rules, e.err, e.expires = c.fetchRobots(ctx, origin)
		close(e.ready)
	} else {
		c.mu.Unlock()
		select {
		case <-e.ready:
		case <-ctx.Done():
			return nil, ctxError(ctx.Err(), origin+"/robots.txt")
		}
	}
	return e.rules, e.err
}

// fetchRobots fetches and parses origin's robots.txt.
func (c *Connector) fetchRobots(ctx context.Context, origin string) (*Rules, error, time.Time) {
	src := origin + "/robots.txt"
	var rules *Rules
	err := c.robots.Get(ctx, connector.Request{URL: src, Source: src}, func(resp *http.Response) error {
		if resp.StatusCode != http.StatusOK {
			rules = AllowAll
			return nil
		}
		b := make([]byte, 0, 4096)
		buf := make([]byte, 32<<10)
		for len(b) < MaxRobotsBytes {
			n, err := resp.Body.Read(buf)
			b = append(b, buf[:n]...)
			if err != nil {
				break
			}
		}
		rules = ParseRobots(b).For(c.opt.UserAgent)
		return nil
	})
	now := c.opt.Now()
	var se *sanad.Error
	switch {
	case err == nil:
		return rules, nil, now.Add(robotsTTL)
	case errors.As(err, &se) && (se.Code == sanad.CodeCancelled || se.Code == sanad.CodeTimeout && ctx.Err() != nil):
		// This fetch was cut short, not the site: try again next time.
		return nil, err, now
	case errors.As(err, &se) && se.Code != sanad.CodeDependencyDown && se.Code != sanad.CodeTimeout && se.Code != sanad.CodeUnavailable:
		// RFC 9309 §2.3.1.3: a 4xx ("unavailable") robots.txt allows all,
		// 401 and 403 included.
		return AllowAll, nil, now.Add(robotsTTL)
	}
	c.opt.Logger.Warn("robots.txt is unreachable: treating the site as disallowed", "url", src, "error", err)
	return nil, sanad.Wrap(connector.ErrRobots, sanad.CodeDependencyDown, op,
		fmt.Sprintf("robots.txt of %s is unreachable (%s): the site is treated as disallowed; try again later", origin, sanad.ErrorMessage(err))), now.Add(robotsErrorTTL)
}

func ctxError(err error, src string) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return sanad.Wrap(err, sanad.CodeTimeout, op, "the deadline passed before "+src+" was fetched")
	}
	return sanad.Wrap(err, sanad.CodeCancelled, op, "fetching "+src+" was cancelled")
}

// credentials is the JSON of a web credentials document.
type credentials struct {
	Type     string `json:"type"`
	Token    string `json:"token"`
	Username string `json:"username"`
	Password string `json:"password"`
}

// authorizer returns a func adding the credentials id to requests for the
// site of start.
func (c *Connector) authorizer(ctx context.Context, id string, start *url.URL) (func(context.Context, *http.Request) error, error) {
	b, err := c.opt.LoadCredentials(ctx, id, start.String())
	if err != nil {
		return nil, err
	}
	var cr credentials
	if err := json.Unmarshal(b, &cr); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeConnectorAuth, op, "credentials \""+id+"\" are not a JSON object")
	}
	var set func(*http.Request)
	switch {
	case cr.Type == "bearer" && cr.Token != "":
		set = func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+cr.Token) }
	case cr.Type == "basic" && cr.Username != "":
		set = func(r *http.Request) { r.SetBasicAuth(cr.Username, cr.Password) }
	default:
		return nil, sanad.Errorf(sanad.CodeConnectorAuth, op, "credentials %q are neither a bearer token nor a basic user name and password", id)
	}
	return func(_ context.Context, r *http.Request) error {
		if connector.SameSite(start, r.URL) {
			set(r)
		}
		return nil
	}, nil
}
