package connector

import (
	"context"
	"errors"
	"iter"
	"time"

	"github.com/sanadhq/sanad"
)

// Source types, spelled as ConnectorInput.source_type spells them.
const (
	SourceGDrive = "gdrive"
	SourceWeb    = "web"
	SourceLocal  = "local"
)

// Input is ConnectorInput: what to fetch.
type Input struct {
	// SourceType is SourceGDrive, SourceWeb or SourceLocal.
	SourceType string `json:"source_type"`
	// SourceIdentifier is a URL, a file path (or glob), or a Drive file or
	// folder id.
	SourceIdentifier string `json:"source_identifier"`
	// CredentialsID names the credentials to use, looked up through
	// Options.Credentials or Options.CredentialsDir; empty for none.
	CredentialsID string `json:"credentials_id,omitempty"`
	// Recursive descends into sub-folders (local, gdrive) or follows
	// same-site links (web) up to Options.MaxDepth.
	Recursive bool `json:"recursive"`
}

// Validate reports whether in names a known source type and an identifier.
func (in Input) Validate() error {
	switch in.SourceType {
	case SourceGDrive, SourceWeb, SourceLocal:
	default:
		return sanad.Errorf(sanad.CodeInvalidInput, "connector", "source_type %q is not one of gdrive, web, local", in.SourceType)
	}
	if in.SourceIdentifier == "" {
		return sanad.Errorf(sanad.CodeInvalidInput, "connector", "source_identifier is empty")
	}
	return nil
}

// Output is ConnectorOutput: one item fetched, complete and checksummed.
type Output struct {
	// FilePath is the local absolute path of the content: a file in the
	// workspace for downloads, the original file for local sources (unless
	// Options.CopyLocal).
	FilePath string `json:"file_path"`
	// FileSizeBytes is the size of the file at FilePath.
	FileSizeBytes int64 `json:"file_size_bytes"`
	// SourceMetadata is the source's own metadata: Drive owners and links,
	// URL and response headers, file mode and times.
	SourceMetadata map[string]any `json:"source_metadata"`
	// Checksum is "sha256:<hex>" of the bytes at FilePath, computed while
	// they were read or written.
	Checksum string `json:"checksum"`
	// SourceID identifies the item at its source, stably across fetches: an
	// absolute path, a canonical URL, a Drive file id.
	SourceID string `json:"source_id"`
	// ModifiedTime is when the source says the item last changed (zero when
	// it does not say).
	ModifiedTime time.Time `json:"modified_time,omitzero"`
	// MimeType is the media type of the content at FilePath.
	MimeType string `json:"mime_type,omitempty"`
}

// Fetcher fetches the items an Input names. Fetch yields each item found
// with a nil error, or a zero Output with an *ItemError for an item that
// failed; a failure that stops the whole fetch (bad input, no credentials,
// a root that cannot be listed) is yielded once with the input's identifier
// as its source. Breaking out of the loop stops the fetch.
type Fetcher interface {
	Fetch(ctx context.Context, in Input) iter.Seq2[Output, error]
}

// Mux dispatches an Input to the Fetcher registered for its source type.
type Mux map[string]Fetcher

var _ Fetcher = Mux(nil)

// Fetch validates in and passes it to the Fetcher of in.SourceType. An
// unknown or unregistered source type yields one CodeInvalidInput error.
func (m Mux) Fetch(ctx context.Context, in Input) iter.Seq2[Output, error] {
	if err := in.Validate(); err != nil {
		return Fail(in.SourceIdentifier, err)
	}
	f, ok := m[in.SourceType]
	if !ok {
		return Fail(in.SourceIdentifier, sanad.Errorf(sanad.CodeInvalidInput, "connector", "no connector for source_type %q is configured", in.SourceType))
	}
	return f.Fetch(ctx, in)
}

// Fail returns a sequence yielding err once, as the failure of source.
func Fail(source string, err error) iter.Seq2[Output, error] {
	return func(yield func(Output, error) bool) {
		yield(Output{}, ItemErr(source, err))
	}
}

// Collect runs a fetch to its end and returns what it yielded.
func Collect(seq iter.Seq2[Output, error]) ([]Output, []error) {
	var outs []Output
	var errs []error
	for out, err := range seq {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		outs = append(outs, out)
	}
	return outs, errs
}

// ItemError is the failure of one item of a fetch. Source is the item's
// SourceID (or the input's identifier when no item could be named); Err is
// a *sanad.Error whose message names the source too.
type ItemError struct {
	Source string
	Err    error
}

// ItemErr returns err as the failure of source. An err that already is an
// *ItemError is returned unchanged.
func ItemErr(source string, err error) error {
	var ie *ItemError
	if errors.As(err, &ie) {
		return err
	}
	return &ItemError{Source: source, Err: err}
}

func (e *ItemError) Error() string { return e.Err.Error() }

func (e *ItemError) Unwrap() error { return e.Err }

// Sentinels wrapped by the errors of the connectors, for errors.Is.
var (
	// ErrTooLarge: the item is larger than Options.MaxBytes.
	ErrTooLarge = errors.New("larger than the size cap")
	// ErrOffSite: a redirect led to another site.
	ErrOffSite = errors.New("redirect to another site")
	// ErrRobots: the site's robots.txt disallows the URL.
	ErrRobots = errors.New("disallowed by robots.txt")
	// ErrChanged: a local file changed while it was read.
	ErrChanged = errors.New("changed while read")
	// ErrOutsideRoot: a path or symbolic link leads outside the root it was
	// found under.
	ErrOutsideRoot = errors.New("outside the root")
	// ErrPrivateNetwork: a host resolves to a loopback, private or other
	// non-public address, and Options.AllowPrivateNetworks is not set.
	ErrPrivateNetwork = errors.New("non-public network address")
)
