package local

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/connector"
)

// tree writes files (path → content) under a new temporary folder and
// returns it.
func tree(tb testing.TB, files map[string]string) string {
	tb.Helper()
	dir := tb.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

func fetchAll(tb testing.TB, c *Connector, in connector.Input) ([]connector.Output, []error) {
	tb.Helper()
	in.SourceType = connector.SourceLocal
	return connector.Collect(c.Fetch(context.Background(), in))
}

func newConn(tb testing.TB, opt connector.Options) *Connector {
	tb.Helper()
	c, err := New(opt)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// rels returns the outputs' paths relative to dir, sorted.
func rels(tb testing.TB, dir string, outs []connector.Output) []string {
	tb.Helper()
	var got []string
	for _, o := range outs {
		r, err := filepath.Rel(dir, o.SourceID)
		if err != nil {
			tb.Fatal(err)
		}
		got = append(got, filepath.ToSlash(r))
	}
	slices.Sort(got)
	return got
}

var sample = map[string]string{
	"a.txt":             "alpha",
	"report.pdf":        "%PDF-1.7\n...",
	".env":              "SECRET=1",
	"Thumbs.db":         "x",
	"~$draft.docx":      "lock",
	"sub/b.pdf":         "%PDF-1.4 b",
	"sub/deep/c.md":     "# c",
	"sub/deep/d.txt":    "delta",
	".git/config":       "[core]",
	"lost+found/x.txt":  "lost",
	"other/notes.md":    "# notes",
	"other/.hidden.txt": "h",
}

func TestFileOutput(t *testing.T) {
	dir := tree(t, sample)
	c := newConn(t, connector.Options{})
	outs, errs := fetchAll(t, c, connector.Input{SourceIdentifier: filepath.Join(dir, "report.pdf")})
	if len(errs) != 0 || len(outs) != 1 {
		t.Fatalf("got %d outputs, errors %v; want 1 output", len(outs), errs)
	}
	o := outs[0]
	sum := sha256.Sum256([]byte(sample["report.pdf"]))
	want := connector.Output{
		FilePath:      filepath.Join(dir, "report.pdf"),
		FileSizeBytes: int64(len(sample["report.pdf"])),
		Checksum:      "sha256:" + hex.EncodeToString(sum[:]),
		SourceID:      filepath.Join(dir, "report.pdf"),
		MimeType:      "application/pdf",
	}
	if o.FilePath != want.FilePath || o.FileSizeBytes != want.FileSizeBytes || o.Checksum != want.Checksum || o.SourceID != want.SourceID || o.MimeType != want.MimeType {
		t.Errorf("got %+v, want %+v", o, want)
	}
	if o.ModifiedTime.IsZero() || o.SourceMetadata["name"] != "report.pdf" {
		t.Errorf("got modified %v, metadata %v; want a time and the name", o.ModifiedTime, o.SourceMetadata)
	}
}

func TestHiddenFileNamedExplicitlyIsFetched(t *testing.T) {
	dir := tree(t, sample)
	outs, errs := fetchAll(t, newConn(t, connector.Options{}), connector.Input{SourceIdentifier: filepath.Join(dir, ".env")})
	if len(errs) != 0 || len(outs) != 1 {
		t.Fatalf("got %d outputs, errors %v; want 1", len(outs), errs)
	}
}

func TestFolders(t *testing.T) {
	dir := tree(t, sample)
	for _, tc := range []struct {
		name      string
		recursive bool
		hidden    bool
		want      []string
	}{
		{"top level", false, false, []string{"a.txt", "report.pdf"}},
		{"recursive", true, false, []string{"a.txt", "other/notes.md", "report.pdf", "sub/b.pdf", "sub/deep/c.md", "sub/deep/d.txt"}},
		{"top level with hidden", false, true, []string{".env", "Thumbs.db", "a.txt", "report.pdf", "~$draft.docx"}},
		{"recursive with hidden", true, true, []string{".env", ".git/config", "Thumbs.db", "a.txt", "lost+found/x.txt", "other/.hidden.txt", "other/notes.md", "report.pdf", "sub/b.pdf", "sub/deep/c.md", "sub/deep/d.txt", "~$draft.docx"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newConn(t, connector.Options{IncludeHidden: tc.hidden})
			outs, errs := fetchAll(t, c, connector.Input{SourceIdentifier: dir, Recursive: tc.recursive})
			if len(errs) != 0 {
				t.Fatalf("got errors %v", errs)
			}
			if got := rels(t, dir, outs); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestGlobs(t *testing.T) {
	dir := tree(t, sample)
	for _, tc := range []struct {
		pattern   string
		recursive bool
		want      []string
	}{
		{"*.txt", false, []string{"a.txt"}},
		{"*.txt", true, []string{"a.txt", "sub/deep/d.txt"}},
		{"**/*.pdf", false, []string{"report.pdf", "sub/b.pdf"}},
		{"sub/**", false, []string{"sub/b.pdf", "sub/deep/c.md", "sub/deep/d.txt"}},
		{"*/deep/?.md", false, []string{"sub/deep/c.md"}},
		{"s[a-u]b/*.pdf", false, []string{"sub/b.pdf"}},
		{"**/*.md", false, []string{"other/notes.md", "sub/deep/c.md"}},
		{"other/.*", false, []string{"other/.hidden.txt"}},
		{"*.none", false, nil},
	} {
		t.Run(tc.pattern, func(t *testing.T) {
			outs, errs := fetchAll(t, newConn(t, connector.Options{}), connector.Input{SourceIdentifier: filepath.Join(dir, tc.pattern), Recursive: tc.recursive})
			if len(errs) != 0 {
				t.Fatalf("got errors %v", errs)
			}
			if got := rels(t, dir, outs); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestBadGlob(t *testing.T) {
	dir := tree(t, sample)
	_, errs := fetchAll(t, newConn(t, connector.Options{}), connector.Input{SourceIdentifier: filepath.Join(dir, "[a-")})
	if len(errs) != 1 || sanad.ErrorCode(errs[0]) != sanad.CodeInvalidInput {
		t.Fatalf("got %v, want one INVALID_INPUT", errs)
	}
}

func TestMissingPath(t *testing.T) {
	dir := t.TempDir()
	for _, id := range []string{filepath.Join(dir, "nope.pdf"), filepath.Join(dir, "nope", "*.pdf")} {
		_, errs := fetchAll(t, newConn(t, connector.Options{}), connector.Input{SourceIdentifier: id})
		if len(errs) != 1 || sanad.ErrorCode(errs[0]) != sanad.CodeConnectorNotFound || !strings.Contains(errs[0].Error(), "nope") {
			t.Errorf("%s: got %v, want one ERR_CONNECTOR_NOT_FOUND naming it", id, errs)
		}
		var ie *connector.ItemError
		if len(errs) == 1 && (!errors.As(errs[0], &ie) || ie.Source != id) {
			t.Errorf("got %#v, want an ItemError for %s", errs[0], id)
		}
	}
}

func TestSymlinks(t *testing.T) {
	outside := tree(t, map[string]string{"secret.txt": "top secret", "dir/x.txt": "x"})
	dir := tree(t, map[string]string{"a.txt": "alpha", "real/b.txt": "beta"})
	links := map[string]string{
		"escape.txt":    filepath.Join(outside, "secret.txt"), // absolute, outside
		"escape-rel":    filepath.Join("..", filepath.Base(outside), "secret.txt"),
		"escape-dir":    filepath.Join(outside, "dir"),
		"inside.txt":    filepath.Join(dir, "real", "b.txt"), // absolute, inside
		"inside-rel":    filepath.Join("real", "b.txt"),
		"dangling.txt":  filepath.Join(dir, "missing.txt"),
		"real-dir-link": filepath.Join(dir, "real"),
	}
	if filepath.Dir(outside) != filepath.Dir(dir) {
		delete(links, "escape-rel")
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Skipf("symbolic links unavailable: %v", err)
		}
	}
	outs, errs := fetchAll(t, newConn(t, connector.Options{}), connector.Input{SourceIdentifier: dir, Recursive: true})
	if got, want := rels(t, dir, outs), []string{"a.txt", "real/b.txt"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v (a file reached by links is yielded once)", got, want)
	}
	for _, o := range outs {
		if strings.Contains(o.FilePath, filepath.Base(outside)) {
			t.Errorf("got output %s, from outside the root", o.FilePath)
		}
	}
	escapes, dangling := 0, 0
	for _, err := range errs {
		switch {
		case errors.Is(err, connector.ErrOutsideRoot):
			if sanad.ErrorCode(err) != sanad.CodePolicyDenied || !strings.Contains(err.Error(), "escape") {
				t.Errorf("got %v, want POLICY_DENIED naming the link", err)
			}
			escapes++
		case sanad.ErrorCode(err) == sanad.CodeConnectorNotFound:
			dangling++
		default:
			t.Errorf("got unexpected error %v", err)
		}
	}
	wantEscapes := 3
	if _, ok := links["escape-rel"]; !ok {
		wantEscapes = 2
	}
	if escapes != wantEscapes || dangling != 1 {
		t.Errorf("got %d escapes and %d dangling, want %d and 1", escapes, dangling, wantEscapes)
	}
}

func TestTooLarge(t *testing.T) {
	dir := tree(t, map[string]string{"big.txt": strings.Repeat("x", 2000), "small.txt": "ok"})
	outs, errs := fetchAll(t, newConn(t, connector.Options{MaxBytes: 1000}), connector.Input{SourceIdentifier: dir})
	if len(outs) != 1 || len(errs) != 1 || !errors.Is(errs[0], connector.ErrTooLarge) {
		t.Fatalf("got %d outputs, errors %v; want the small file and one ErrTooLarge", len(outs), errs)
	}
}

func TestChangedWhileRead(t *testing.T) {
	dir := tree(t, map[string]string{"a.txt": "alpha", "b.txt": "beta"})
	c := newConn(t, connector.Options{})
	c.afterRead = func(p string) {
		if filepath.Base(p) == "a.txt" {
			f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(" and more")
			f.Close()
		}
	}
	outs, errs := fetchAll(t, c, connector.Input{SourceIdentifier: dir})
	if len(outs) != 1 || filepath.Base(outs[0].FilePath) != "b.txt" {
		t.Errorf("got %v, want only b.txt", outs)
	}
	if len(errs) != 1 || !errors.Is(errs[0], connector.ErrChanged) || sanad.ErrorCode(errs[0]) != sanad.CodeUnavailable || !sanad.IsRetryable(errs[0]) {
		t.Errorf("got %v, want one retryable ErrChanged", errs)
	}
}

func TestReplacedWhileRead(t *testing.T) {
	dir := tree(t, map[string]string{"a.txt": "alpha"})
	c := newConn(t, connector.Options{})
	c.afterRead = func(p string) {
		tmp := p + ".new"
		os.WriteFile(tmp, []byte("ALPHA"), 0o644)
		os.Rename(tmp, p)
	}
	_, errs := fetchAll(t, c, connector.Input{SourceIdentifier: filepath.Join(dir, "a.txt")})
	if len(errs) != 1 || !errors.Is(errs[0], connector.ErrChanged) {
		t.Errorf("got %v, want ErrChanged", errs)
	}
}

func TestCopyLocal(t *testing.T) {
	dir := tree(t, map[string]string{"a.TXT": "alpha"})
	ws := filepath.Join(t.TempDir(), "ws")
	outs, errs := fetchAll(t, newConn(t, connector.Options{CopyLocal: true, Workspace: ws}), connector.Input{SourceIdentifier: dir})
	if len(errs) != 0 || len(outs) != 1 {
		t.Fatalf("got %d outputs, errors %v", len(outs), errs)
	}
	o := outs[0]
	sum := sha256.Sum256([]byte("alpha"))
	hexSum := hex.EncodeToString(sum[:])
	if o.FilePath != filepath.Join(ws, hexSum+".txt") || o.SourceID != filepath.Join(dir, "a.TXT") || o.Checksum != "sha256:"+hexSum {
		t.Errorf("got %+v, want a copy named by its checksum in %s", o, ws)
	}
	if b, err := os.ReadFile(o.FilePath); err != nil || string(b) != "alpha" {
		t.Errorf("got %q, %v; want the copy", b, err)
	}
	entries, _ := os.ReadDir(ws)
	if len(entries) != 1 {
		t.Errorf("got %d entries in the workspace, want 1 (no temporary file left)", len(entries))
	}
}

func TestMaxItems(t *testing.T) {
	dir := tree(t, map[string]string{"1.txt": "1", "2.txt": "2", "3.txt": "3"})
	outs, errs := fetchAll(t, newConn(t, connector.Options{MaxItems: 2}), connector.Input{SourceIdentifier: dir})
	if len(outs) != 2 || len(errs) != 1 || sanad.ErrorCode(errs[0]) != sanad.CodePolicyDenied {
		t.Errorf("got %d outputs, errors %v; want 2 and one saying it stopped", len(outs), errs)
	}
}

func TestBreakStops(t *testing.T) {
	dir := tree(t, map[string]string{"1.txt": "1", "2.txt": "2", "3.txt": "3"})
	n := 0
	for range newConn(t, connector.Options{}).Fetch(context.Background(), connector.Input{SourceType: "local", SourceIdentifier: dir}) {
		n++
		break
	}
	if n != 1 {
		t.Errorf("got %d items, want 1", n)
	}
}

func TestMatchGlob(t *testing.T) {
	for _, tc := range []struct {
		pat, name string
		want      bool
	}{
		{"*.pdf", "a.pdf", true},
		{"*.pdf", "x/a.pdf", false},
		{"**/*.pdf", "a.pdf", true},
		{"**/*.pdf", "x/y/a.pdf", true},
		{"x/**", "x/y/z", true},
		{"x/**", "y/z", false},
		{"**/b/**/c", "a/b/d/e/c", true},
		{"**/b/**/c", "a/b/d/e/c/f", false},
		{"**", "anything/at/all", true},
	} {
		if got := matchGlob(strings.Split(tc.pat, "/"), strings.Split(tc.name, "/")); got != tc.want {
			t.Errorf("matchGlob(%q, %q): got %v, want %v", tc.pat, tc.name, got, tc.want)
		}
	}
	for _, tc := range []struct {
		pat, dir string
		want     bool
	}{
		{"*.pdf", "x", false},
		{"x/*.pdf", "x", true},
		{"x/*.pdf", "y", false},
		{"x/*.pdf", "x/y", false},
		{"**/*.pdf", "x/y", true},
		{"x/**", "x/y", true},
	} {
		if got := canContainMatch(strings.Split(tc.pat, "/"), strings.Split(tc.dir, "/")); got != tc.want {
			t.Errorf("canContainMatch(%q, %q): got %v, want %v", tc.pat, tc.dir, got, tc.want)
		}
	}
}

func FuzzMatchGlob(f *testing.F) {
	f.Add("**/a*/**/b?", "x/ab/c/bc")
	f.Add("[", "x")
	f.Fuzz(func(t *testing.T, pat, name string) {
		p, n := strings.Split(pat, "/"), strings.Split(name, "/")
		if len(p) > maxPatternSegments {
			return
		}
		m := matchGlob(p, n)
		if m && len(n) > 1 && !canContainMatch(p, n[:len(n)-1]) {
			t.Errorf("%q matches %q but its folder was pruned", pat, name)
		}
	})
}
