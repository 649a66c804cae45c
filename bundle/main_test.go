package bundle_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/sanadhq/sanad/bundle"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/keyring"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/ledgertest"
)

func TestMain(m *testing.M) {
	if os.Getenv(verifyStdinEnv) != "" {
		os.Exit(verifyStdin())
	}
	if os.Getenv(maxRSSEnv) != "" {
		os.Exit(measureChild())
	}
	code := m.Run()
	for _, dir := range cleanupDirs {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

var cleanupDirs []string

// maxRSSEnv makes the test binary run the command after "--" and report its
// peak memory (measureChild).
const maxRSSEnv = "SANAD_TEST_MEASURE_CHILD"

// exported is a bundle written by the exporter, with what a test needs to
// check it and to forge edits of it.
type exported struct {
	gz     []byte        // the bundle as written
	files  []file        // its files, in order
	trace  string        // the exported trace
	events int           // events in the bundle
	logKey string        // the checkpoint verifier key to pin
	types  *ledger.Types // the home's event types
	keys   map[string]*keyring.Key
}

type file struct {
	name string
	data []byte
}

var (
	bigOnce   sync.Once
	bigBundle *exported
)

// bigExport returns a bundle of one trace of at least 1,000 events, exported
// once per test binary.
func bigExport(tb testing.TB) *exported {
	tb.Helper()
	bigOnce.Do(func() {
		dir, err := os.MkdirTemp("", "sanad-bundle-test-")
		if err != nil {
			tb.Fatalf("MkdirTemp: %v", err)
		}
		cleanupDirs = append(cleanupDirs, dir)
		bigBundle = export(tb, dir, 1000)
	})
	if bigBundle == nil {
		tb.Fatal("exporting the shared test bundle failed in an earlier test")
	}
	return bigBundle
}

// export records a trace of at least n events in a new home in dir, exports
// it and closes the home.
func export(tb testing.TB, dir string, n int) *exported {
	tb.Helper()
	ctx := context.Background()
	h, err := home.Open(ctx, home.Config{Dir: dir})
	if err != nil {
		tb.Fatalf("home.Open: got error %v, want nil", err)
	}
	defer h.Close()
	trace := ledgertest.Record(tb, h, n)
	var buf bytes.Buffer
	x := &bundle.Exporter{Ledger: h.Ledger, Artifacts: h.Artifacts, Runs: h.Runs}
	res, err := x.Export(ctx, ledgertest.Scope, trace, &buf)
	if err != nil {
		tb.Fatalf("Export: got error %v, want nil", err)
	}
	if sum := sha256.Sum256(buf.Bytes()); res.SHA256 != sum {
		tb.Fatalf("Export: got bundle_sha256 %x, want the SHA-256 of the bytes written %x", res.SHA256, sum)
	}
	logKey, err := h.Ledger.VerifierKey()
	if err != nil {
		tb.Fatalf("VerifierKey: %v", err)
	}
	e := &exported{gz: buf.Bytes(), trace: trace, events: res.Events, logKey: logKey, types: h.Types, keys: map[string]*keyring.Key{}}
	e.files = readFiles(tb, e.gz)
	pubs, err := h.Keys.Public()
	if err != nil {
		tb.Fatalf("Public: %v", err)
	}
	for id, p := range pubs {
		k, err := h.Keys.Existing(p.Identity)
		if err != nil {
			tb.Fatalf("Existing(%s): %v", p.Identity, err)
		}
		e.keys[id] = k
	}
	return e
}

// readFiles reads the files of a bundle, gzip-compressed or not, strictly:
// the gzip stream must be whole and its checksum right.
func readFiles(tb testing.TB, b []byte) []file {
	tb.Helper()
	files, err := parseFiles(b)
	if err != nil {
		tb.Fatalf("reading bundle: %v", err)
	}
	return files
}

func parseFiles(b []byte) ([]file, error) { return parse(b, false) }

// parseContent reads the files of a bundle as a reader that does not check
// the gzip stream's own integrity would: only what the tar holds counts.
func parseContent(b []byte) ([]file, error) { return parse(b, true) }

func parse(b []byte, lenient bool) ([]file, error) {
	if len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		b, err = io.ReadAll(zr)
		if err != nil && !lenient {
			return nil, err
		}
	}
	tr := tar.NewReader(bytes.NewReader(b))
	var files []file
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return nil, err
		}
		files = append(files, file{hdr.Name, data})
	}
	if len(files) == 0 {
		return nil, errors.New("no files")
	}
	return files, nil
}

// writeTar writes files as a plain tar, with the headers the exporter uses.
func writeTar(tb testing.TB, files []file) []byte {
	tb.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		hdr := &tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.data)), ModTime: time.Unix(0, 0).UTC(), Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			tb.Fatalf("tar: %v", err)
		}
		if _, err := tw.Write(f.data); err != nil {
			tb.Fatalf("tar: %v", err)
		}
	}
	if err := tw.Close(); err != nil {
		tb.Fatalf("tar: %v", err)
	}
	return buf.Bytes()
}

func gzipped(tb testing.TB, b []byte) []byte {
	tb.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		tb.Fatalf("gzip: %v", err)
	}
	return buf.Bytes()
}

func clone(files []file) []file {
	out := make([]file, len(files))
	for i, f := range files {
		out[i] = file{f.name, append([]byte(nil), f.data...)}
	}
	return out
}

func get(files []file, name string) []byte {
	for _, f := range files {
		if f.name == name {
			return f.data
		}
	}
	return nil
}

func set(files []file, name string, data []byte) {
	for i := range files {
		if files[i].name == name {
			files[i].data = data
			return
		}
	}
}

// fixManifest recomputes the manifest's hash of every file, as a forger
// would after changing them.
func fixManifest(tb testing.TB, files []file) {
	tb.Helper()
	var m bundle.Manifest
	if err := json.Unmarshal(get(files, bundle.ManifestFile), &m); err != nil {
		tb.Fatalf("manifest: %v", err)
	}
	m.Files, m.Sizes = map[string]string{}, map[string]int64{}
	for _, f := range files {
		if f.name != bundle.ManifestFile && f.name != bundle.HeadFile {
			sum := sha256.Sum256(f.data)
			m.Files[f.name] = "sha256:" + hex.EncodeToString(sum[:])
			m.Sizes[f.name] = int64(len(f.data))
		}
	}
	set(files, bundle.ManifestFile, marshalIndent(tb, m))
}

func marshalIndent(tb testing.TB, v any) []byte {
	tb.Helper()
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		tb.Fatalf("json: %v", err)
	}
	return append(b, '\n')
}

func proofs(tb testing.TB, files []file) bundle.Proofs {
	tb.Helper()
	var p bundle.Proofs
	if err := json.Unmarshal(get(files, bundle.ProofsFile), &p); err != nil {
		tb.Fatalf("proofs: %v", err)
	}
	return p
}

// lines splits events.jsonl into its events.
func lines(data []byte) [][]byte {
	parts := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	out := make([][]byte, len(parts))
	for i, p := range parts {
		out[i] = append([]byte(nil), p...)
	}
	return out
}

func joinLines(ls [][]byte) []byte {
	var out []byte
	for _, l := range ls {
		out = append(append(out, l...), '\n')
	}
	return out
}

func (e *exported) verify(b []byte) (bundle.Report, error) {
	return bundle.Verify(bytes.NewReader(b), bundle.Options{Types: e.types, LogKeys: bundle.PinLogKey(e.logKey)})
}
