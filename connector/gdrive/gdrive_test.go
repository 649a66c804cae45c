package gdrive

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/connector"
)

const (
	docType    = "application/vnd.google-apps.document"
	slidesType = "application/vnd.google-apps.presentation"
	sheetType  = "application/vnd.google-apps.spreadsheet"
	formType   = "application/vnd.google-apps.form"
)

// corpus fills d with a folder tree:
//
//	root/ report.pdf, Board minutes (Doc), Pitch (Slides), Model (Sheet),
//	      Survey (Form), link (shortcut), Trashed.pdf (in the trash)
//	root/Contracts/ nda.txt
//	root/Contracts/Old/ old.docx
func corpus(d *fakeDrive) {
	d.add(&fakeFile{id: "root", name: "Deal room", mime: FolderType})
	d.add(&fakeFile{id: "f-pdf", name: "report.pdf", mime: "application/pdf", parents: []string{"root"}, content: []byte("%PDF-1.7 annual report")})
	d.add(&fakeFile{id: "f-doc", name: "Board minutes", mime: docType, parents: []string{"root"}, content: []byte("minutes")})
	d.add(&fakeFile{id: "f-deck", name: "Pitch", mime: slidesType, parents: []string{"root"}, content: []byte("slides")})
	d.add(&fakeFile{id: "f-sheet", name: "Model", mime: sheetType, parents: []string{"root"}, content: []byte("a,b\n1,2\n")})
	d.add(&fakeFile{id: "f-form", name: "Survey", mime: formType, parents: []string{"root"}})
	d.add(&fakeFile{id: "f-short", name: "link", mime: ShortcutType, parents: []string{"root"}})
	d.add(&fakeFile{id: "f-trash", name: "Trashed.pdf", mime: "application/pdf", parents: []string{"root"}, content: []byte("%PDF old"), trashed: true})
	d.add(&fakeFile{id: "d-sub", name: "Contracts", mime: FolderType, parents: []string{"root"}})
	d.add(&fakeFile{id: "f-nda", name: "nda.txt", mime: "text/plain", parents: []string{"d-sub"}, content: []byte("mutual NDA")})
	d.add(&fakeFile{id: "d-old", name: "Old", mime: FolderType, parents: []string{"d-sub", "root"}})
	d.add(&fakeFile{id: "f-old", name: "old.docx", mime: DOCX, parents: []string{"d-old"}, content: []byte("PK\x03\x04 old")})
}

// setup returns a fake Drive with the corpus and a connector using a
// service account key for it, named "sa".
func setup(tb testing.TB, opt connector.Options, creds func(*fakeDrive) map[string][]byte) (*fakeDrive, *Connector) {
	tb.Helper()
	d := newFakeDrive(tb)
	corpus(d)
	if opt.Workspace == "" {
		opt.Workspace = tb.TempDir()
	}
	if opt.MinInterval == 0 {
		opt.MinInterval = -1
	}
	opt.AllowPrivateNetworks = true // the fake listens on loopback
	if opt.Retry.BaseDelay == 0 {
		opt.Retry = connector.RetryPolicy{MaxAttempts: 3, BaseDelay: 5 * time.Millisecond, MaxDelay: 20 * time.Millisecond}
	}
	all := map[string][]byte{"sa": d.serviceAccountKey(rsaKey(tb))}
	if creds != nil {
		for k, v := range creds(d) {
			all[k] = v
		}
	}
	opt.Credentials = func(_ context.Context, id string) ([]byte, error) {
		if b, ok := all[id]; ok {
			return b, nil
		}
		return nil, fs.ErrNotExist
	}
	c, err := New(opt, Config{BaseURL: d.URL, PageSize: 2})
	if err != nil {
		tb.Fatal(err)
	}
	return d, c
}

func in(id string, recursive bool) connector.Input {
	return connector.Input{SourceType: connector.SourceGDrive, SourceIdentifier: id, CredentialsID: "sa", Recursive: recursive}
}

func ids(outs []connector.Output) []string {
	var s []string
	for _, o := range outs {
		s = append(s, o.SourceID)
	}
	slices.Sort(s)
	return s
}

func TestFetchFolder(t *testing.T) {
	d, c := setup(t, connector.Options{}, nil)
	outs, errs := connector.Collect(c.Fetch(context.Background(), in("root", false)))
	if got, want := ids(outs), []string{"f-deck", "f-doc", "f-pdf", "f-sheet"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if len(errs) != 1 || sanad.ErrorCode(errs[0]) != sanad.CodeParserUnsupported || !strings.Contains(errs[0].Error(), "f-form") {
		t.Errorf("got errors %v, want one ERR_PARSER_UNSUPPORTED for the form", errs)
	}
	if n := d.count("list:root"); n != 4 {
		t.Errorf("got %d list requests, want 4 pages of 2", n)
	}
	byID := map[string]connector.Output{}
	for _, o := range outs {
		byID[o.SourceID] = o
	}
	for _, tc := range []struct {
		id, mime, ext, content string
	}{
		{"f-pdf", "application/pdf", ".pdf", "%PDF-1.7 annual report"},
		{"f-doc", DOCX, ".docx", "exported:" + DOCX + "\nminutes"},
		{"f-deck", PPTX, ".pptx", "exported:" + PPTX + "\nslides"},
		{"f-sheet", CSV, ".csv", "exported:text/csv\na,b\n1,2\n"},
	} {
		o := byID[tc.id]
		b, err := os.ReadFile(o.FilePath)
		if err != nil || string(b) != tc.content || o.MimeType != tc.mime || filepath.Ext(o.FilePath) != tc.ext || o.FileSizeBytes != int64(len(b)) {
			t.Errorf("%s: got %+v with %q, %v; want %s in a %s file", tc.id, o, b, err, tc.mime, tc.ext)
		}
		if !strings.HasPrefix(o.FilePath, c.ws) || !strings.HasPrefix(o.Checksum, "sha256:") {
			t.Errorf("%s: got %s, %s; want a checksummed file in the workspace", tc.id, o.FilePath, o.Checksum)
		}
	}
	pdf := byID["f-pdf"]
	m := pdf.SourceMetadata
	if m["author"] != "Amina Yusuf" || m["name"] != "report.pdf" || m["path"] != "report.pdf" || m["md5_checksum"] == nil ||
		!strings.Contains(fmt.Sprint(m["web_view_link"]), "f-pdf") || m["mime_type"] != "application/pdf" {
		t.Errorf("got metadata %v", m)
	}
	if !pdf.ModifiedTime.Equal(time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("got modified %v", pdf.ModifiedTime)
	}
	if byID["f-doc"].SourceMetadata["export_mime_type"] != DOCX {
		t.Errorf("got %v, want the export type recorded", byID["f-doc"].SourceMetadata)
	}
}

func TestFetchRecursive(t *testing.T) {
	d, c := setup(t, connector.Options{}, nil)
	outs, _ := connector.Collect(c.Fetch(context.Background(), in("root", true)))
	if got, want := ids(outs), []string{"f-deck", "f-doc", "f-nda", "f-old", "f-pdf", "f-sheet"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if n := d.count("list:d-old"); n != 1 {
		t.Errorf("got the folder with two parents listed %d times, want once", n)
	}
	for _, o := range outs {
		if o.SourceID == "f-old" && o.SourceMetadata["path"] != "Old/old.docx" {
			t.Errorf("got path %v, want Old/old.docx (reached first from the root)", o.SourceMetadata["path"])
		}
	}
}

func TestFetchSingleFile(t *testing.T) {
	_, c := setup(t, connector.Options{}, nil)
	outs, errs := connector.Collect(c.Fetch(context.Background(), in("f-nda", false)))
	if len(errs) != 0 || len(outs) != 1 || outs[0].SourceID != "f-nda" || outs[0].MimeType != "text/plain" {
		t.Fatalf("got %v, %v; want nda.txt", outs, errs)
	}
}

func TestSync(t *testing.T) {
	d, c := setup(t, connector.Options{}, nil)
	ctx := context.Background()
	statePath := filepath.Join(t.TempDir(), "drive-state.json")
	sync := func() *connector.SyncResult {
		t.Helper()
		prev, err := connector.ReadStateFile(statePath, StateSource(in("root", true)))
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Sync(ctx, in("root", true), prev)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range res.Errors {
			if !strings.Contains(e.Error(), "f-form") {
				t.Errorf("got error %v", e)
			}
		}
		if err := res.State.WriteFile(statePath); err != nil {
			t.Fatal(err)
		}
		return res
	}

	first := sync()
	if got := ids(first.Outputs); len(got) != 6 || len(first.Removed) != 0 {
		t.Fatalf("first sync: got %v, removed %v; want all 6 files", got, first.Removed)
	}

	second := sync()
	if len(second.Outputs) != 0 || len(second.Unchanged) != 6 || len(second.Removed) != 0 {
		t.Errorf("second sync: got %v fetched, %d unchanged, removed %v; want none fetched", ids(second.Outputs), len(second.Unchanged), second.Removed)
	}
	mediaBefore := d.count("media:f-pdf")

	d.edit("f-nda", "mutual NDA, amended")
	third := sync()
	if got := ids(third.Outputs); !slices.Equal(got, []string{"f-nda"}) || len(third.Removed) != 0 || len(third.Unchanged) != 5 {
		t.Errorf("after an edit: got %v, removed %v; want only f-nda", got, third.Removed)
	}
	if d.count("media:f-pdf") != mediaBefore {
		t.Error("got an unchanged file downloaded again")
	}
	d.edit("f-doc", "minutes v2") // a Google Doc: no md5, its modifiedTime tells
	if got := ids(sync().Outputs); !slices.Equal(got, []string{"f-doc"}) {
		t.Errorf("after a Doc edit: got %v, want only f-doc", got)
	}

	d.mu.Lock()
	d.files["f-pdf"].trashed = true
	delete(d.files, "f-old")
	d.files["f-nda"].parents = []string{"elsewhere"} // moved out of the tree
	d.mu.Unlock()
	fourth := sync()
	if len(fourth.Outputs) != 0 || !slices.Equal(fourth.Removed, []string{"f-nda", "f-old", "f-pdf"}) {
		t.Errorf("after trash, delete, move: got %v, removed %v; want removed [f-nda f-old f-pdf]", ids(fourth.Outputs), fourth.Removed)
	}
	if _, ok := fourth.State.Items["f-pdf"]; ok {
		t.Error("got a removed file kept in the state")
	}

	fifth := sync()
	if len(fifth.Outputs) != 0 || len(fifth.Removed) != 0 {
		t.Errorf("got %v, removed %v; want nothing new", ids(fifth.Outputs), fifth.Removed)
	}
}

func TestSyncIncompleteListingRemovesNothing(t *testing.T) {
	d, c := setup(t, connector.Options{}, nil)
	ctx := context.Background()
	first, err := c.Sync(ctx, in("root", true), nil)
	if err != nil {
		t.Fatal(err)
	}
	d.fault("list:d-sub", "500", "500", "500")
	res, err := c.Sync(ctx, in("root", true), first.State)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Removed) != 0 {
		t.Errorf("got removed %v while a folder could not be listed, want none", res.Removed)
	}
	if _, ok := res.State.Items["f-nda"]; !ok {
		t.Error("got f-nda dropped from the state, want it kept until it can be listed")
	}
	found := false
	for _, e := range res.Errors {
		var ie *connector.ItemError
		if errors.As(e, &ie) && ie.Source == "d-sub" && sanad.ErrorCode(e) == sanad.CodeDependencyDown {
			found = true
		}
	}
	if !found {
		t.Errorf("got errors %v, want the listing failure of d-sub", res.Errors)
	}
}

func TestSyncFailedDownloadIsRetriedNextTime(t *testing.T) {
	d, c := setup(t, connector.Options{}, nil)
	ctx := context.Background()
	first, _ := c.Sync(ctx, in("f-nda", false), nil)
	d.edit("f-nda", "v2")
	d.fault("media:f-nda", "500", "500", "500")
	second, _ := c.Sync(ctx, in("f-nda", false), first.State)
	if len(second.Outputs) != 0 || len(second.Errors) != 1 {
		t.Fatalf("got %v, %v; want the download to fail", second.Outputs, second.Errors)
	}
	third, _ := c.Sync(ctx, in("f-nda", false), second.State)
	if got := ids(third.Outputs); !slices.Equal(got, []string{"f-nda"}) {
		t.Errorf("got %v, want f-nda fetched on the next sync", got)
	}
}

func TestSyncSingleFileTrashed(t *testing.T) {
	d, c := setup(t, connector.Options{}, nil)
	ctx := context.Background()
	first, _ := c.Sync(ctx, in("f-nda", false), nil)
	d.mu.Lock()
	d.files["f-nda"].trashed = true
	d.mu.Unlock()
	res, err := c.Sync(ctx, in("f-nda", false), first.State)
	if err != nil || !slices.Equal(res.Removed, []string{"f-nda"}) || len(res.Errors) != 0 {
		t.Errorf("got %+v, %v; want f-nda removed", res, err)
	}
	if _, err := c.Sync(ctx, in("root", false), first.State); sanad.ErrorCode(err) != sanad.CodeInvalidInput {
		t.Errorf("got %v, want the state of another source refused", err)
	}
}

func TestAuthFailures(t *testing.T) {
	otherKey, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	creds := func(d *fakeDrive) map[string][]byte {
		var broken map[string]string
		json.Unmarshal(d.serviceAccountKey(rsaKey(t)), &broken)
		broken["private_key"] = "-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n"
		brokenKey, _ := json.Marshal(broken)
		return map[string][]byte{
			"wrong-key":   d.serviceAccountKey(otherKey),
			"broken-key":  brokenKey,
			"not-json":    []byte("{not json"),
			"unknown":     []byte(`{"type":"external_account"}`),
			"expired":     []byte(`{"access_token":"ya29.old","token_type":"Bearer","expiry":"2020-01-01T00:00:00Z"}`),
			"revoked":     []byte(`{"type":"authorized_user","client_id":"client-1","client_secret":"secret-1","refresh_token":"revoked","token_uri":"` + d.URL + `/token"}`),
			"unknown-tok": []byte(`{"access_token":"ya29.never-issued","token_type":"Bearer"}`),
		}
	}
	_, c := setup(t, connector.Options{}, creds)
	for _, tc := range []struct{ id, why string }{
		{"wrong-key", "the token endpoint rejects the signature"},
		{"broken-key", "the private key does not parse"},
		{"not-json", "the file is not JSON"},
		{"unknown", "an unsupported credentials type"},
		{"expired", "an expired token without a refresh token"},
		{"revoked", "a revoked refresh token"},
		{"unknown-tok", "Drive answers 401"},
		{"missing", "no such credentials"},
		{"", "no credentials_id and no token source"},
	} {
		t.Run(tc.id, func(t *testing.T) {
			i := in("root", false)
			i.CredentialsID = tc.id
			_, errs := connector.Collect(c.Fetch(context.Background(), i))
			if len(errs) == 0 || sanad.ErrorCode(errs[0]) != sanad.CodeConnectorAuth {
				t.Errorf("%s: got %v, want ERR_CONNECTOR_AUTH", tc.why, errs)
			}
		})
	}
}

func TestForbiddenAndNotFound(t *testing.T) {
	d, c := setup(t, connector.Options{}, nil)
	_, errs := connector.Collect(c.Fetch(context.Background(), in("nope", false)))
	if len(errs) != 1 || sanad.ErrorCode(errs[0]) != sanad.CodeConnectorNotFound || !strings.Contains(errs[0].Error(), "nope") {
		t.Errorf("got %v, want ERR_CONNECTOR_NOT_FOUND naming the id", errs)
	}
	d.mu.Lock()
	d.forbid = true
	d.mu.Unlock()
	_, errs = connector.Collect(c.Fetch(context.Background(), in("root", false)))
	if len(errs) != 1 || sanad.ErrorCode(errs[0]) != sanad.CodeConnectorAuth || !strings.Contains(errs[0].Error(), "insufficientFilePermissions") {
		t.Errorf("got %v, want ERR_CONNECTOR_AUTH with Drive's reason", errs)
	}
	if n := d.count("get:root"); n != 1 {
		t.Errorf("got %d requests, want 1 (no retry of a 403 that is not a rate limit)", n)
	}
}

func TestRetries(t *testing.T) {
	d, c := setup(t, connector.Options{}, nil)
	d.fault("list:root", "429", "403rate")
	d.fault("media:f-pdf", "503")
	d.fault("export:f-doc", "500", "502")
	outs, errs := connector.Collect(c.Fetch(context.Background(), in("root", false)))
	if len(outs) != 4 || len(errs) != 1 {
		t.Fatalf("got %v, %v; want the 4 files despite transient errors", ids(outs), errs)
	}
	if n := d.count("media:f-pdf"); n != 2 {
		t.Errorf("got %d downloads of f-pdf, want 2", n)
	}
	if n := d.count("export:f-doc"); n != 3 {
		t.Errorf("got %d exports of f-doc, want 3", n)
	}
	d.fault("media:f-nda", "503", "503", "503")
	_, errs = connector.Collect(c.Fetch(context.Background(), in("f-nda", false)))
	if len(errs) != 1 || sanad.ErrorCode(errs[0]) != sanad.CodeDependencyDown {
		t.Errorf("got %v, want DEPENDENCY_DOWN after the attempts", errs)
	}
}

func TestExportRefused(t *testing.T) {
	d, c := setup(t, connector.Options{}, nil)
	d.fault("export:f-doc", "exportSize")
	_, errs := connector.Collect(c.Fetch(context.Background(), in("f-doc", false)))
	if len(errs) != 1 || sanad.ErrorCode(errs[0]) != sanad.CodePolicyDenied {
		t.Errorf("got %v, want POLICY_DENIED for an export over Drive's limit", errs)
	}
}

func TestIntegrityAndSizeCap(t *testing.T) {
	d, c := setup(t, connector.Options{MaxBytes: 16}, nil)
	_, errs := connector.Collect(c.Fetch(context.Background(), in("f-pdf", false)))
	if len(errs) != 1 || !errors.Is(errs[0], connector.ErrTooLarge) || d.count("media:f-pdf") != 0 {
		t.Errorf("got %v after %d downloads, want ErrTooLarge before any download", errs, d.count("media:f-pdf"))
	}
	// A listing that disagrees with the bytes served.
	_, c2 := setup(t, connector.Options{}, nil)
	listed := file{ID: "f-nda", Name: "nda.txt", MimeType: "text/plain", MD5Checksum: "00000000000000000000000000000000", Size: intField(len("mutual NDA"))}
	ts, err := c2.tokenSource(context.Background(), "sa", "test")
	if err != nil {
		t.Fatal(err)
	}
	_, err = c2.download(context.Background(), authorizer(ts, "test"), listed, "")
	if sanad.ErrorCode(err) != sanad.CodeIntegrity {
		t.Errorf("got %v, want INTEGRITY for an md5 mismatch", err)
	}
}

func TestTokenFiles(t *testing.T) {
	creds := func(d *fakeDrive) map[string][]byte {
		return map[string][]byte{
			"user": []byte(`{"type":"authorized_user","client_id":"client-1","client_secret":"secret-1","refresh_token":"good-refresh","token_uri":"` + d.URL + `/token"}`),
		}
	}
	_, c := setup(t, connector.Options{}, creds)
	i := in("f-nda", false)
	i.CredentialsID = "user"
	outs, errs := connector.Collect(c.Fetch(context.Background(), i))
	if len(outs) != 1 || len(errs) != 0 {
		t.Errorf("got %v, %v; want the file with a refreshed user token", outs, errs)
	}
}

func TestConfiguredTokenSource(t *testing.T) {
	d := newFakeDrive(t)
	corpus(d)
	d.mu.Lock()
	d.tokens["ya29.static"] = true
	d.mu.Unlock()
	c, err := New(connector.Options{Workspace: t.TempDir(), MinInterval: -1, AllowPrivateNetworks: true}, Config{BaseURL: d.URL, TokenSource: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "ya29.static", TokenType: "Bearer"})})
	if err != nil {
		t.Fatal(err)
	}
	outs, errs := connector.Collect(c.Fetch(context.Background(), connector.Input{SourceType: "gdrive", SourceIdentifier: "f-nda"}))
	if len(outs) != 1 || len(errs) != 0 {
		t.Errorf("got %v, %v", outs, errs)
	}
}

func TestBadIDs(t *testing.T) {
	_, c := setup(t, connector.Options{}, nil)
	for _, id := range []string{"", "a' or '1'='1", "../x", "id with space", strings.Repeat("x", 300)} {
		_, errs := connector.Collect(c.Fetch(context.Background(), in(id, false)))
		if len(errs) != 1 || sanad.ErrorCode(errs[0]) != sanad.CodeInvalidInput {
			t.Errorf("%q: got %v, want INVALID_INPUT", id, errs)
		}
	}
}

func TestRedirectOffDriveRefused(t *testing.T) {
	d, c := setup(t, connector.Options{}, nil)
	for _, tc := range []struct {
		to   string
		want bool
	}{
		{"https://doc-0s-4k-docs.googleusercontent.com/x", true},
		{"http://doc.googleusercontent.com/x", false},
		{"https://evil.example/x", false},
		{"https://googleusercontent.com.evil.example/x", false},
	} {
		req, _ := http.NewRequest("GET", tc.to, nil)
		via, _ := http.NewRequest("GET", d.URL+"/drive/v3/files/x?alt=media", nil)
		err := c.checkRedirect(req, []*http.Request{via})
		if (err == nil) != tc.want {
			t.Errorf("redirect to %s: got %v, want allowed %v", tc.to, err, tc.want)
		}
	}
}

func FuzzDriveList(f *testing.F) {
	f.Add([]byte(`{"kind":"drive#fileList","nextPageToken":"t","incompleteSearch":false,"files":[{"kind":"drive#file","id":"1aBc_-","name":"a.pdf","mimeType":"application/pdf","modifiedTime":"2024-05-01T10:00:00.000Z","md5Checksum":"d41d8cd98f00b204e9800998ecf8427e","size":"0","trashed":false,"owners":[{"displayName":"A","emailAddress":"a@b"}],"webViewLink":"https://drive.google.com/file/d/1aBc_-/view"}]}`))
	f.Add([]byte(`{"files":[{"id":"../../etc","size":12},{"id":"ok","size":null,"modifiedTime":"yesterday"}]}`))
	f.Add([]byte(`{"files":[{"id":"x","size":"-1"}]}`))
	f.Add([]byte(`{"error":{"code":403,"errors":[{"reason":"userRateLimitExceeded"}]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		l, _, err := decodeList(b)
		if err != nil {
			return
		}
		for _, fl := range l.Files {
			if !validID(fl.ID) {
				t.Fatalf("got file id %q", fl.ID)
			}
			if fl.Size < 0 {
				t.Fatalf("got size %d", fl.Size)
			}
			_ = fl.modified()
		}
		_ = reason(b)
		if fl, err := decodeFile(b); err == nil && !validID(fl.ID) {
			t.Fatalf("got file id %q", fl.ID)
		}
	})
}
