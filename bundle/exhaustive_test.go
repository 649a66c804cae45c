package bundle_test

import (
	"archive/tar"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sanadhq/sanad/bundle"
)

// The exhaustive tamper suite over bundles: a real exported bundle (a trace of
// exBundleEvents events or a few more, with its artifacts), and every member
// of it in turn flipped, truncated, deleted, duplicated and moved, each time
// written again as a sound tar in a sound gzip stream (headers valid), so
// that only the bundle's own checks can refuse it; and the tar headers of
// every member flipped in the plain tar. Every case must be refused by
// bundle.Verify, but for reorderings, which a repack with tar may make:
// those must verify with the same report. The decompression bombs and the
// trailing-data cases are run through the sanad command in
// TestSanadVerifyPeakMemory (linux) and TestBundleTrailingData.
//
// Sample sizes (default, and in brackets with SANAD_TAMPER_FULL=1; each
// family logs its figures): the members are the manifest, the head, the
// events, the checkpoint, the proofs, the keys and exBundleArtifacts
// artifacts (the first, the last and some between) [every artifact].
//   - byte flips: in each member the first and the last byte and flipRandom
//     bytes at random [every byte of the head, the checkpoint and the
//     manifest, and 64 at random in the others], each XORed with a random
//     non-zero mask (fixed seed); each once with the manifest as it was and
//     once with the manifest's hashes and sizes recomputed.
//   - truncation of each member to 0, 1, half and all but one byte, with
//     and without the manifest recomputed.
//   - deletion of each member, with and without the manifest recomputed.
//   - duplication of each member: the same member again right after it and
//     at the end, and a changed copy at the end.
//   - reordering: each member moved to the front and to the end, and each
//     pair of neighbours swapped.
//   - tar header flips: in each member's tar header block, the first and the
//     last byte and flipRandom at random [every byte of the head's and the
//     manifest's header blocks, 64 at random in the others]. A flip that
//     leaves every member's name and content as they were (the mode, the
//     time, the header's checksum field when the reader ignores it) changes
//     nothing a verifier reads: it may verify.
const (
	exBundleEvents    = 120
	exBundleArtifacts = 4
)

type exBundleSample struct {
	full       bool
	flipRandom int
}

func exBundleSampleSize() exBundleSample {
	if os.Getenv("SANAD_TAMPER_FULL") != "" {
		return exBundleSample{full: true, flipRandom: 64}
	}
	return exBundleSample{flipRandom: 3}
}

var (
	suiteOnce   sync.Once
	suiteBundle *exported
)

// suiteExport returns the suite's bundle, exported once per test binary.
func suiteExport(tb testing.TB) *exported {
	tb.Helper()
	suiteOnce.Do(func() {
		dir, err := os.MkdirTemp("", "sanad-bundle-suite-")
		if err != nil {
			tb.Fatalf("MkdirTemp: %v", err)
		}
		cleanupDirs = append(cleanupDirs, dir)
		suiteBundle = export(tb, dir, exBundleEvents)
	})
	if suiteBundle == nil {
		tb.Fatal("exporting the suite's bundle failed in an earlier test")
	}
	return suiteBundle
}

// members returns the indexes in e.files of the members the suite tampers
// with.
func (s exBundleSample) members(e *exported) []int {
	var out, arts []int
	for i, f := range e.files {
		if strings.HasPrefix(f.name, bundle.ArtifactsDir) {
			arts = append(arts, i)
		} else {
			out = append(out, i)
		}
	}
	if s.full || len(arts) <= exBundleArtifacts {
		return append(out, arts...)
	}
	for k := range exBundleArtifacts {
		out = append(out, arts[k*(len(arts)-1)/(exBundleArtifacts-1)])
	}
	return out
}

// bundleCase is one tampered bundle.
type bundleCase struct {
	desc string
	b    []byte
	// reorder: it holds the same members, moved; it may verify, with the
	// report of the bundle as written.
	reorder bool
	// neutral: every member's name and content are as they were.
	neutral bool
}

// withFiles writes files as a gzip-compressed tar with sound headers.
func withFiles(tb testing.TB, desc string, files []file, fix bool) bundleCase {
	tb.Helper()
	if fix {
		fixManifest(tb, files)
		desc += " (manifest recomputed)"
	}
	return bundleCase{desc: desc, b: gzipped(tb, writeTar(tb, files))}
}

// runBundleFamily verifies each case and logs the family's figures.
func runBundleFamily(t *testing.T, e *exported, name string, cases []bundleCase) {
	t.Helper()
	want, err := e.verify(e.gz)
	if err != nil {
		t.Fatalf("Verify of the bundle as written: %v", err)
	}
	start := time.Now()
	refused, sameVerdict, neutral := 0, 0, 0
	for _, c := range cases {
		rep, err := e.verify(c.b)
		switch {
		case err != nil:
			refused++
		case c.reorder && reflect.DeepEqual(rep, want):
			sameVerdict++
		case c.neutral:
			neutral++
		case c.reorder:
			t.Errorf("family %s: %s: verified with another report: %+v, want %+v", name, c.desc, rep, want)
		default:
			t.Errorf("family %s: NOT REFUSED: %s", name, c.desc)
		}
	}
	t.Logf("family %s: %d cases, %d refused, %d reorderings verified with the same report, %d changing no name or content verified; %s",
		name, len(cases), refused, sameVerdict, neutral, time.Since(start).Round(time.Millisecond))
}

// positions returns the first and last positions of n bytes and k at
// random, or every position when all is set.
func positions(rng *rand.Rand, n, k int, all bool) []int {
	if all {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	out := []int{0, n - 1}
	for range k {
		out = append(out, rng.IntN(n))
	}
	return out
}

// TestBundleSuiteMembers flips, truncates, deletes, duplicates and moves
// every member of a bundle (see the sample above).
func TestBundleSuiteMembers(t *testing.T) {
	e := suiteExport(t)
	s := exBundleSampleSize()
	rng := rand.New(rand.NewPCG(3, 4))
	members := s.members(e)
	t.Logf("bundle: %d events, %d members (%d of them tampered with), %d bytes", e.events, len(e.files), len(members), len(e.gz))
	small := map[string]bool{bundle.HeadFile: true, bundle.CheckpointFile: true, bundle.ManifestFile: true}
	var flips, truncs, dels, dups, moves []bundleCase
	for _, i := range members {
		name := e.files[i].name
		fixes := []bool{false}
		if name != bundle.ManifestFile && name != bundle.HeadFile {
			fixes = append(fixes, true)
		}
		n := len(e.files[i].data)
		for _, p := range positions(rng, n, s.flipRandom, s.full && small[name]) {
			mask := byte(1 + rng.IntN(255))
			for _, fix := range fixes {
				files := clone(e.files)
				files[i].data[p] ^= mask
				flips = append(flips, withFiles(t, fmt.Sprintf("%s: byte %d of %d xor %#02x", name, p, n, mask), files, fix))
			}
		}
		for _, size := range []int{0, 1, n / 2, n - 1} {
			for _, fix := range fixes {
				files := clone(e.files)
				files[i].data = files[i].data[:size]
				truncs = append(truncs, withFiles(t, fmt.Sprintf("%s cut to %d of %d bytes", name, size, n), files, fix))
			}
		}
		for _, fix := range fixes {
			files := append(clone(e.files[:i]), clone(e.files[i+1:])...)
			dels = append(dels, withFiles(t, name+" deleted", files, fix))
		}
		again := clone(e.files)
		again = append(again[:i+1], append([]file{{name, e.files[i].data}}, again[i+1:]...)...)
		dups = append(dups, withFiles(t, name+" twice in a row", again, false))
		dups = append(dups, withFiles(t, name+" again at the end", append(clone(e.files), file{name, e.files[i].data}), false))
		changed := append([]byte(nil), e.files[i].data...)
		changed[len(changed)/2] ^= 0x20
		dups = append(dups, withFiles(t, name+" again at the end, changed", append(clone(e.files), file{name, changed}), false))
		front := append([]file{e.files[i]}, append(clone(e.files[:i]), clone(e.files[i+1:])...)...)
		end := append(append(clone(e.files[:i]), clone(e.files[i+1:])...), e.files[i])
		for _, m := range []struct {
			desc  string
			files []file
		}{{name + " moved to the front", front}, {name + " moved to the end", end}} {
			c := withFiles(t, m.desc, m.files, false)
			c.reorder = true
			moves = append(moves, c)
		}
		if i+1 < len(e.files) {
			sw := clone(e.files)
			sw[i], sw[i+1] = sw[i+1], sw[i]
			c := withFiles(t, fmt.Sprintf("%s and %s swapped", name, e.files[i+1].name), sw, false)
			c.reorder = true
			moves = append(moves, c)
		}
	}
	// The last character of the head's and the checkpoint's signatures,
	// whose low bits are base64 padding, with masks 1 to 15 [every mask].
	masks := 15
	if s.full {
		masks = 255
	}
	for i, f := range e.files {
		if f.name != bundle.HeadFile && f.name != bundle.CheckpointFile {
			continue
		}
		at := len(f.data) - 3
		if f.data[at+1] != '=' {
			t.Fatalf("the signature of %s does not end in one padding character: %q", f.name, f.data)
		}
		for m := 1; m <= masks; m++ {
			files := clone(e.files)
			files[i].data[at] ^= byte(m)
			flips = append(flips, withFiles(t, fmt.Sprintf("%s: the signature's last character %q xor %#02x", f.name, f.data[at], m), files, false))
		}
	}
	t.Run("flips", func(t *testing.T) { runBundleFamily(t, e, "member byte flips", flips) })
	t.Run("truncations", func(t *testing.T) { runBundleFamily(t, e, "member truncations", truncs) })
	t.Run("deletions", func(t *testing.T) { runBundleFamily(t, e, "member deletions", dels) })
	t.Run("duplicates", func(t *testing.T) { runBundleFamily(t, e, "member duplicates", dups) })
	t.Run("reorderings", func(t *testing.T) { runBundleFamily(t, e, "member reorderings", moves) })
}

// TestBundleSuiteTarHeaders flips bytes of every member's tar header block in
// the plain tar the exporter's headers make.
func TestBundleSuiteTarHeaders(t *testing.T) {
	e := suiteExport(t)
	s := exBundleSampleSize()
	rng := rand.New(rand.NewPCG(5, 6))
	plain := writeTar(t, e.files)
	// Where each member's header block starts: the tar is walked as written,
	// one ustar/PAX header block (and the PAX records' blocks) per member.
	var starts []int
	off := 0
	for range e.files {
		starts = append(starts, off)
		hdr, err := tar.NewReader(bytes.NewReader(plain[off:])).Next()
		if err != nil {
			t.Fatal(err)
		}
		// The member's header, then its data padded to the block size.
		off += headerBlocks(t, plain[off:]) + int(hdr.Size+511)/512*512
	}
	var cases []bundleCase
	for _, i := range s.members(e) {
		name := e.files[i].name
		all := s.full && (name == bundle.HeadFile || name == bundle.ManifestFile)
		for _, p := range positions(rng, 512, s.flipRandom, all) {
			mask := byte(1 + rng.IntN(255))
			b := append([]byte(nil), plain...)
			b[starts[i]+p] ^= mask
			got, err := parseFiles(b)
			cases = append(cases, bundleCase{desc: fmt.Sprintf("tar header of %s: byte %d xor %#02x", name, p, mask), b: gzipped(t, b),
				neutral: err == nil && sameFiles(e.files, got)})
		}
	}
	runBundleFamily(t, e, "tar header flips", cases)
}

// headerBlocks returns the size of the header blocks of the member at the
// start of b: one block, or with the writer's format, the PAX header block,
// its records and the ustar block that follows.
func headerBlocks(tb testing.TB, b []byte) int {
	tb.Helper()
	if b[156] != 'x' { // typeflag: not a PAX extended header
		return 512
	}
	var size int
	if _, err := fmt.Sscanf(strings.TrimRight(string(b[124:136]), "\x00 "), "%o", &size); err != nil {
		tb.Fatalf("PAX header size %q: %v", b[124:136], err)
	}
	return 512 + (size+511)/512*512 + 512
}
