package artifact_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/artifact"
	"github.com/sanadhq/sanad/sqlite"
)

var (
	case1 = sanad.Scope{Tenant: "firm", Case: "case-1"}
	case2 = sanad.Scope{Tenant: "firm", Case: "case-2"}
)

// openStore opens a blob folder indexed by a real SQLite store, both in a
// temporary folder.
func openStore(t *testing.T) (*artifact.Store, string) {
	t.Helper()
	dir := t.TempDir()
	db, err := sqlite.Open(t.Context(), sqlite.Config{Path: filepath.Join(dir, "sanad.db")})
	if err != nil {
		t.Fatalf("sqlite.Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	blobs := filepath.Join(dir, "blobs")
	s, err := artifact.Open(blobs, db)
	if err != nil {
		t.Fatalf("artifact.Open: %v", err)
	}
	return s, blobs
}

func put(t *testing.T, s *artifact.Store, scope sanad.Scope, run, mediaType string, data []byte) sanad.ArtifactRef {
	t.Helper()
	ref, err := s.Put(t.Context(), scope, run, mediaType, data)
	if err != nil {
		t.Fatalf("Put(%s, %q): %v", scope, data, err)
	}
	return ref
}

func wantCode(t *testing.T, what string, err error, code sanad.Code) {
	t.Helper()
	if got := sanad.ErrorCode(err); got != code {
		t.Fatalf("%s: got error %v (code %q), want code %s", what, err, got, code)
	}
}

// blobFiles lists every file under the blob folder, temporary ones included.
func blobFiles(t *testing.T, blobs string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(blobs, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, strings.TrimPrefix(p, blobs+string(filepath.Separator)))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestPutGetRoundTrip(t *testing.T) {
	s, _ := openStore(t)
	for _, data := range [][]byte{[]byte("the intake summary"), {}, bytes.Repeat([]byte{0, 1, 2, 0xff}, 1<<16)} {
		sum := sha256.Sum256(data)
		h := hex.EncodeToString(sum[:])
		ref := put(t, s, case1, "run-1", "application/octet-stream", data)
		want := sanad.ArtifactRef{ID: "sha256:" + h, SHA256: h, MediaType: "application/octet-stream", SizeBytes: int64(len(data)),
			URI: "artifacts/sha256/" + h, Scope: case1, CreatedByRun: "run-1"}
		if !reflect.DeepEqual(ref, want) {
			t.Fatalf("Put: got %+v, want %+v", ref, want)
		}
		if err := ref.Validate(); err != nil {
			t.Fatalf("Put returned an invalid ref: %v", err)
		}
		got, gotRef, err := s.Get(t.Context(), ref.ID, case1)
		if err != nil || !bytes.Equal(got, data) || !reflect.DeepEqual(gotRef, want) {
			t.Fatalf("Get: got (%d bytes, %+v, %v), want (%d bytes, %+v)", len(got), gotRef, err, len(data), want)
		}
		if onDisk, err := os.ReadFile(s.Path(h)); err != nil || !bytes.Equal(onDisk, data) {
			t.Fatalf("blob at %s: got (%d bytes, %v), want the content", s.Path(h), len(onDisk), err)
		}
	}
}

// TestPutDedupes: the same content is one blob however often and in however
// many cases it is put, and putting leaves no temporary files.
func TestPutDedupes(t *testing.T) {
	s, blobs := openStore(t)
	data := []byte("the same transcript")
	first := put(t, s, case1, "run-1", "text/plain", data)
	again := put(t, s, case1, "run-1", "text/plain", data)
	if !reflect.DeepEqual(again, first) {
		t.Fatalf("second Put: got %+v, want %+v", again, first)
	}
	other := put(t, s, case2, "run-2", "text/plain", data)
	if other.ID != first.ID || other.Scope != case2 || other.CreatedByRun != "run-2" {
		t.Fatalf("Put in case-2: got %+v, want the same id in case-2 by run-2", other)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, err := s.Put(t.Context(), case1, "run-1", "text/plain", data); err != nil {
				t.Errorf("concurrent Put: %v", err)
			}
		})
	}
	wg.Wait()
	files := blobFiles(t, blobs)
	want := filepath.Join("sha256", first.SHA256[:2], first.SHA256)
	if len(files) != 1 || files[0] != want {
		t.Fatalf("blob folder holds %q, want only %q", files, want)
	}
	for _, scope := range []sanad.Scope{case1, case2} {
		if got, _, err := s.Get(t.Context(), first.ID, scope); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("Get in %s: got (%q, %v), want the content", scope, got, err)
		}
	}
}

// TestScopeIsolation: an artifact is found only in the scope it was put in;
// from another case, another tenant or the tenant-wide scope it is NOT_FOUND,
// as is an id never put.
func TestScopeIsolation(t *testing.T) {
	s, _ := openStore(t)
	ref := put(t, s, case1, "run-1", "text/plain", []byte("privileged notes"))
	for _, scope := range []sanad.Scope{case2, {Tenant: "firm"}, {Tenant: "other-firm", Case: "case-1"}} {
		data, _, err := s.Get(t.Context(), ref.ID, scope)
		wantCode(t, "Get from "+scope.String(), err, sanad.CodeNotFound)
		if data != nil {
			t.Fatalf("Get from %s returned content with its error", scope)
		}
	}
	never := sanad.ArtifactID(strings.Repeat("ab", 32))
	_, _, err := s.Get(t.Context(), never, case1)
	wantCode(t, "Get of an id never put", err, sanad.CodeNotFound)
}

// TestCorruptBlob: content that no longer matches its hash is never returned:
// reading it fails with INTEGRITY; a missing blob is NOT_FOUND.
func TestCorruptBlob(t *testing.T) {
	for name, damage := range map[string]func(path string) error{
		"overwritten": func(p string) error { return os.WriteFile(p, []byte("forged evidence!!"), 0o600) },
		"truncated":   func(p string) error { return os.Truncate(p, 5) },
		"emptied":     func(p string) error { return os.Truncate(p, 0) },
		"bit flipped": func(p string) error {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			b[len(b)/2] ^= 1
			return os.WriteFile(p, b, 0o600)
		},
	} {
		t.Run(name, func(t *testing.T) {
			s, _ := openStore(t)
			ref := put(t, s, case1, "run-1", "text/plain", []byte("original evidence"))
			if err := damage(s.Path(ref.SHA256)); err != nil {
				t.Fatal(err)
			}
			data, _, err := s.Get(t.Context(), ref.ID, case1)
			wantCode(t, "Get of a damaged blob", err, sanad.CodeIntegrity)
			if data != nil {
				t.Fatalf("Get of a damaged blob returned %q", data)
			}
			_, err = s.Read(ref.SHA256)
			wantCode(t, "Read of a damaged blob", err, sanad.CodeIntegrity)
		})
	}
	t.Run("missing", func(t *testing.T) {
		s, _ := openStore(t)
		ref := put(t, s, case1, "run-1", "text/plain", []byte("original evidence"))
		if err := os.Remove(s.Path(ref.SHA256)); err != nil {
			t.Fatal(err)
		}
		_, _, err := s.Get(t.Context(), ref.ID, case1)
		wantCode(t, "Get of a missing blob", err, sanad.CodeNotFound)
	})
}

// TestPutRepairsDamagedBlob: putting content whose blob is on disk but
// damaged writes it again. Put promises the blob is durable when it returns
// the ref; an event referring to the ref must not point at bad bytes.
func TestPutRepairsDamagedBlob(t *testing.T) {
	s, _ := openStore(t)
	data := []byte("original evidence")
	ref := put(t, s, case1, "run-1", "text/plain", data)
	if err := os.WriteFile(s.Path(ref.SHA256), []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	put(t, s, case1, "run-2", "text/plain", data)
	got, _, err := s.Get(t.Context(), ref.ID, case1)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Get after Put over a damaged blob: got (%q, %v), want %q", got, err, data)
	}
}

func TestRefusesBadInput(t *testing.T) {
	s, blobs := openStore(t)
	ctx := t.Context()
	_, err := s.Put(ctx, case1, "run-1", "", []byte("x"))
	wantCode(t, "Put without a media type", err, sanad.CodeInvalidInput)
	_, err = s.Put(ctx, sanad.Scope{Case: "case-1"}, "run-1", "text/plain", []byte("x"))
	wantCode(t, "Put without a tenant", err, sanad.CodeInvalidInput)
	if files := blobFiles(t, blobs); len(files) != 0 {
		t.Fatalf("refused Puts wrote %q", files)
	}
	for _, sum := range []string{"", "abc", strings.Repeat("AB", 32), strings.Repeat("g", 64), "../../../../etc/passwd"} {
		_, err := s.Read(sum)
		wantCode(t, "Read("+sum+")", err, sanad.CodeInvalidInput)
	}
}
