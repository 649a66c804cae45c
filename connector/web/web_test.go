package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/connector"
)

// site is a test web server that logs the requests it gets.
type site struct {
	*httptest.Server
	mux *http.ServeMux

	// mu guards log.
	mu  sync.Mutex
	log []hit
}

type hit struct {
	path string
	at   time.Time
}

func newSite(tb testing.TB) *site {
	tb.Helper()
	s := &site{mux: http.NewServeMux()}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.log = append(s.log, hit{r.URL.RequestURI(), time.Now()})
		s.mu.Unlock()
		s.mux.ServeHTTP(w, r)
	}))
	tb.Cleanup(s.Close)
	return s
}

// hits returns the paths requested, robots.txt left out.
func (s *site) hits() []hit {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []hit
	for _, h := range s.log {
		if h.path != "/robots.txt" {
			out = append(out, h)
		}
	}
	return out
}

func (s *site) paths() []string {
	var out []string
	for _, h := range s.hits() {
		out = append(out, h.path)
	}
	return out
}

func (s *site) page(path, contentType, body string) {
	s.mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != path {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", contentType)
		fmt.Fprint(w, body)
	})
}

// testOptions are fast options: no spacing, quick retries.
func testOptions(tb testing.TB) connector.Options {
	return connector.Options{
		Workspace:            tb.TempDir(),
		AllowPrivateNetworks: true,
		MinInterval:          -1,
		Timeout:              5 * time.Second,
		UserAgent:            "sanadtest/1.0",
		Retry:                connector.RetryPolicy{MaxAttempts: 3, BaseDelay: 10 * time.Millisecond, MaxDelay: 50 * time.Millisecond},
	}
}

func newConn(tb testing.TB, opt connector.Options) *Connector {
	tb.Helper()
	c, err := New(opt)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func fetch(tb testing.TB, c *Connector, url string, recursive bool) ([]connector.Output, []error) {
	tb.Helper()
	return connector.Collect(c.Fetch(context.Background(), connector.Input{SourceType: connector.SourceWeb, SourceIdentifier: url, Recursive: recursive}))
}

func fetchOne(tb testing.TB, c *Connector, url string) (connector.Output, error) {
	tb.Helper()
	outs, errs := fetch(tb, c, url, false)
	if len(outs)+len(errs) != 1 {
		tb.Fatalf("got %d outputs and %v, want one item", len(outs), errs)
	}
	if len(errs) == 1 {
		return connector.Output{}, errs[0]
	}
	return outs[0], nil
}

func TestFetchPage(t *testing.T) {
	s := newSite(t)
	s.mux.HandleFunc("/doc", func(w http.ResponseWriter, r *http.Request) {
		if r.UserAgent() != "sanadtest/1.0" {
			t.Errorf("got User-Agent %q, want sanadtest/1.0", r.UserAgent())
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Last-Modified", "Wed, 21 Oct 2015 07:28:00 GMT")
		w.Header().Set("ETag", `"v1"`)
		fmt.Fprint(w, "<html><body>hello</body></html>")
	})
	opt := testOptions(t)
	out, err := fetchOne(t, newConn(t, opt), s.URL+"/doc#section")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out.FilePath)
	if err != nil || string(b) != "<html><body>hello</body></html>" {
		t.Fatalf("got %q, %v; want the page", b, err)
	}
	if filepath.Dir(out.FilePath) != opt.Workspace || !strings.HasSuffix(out.FilePath, ".html") || !strings.HasPrefix(out.Checksum, "sha256:") {
		t.Errorf("got path %s, checksum %s; want an .html file in the workspace named by its checksum", out.FilePath, out.Checksum)
	}
	if out.SourceID != s.URL+"/doc" || out.MimeType != "text/html" || out.FileSizeBytes != int64(len(b)) {
		t.Errorf("got %+v, want the canonical URL without fragment, text/html", out)
	}
	m := out.SourceMetadata
	if m["url"] != s.URL+"/doc" || m["final_url"] != s.URL+"/doc" || m["status"] != 200 || m["etag"] != `"v1"` ||
		m["content_type"] != "text/html; charset=utf-8" || m["last_modified"] != "Wed, 21 Oct 2015 07:28:00 GMT" {
		t.Errorf("got metadata %v", m)
	}
	if !out.ModifiedTime.Equal(time.Date(2015, 10, 21, 7, 28, 0, 0, time.UTC)) {
		t.Errorf("got modified %v, want the Last-Modified time", out.ModifiedTime)
	}
}

func TestStatuses(t *testing.T) {
	s := newSite(t)
	for _, st := range []int{401, 403, 404, 410, 400} {
		s.mux.HandleFunc(fmt.Sprintf("/s%d", st), func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(st) })
	}
	c := newConn(t, testOptions(t))
	for _, tc := range []struct {
		status int
		code   sanad.Code
	}{
		{401, sanad.CodeConnectorAuth},
		{403, sanad.CodeConnectorAuth},
		{404, sanad.CodeConnectorNotFound},
		{410, sanad.CodeConnectorNotFound},
		{400, sanad.CodeInvalidInput},
	} {
		t.Run(fmt.Sprint(tc.status), func(t *testing.T) {
			u := fmt.Sprintf("%s/s%d", s.URL, tc.status)
			_, err := fetchOne(t, c, u)
			if got := sanad.ErrorCode(err); got != tc.code || !strings.Contains(err.Error(), u) {
				t.Errorf("got %v (%s), want %s naming %s", err, got, tc.code, u)
			}
			var ie *connector.ItemError
			if !errors.As(err, &ie) || ie.Source != u {
				t.Errorf("got %#v, want an ItemError for %s", err, u)
			}
		})
	}
	if got := len(s.hits()); got != 5 {
		t.Errorf("got %d requests, want 5 (no retry of 4xx)", got)
	}
}

func TestRobotsDisallow(t *testing.T) {
	s := newSite(t)
	s.page("/robots.txt", "text/plain", "User-agent: *\nDisallow: /\n\nUser-agent: sanadtest\nDisallow: /private\nAllow: /private/ok$\nDisallow: /*.zip$\n")
	for _, p := range []string{"/public", "/private/x", "/private/ok", "/private/ok2", "/a.zip", "/a.zip?x=1"} {
		s.page(p, "text/plain", "content of "+p)
	}
	c := newConn(t, testOptions(t))
	for _, tc := range []struct {
		path    string
		allowed bool
	}{
		{"/public", true},
		{"/private/x", false},
		{"/private/ok", true},
		{"/private/ok2", false},
		{"/a.zip", false},
		{"/a.zip?x=1", true},
	} {
		_, err := fetchOne(t, c, s.URL+tc.path)
		if tc.allowed && err != nil {
			t.Errorf("%s: got %v, want it fetched", tc.path, err)
		}
		if !tc.allowed && (!errors.Is(err, connector.ErrRobots) || sanad.ErrorCode(err) != sanad.CodePolicyDenied) {
			t.Errorf("%s: got %v, want POLICY_DENIED by robots.txt", tc.path, err)
		}
	}
	if got, want := s.paths(), []string{"/public", "/private/ok", "/a.zip?x=1"}; !slices.Equal(got, want) {
		t.Errorf("got requests %v, want %v", got, want)
	}
	s.mu.Lock()
	robots := 0
	for _, h := range s.log {
		if h.path == "/robots.txt" {
			robots++
		}
	}
	s.mu.Unlock()
	if robots != 1 {
		t.Errorf("got robots.txt fetched %d times, want 1 (cached)", robots)
	}
}

func TestRobotsUnreachableDisallows(t *testing.T) {
	s := newSite(t)
	s.mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) })
	s.page("/page", "text/plain", "x")
	_, err := fetchOne(t, newConn(t, testOptions(t)), s.URL+"/page")
	if !errors.Is(err, connector.ErrRobots) || sanad.ErrorCode(err) != sanad.CodeDependencyDown {
		t.Errorf("got %v, want DEPENDENCY_DOWN: robots.txt unreachable", err)
	}
	if len(s.hits()) != 0 {
		t.Errorf("got requests %v, want none", s.paths())
	}
}

func TestRobotsMissingAllows(t *testing.T) {
	s := newSite(t)
	s.mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(403) })
	s.page("/page", "text/plain", "x")
	if _, err := fetchOne(t, newConn(t, testOptions(t)), s.URL+"/page"); err != nil {
		t.Errorf("got %v, want the page (a 4xx robots.txt allows all)", err)
	}
}

func TestRetryAfterHonoured(t *testing.T) {
	s := newSite(t)
	var mu sync.Mutex
	n := 0
	s.mux.HandleFunc("/busy", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		first := n == 1
		mu.Unlock()
		if first {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		fmt.Fprint(w, "done")
	})
	if _, err := fetchOne(t, newConn(t, testOptions(t)), s.URL+"/busy"); err != nil {
		t.Fatal(err)
	}
	h := s.hits()
	if len(h) != 2 {
		t.Fatalf("got %d requests, want 2", len(h))
	}
	if gap := h[1].at.Sub(h[0].at); gap < 950*time.Millisecond {
		t.Errorf("got a retry %v after the 429, want at least the 1s Retry-After asked", gap)
	}
}

func TestRetryAfterCapped(t *testing.T) {
	s := newSite(t)
	s.mux.HandleFunc("/busy", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	opt := testOptions(t)
	opt.Retry.MaxAttempts = 2
	opt.Retry.MaxRetryAfter = 100 * time.Millisecond
	start := time.Now()
	_, err := fetchOne(t, newConn(t, opt), s.URL+"/busy")
	if sanad.ErrorCode(err) != sanad.CodeDependencyDown || time.Since(start) > 10*time.Second {
		t.Errorf("got %v after %v, want DEPENDENCY_DOWN after a capped wait", err, time.Since(start))
	}
	if len(s.hits()) != 2 {
		t.Errorf("got %d requests, want 2", len(s.hits()))
	}
}

func TestServerErrorThenSuccess(t *testing.T) {
	s := newSite(t)
	var mu sync.Mutex
	n := 0
	s.mux.HandleFunc("/flaky", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		k := n
		mu.Unlock()
		switch k {
		case 1:
			w.WriteHeader(http.StatusServiceUnavailable)
		case 2:
			w.WriteHeader(http.StatusBadGateway)
		default:
			fmt.Fprint(w, "finally")
		}
	})
	out, err := fetchOne(t, newConn(t, testOptions(t)), s.URL+"/flaky")
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out.FilePath); string(b) != "finally" || len(s.hits()) != 3 {
		t.Errorf("got %q after %d requests, want \"finally\" after 3", b, len(s.hits()))
	}
}

func TestServerErrorGivesUp(t *testing.T) {
	s := newSite(t)
	s.mux.HandleFunc("/down", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(500) })
	_, err := fetchOne(t, newConn(t, testOptions(t)), s.URL+"/down")
	if sanad.ErrorCode(err) != sanad.CodeDependencyDown || !sanad.IsRetryable(err) || len(s.hits()) != 3 {
		t.Errorf("got %v after %d requests, want DEPENDENCY_DOWN after 3", err, len(s.hits()))
	}
}

func TestSlowResponseTimesOut(t *testing.T) {
	s := newSite(t)
	release := make(chan struct{})
	defer close(release)
	s.mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	s.mux.HandleFunc("/trickle", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		for {
			if _, err := w.Write([]byte("x")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-release:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
	opt := testOptions(t)
	opt.Timeout = 150 * time.Millisecond
	opt.Retry.MaxAttempts = 2
	c := newConn(t, opt)
	for _, p := range []string{"/slow", "/trickle"} {
		start := time.Now()
		_, err := fetchOne(t, c, s.URL+p)
		if sanad.ErrorCode(err) != sanad.CodeTimeout || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: got %v, want ERR_TIMEOUT naming it", p, err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: took %v, want about two timeouts", p, d)
		}
	}
}

func TestContextDeadline(t *testing.T) {
	s := newSite(t)
	s.mux.HandleFunc("/down", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "5")
		w.WriteHeader(503)
	})
	opt := testOptions(t)
	opt.Retry.MaxAttempts = 5
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, errs := connector.Collect(newConn(t, opt).Fetch(ctx, connector.Input{SourceType: "web", SourceIdentifier: s.URL + "/down"}))
	if len(errs) != 1 || time.Since(start) > 2*time.Second {
		t.Fatalf("got %v after %v, want one error at once: no time to wait 5s", errs, time.Since(start))
	}
	if len(s.hits()) != 1 {
		t.Errorf("got %d requests, want 1", len(s.hits()))
	}
}

func TestEndlessBodyIsCapped(t *testing.T) {
	s := newSite(t)
	var sent int64
	var mu sync.Mutex
	s.mux.HandleFunc("/endless", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		chunk := make([]byte, 32<<10)
		for {
			n, err := w.Write(chunk)
			mu.Lock()
			sent += int64(n)
			mu.Unlock()
			if err != nil {
				return
			}
		}
	})
	opt := testOptions(t)
	opt.MaxBytes = 8 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := fetchOne(t, newConn(t, opt), s.URL+"/endless")
	runtime.ReadMemStats(&after)
	if !errors.Is(err, connector.ErrTooLarge) || sanad.ErrorCode(err) != sanad.CodePolicyDenied || !strings.Contains(err.Error(), "/endless") {
		t.Fatalf("got %v, want ErrTooLarge naming the URL", err)
	}
	if len(s.hits()) != 1 {
		t.Errorf("got %d requests, want 1 (a size cap is not retried)", len(s.hits()))
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 4<<20 {
		t.Errorf("allocated %d bytes reading an 8 MiB capped body, want it streamed (< 4 MiB)", grew)
	}
	entries, _ := os.ReadDir(opt.Workspace)
	if len(entries) != 0 {
		t.Errorf("got %d files left in the workspace, want none", len(entries))
	}
}

func TestRedirects(t *testing.T) {
	other := newSite(t)
	other.page("/landing", "text/plain", "elsewhere")
	s := newSite(t)
	s.mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/landing", http.StatusFound)
	})
	s.mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/new", http.StatusMovedPermanently)
	})
	s.mux.HandleFunc("/blocked", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/private/x", http.StatusFound)
	})
	s.page("/robots.txt", "text/plain", "User-agent: *\nDisallow: /private\n")
	s.page("/new", "text/plain", "moved here")
	s.page("/private/x", "text/plain", "secret")
	c := newConn(t, testOptions(t))

	_, err := fetchOne(t, c, s.URL+"/away")
	if !errors.Is(err, connector.ErrOffSite) || sanad.ErrorCode(err) != sanad.CodePolicyDenied || !strings.Contains(err.Error(), other.URL) {
		t.Errorf("got %v, want the redirect to another host refused", err)
	}
	if len(other.log) != 0 {
		t.Errorf("got %d requests to the other host, want none", len(other.log))
	}

	out, err := fetchOne(t, c, s.URL+"/old")
	if err != nil {
		t.Fatal(err)
	}
	if out.SourceID != s.URL+"/new" || out.SourceMetadata["url"] != s.URL+"/old" || out.SourceMetadata["final_url"] != s.URL+"/new" {
		t.Errorf("got %s, metadata %v; want the final URL recorded", out.SourceID, out.SourceMetadata)
	}

	_, err = fetchOne(t, c, s.URL+"/blocked")
	if !errors.Is(err, connector.ErrRobots) {
		t.Errorf("got %v, want the redirect into a disallowed path refused", err)
	}
	if slices.Contains(s.paths(), "/private/x") {
		t.Error("got /private/x requested, want it refused by robots.txt")
	}
}

func TestCrawl(t *testing.T) {
	s := newSite(t)
	other := newSite(t)
	s.page("/", "text/html", `<html><head><title>home</title></head><body>
		<a href="/a">a</a> <a href="b">b</a> <a href="/a#part">a again</a>
		<a href="`+other.URL+`/x">elsewhere</a> <a href="mailto:x@example.com">mail</a>
		<a href="/hidden" rel="nofollow">nofollow</a> <a href="/doc.pdf">pdf</a></body></html>`)
	s.page("/a", "text/html", `<a href="/a/1">1</a><a href="/">home</a>`)
	s.page("/b", "text/html", `<meta name="robots" content="noindex, nofollow"><a href="/b/never">never</a>`)
	s.page("/a/1", "text/html", `<base href="/deep/"><a href="2">2</a>`)
	s.page("/deep/2", "text/html", `<a href="/deep/3">3</a>`)
	s.page("/doc.pdf", "application/pdf", "%PDF-1.4 not really")
	for _, tc := range []struct {
		depth int
		want  []string
	}{
		{-1, []string{"/"}},
		{1, []string{"/", "/a", "/b", "/doc.pdf"}},
		{2, []string{"/", "/a", "/b", "/doc.pdf", "/a/1"}},
		{3, []string{"/", "/a", "/b", "/doc.pdf", "/a/1", "/deep/2"}},
	} {
		t.Run(fmt.Sprint(tc.depth), func(t *testing.T) {
			opt := testOptions(t)
			opt.MaxDepth = tc.depth
			outs, errs := fetch(t, newConn(t, opt), s.URL+"/", true)
			if len(errs) != 0 {
				t.Fatalf("got errors %v", errs)
			}
			var got []string
			for _, o := range outs {
				got = append(got, strings.TrimPrefix(o.SourceID, s.URL))
				if d := o.SourceMetadata["depth"]; d.(int) > max(tc.depth, 0) {
					t.Errorf("got %s at depth %v, deeper than %d", o.SourceID, d, tc.depth)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
	if len(other.log) != 0 {
		t.Errorf("got %d requests to another host, want none", len(other.log))
	}
}

func TestNotRecursiveFetchesOnePage(t *testing.T) {
	s := newSite(t)
	s.page("/", "text/html", `<a href="/a">a</a>`)
	s.page("/a", "text/html", `a`)
	outs, errs := fetch(t, newConn(t, testOptions(t)), s.URL, false)
	if len(outs) != 1 || len(errs) != 0 || outs[0].SourceID != s.URL+"/" {
		t.Errorf("got %v, %v; want the start page only", outs, errs)
	}
}

func TestRateLimitSpacing(t *testing.T) {
	s := newSite(t)
	s.page("/", "text/html", `<a href="/1">1</a><a href="/2">2</a><a href="/3">3</a>`)
	for _, p := range []string{"/1", "/2", "/3"} {
		s.page(p, "text/plain", p)
	}
	opt := testOptions(t)
	opt.MinInterval = 150 * time.Millisecond
	outs, errs := fetch(t, newConn(t, opt), s.URL+"/", true)
	if len(outs) != 4 || len(errs) != 0 {
		t.Fatalf("got %d outputs, errors %v; want 4", len(outs), errs)
	}
	s.mu.Lock()
	log := slices.Clone(s.log) // robots.txt counts: it is a request to the host too
	s.mu.Unlock()
	for i := 1; i < len(log); i++ {
		if gap := log[i].at.Sub(log[i-1].at); gap < 140*time.Millisecond {
			t.Errorf("got %v between %s and %s, want at least 150ms", gap, log[i-1].path, log[i].path)
		}
	}
}

func TestCrawlDelay(t *testing.T) {
	s := newSite(t)
	s.page("/robots.txt", "text/plain", "User-agent: *\nCrawl-delay: 0.3\n")
	s.page("/", "text/html", `<a href="/1">1</a><a href="/2">2</a>`)
	s.page("/1", "text/plain", "1")
	s.page("/2", "text/plain", "2")
	outs, errs := fetch(t, newConn(t, testOptions(t)), s.URL+"/", true)
	if len(outs) != 3 || len(errs) != 0 {
		t.Fatalf("got %d outputs, errors %v; want 3", len(outs), errs)
	}
	h := s.hits()
	for i := 1; i < len(h); i++ {
		if gap := h[i].at.Sub(h[i-1].at); gap < 290*time.Millisecond {
			t.Errorf("got %v between %s and %s, want the 0.3s Crawl-delay", gap, h[i-1].path, h[i].path)
		}
	}
}

func TestContentTypeSniffing(t *testing.T) {
	s := newSite(t)
	pdf := "%PDF-1.7\n1 0 obj\n"
	serve := func(path, ct, body string) {
		s.mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			if ct == "" {
				w.Header()["Content-Type"] = nil // no header at all
			} else {
				w.Header().Set("Content-Type", ct)
			}
			fmt.Fprint(w, body)
		})
	}
	serve("/none", "", pdf)
	serve("/report.pdf", "application/octet-stream", "not obviously a pdf")
	serve("/plain", "text/plain", pdf)
	serve("/declared", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "PK\x03\x04")
	serve("/page", "", "<!DOCTYPE html><html><body>x</body></html>")
	c := newConn(t, testOptions(t))
	for _, tc := range []struct {
		path, want, ext string
	}{
		{"/none", "application/pdf", ".pdf"},
		{"/report.pdf", "application/pdf", ".pdf"},
		{"/plain", "application/pdf", ".pdf"},
		{"/declared", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", ".docx"},
		{"/page", "text/html", ".html"},
	} {
		out, err := fetchOne(t, c, s.URL+tc.path)
		if err != nil {
			t.Errorf("%s: %v", tc.path, err)
			continue
		}
		if out.MimeType != tc.want || filepath.Ext(out.FilePath) != tc.ext {
			t.Errorf("%s: got %s in %s, want %s in a %s file", tc.path, out.MimeType, filepath.Base(out.FilePath), tc.want, tc.ext)
		}
	}
}

func TestCredentials(t *testing.T) {
	s := newSite(t)
	s.mux.HandleFunc("/members", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		fmt.Fprint(w, "welcome")
	})
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "intranet"), []byte(`{"type":"bearer","token":"s3cret"}`), 0o600)
	opt := testOptions(t)
	opt.CredentialsDir = dir
	c := newConn(t, opt)
	for _, tc := range []struct {
		id   string
		code sanad.Code
	}{
		{"intranet", ""},
		{"", sanad.CodeConnectorAuth},
		{"missing", sanad.CodeConnectorAuth},
		{"../intranet", sanad.CodeConnectorAuth},
	} {
		_, errs := connector.Collect(c.Fetch(context.Background(), connector.Input{SourceType: "web", SourceIdentifier: s.URL + "/members", CredentialsID: tc.id}))
		var got sanad.Code
		if len(errs) > 0 {
			got = sanad.ErrorCode(errs[0])
		}
		if got != tc.code {
			t.Errorf("credentials %q: got %v, want %q", tc.id, errs, tc.code)
		}
	}
}

func TestBadURLs(t *testing.T) {
	c := newConn(t, testOptions(t))
	for _, u := range []string{"ftp://example.com/x", "not a url", "https://user:pw@example.com/", "/relative"} {
		_, err := fetchOne(t, c, u)
		if sanad.ErrorCode(err) != sanad.CodeInvalidInput {
			t.Errorf("%q: got %v, want INVALID_INPUT", u, err)
		}
	}
}

func TestPrivateNetworkRefused(t *testing.T) {
	s := newSite(t)
	s.page("/page", "text/plain", "internal")
	opt := testOptions(t)
	opt.AllowPrivateNetworks = false
	_, err := fetchOne(t, newConn(t, opt), s.URL+"/page")
	if !errors.Is(err, connector.ErrPrivateNetwork) || sanad.ErrorCode(err) != sanad.CodePolicyDenied || !strings.Contains(err.Error(), s.URL) {
		t.Errorf("got %v, want POLICY_DENIED naming the URL", err)
	}
	s.mu.Lock()
	n := len(s.log)
	s.mu.Unlock()
	if n != 0 {
		t.Errorf("got %d requests to a loopback server, want none", n)
	}
}
