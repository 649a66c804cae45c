package bundle_test

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sanadhq/sanad/bundle"
)

// verifyInChild verifies b in a child process and returns what it printed
// and its peak resident memory. The child reads its own peak (VmHWM): the
// ru_maxrss that wait4 reports counts the parent's memory too, as the child
// shares it until it execs.
func verifyInChild(tb testing.TB, b []byte) (string, int64) {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), verifyStdinEnv+"=1")
	cmd.Stdin = bytes.NewReader(b)
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("child verifier: %v\n%s", err, out)
	}
	got, hwm, ok := strings.Cut(strings.TrimSpace(string(out)), "\nVmHWM:")
	kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(hwm), "kB")), 10, 64)
	if !ok || err != nil {
		tb.Fatalf("child verifier: no peak memory in its output %q", out)
	}
	return got, kb << 10
}

// bombCase is a bundle that decompresses to far more than it weighs: hdr,
// holding hdr.Size zero bytes, between the files before and after; want is
// what the verifier's refusal says.
type bombCase struct {
	name   string
	before []file
	hdr    tar.Header
	after  []file
	want   string
}

// bombCases returns the decompression bombs built from the bundle e.
func bombCases(t *testing.T, e *exported) []bombCase {
	const gib = 1 << 30
	art := bundle.ArtifactsDir + strings.Repeat("ab", 32)
	// A manifest declaring a file of size bytes (and hash) in place of the
	// real one.
	declare := func(name string, size int64, sum string) []byte {
		var m bundle.Manifest
		if err := json.Unmarshal(get(e.files, bundle.ManifestFile), &m); err != nil {
			t.Fatal(err)
		}
		m.Files[name], m.Sizes[name] = sum, size
		return marshalIndent(t, m)
	}
	without := func(names ...string) []file {
		var out []file
		for _, f := range e.files {
			if !slices.Contains(names, f.name) {
				out = append(out, f)
			}
		}
		return out
	}
	manifestAndHead := e.files[:2]
	zerosSum := func(n int64) string {
		h := sha256.New()
		z := make([]byte, 1<<20)
		for ; n > 0; n -= int64(len(z)) {
			h.Write(z[:min(n, int64(len(z)))])
		}
		return "sha256:" + hex.EncodeToString(h.Sum(nil))
	}
	zerosArt := bundle.ArtifactsDir + strings.TrimPrefix(zerosSum(gib-512), "sha256:")
	withManifest := func(m []byte, rest []file) []file {
		return append([]file{{bundle.ManifestFile, m}, e.files[1]}, rest...)
	}
	return []bombCase{
		{"unlisted artifact of 1 GiB", manifestAndHead, tar.Header{Name: art, Size: gib - 512}, e.files[2:], "not listed in the manifest"},
		{"listed artifact of 1 GiB, streamed", withManifest(declare(zerosArt, gib-512, zerosSum(gib-512)), nil), tar.Header{Name: zerosArt, Size: gib - 512}, e.files[2:], "the signed head is for another trace or manifest"},
		{"events.jsonl of 2 GiB before the manifest", nil, tar.Header{Name: bundle.EventsFile, Size: 2 * gib}, without(bundle.EventsFile), "more than a bundle's events.jsonl may hold"},
		{"events.jsonl of 1 GiB before the manifest", nil, tar.Header{Name: bundle.EventsFile, Size: gib - 512}, without(bundle.EventsFile), "first"},
		{"events.jsonl of 1 GiB declared", withManifest(declare(bundle.EventsFile, gib-512, zerosSum(0)), e.files[2:2]), tar.Header{Name: bundle.EventsFile, Size: gib - 512}, without(bundle.ManifestFile, bundle.HeadFile, bundle.EventsFile), "longer than"},
		{"proofs.json of 1 GiB declared", withManifest(declare(bundle.ProofsFile, gib-512, zerosSum(0)), nil), tar.Header{Name: bundle.ProofsFile, Size: gib - 512}, without(bundle.ManifestFile, bundle.HeadFile, bundle.ProofsFile), "malformed"},
		{"manifest.json of 1 GiB", nil, tar.Header{Name: bundle.ManifestFile, Size: gib - 512}, e.files[1:], "more than a bundle's manifest.json may hold"},
		{"unlisted artifact of 1 GiB before the manifest", nil, tar.Header{Name: art, Size: gib - 512}, e.files, "content does not match its name"},
	}
}

// TestBundleBombBoundedMemory: bundles that decompress to gigabytes of zeros
// — in an artifact (listed in the manifest or not), in events.jsonl or
// proofs.json (their sizes declared in the manifest, or before it), or as
// the manifest itself — are refused, or streamed through their hash, with
// the verifier's peak memory (a child process's peak RSS, the garbage
// collector set as the sanad command sets it) under 64 MiB.
func TestBundleBombBoundedMemory(t *testing.T) {
	const limit = 64 << 20
	e := bigExport(t)
	for _, tt := range bombCases(t, e) {
		t.Run(tt.name, func(t *testing.T) {
			b := zeroBomb(t, tt.before, tt.hdr, tt.after)
			got, rss := verifyInChild(t, b)
			t.Logf("%d-byte bundle holding %d bytes: peak RSS %.1f MiB: %s", len(b), tt.hdr.Size, float64(rss)/(1<<20), got)
			if !strings.Contains(got, tt.want) {
				t.Errorf("Verify: got %q, want an error that says %q", got, tt.want)
			}
			if rss > limit {
				t.Errorf("peak RSS %d bytes (%.0f MiB), want under %d MiB", rss, float64(rss)/(1<<20), limit>>20)
			}
		})
	}
	got, rss := verifyInChild(t, e.gz)
	t.Logf("the real bundle of %d events (%d bytes): peak RSS %.1f MiB: %s", e.events, len(e.gz), float64(rss)/(1<<20), got)
	if got != "ok" {
		t.Errorf("Verify of the real bundle in the child: got %q, want ok", got)
	}
	got, rss = verifyInChild(t, nil)
	t.Logf("an empty input: peak RSS %.1f MiB: %s", float64(rss)/(1<<20), got)
}
