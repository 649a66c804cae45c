package bundle_test

import (
	"archive/tar"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/sanadhq/sanad/bundle"
	"github.com/sanadhq/sanad/home"
)

// verifyStdinEnv makes the test binary a child that verifies the bundle on
// its standard input and prints the result (see TestMain).
const verifyStdinEnv = "SANAD_BUNDLE_TEST_VERIFY_STDIN"

// verifyStdin verifies the bundle on standard input, unpinned allowed, with
// the garbage collector set as the sanad command sets it, and prints "ok"
// or the error, then its peak resident memory (VmHWM) where /proc has it.
func verifyStdin() int {
	debug.SetGCPercent(400)
	types, err := home.Types()
	if err != nil {
		fmt.Println(err)
		return 1
	}
	if _, err := bundle.Verify(os.Stdin, bundle.Options{Types: types, AllowUnpinned: true}); err != nil {
		fmt.Println(err)
	} else {
		fmt.Println("ok")
	}
	if status, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(status), "\n") {
			if strings.HasPrefix(line, "VmHWM:") {
				fmt.Println(line)
			}
		}
	}
	return 0
}

// TestExportWritesManifestFirst: the exporter writes manifest.json first,
// then the head, and the manifest (v2) gives every other file's hash and
// size.
func TestExportWritesManifestFirst(t *testing.T) {
	e := bigExport(t)
	if e.files[0].name != bundle.ManifestFile || e.files[1].name != bundle.HeadFile {
		t.Fatalf("bundle starts with %s, %s; want %s, %s", e.files[0].name, e.files[1].name, bundle.ManifestFile, bundle.HeadFile)
	}
	var m bundle.Manifest
	if err := json.Unmarshal(e.files[0].data, &m); err != nil {
		t.Fatal(err)
	}
	if m.Format != bundle.Format || len(m.Files) != len(e.files)-2 || len(m.Sizes) != len(m.Files) {
		t.Fatalf("manifest: got format %s, %d files, %d sizes; want %s, %d of each", m.Format, len(m.Files), len(m.Sizes), bundle.Format, len(e.files)-2)
	}
	for _, f := range e.files[2:] {
		if m.Sizes[f.name] != int64(len(f.data)) {
			t.Errorf("manifest size of %s: got %d, want %d", f.name, m.Sizes[f.name], len(f.data))
		}
	}
}

// TestBundleV1StillVerifies: a bundle written in the first format, whose
// manifest gives no sizes (testdata/good_v1.tar.gz), verifies against its log
// key.
func TestBundleV1StillVerifies(t *testing.T) {
	b, err := os.ReadFile("testdata/good_v1.tar.gz")
	if err != nil {
		t.Fatal(err)
	}
	key, err := os.ReadFile("testdata/good_v1.logkey")
	if err != nil {
		t.Fatal(err)
	}
	types := bigExport(t).types
	rep, err := bundle.Verify(bytes.NewReader(b), bundle.Options{Types: types, LogKeys: bundle.PinLogKey(strings.TrimSpace(string(key)))})
	if err != nil || !rep.LogPinned || rep.Events < 12 {
		t.Fatalf("Verify of a v1 bundle: got %+v, %v; want it verified, pinned, with at least 12 events", rep, err)
	}
	// A v1 manifest that gives sizes is not v1.
	files := readFiles(t, b)
	var m map[string]any
	if err := json.Unmarshal(get(files, bundle.ManifestFile), &m); err != nil {
		t.Fatal(err)
	}
	m["sizes"] = map[string]int64{}
	set(files, bundle.ManifestFile, marshalIndent(t, m))
	if _, err := bundle.Verify(bytes.NewReader(writeTar(t, files)), bundle.Options{Types: types, AllowUnpinned: true}); err == nil || !strings.Contains(err.Error(), "sizes in a sanad-bundle/v1 manifest") {
		t.Fatalf("Verify of a v1 manifest with sizes: got %v, want it refused", err)
	}
}

// TestBundleTrailingData: nothing may follow a bundle's tar archive but the
// zero padding tar writes (at most bundle.MaxPadding), and nothing may
// follow its gzip stream: a reader that skips the end-of-archive marker
// (`tar -i`) or concatenates gzip members would otherwise extract files that
// were never verified. A tar without its end-of-archive marker is cut short.
func TestBundleTrailingData(t *testing.T) {
	e := bigExport(t)
	plain := writeTar(t, e.files)
	forged := clone(e.files)
	set(forged, bundle.EventsFile, []byte("{}\n"))
	forgedTar := writeTar(t, []file{{bundle.EventsFile, get(forged, bundle.EventsFile)}})
	pad := func(b []byte, to int) []byte { return append(append([]byte(nil), b...), make([]byte, to-len(b)%to)...) }
	for _, tt := range []struct {
		name string
		b    []byte
		want string // "" if it verifies
	}{
		{"gzip, second gzip member", append(append([]byte(nil), e.gz...), gzipped(t, forgedTar)...), "after the end of the gzip stream"},
		{"gzip, garbage after the stream", append(append([]byte(nil), e.gz...), "garbage"...), "after the end of the gzip stream"},
		{"gzip, a tar after the archive", gzipped(t, append(append([]byte(nil), plain...), forgedTar...)), "after the end of the tar archive"},
		{"gzip, bytes after the archive", gzipped(t, append(append([]byte(nil), plain...), 0, 0, 1)), "after the end of the tar archive"},
		{"tar, a tar after the archive", append(append([]byte(nil), plain...), forgedTar...), "after the end of the tar archive"},
		{"tar, garbage after the archive", append(append([]byte(nil), plain...), "garbage"...), "after the end of the tar archive"},
		{"tar without its end-of-archive blocks", plain[:len(plain)-1024], "no end-of-archive marker"},
		{"tar with one end-of-archive block", plain[:len(plain)-512], "no end-of-archive marker"},
		{"tar, too much zero padding", append(append([]byte(nil), plain...), make([]byte, bundle.MaxPadding+512)...), "padding"},
		{"tar padded to a 10 KiB record", pad(plain, 10240), ""},
		{"gzip, padded to a 10 KiB record", gzipped(t, pad(plain, 10240)), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.verify(tt.b)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Verify: got error %v, want nil", err)
				}
				return
			}
			var ve *bundle.VerifyError
			if !errors.As(err, &ve) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Verify: got %v, want a *bundle.VerifyError that says %q", err, tt.want)
			}
		})
	}
}

// TestBundleRepackedWithTar: a bundle unpacked and packed again with the
// system's tar — with directory entries (artifacts/, artifacts/sha256/),
// "./" names, another order, the manifest last, gzip-compressed or not —
// still verifies.
func TestBundleRepackedWithTar(t *testing.T) {
	tarPath, err := exec.LookPath("tar")
	if err != nil {
		t.Skip("no tar command")
	}
	e := bigExport(t)
	dir := filepath.Join(t.TempDir(), "b")
	for _, f := range e.files {
		p := filepath.Join(dir, filepath.FromSlash(f.name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	others := []string{bundle.HeadFile, bundle.EventsFile, bundle.CheckpointFile, bundle.ProofsFile, bundle.KeysFile}
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"gzip, whole folder", []string{"-czf", "out", "."}},
		{"gzip, manifest first", append(append([]string{"-czf", "out", bundle.ManifestFile}, others...), "artifacts")},
		{"tar, artifacts first, manifest last", append(append([]string{"-cf", "out", "artifacts"}, others...), bundle.ManifestFile)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "repacked")
			args := append([]string{"-C", dir}, tt.args...)
			args[3] = out
			if b, err := exec.Command(tarPath, args...).CombinedOutput(); err != nil {
				t.Fatalf("tar %s: %v\n%s", strings.Join(args, " "), err, b)
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if names := tarNames(t, b); !strings.Contains(names, "artifacts/sha256/\n") {
				t.Fatalf("tar %s wrote no directory entries: %s", strings.Join(args, " "), names)
			}
			if rep, err := e.verify(b); err != nil || rep.Events != e.events {
				t.Fatalf("Verify: got %+v, %v; want the bundle verified", rep, err)
			}
		})
	}
}

// tarNames lists the member names of a tar, gzip-compressed or not, one per
// line.
func tarNames(tb testing.TB, b []byte) string {
	tb.Helper()
	var r io.Reader = bytes.NewReader(b)
	if b[0] == 0x1f {
		zr, err := gzip.NewReader(r)
		if err != nil {
			tb.Fatal(err)
		}
		r = zr
	}
	tr := tar.NewReader(r)
	var names strings.Builder
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return names.String()
		}
		if err != nil {
			tb.Fatal(err)
		}
		names.WriteString(hdr.Name + "\n")
	}
}

// TestBundleRefusesForbiddenMembers: links, devices, pipes, absolute names,
// ".." components, unknown files and directories are refused, and the
// message names the member.
func TestBundleRefusesForbiddenMembers(t *testing.T) {
	e := bigExport(t)
	art := ""
	for _, f := range e.files {
		if strings.HasPrefix(f.name, bundle.ArtifactsDir) {
			art = f.name
		}
	}
	for _, tt := range []struct {
		hdr  tar.Header
		want string
	}{
		{tar.Header{Name: "events.jsonl", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"}, "symbolic link"},
		{tar.Header{Name: art, Typeflag: tar.TypeLink, Linkname: "events.jsonl"}, "hard link"},
		{tar.Header{Name: "/manifest.json", Typeflag: tar.TypeReg}, "absolute name"},
		{tar.Header{Name: "../events.jsonl", Typeflag: tar.TypeReg}, `".." component`},
		{tar.Header{Name: "artifacts/sha256/../../keys.json", Typeflag: tar.TypeReg}, `".." component`},
		{tar.Header{Name: "tty", Typeflag: tar.TypeChar, Devmajor: 5}, "device entry"},
		{tar.Header{Name: "sda", Typeflag: tar.TypeBlock, Devmajor: 8}, "device entry"},
		{tar.Header{Name: "pipe", Typeflag: tar.TypeFifo}, "named pipe"},
		{tar.Header{Name: "notes.txt", Typeflag: tar.TypeReg}, "not a file of a bundle"},
		{tar.Header{Name: "artifacts/sha256/ABC", Typeflag: tar.TypeReg}, "not a file of a bundle"},
		{tar.Header{Name: "extra/", Typeflag: tar.TypeDir}, "unknown directory"},
		{tar.Header{Name: "bad\x1b[2Jname", Typeflag: tar.TypeReg}, "not a file of a bundle"},
	} {
		t.Run(tt.hdr.Name, func(t *testing.T) {
			var buf bytes.Buffer
			tw := tar.NewWriter(&buf)
			for i, f := range e.files {
				if i == 2 {
					hdr := tt.hdr
					hdr.Mode, hdr.ModTime, hdr.Format = 0o644, time.Unix(0, 0), tar.FormatPAX
					if err := tw.WriteHeader(&hdr); err != nil {
						t.Fatal(err)
					}
				}
				if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.data)), Typeflag: tar.TypeReg}); err != nil {
					t.Fatal(err)
				}
				tw.Write(f.data)
			}
			tw.Close()
			_, err := e.verify(buf.Bytes())
			var ve *bundle.VerifyError
			if !errors.As(err, &ve) || ve.File != tt.hdr.Name || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Verify: got %v, want a *bundle.VerifyError about member %q that says %q", err, tt.hdr.Name, tt.want)
			}
			if strings.ContainsRune(err.Error(), 0x1b) {
				t.Errorf("Verify: the message %q prints the member's control characters", err)
			}
		})
	}
}

// zeroBomb returns a gzip-compressed tar of before, then a member hdr that
// holds hdr.Size zero bytes, then after. It does not compress the zeros: it
// repeats one deflate block sequence, made by a fresh compressor (so it
// refers to nothing before it), that expands to 1 MiB of zeros. A bomb of a
// few GiB costs a few MB and a fraction of a second.
func zeroBomb(tb testing.TB, before []file, hdr tar.Header, after []file) []byte {
	tb.Helper()
	const chunk = 1 << 20
	zeros := make([]byte, chunk)
	sink := &switchWriter{}
	tw := tar.NewWriter(sink)
	put := func(files []file) {
		for _, f := range files {
			if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.data)), ModTime: time.Unix(0, 0), Typeflag: tar.TypeReg}); err != nil {
				tb.Fatal(err)
			}
			tw.Write(f.data)
		}
	}
	put(before)
	hdr.Mode, hdr.ModTime, hdr.Typeflag = 0o644, time.Unix(0, 0), tar.TypeReg
	if err := tw.WriteHeader(&hdr); err != nil {
		tb.Fatal(err)
	}
	prefix := sink.take()
	sink.discard = true
	for n := hdr.Size; n > 0; n -= chunk {
		if _, err := tw.Write(zeros[:min(n, chunk)]); err != nil {
			tb.Fatal(err)
		}
	}
	sink.discard = false
	put(after)
	if err := tw.Close(); err != nil {
		tb.Fatal(err)
	}
	suffix := sink.take()

	var out bytes.Buffer
	out.Write([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff})
	crc := crc32.NewIEEE()
	deflate := func(b []byte, final bool) {
		fw, _ := flate.NewWriter(&out, flate.BestSpeed)
		fw.Write(b)
		crc.Write(b)
		if final {
			fw.Close()
		} else {
			fw.Flush()
		}
	}
	deflate(prefix, false)
	var block bytes.Buffer
	fw, _ := flate.NewWriter(&block, flate.BestSpeed)
	fw.Write(zeros)
	fw.Flush()
	for n := hdr.Size; n >= chunk; n -= chunk {
		out.Write(block.Bytes())
		crc.Write(zeros)
	}
	deflate(zeros[:hdr.Size%chunk], false)
	deflate(suffix, true)
	total := int64(len(prefix)) + hdr.Size + int64(len(suffix))
	out.Write(binary.LittleEndian.AppendUint32(nil, crc.Sum32()))
	out.Write(binary.LittleEndian.AppendUint32(nil, uint32(total)))
	return out.Bytes()
}

// switchWriter keeps what is written to it, or drops it while discard is set.
type switchWriter struct {
	buf     bytes.Buffer
	discard bool
}

func (w *switchWriter) Write(p []byte) (int, error) {
	if !w.discard {
		w.buf.Write(p)
	}
	return len(p), nil
}

func (w *switchWriter) take() []byte {
	b := bytes.Clone(w.buf.Bytes())
	w.buf.Reset()
	return b
}

// TestZeroBombIsAGzipTar: zeroBomb's output is a sound gzip stream of the
// tar it describes.
func TestZeroBombIsAGzipTar(t *testing.T) {
	a, b := file{"a", []byte("first")}, file{"b", []byte("last")}
	size := int64(3<<20 + 12345)
	bomb := zeroBomb(t, []file{a}, tar.Header{Name: "zeros", Size: size}, []file{b})
	got, err := parseFiles(bomb)
	if err != nil {
		t.Fatalf("reading the bomb: %v", err)
	}
	if len(got) != 3 || got[0].name != "a" || got[1].name != "zeros" || int64(len(got[1].data)) != size || bytes.ContainsFunc(got[1].data, func(r rune) bool { return r != 0 }) || string(got[2].data) != "last" {
		t.Fatalf("the bomb holds %d files, want a, %d zero bytes, b", len(got), size)
	}
}
