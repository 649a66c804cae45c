package connector

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/sanadhq/sanad"
)

// Defaults of Options, used where a field is zero.
const (
	DefaultMaxBytes    = 256 << 20 // per file
	DefaultTimeout     = 2 * time.Minute
	DefaultUserAgent   = "sanad-connector/1.0"
	DefaultMinInterval = 250 * time.Millisecond
	DefaultMaxDepth    = 2
	DefaultMaxItems    = 10000
	// MaxCredentialsBytes bounds a credentials file.
	MaxCredentialsBytes = 1 << 20
)

// CredentialsFunc returns the credentials named id: a JSON document whose
// shape the connector using it defines (a Drive service-account key or token
// file, a web bearer token). It returns an error wrapping fs.ErrNotExist when
// there is no such id.
type CredentialsFunc func(ctx context.Context, id string) ([]byte, error)

// Options configure every connector. The zero value is usable except for
// Workspace, which connectors that download require. A zero field takes its
// default; where a negative value is meaningful, the field says so.
type Options struct {
	// Workspace is the directory downloads are written to. It is created
	// (mode 0700) if missing. Required by web and gdrive, and by local with
	// CopyLocal.
	Workspace string
	// MaxBytes caps each file (DefaultMaxBytes). A larger item fails with
	// ErrTooLarge; reading stops at the cap, so memory and disk stay bounded.
	MaxBytes int64
	// Timeout bounds each request, reading its body included
	// (DefaultTimeout). The context's deadline bounds the whole fetch.
	Timeout time.Duration
	// UserAgent is sent with every request and matched against robots.txt
	// groups by its product token, the part before the first '/'
	// (DefaultUserAgent).
	UserAgent string
	// HTTPClient sends requests; nil for a client of its own. Its
	// CheckRedirect is replaced by the connector's redirect policy. The
	// connector's own client connects directly (no proxy from the
	// environment) and, unless AllowPrivateNetworks, refuses to connect to
	// loopback, private, link-local and other non-public addresses, checked
	// on the address actually dialled (so DNS cannot lead it there either);
	// pass a client to use a proxy.
	HTTPClient *http.Client
	// AllowPrivateNetworks lets the connector's own client connect to
	// non-public addresses: intranet sites, local test servers. Leave it
	// unset when URLs may come from untrusted input, such as a model.
	AllowPrivateNetworks bool
	// MinInterval is the least time between two requests to one host
	// (DefaultMinInterval; negative for none). A robots.txt Crawl-delay
	// longer than it wins for that host, up to MaxCrawlDelay.
	MinInterval time.Duration
	// MaxDepth is how many links deep a recursive web crawl goes from the
	// start page (DefaultMaxDepth; negative for the start page only).
	MaxDepth int
	// MaxItems caps the items one Fetch yields, failed ones included
	// (DefaultMaxItems); a fetch that reaches it yields one more error
	// saying so.
	MaxItems int
	// Retry is the retry policy for HTTP requests.
	Retry RetryPolicy
	// Credentials looks credentials up by id; when nil, CredentialsDir is
	// used.
	Credentials CredentialsFunc
	// CredentialsDir holds one file per credentials id, named by the id
	// (a plain file name: no separators, not starting with '.').
	CredentialsDir string
	// IncludeHidden makes local folder and glob listings include names
	// starting with '.' and the system files listed in local's
	// documentation. A file named explicitly is always fetched.
	IncludeHidden bool
	// CopyLocal copies local files into the workspace, so the file a parser
	// later reads is the one checksummed even if the original changes.
	CopyLocal bool
	// Now returns the current time (time.Now).
	Now func() time.Time
	// Jitter returns a number in [0,1) that randomises backoff delays
	// (math/rand/v2.Float64).
	Jitter func() float64
	// Logger receives notes on skipped items and retries (discarded when
	// nil).
	Logger *slog.Logger
}

// MaxCrawlDelay caps the Crawl-delay a robots.txt may impose.
const MaxCrawlDelay = 30 * time.Second

// WithDefaults returns o with every zero field set to its default. It is
// idempotent.
func (o Options) WithDefaults() Options {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.UserAgent == "" {
		o.UserAgent = DefaultUserAgent
	}
	// Negative values keep their meaning ("none"), so that applying the
	// defaults twice changes nothing.
	if o.MinInterval == 0 {
		o.MinInterval = DefaultMinInterval
	}
	if o.MaxDepth == 0 {
		o.MaxDepth = DefaultMaxDepth
	}
	if o.MaxItems <= 0 {
		o.MaxItems = DefaultMaxItems
	}
	o.Retry = o.Retry.withDefaults()
	if o.HTTPClient == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.Proxy = nil
		d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
		if !o.AllowPrivateNetworks {
			d.Control = publicOnly
		}
		tr.DialContext = d.DialContext
		o.HTTPClient = &http.Client{Transport: tr}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Jitter == nil {
		o.Jitter = rand.Float64
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Validate reports settings that cannot work.
func (o Options) Validate() error {
	if o.Workspace != "" && !filepath.IsAbs(o.Workspace) {
		return sanad.Errorf(sanad.CodeInvalidInput, "connector", "workspace %q is not an absolute path", o.Workspace)
	}
	if o.CredentialsDir != "" && !filepath.IsAbs(o.CredentialsDir) {
		return sanad.Errorf(sanad.CodeInvalidInput, "connector", "credentials directory %q is not an absolute path", o.CredentialsDir)
	}
	return o.Retry.Validate()
}

// OpenWorkspace creates the workspace if needed and returns its absolute,
// symlink-free path.
func (o Options) OpenWorkspace() (string, error) {
	if o.Workspace == "" {
		return "", sanad.Errorf(sanad.CodeInvalidInput, "connector", "no workspace directory is configured for downloads")
	}
	if err := os.MkdirAll(o.Workspace, 0o700); err != nil {
		return "", sanad.Wrap(err, sanad.CodeInternal, "connector", "cannot create the workspace "+o.Workspace)
	}
	dir, err := filepath.EvalSymlinks(o.Workspace)
	if err != nil {
		return "", sanad.Wrap(err, sanad.CodeInternal, "connector", "cannot resolve the workspace "+o.Workspace)
	}
	return dir, nil
}

// LoadCredentials returns the credentials named id, from o.Credentials or
// a file in o.CredentialsDir. A missing id, or none configured, is a
// CodeConnectorAuth error naming source.
func (o Options) LoadCredentials(ctx context.Context, id, source string) ([]byte, error) {
	const op = "connector.credentials"
	if o.Credentials != nil {
		b, err := o.Credentials(ctx, id)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, sanad.Wrap(err, sanad.CodeConnectorAuth, op, "credentials "+quote(id)+" for "+source+" do not exist")
		}
		if err != nil {
			return nil, sanad.Wrap(err, sanad.CodeConnectorAuth, op, "cannot read credentials "+quote(id)+" for "+source)
		}
		return b, nil
	}
	if o.CredentialsDir == "" {
		return nil, sanad.Errorf(sanad.CodeConnectorAuth, op, "credentials %q for %s were named but no credentials store is configured", id, source)
	}
	if id == "" || strings.ContainsAny(id, `/\`+"\x00") || strings.HasPrefix(id, ".") {
		return nil, sanad.Errorf(sanad.CodeConnectorAuth, op, "credentials id %q for %s is not a plain file name", id, source)
	}
	root, err := os.OpenRoot(o.CredentialsDir)
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeConnectorAuth, op, "cannot open the credentials directory for "+source)
	}
	defer root.Close()
	f, err := root.Open(id)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, sanad.Wrap(err, sanad.CodeConnectorAuth, op, "credentials "+quote(id)+" for "+source+" do not exist")
	}
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeConnectorAuth, op, "cannot read credentials "+quote(id)+" for "+source)
	}
	defer f.Close()
	b, err := readAllMax(f, MaxCredentialsBytes)
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeConnectorAuth, op, "cannot read credentials "+quote(id)+" for "+source)
	}
	return b, nil
}

func quote(s string) string { return `"` + s + `"` }

// sharedAddressSpace is 100.64.0.0/10 (RFC 6598), carrier-grade NAT.
var sharedAddressSpace = netip.MustParsePrefix("100.64.0.0/10")

// publicOnly is a net.Dialer Control refusing non-public addresses.
func publicOnly(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		host = address
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("dial %s: %w", address, ErrPrivateNetwork)
	}
	ip = ip.Unmap()
	if !ip.IsGlobalUnicast() || ip.IsPrivate() || sharedAddressSpace.Contains(ip) {
		return fmt.Errorf("dial %s: %w", address, ErrPrivateNetwork)
	}
	return nil
}
