package gdrive

// fakeDrive answers like Google's OAuth2 token endpoint and the Drive REST
// API v3, for the requests the connector makes. The shapes follow Google's
// references:
//
// Token endpoint (https://oauth2.googleapis.com/token, RFC 6749 and
// RFC 7523 as Google applies them):
//
//	POST /token  application/x-www-form-urlencoded
//	  grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=<JWT>
//	    the JWT is RS256-signed by the service account key, with claims
//	    iss=<client_email>, scope=<scopes>, aud=<token URL>, iat, exp
//	  grant_type=refresh_token&refresh_token=…&client_id=…&client_secret=…
//	200 {"access_token":"…","token_type":"Bearer","expires_in":3599}
//	400 {"error":"invalid_grant","error_description":"Invalid JWT Signature."}
//
// files.list (GET /drive/v3/files):
//
//	?q='<folderId>' in parents and trashed=false
//	&fields=nextPageToken,incompleteSearch,files(id,name,…)
//	&pageSize=N&pageToken=T&orderBy=folder,name&supportsAllDrives=true
//	&includeItemsFromAllDrives=true
//	200 {"kind":"drive#fileList","nextPageToken":"T2","incompleteSearch":false,
//	     "files":[{"kind":"drive#file","id":"…","name":"…","mimeType":"…",
//	               "modifiedTime":"2024-05-01T10:00:00.000Z","md5Checksum":"…",
//	               "size":"1234","trashed":false,
//	               "owners":[{"kind":"drive#user","displayName":"…","emailAddress":"…"}],
//	               "webViewLink":"https://drive.google.com/file/d/…/view"}]}
//	(size and md5Checksum are absent for Google Docs, Sheets and Slides; size
//	is an int64 sent as a JSON string)
//
// files.get (GET /drive/v3/files/<fileId>):
//
//	?fields=…&supportsAllDrives=true   200 the File resource as above
//	?alt=media                         200 the bytes;
//	                                   403 reason fileNotDownloadable for Google types
//
// files.export (GET /drive/v3/files/<fileId>/export?mimeType=<type>):
//
//	200 the document in that format; 400 reason badRequest for a format the
//	type cannot be exported in; 403 reason exportSizeLimitExceeded over 10 MB
//
// Errors (https://developers.google.com/drive/api/guides/handle-errors):
//
//	{"error":{"code":404,"message":"File not found: <id>.","errors":[
//	  {"message":"File not found: <id>.","domain":"global","reason":"notFound",
//	   "location":"fileId","locationType":"parameter"}]}}
//	401 reason authError (bad or missing token), 403 reasons
//	insufficientFilePermissions, userRateLimitExceeded, rateLimitExceeded
//	(domain usageLimits), 429 rateLimitExceeded, 5xx backendError.

import (
	"crypto"
	"crypto/md5"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

type fakeFile struct {
	id, name, mime string
	parents        []string
	content        []byte
	modified       time.Time
	trashed        bool
	owner          string
}

type fakeDrive struct {
	*httptest.Server
	tb  testing.TB
	key *rsa.PublicKey
	// email is the service account the token endpoint accepts.
	email string

	// mu guards the fields below.
	mu     sync.Mutex
	files  map[string]*fakeFile
	tokens map[string]bool
	issued int
	// faults maps a request kind ("list:<folder>", "media:<id>",
	// "export:<id>", "get:<id>") to the statuses to answer before serving
	// normally; "403rate" answers 403 userRateLimitExceeded.
	faults map[string][]string
	// calls counts requests by kind.
	calls map[string]int
	// forbid makes every API request answer 403 insufficientFilePermissions.
	forbid bool
}

var (
	keyOnce sync.Once
	testKey *rsa.PrivateKey
)

func rsaKey(tb testing.TB) *rsa.PrivateKey {
	keyOnce.Do(func() {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			tb.Fatal(err)
		}
		testKey = k
	})
	return testKey
}

func newFakeDrive(tb testing.TB) *fakeDrive {
	tb.Helper()
	d := &fakeDrive{
		tb: tb, key: &rsaKey(tb).PublicKey, email: "reader@sanad-test.iam.gserviceaccount.com",
		files: map[string]*fakeFile{}, tokens: map[string]bool{}, faults: map[string][]string{}, calls: map[string]int{},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /token", d.token)
	mux.HandleFunc("GET /drive/v3/files", d.list)
	mux.HandleFunc("GET /drive/v3/files/{id}", d.get)
	mux.HandleFunc("GET /drive/v3/files/{id}/export", d.export)
	d.Server = httptest.NewServer(mux)
	tb.Cleanup(d.Close)
	return d
}

// serviceAccountKey returns a service account key file for the fake, as
// the Cloud console writes one.
func (d *fakeDrive) serviceAccountKey(key *rsa.PrivateKey) []byte {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		d.tb.Fatal(err)
	}
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	b, _ := json.Marshal(map[string]string{
		"type":                        "service_account",
		"project_id":                  "sanad-test",
		"private_key_id":              "k1",
		"private_key":                 string(pemKey),
		"client_email":                d.email,
		"client_id":                   "1234567890",
		"auth_uri":                    "https://accounts.google.com/o/oauth2/auth",
		"token_uri":                   d.URL + "/token",
		"auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",
	})
	return b
}

func (d *fakeDrive) add(f *fakeFile) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if f.modified.IsZero() {
		f.modified = time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	}
	if f.owner == "" {
		f.owner = "Amina Yusuf"
	}
	d.files[f.id] = f
}

// edit changes a file's content and advances its modification time.
func (d *fakeDrive) edit(id string, content string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	f := d.files[id]
	f.content = []byte(content)
	f.modified = f.modified.Add(time.Hour)
}

func (d *fakeDrive) fault(kind string, statuses ...string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.faults[kind] = append(d.faults[kind], statuses...)
}

func (d *fakeDrive) count(kind string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.calls[kind]
}

func googleError(w http.ResponseWriter, code int, reason, msg string) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(code)
	domain := "global"
	if strings.Contains(reason, "RateLimit") || reason == "rateLimitExceeded" {
		domain = "usageLimits"
	}
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"code": code, "message": msg,
		"errors": []map[string]string{{"message": msg, "domain": domain, "reason": reason}},
	}})
}

// token is the OAuth2 token endpoint.
func (d *fakeDrive) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", 400)
		return
	}
	oauthError := func(code, desc string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": desc})
	}
	switch r.Form.Get("grant_type") {
	case "urn:ietf:params:oauth:grant-type:jwt-bearer":
		if err := d.checkJWT(r.Form.Get("assertion")); err != nil {
			oauthError("invalid_grant", err.Error())
			return
		}
	case "refresh_token":
		if r.Form.Get("refresh_token") != "good-refresh" || r.Form.Get("client_id") != "client-1" || r.Form.Get("client_secret") != "secret-1" {
			oauthError("invalid_grant", "Token has been expired or revoked.")
			return
		}
	default:
		oauthError("unsupported_grant_type", "Invalid grant_type: "+r.Form.Get("grant_type"))
		return
	}
	d.mu.Lock()
	d.issued++
	tok := fmt.Sprintf("ya29.fake-%d", d.issued)
	d.tokens[tok] = true
	d.mu.Unlock()
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": 3599})
}

// checkJWT verifies an RS256 JWT bearer assertion as Google does.
func (d *fakeDrive) checkJWT(assertion string) error {
	parts := strings.Split(assertion, ".")
	if len(parts) != 3 {
		return fmt.Errorf("Invalid JWT")
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return fmt.Errorf("Invalid JWT Signature.")
	}
	h := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if rsa.VerifyPKCS1v15(d.key, crypto.SHA256, h[:], sig) != nil {
		return fmt.Errorf("Invalid JWT Signature.")
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return fmt.Errorf("Invalid JWT")
	}
	var claims struct {
		Iss, Scope, Aud string
		Exp, Iat        int64
	}
	if err := json.Unmarshal(payload, &claims); err != nil {
		return fmt.Errorf("Invalid JWT")
	}
	switch {
	case claims.Iss != d.email:
		return fmt.Errorf("Invalid issuer")
	case claims.Scope != Scope:
		return fmt.Errorf("Invalid scope: %s", claims.Scope)
	case claims.Aud != d.URL+"/token":
		return fmt.Errorf("Invalid audience")
	case claims.Exp <= time.Now().Unix():
		return fmt.Errorf("Invalid JWT: Token must be a short-lived token")
	}
	return nil
}

// api checks the bearer token and the faults of kind; it reports whether
// the request may be served.
func (d *fakeDrive) api(w http.ResponseWriter, r *http.Request, kind string) bool {
	d.mu.Lock()
	d.calls[kind]++
	tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	ok := d.tokens[tok]
	forbid := d.forbid
	var fault string
	if fs := d.faults[kind]; len(fs) > 0 {
		fault, d.faults[kind] = fs[0], fs[1:]
	}
	d.mu.Unlock()
	switch {
	case !ok:
		w.Header().Set("WWW-Authenticate", `Bearer realm="https://accounts.google.com/"`)
		googleError(w, 401, "authError", "Request had invalid authentication credentials.")
	case forbid:
		googleError(w, 403, "insufficientFilePermissions", "The user does not have sufficient permissions for this file.")
	case fault == "403rate":
		googleError(w, 403, "userRateLimitExceeded", "User Rate Limit Exceeded.")
	case fault == "429":
		w.Header().Set("Retry-After", "0")
		googleError(w, 429, "rateLimitExceeded", "Rate Limit Exceeded")
	case fault == "exportSize":
		googleError(w, 403, "exportSizeLimitExceeded", "This file is too large to be exported.")
	case fault != "":
		code, _ := strconv.Atoi(fault)
		googleError(w, code, "backendError", "Backend Error")
	default:
		return true
	}
	return false
}

func (d *fakeDrive) resource(f *fakeFile) map[string]any {
	m := map[string]any{
		"kind": "drive#file", "id": f.id, "name": f.name, "mimeType": f.mime,
		"modifiedTime": f.modified.Format("2006-01-02T15:04:05.000Z"),
		"trashed":      f.trashed,
		"owners":       []map[string]string{{"kind": "drive#user", "displayName": f.owner, "emailAddress": "owner@example.com"}},
		"webViewLink":  "https://drive.google.com/file/d/" + f.id + "/view?usp=drivesdk",
	}
	if !strings.HasPrefix(f.mime, googleApps) {
		sum := md5.Sum(f.content)
		m["md5Checksum"] = hex.EncodeToString(sum[:])
		m["size"] = strconv.Itoa(len(f.content))
	}
	return m
}

var parentsQuery = regexp.MustCompile(`^'([A-Za-z0-9_-]+)' in parents and trashed=false$`)

func (d *fakeDrive) list(w http.ResponseWriter, r *http.Request) {
	m := parentsQuery.FindStringSubmatch(r.URL.Query().Get("q"))
	if m == nil {
		googleError(w, 400, "invalid", "Invalid Value")
		return
	}
	folder := m[1]
	if !d.api(w, r, "list:"+folder) {
		return
	}
	if !strings.Contains(r.URL.Query().Get("fields"), "nextPageToken") {
		d.tb.Errorf("got fields %q, want nextPageToken asked", r.URL.Query().Get("fields"))
	}
	size, _ := strconv.Atoi(r.URL.Query().Get("pageSize"))
	if size <= 0 || size > 1000 {
		size = 100
	}
	d.mu.Lock()
	parent, ok := d.files[folder]
	var kids []*fakeFile
	for _, f := range d.files {
		if !f.trashed && contains(f.parents, folder) {
			kids = append(kids, f)
		}
	}
	d.mu.Unlock()
	if !ok || parent.trashed {
		googleError(w, 404, "notFound", "File not found: "+folder+".")
		return
	}
	sort.Slice(kids, func(i, j int) bool {
		fi, fj := kids[i].mime == FolderType, kids[j].mime == FolderType
		if fi != fj {
			return fi
		}
		return kids[i].name < kids[j].name
	})
	start := 0
	if t := r.URL.Query().Get("pageToken"); t != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(t, "page-"))
		if err != nil || n > len(kids) {
			googleError(w, 400, "invalid", "Invalid Value")
			return
		}
		start = n
	}
	end := min(start+size, len(kids))
	files := []map[string]any{}
	d.mu.Lock()
	for _, f := range kids[start:end] {
		files = append(files, d.resource(f))
	}
	d.mu.Unlock()
	resp := map[string]any{"kind": "drive#fileList", "incompleteSearch": false, "files": files}
	if end < len(kids) {
		resp["nextPageToken"] = fmt.Sprintf("page-%d", end)
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	json.NewEncoder(w).Encode(resp)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (d *fakeDrive) lookup(w http.ResponseWriter, id string) (*fakeFile, bool) {
	d.mu.Lock()
	f, ok := d.files[id]
	d.mu.Unlock()
	if !ok {
		googleError(w, 404, "notFound", "File not found: "+id+".")
	}
	return f, ok
}

func (d *fakeDrive) get(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if r.URL.Query().Get("alt") == "media" {
		if !d.api(w, r, "media:"+id) {
			return
		}
		f, ok := d.lookup(w, id)
		if !ok {
			return
		}
		if strings.HasPrefix(f.mime, googleApps) {
			googleError(w, 403, "fileNotDownloadable", "Only files with binary content can be downloaded. Use Export with Docs Editors files.")
			return
		}
		d.mu.Lock()
		content := append([]byte(nil), f.content...)
		d.mu.Unlock()
		w.Header().Set("Content-Type", f.mime)
		w.Write(content)
		return
	}
	if !d.api(w, r, "get:"+id) {
		return
	}
	f, ok := d.lookup(w, id)
	if !ok {
		return
	}
	d.mu.Lock()
	res := d.resource(f)
	d.mu.Unlock()
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	json.NewEncoder(w).Encode(res)
}

func (d *fakeDrive) export(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !d.api(w, r, "export:"+id) {
		return
	}
	f, ok := d.lookup(w, id)
	if !ok {
		return
	}
	want := map[string]string{
		"application/vnd.google-apps.document":     DOCX,
		"application/vnd.google-apps.presentation": PPTX,
		"application/vnd.google-apps.spreadsheet":  CSV,
	}[f.mime]
	if got := r.URL.Query().Get("mimeType"); want == "" || got != want {
		googleError(w, 400, "badRequest", "The requested conversion is not supported.")
		return
	}
	d.mu.Lock()
	content := append([]byte("exported:"+want+"\n"), f.content...)
	d.mu.Unlock()
	w.Header().Set("Content-Type", want)
	w.Write(content)
}
