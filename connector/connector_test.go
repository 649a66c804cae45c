package connector

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"iter"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/sanadhq/sanad"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"0", 0, true},
		{"2", 2 * time.Second, true},
		{" 120 ", 2 * time.Minute, true},
		{"99999999999999999999999", (1 << 31) * time.Second, true},
		{"Thu, 02 Jan 2025 03:04:35 GMT", 30 * time.Second, true},
		{"Thursday, 02-Jan-25 03:04:15 GMT", 10 * time.Second, true},
		{"Thu Jan  2 03:05:05 2025", time.Minute, true},
		{"Thu, 02 Jan 2025 03:00:00 GMT", 0, true}, // in the past
		{"", 0, false},
		{"-1", 0, false},
		{"1.5", 0, false},
		{"soon", 0, false},
	} {
		got, ok := ParseRetryAfter(tc.in, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseRetryAfter(%q): got %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"0", "120", "Thu, 02 Jan 2025 03:04:35 GMT", "Thursday, 02-Jan-25 03:04:15 GMT", "Thu Jan  2 03:05:05 2025", "18446744073709551616", ""} {
		f.Add(s)
	}
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	f.Fuzz(func(t *testing.T, v string) {
		d, ok := ParseRetryAfter(v, now)
		if d < 0 {
			t.Fatalf("got %v for %q, want no negative wait", d, v)
		}
		if !ok && d != 0 {
			t.Fatalf("got %v with ok false", d)
		}
	})
}

func TestBackoff(t *testing.T) {
	p := RetryPolicy{BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second}
	for _, tc := range []struct {
		n        int
		jitter   float64
		min, max time.Duration
	}{
		{1, 0, 50 * time.Millisecond, 50 * time.Millisecond},
		{1, 0.999, 50 * time.Millisecond, 100 * time.Millisecond},
		{2, 0, 100 * time.Millisecond, 100 * time.Millisecond},
		{3, 0.5, 200 * time.Millisecond, 400 * time.Millisecond},
		{10, 0.999, 500 * time.Millisecond, time.Second},
		{1000, 1, time.Second, time.Second},
	} {
		got := p.Backoff(tc.n, tc.jitter)
		if got < tc.min || got > tc.max {
			t.Errorf("Backoff(%d, %v): got %v, want in [%v, %v]", tc.n, tc.jitter, got, tc.min, tc.max)
		}
	}
}

func TestStore(t *testing.T) {
	dir := t.TempDir()
	st, err := Store(dir, strings.NewReader("%PDF-1.7 hello"), 100, "src", func(head []byte) string {
		if string(head) != "%PDF-1.7 hello" {
			t.Errorf("got head %q", head)
		}
		return ".pdf"
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(st.Path)
	if err != nil || string(b) != "%PDF-1.7 hello" || st.Size != 14 || filepath.Dir(st.Path) != dir {
		t.Fatalf("got %+v, %q, %v", st, b, err)
	}
	sum, sum5 := sha256.Sum256(b), md5.Sum(b)
	if st.Checksum != "sha256:"+hex.EncodeToString(sum[:]) || st.MD5 != hex.EncodeToString(sum5[:]) {
		t.Errorf("got checksums %s, %s", st.Checksum, st.MD5)
	}
	if base := filepath.Base(st.Path); base != hex.EncodeToString(sum[:])+".pdf" {
		t.Errorf("got name %s, want the checksum and .pdf", base)
	}
}

func TestStoreRefusesUnsafeExtensions(t *testing.T) {
	dir := t.TempDir()
	for _, ext := range []string{"/../../x", ".PDF", ".a/b", "..", ".verylongextension", "pdf"} {
		st, err := Store(dir, strings.NewReader("x"), 10, "src", func([]byte) string { return ext })
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Dir(st.Path) != dir || strings.Contains(filepath.Base(st.Path), ".") {
			t.Errorf("ext %q: got %s, want a bare checksum name in the workspace", ext, st.Path)
		}
	}
}

func TestStoreCapAndFailuresLeaveNothing(t *testing.T) {
	dir := t.TempDir()
	_, err := Store(dir, strings.NewReader(strings.Repeat("x", 101)), 100, "big", nil)
	if !errors.Is(err, ErrTooLarge) || sanad.ErrorCode(err) != sanad.CodePolicyDenied || !strings.Contains(err.Error(), "big") {
		t.Errorf("got %v, want ErrTooLarge naming the source", err)
	}
	if _, err := Store(dir, strings.NewReader(strings.Repeat("x", 100)), 100, "exact", nil); err != nil {
		t.Errorf("got %v for exactly the cap, want it stored", err)
	}
	broken := iotest.TimeoutReader(bytes.NewReader(bytes.Repeat([]byte("y"), 64<<10)))
	_, err = Store(dir, io.MultiReader(strings.NewReader("abc"), broken, broken), 1<<20, "broken", nil)
	var se *sanad.Error
	if err == nil || errors.As(err, &se) {
		t.Errorf("got %v, want the reader's own error (not a *sanad.Error)", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("got %d files, want only the stored one", len(entries))
	}
}

func TestDetectType(t *testing.T) {
	pdf := []byte("%PDF-1.7\n")
	for _, tc := range []struct {
		declared, name string
		head           []byte
		want           string
	}{
		{"text/html; charset=utf-8", "/x", []byte("<html>"), "text/html"},
		{"", "/x", pdf, "application/pdf"},
		{"application/octet-stream", "/a.pdf", []byte("??"), "application/pdf"},
		{"text/plain", "/x", pdf, "application/pdf"},
		{"text/plain", "/x", []byte("just text"), "text/plain"},
		{"", "/a.DOCX", []byte("PK\x03\x04"), "application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
		{"", "/x", nil, "application/octet-stream"},
		{"bogus; ===", "/x", []byte("plain"), "text/plain"},
		{"Text/CSV; charset", "/x", []byte("a,b"), "text/csv"},
	} {
		if got := DetectType(tc.declared, tc.name, tc.head).Chosen; got != tc.want {
			t.Errorf("DetectType(%q, %q): got %q, want %q", tc.declared, tc.name, got, tc.want)
		}
	}
}

type fakeFetcher struct{ got Input }

func (f *fakeFetcher) Fetch(_ context.Context, in Input) iter.Seq2[Output, error] {
	f.got = in
	return func(yield func(Output, error) bool) { yield(Output{SourceID: in.SourceIdentifier}, nil) }
}

func TestMux(t *testing.T) {
	f := &fakeFetcher{}
	m := Mux{SourceLocal: f}
	outs, errs := Collect(m.Fetch(context.Background(), Input{SourceType: "local", SourceIdentifier: "/x"}))
	if len(outs) != 1 || len(errs) != 0 || f.got.SourceIdentifier != "/x" {
		t.Errorf("got %v, %v; want the local fetcher called", outs, errs)
	}
	for _, in := range []Input{{SourceType: "ftp", SourceIdentifier: "x"}, {SourceType: "web", SourceIdentifier: "x"}, {SourceType: "local"}} {
		_, errs := Collect(m.Fetch(context.Background(), in))
		var ie *ItemError
		if len(errs) != 1 || sanad.ErrorCode(errs[0]) != sanad.CodeInvalidInput || !errors.As(errs[0], &ie) {
			t.Errorf("%+v: got %v, want one INVALID_INPUT item error", in, errs)
		}
	}
}

func TestHostLimiter(t *testing.T) {
	l := NewHostLimiter(nil)
	ctx := context.Background()
	start := time.Now()
	for range 3 {
		if err := l.Wait(ctx, "a", 50*time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Wait(ctx, "b", 50*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 100*time.Millisecond {
		t.Errorf("got three requests to one host within %v, want at least 100ms", d)
	}
	dl, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	l.Done("a", time.Hour)
	if err := l.Wait(dl, "a", time.Hour); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v, want DeadlineExceeded at once", err)
	}
}

func TestSameSite(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"http://a.com/x", "http://A.com/y", true},
		{"http://a.com/x", "https://a.com/y", true},
		{"https://a.com/x", "http://a.com/y", false},
		{"http://a.com:8080/x", "https://a.com:8443/y", false},
		{"http://a.com/x", "http://b.com/x", false},
		{"http://a.com/x", "http://a.com:81/x", false},
		{"http://a.com/x", "http://a.com:80/x", true},
	} {
		a, _ := http.NewRequest("GET", tc.a, nil)
		b, _ := http.NewRequest("GET", tc.b, nil)
		if got := SameSite(a.URL, b.URL); got != tc.want {
			t.Errorf("SameSite(%s, %s): got %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestStateFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	s, err := ReadStateFile(path, "gdrive:root")
	if err != nil || len(s.Items) != 0 {
		t.Fatalf("got %+v, %v; want an empty state", s, err)
	}
	mod := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	s.Items["f1"] = ItemState{ModifiedTime: mod, SourceChecksum: "md5:abc", Size: 3, Checksum: "sha256:def"}
	if err := s.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	back, err := ReadStateFile(path, "gdrive:root")
	if err != nil || !back.Items["f1"].Unchanged(s.Items["f1"]) || back.Items["f1"].Checksum != "sha256:def" {
		t.Fatalf("got %+v, %v; want the state back", back, err)
	}
	if _, err := ReadStateFile(path, "gdrive:other"); sanad.ErrorCode(err) != sanad.CodeInvalidInput {
		t.Errorf("got %v, want a state of another source refused", err)
	}
}

func TestCredentialsDir(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "good"), []byte(`{"k":1}`), 0o600)
	os.WriteFile(filepath.Join(t.TempDir(), "outside"), []byte(`{}`), 0o600)
	os.Symlink("/etc/passwd", filepath.Join(dir, "link"))
	opt := Options{CredentialsDir: dir}
	if b, err := opt.LoadCredentials(context.Background(), "good", "src"); err != nil || string(b) != `{"k":1}` {
		t.Errorf("got %q, %v", b, err)
	}
	for _, id := range []string{"missing", "../outside", ".hidden", "link", "a/b", ""} {
		if _, err := opt.LoadCredentials(context.Background(), id, "src"); sanad.ErrorCode(err) != sanad.CodeConnectorAuth || !strings.Contains(err.Error(), "src") {
			t.Errorf("%q: got %v, want ERR_CONNECTOR_AUTH naming the source", id, err)
		}
	}
	if _, err := (Options{}).LoadCredentials(context.Background(), "x", "src"); sanad.ErrorCode(err) != sanad.CodeConnectorAuth {
		t.Errorf("got %v, want ERR_CONNECTOR_AUTH with no store", err)
	}
}
