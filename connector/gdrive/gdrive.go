// Package gdrive is the connector for Google Drive, through the Drive REST
// API v3 with OAuth2.
//
// An input names a Drive file or folder id. A file is downloaded
// (files.get?alt=media) or, for Google Docs, Slides, Sheets and Drawings,
// exported (files.export) as DOCX, PPTX, CSV (first sheet) and PDF. A
// folder is listed (files.list with "'<id>' in parents and trashed=false",
// page by page) and its files fetched; with Recursive its sub-folders too,
// each folder once even if it has several parents.
//
// Credentials (credentials_id) are a service account key (JSON, as the
// Cloud console gives it; the JWT flow with scope drive.readonly), a gcloud
// "authorized_user" file, or an OAuth2 token JSON ({"access_token",
// "token_type", "refresh_token", "expiry"}, with "client_id" and
// "client_secret" to refresh it). Config.TokenSource serves inputs without
// credentials_id. A bad key, a refused token or HTTP 401/403 is
// ERR_CONNECTOR_AUTH; 404 is ERR_CONNECTOR_NOT_FOUND (Drive answers 404 for
// files not shared with the credentials too); 429, 5xx and Drive's 403 rate
// limit errors are retried with backoff.
//
// A downloaded blob is checked against the md5Checksum and size Drive
// lists (CodeIntegrity when they differ). Shortcuts are not followed (noted
// in the log); other Google types (Forms, Sites, Maps) yield
// ERR_PARSER_UNSUPPORTED.
//
// [Connector.Sync] is the incremental form: given the State of the last
// sync, it fetches only files whose modifiedTime, md5Checksum or size
// changed, and reports the files that left the source (deleted, trashed,
// moved out, or no longer shared) as removed.
package gdrive

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"

	"golang.org/x/oauth2"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/connector"
)

const op = "connector.gdrive"

// Scope is the OAuth2 scope asked for: read-only access to Drive files.
const Scope = "https://www.googleapis.com/auth/drive.readonly"

// Defaults of Config.
const (
	DefaultBaseURL  = "https://www.googleapis.com"
	DefaultPageSize = 1000 // the most Drive returns in one page
)

// DefaultRedirectHosts are the host suffixes a Drive download may be
// redirected to besides the API host.
var DefaultRedirectHosts = []string{".googleusercontent.com", ".googleapis.com"}

// maxJSON bounds a metadata response.
const maxJSON = 32 << 20

// maxPages bounds the pages of one folder listing.
const maxPages = 10000

// Config holds the settings particular to Drive.
type Config struct {
	// BaseURL is the API root, before /drive/v3 (DefaultBaseURL).
	BaseURL string
	// TokenURL, when set, replaces the token endpoint named by credentials.
	TokenURL string
	// TokenSource authorizes inputs without a credentials_id; nil refuses
	// them.
	TokenSource oauth2.TokenSource
	// PageSize is the number of files asked per listing page
	// (DefaultPageSize).
	PageSize int
	// ExportTypes maps Google types to export formats (DefaultExportTypes).
	ExportTypes map[string]string
	// RedirectHosts are host suffixes a download may be redirected to
	// (DefaultRedirectHosts when nil); redirects elsewhere are refused.
	RedirectHosts []string
}

// Connector fetches from Google Drive. It is safe for concurrent use.
type Connector struct {
	opt  connector.Options
	cfg  Config
	base *url.URL
	ws   string
	http *connector.HTTP
}

var _ connector.Fetcher = (*Connector)(nil)

// New returns a Drive connector writing into opt.Workspace.
func New(opt connector.Options, cfg Config) (*Connector, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	opt = opt.WithDefaults()
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	base, err := url.Parse(strings.TrimRight(cfg.BaseURL, "/"))
	if err != nil || (base.Scheme != "https" && base.Scheme != "http") || base.Host == "" {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "the Drive API URL %q is not an http(s) URL", cfg.BaseURL)
	}
	if cfg.PageSize <= 0 || cfg.PageSize > DefaultPageSize {
		cfg.PageSize = DefaultPageSize
	}
	if cfg.ExportTypes == nil {
		cfg.ExportTypes = DefaultExportTypes
	}
	if cfg.RedirectHosts == nil {
		cfg.RedirectHosts = DefaultRedirectHosts
	}
	ws, err := opt.OpenWorkspace()
	if err != nil {
		return nil, err
	}
	c := &Connector{opt: opt, cfg: cfg, base: base, ws: ws}
	c.http = connector.NewHTTP(opt, c.checkRedirect, nil)
	return c, nil
}

func (c *Connector) checkRedirect(req *http.Request, via []*http.Request) error {
	if connector.SameSite(c.base, req.URL) {
		return nil
	}
	host := strings.ToLower(req.URL.Hostname())
	for _, suffix := range c.cfg.RedirectHosts {
		if strings.HasSuffix(host, suffix) && req.URL.Scheme == "https" {
			return nil
		}
	}
	return connector.SameSiteRedirects(req, via)
}

// StateSource is the State.Source of an input's syncs.
func StateSource(in connector.Input) string {
	s := "gdrive:" + in.SourceIdentifier
	if in.Recursive {
		s += "?recursive"
	}
	return s
}

// Fetch yields every file in.SourceIdentifier names (see the package
// documentation).
func (c *Connector) Fetch(ctx context.Context, in connector.Input) iter.Seq2[connector.Output, error] {
	return func(yield func(connector.Output, error) bool) {
		w, err := c.start(ctx, in, nil, yield)
		if err != nil {
			yield(connector.Output{}, connector.ItemErr(in.SourceIdentifier, err))
			return
		}
		w.run(in.SourceIdentifier)
	}
}

// Sync fetches the files of in that are new or changed since prev (nil for
// a first sync) and returns them with the files removed since and the
// State to persist. It fails only when the input or prev is unusable; the
// failures of items, the root's included, are in SyncResult.Errors.
func (c *Connector) Sync(ctx context.Context, in connector.Input, prev *connector.State) (*connector.SyncResult, error) {
	source := StateSource(in)
	if prev == nil {
		prev = connector.NewState(source)
	}
	if err := prev.Check(source); err != nil {
		return nil, err
	}
	res := &connector.SyncResult{}
	w, err := c.start(ctx, in, prev, func(out connector.Output, err error) bool {
		if err != nil {
			res.Errors = append(res.Errors, err)
		} else {
			res.Outputs = append(res.Outputs, out)
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	w.run(in.SourceIdentifier)
	res.Unchanged = w.unchanged
	res.Removed = w.removed()
	res.State = w.next
	return res, nil
}

// walk is the state of one fetch or sync.
type walk struct {
	c         *Connector
	ctx       context.Context
	auth      func(context.Context, *http.Request) error
	recursive bool
	yield     func(connector.Output, error) bool

	prev, next *connector.State // prev is nil for a plain fetch
	unchanged  []string
	seen       map[string]bool // file ids found at the source
	folders    map[string]bool // folder ids listed
	gone       []string        // the root, found trashed or missing
	complete   bool            // every folder was listed in full
	stopped    bool
	n          int
}

// start checks in and gets its credentials.
func (c *Connector) start(ctx context.Context, in connector.Input, prev *connector.State, yield func(connector.Output, error) bool) (*walk, error) {
	if !validID(in.SourceIdentifier) {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "%q is not a Drive file or folder id", in.SourceIdentifier)
	}
	ts, err := c.tokenSource(ctx, in.CredentialsID, "Drive item "+in.SourceIdentifier)
	if err != nil {
		return nil, err
	}
	w := &walk{
		c: c, ctx: ctx, auth: authorizer(ts, "Drive item "+in.SourceIdentifier), recursive: in.Recursive, yield: yield,
		prev: prev, next: connector.NewState(StateSource(in)),
		seen: map[string]bool{}, folders: map[string]bool{}, complete: true,
	}
	return w, nil
}

// emit passes one item on, counting it against MaxItems.
func (w *walk) emit(out connector.Output, err error) {
	if w.stopped {
		return
	}
	if w.n >= w.c.opt.MaxItems {
		w.yield(connector.Output{}, connector.ItemErr(out.SourceID, sanad.Errorf(sanad.CodePolicyDenied, op, "stopped after %d items, the most one fetch may yield", w.c.opt.MaxItems)))
		w.stopped, w.complete = true, false
		return
	}
	w.n++
	if !w.yield(out, err) {
		w.stopped, w.complete = true, false
	}
}

func (w *walk) fail(source string, err error) {
	w.emit(connector.Output{SourceID: source}, connector.ItemErr(source, err))
}

func (w *walk) run(rootID string) {
	root, err := w.c.get(w.ctx, w.auth, rootID)
	if err != nil {
		if sanad.ErrorCode(err) == sanad.CodeConnectorNotFound && w.isSingleKnownFile(rootID) {
			w.gone = append(w.gone, rootID)
			return
		}
		w.complete = false
		w.fail(rootID, err)
		return
	}
	switch {
	case root.Trashed:
		if w.isSingleKnownFile(rootID) {
			w.gone = append(w.gone, rootID)
			return
		}
		w.complete = false
		w.fail(rootID, sanad.Errorf(sanad.CodeConnectorNotFound, op, "Drive item %s (%q) is in the trash", rootID, root.Name))
	case root.MimeType == FolderType:
		w.tree(root)
	case root.MimeType == ShortcutType:
		w.complete = false
		w.fail(rootID, sanad.Errorf(sanad.CodeInvalidInput, op, "Drive item %s (%q) is a shortcut: name its target instead", rootID, root.Name))
	default:
		w.seen[root.ID] = true
		w.file(root, "")
	}
}

// isSingleKnownFile reports whether id was synced before as a file, so
// that its disappearance is a removal rather than an error.
func (w *walk) isSingleKnownFile(id string) bool {
	if w.prev == nil {
		return false
	}
	_, ok := w.prev.Items[id]
	return ok
}

type folderRef struct {
	id, path string // path: the names of the folders from the root, ending with '/', or ""
}

// tree fetches the files of a folder, and with recursive of the folders
// below it, breadth first.
func (w *walk) tree(root file) {
	w.folders[root.ID] = true
	queue := []folderRef{{root.ID, ""}}
	for len(queue) > 0 && !w.stopped {
		f := queue[0]
		queue = queue[1:]
		w.c.list(w.ctx, w.auth, f.id, func(items []file, err error) bool {
			if err != nil {
				w.complete = false
				w.fail(f.id, err)
				return false
			}
			for _, it := range items {
				if w.stopped {
					return false
				}
				if err := w.ctx.Err(); err != nil {
					w.complete = false
					w.fail(f.id, ctxError(err, "Drive folder "+f.id))
					return false
				}
				switch it.MimeType {
				case FolderType:
					if w.recursive && !w.folders[it.ID] {
						w.folders[it.ID] = true
						queue = append(queue, folderRef{it.ID, f.path + safeName(it.Name) + "/"})
					}
				case ShortcutType:
					w.c.opt.Logger.Info("not following a Drive shortcut", "id", it.ID, "name", it.Name)
				default:
					w.seen[it.ID] = true
					w.file(it, f.path)
				}
			}
			return true
		})
	}
}

func ctxError(err error, src string) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return sanad.Wrap(err, sanad.CodeTimeout, op, "the deadline passed while listing "+src)
	}
	return sanad.Wrap(err, sanad.CodeCancelled, op, "listing "+src+" was cancelled")
}

func safeName(s string) string { return strings.ReplaceAll(s, "/", "_") }

// file fetches one file unless prev says it is unchanged.
func (w *walk) file(f file, dir string) {
	if w.stopped {
		return
	}
	cur := connector.ItemState{ModifiedTime: f.modified(), Size: int64(f.Size)}
	if f.MD5Checksum != "" {
		cur.SourceChecksum = "md5:" + strings.ToLower(f.MD5Checksum)
	}
	var before connector.ItemState
	var known bool
	if w.prev != nil {
		before, known = w.prev.Items[f.ID]
		if known && before.Unchanged(cur) {
			w.next.Items[f.ID] = before
			w.unchanged = append(w.unchanged, f.ID)
			return
		}
	}
	out, err := w.c.download(w.ctx, w.auth, f, dir)
	if err != nil {
		if known {
			w.next.Items[f.ID] = before // tried again next time
		}
		w.fail(f.ID, err)
		return
	}
	cur.Checksum = out.Checksum
	w.next.Items[f.ID] = cur
	w.emit(out, nil)
}

// removed returns the ids of prev's files gone from the source; when the
// listing was incomplete, it keeps them in next instead.
func (w *walk) removed() []string {
	if w.prev == nil {
		return nil
	}
	out := append([]string(nil), w.gone...)
	for id, st := range w.prev.Items {
		if w.seen[id] || slices.Contains(w.gone, id) {
			continue
		}
		if w.complete {
			out = append(out, id)
		} else {
			w.next.Items[id] = st
		}
	}
	slices.Sort(out)
	return out
}

func (c *Connector) endpoint(p string, q url.Values) string {
	u := *c.base
	u.Path = strings.TrimRight(c.base.Path, "/") + p
	u.RawQuery = q.Encode()
	return u.String()
}

// get returns the metadata of one file (files.get).
func (c *Connector) get(ctx context.Context, auth func(context.Context, *http.Request) error, id string) (file, error) {
	src := "Drive item " + id
	var f file
	err := c.http.Get(ctx, connector.Request{
		URL:       c.endpoint("/drive/v3/files/"+url.PathEscape(id), url.Values{"fields": {fileFields}, "supportsAllDrives": {"true"}}),
		Source:    src,
		Classify:  classify,
		Authorize: auth,
	}, func(resp *http.Response) error {
		b, err := readJSON(resp, src)
		if err != nil {
			return err
		}
		if f, err = decodeFile(b); err != nil {
			return sanad.Wrap(err, sanad.CodeDependencyDown, op, "Drive answered the metadata of "+id+" with an unreadable document")
		}
		return nil
	})
	return f, err
}

// list calls page with each page of a folder's listing (files.list); page
// returns false to stop.
func (c *Connector) list(ctx context.Context, auth func(context.Context, *http.Request) error, folder string, page func([]file, error) bool) {
	src := "Drive folder " + folder
	token := ""
	tokens := map[string]bool{}
	for n := 0; ; n++ {
		if n >= maxPages {
			page(nil, sanad.Errorf(sanad.CodeDependencyDown, op, "%s has more than %d pages of files", src, maxPages))
			return
		}
		q := url.Values{
			"q":                         {"'" + folder + "' in parents and trashed=false"},
			"fields":                    {"nextPageToken,incompleteSearch,files(" + fileFields + ")"},
			"pageSize":                  {fmt.Sprint(c.cfg.PageSize)},
			"orderBy":                   {"folder,name"},
			"supportsAllDrives":         {"true"},
			"includeItemsFromAllDrives": {"true"},
		}
		if token != "" {
			q.Set("pageToken", token)
		}
		var l fileList
		err := c.http.Get(ctx, connector.Request{URL: c.endpoint("/drive/v3/files", q), Source: src, Classify: classify, Authorize: auth}, func(resp *http.Response) error {
			b, err := readJSON(resp, src)
			if err != nil {
				return err
			}
			var bad int
			if l, bad, err = decodeList(b); err != nil {
				return sanad.Wrap(err, sanad.CodeDependencyDown, op, "Drive answered the listing of "+src+" with an unreadable document")
			}
			if bad > 0 {
				c.opt.Logger.Warn("Drive listed files with malformed ids", "folder", folder, "count", bad)
			}
			return nil
		})
		if err != nil {
			page(nil, err)
			return
		}
		if l.IncompleteSearch {
			page(nil, sanad.Errorf(sanad.CodeDependencyDown, op, "Drive says its listing of %s is incomplete", src))
			return
		}
		if !page(l.Files, nil) || l.NextPageToken == "" {
			return
		}
		if tokens[l.NextPageToken] {
			page(nil, sanad.Errorf(sanad.CodeDependencyDown, op, "Drive repeated a page token listing %s", src))
			return
		}
		tokens[l.NextPageToken] = true
		token = l.NextPageToken
	}
}

func readJSON(resp *http.Response, src string) ([]byte, error) {
	if resp.StatusCode != http.StatusOK {
		return nil, sanad.Errorf(sanad.CodeDependencyDown, op, "Drive answered HTTP %d for %s", resp.StatusCode, src)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxJSON+1))
	if err != nil {
		return nil, err // the body broke off: retried
	}
	if len(b) > maxJSON {
		return nil, sanad.Errorf(sanad.CodeDependencyDown, op, "Drive's answer for %s is larger than %d bytes", src, maxJSON)
	}
	return b, nil
}

// download fetches a file's content (files.get?alt=media) or export
// (files.export) into the workspace.
func (c *Connector) download(ctx context.Context, auth func(context.Context, *http.Request) error, f file, dir string) (connector.Output, error) {
	src := fmt.Sprintf("Drive file %s (%q)", f.ID, f.Name)
	var u, export string
	if strings.HasPrefix(f.MimeType, googleApps) {
		var ok bool
		if export, ok = c.cfg.ExportTypes[f.MimeType]; !ok {
			return connector.Output{}, sanad.Errorf(sanad.CodeParserUnsupported, op, "%s is a %s, which Drive cannot export as a document", src, strings.TrimPrefix(f.MimeType, googleApps))
		}
		u = c.endpoint("/drive/v3/files/"+url.PathEscape(f.ID)+"/export", url.Values{"mimeType": {export}})
	} else {
		if int64(f.Size) > c.opt.MaxBytes {
			return connector.Output{}, sanad.Wrap(connector.ErrTooLarge, sanad.CodePolicyDenied, op, fmt.Sprintf("%s is %d bytes, over the cap of %d", src, f.Size, c.opt.MaxBytes))
		}
		u = c.endpoint("/drive/v3/files/"+url.PathEscape(f.ID), url.Values{"alt": {"media"}, "supportsAllDrives": {"true"}})
	}
	var st connector.Stored
	var ct connector.ContentType
	err := c.http.Get(ctx, connector.Request{URL: u, Source: src, Classify: classify, Authorize: auth}, func(resp *http.Response) error {
		if resp.StatusCode != http.StatusOK {
			return sanad.Errorf(sanad.CodeDependencyDown, op, "Drive answered HTTP %d for %s", resp.StatusCode, src)
		}
		var err error
		st, err = connector.Store(c.ws, resp.Body, c.opt.MaxBytes, src, func(head []byte) string {
			if export != "" {
				ct = connector.ContentType{Declared: export, Chosen: export}
				return connector.ExtForType(export)
			}
			ct = connector.DetectType(f.MimeType, f.Name, head)
			if e := strings.ToLower(path.Ext(f.Name)); connector.SafeExt(e) != "" {
				return e
			}
			return connector.ExtForType(ct.Chosen)
		})
		return err
	})
	if err != nil {
		return connector.Output{}, err
	}
	if export == "" {
		if f.MD5Checksum != "" && !strings.EqualFold(st.MD5, f.MD5Checksum) || f.Size > 0 && st.Size != int64(f.Size) {
			return connector.Output{}, sanad.Errorf(sanad.CodeIntegrity, op,
				"%s does not match what Drive lists (md5 %s, %d bytes; got md5 %s, %d bytes): it may have changed during the download, fetch it again",
				src, f.MD5Checksum, f.Size, st.MD5, st.Size)
		}
	}
	meta := map[string]any{
		"drive_id":      f.ID,
		"name":          f.Name,
		"path":          dir + f.Name,
		"mime_type":     f.MimeType,
		"modified_time": f.ModifiedTime,
	}
	if export != "" {
		meta["export_mime_type"] = export
	}
	if f.MD5Checksum != "" {
		meta["md5_checksum"] = f.MD5Checksum
	}
	if f.Size > 0 {
		meta["size"] = int64(f.Size)
	}
	if f.WebViewLink != "" {
		meta["web_view_link"] = f.WebViewLink
	}
	if len(f.Owners) > 0 {
		owners := make([]map[string]string, 0, len(f.Owners))
		for _, o := range f.Owners {
			owners = append(owners, map[string]string{"name": o.DisplayName, "email": o.EmailAddress})
		}
		meta["owners"] = owners
		meta["author"] = f.Owners[0].DisplayName
	}
	return connector.Output{
		FilePath:       st.Path,
		FileSizeBytes:  st.Size,
		SourceMetadata: meta,
		Checksum:       st.Checksum,
		SourceID:       f.ID,
		ModifiedTime:   f.modified(),
		MimeType:       ct.Chosen,
	}, nil
}
