package bundle_test

import (
	"archive/tar"
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/sanadhq/sanad/bundle"
)

// FuzzBundleVerify: Verify never panics on any bytes, every failure is a
// *bundle.VerifyError, and whatever it accepts is a bundle with events.
// Seeds are real bundles the exporter wrote (gzipped and as a plain tar),
// cut short and edited.
func FuzzBundleVerify(f *testing.F) {
	e := export(f, f.TempDir(), 12)
	plain := writeTar(f, e.files)
	f.Add(e.gz, true)
	f.Add(e.gz, false)
	f.Add(plain, false)
	f.Add(e.gz[:len(e.gz)/2], false)
	f.Add(plain[:len(plain)/2], false)
	small := clone(e.files)
	set(small, bundle.EventsFile, lines(get(small, bundle.EventsFile))[0])
	f.Add(writeTar(f, small), false)
	fixManifest(f, small)
	f.Add(writeTar(f, small), false)
	f.Add(writeTar(f, []file{{bundle.ManifestFile, get(e.files, bundle.ManifestFile)}}), false)
	f.Add([]byte{}, false)
	f.Add([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}, false)
	// Data after the archive or the gzip stream; a small bomb; a v1 bundle.
	f.Add(append(append([]byte(nil), plain...), plain...), false)
	f.Add(append(append([]byte(nil), e.gz...), e.gz...), true)
	f.Add(zeroBomb(f, e.files[:2], tar.Header{Name: bundle.EventsFile, Size: 1 << 20}, e.files[3:]), false)
	if v1, err := os.ReadFile("testdata/good_v1.tar.gz"); err == nil {
		f.Add(v1, false)
	}
	f.Fuzz(func(t *testing.T, b []byte, pin bool) {
		opts := bundle.Options{Types: e.types, AllowUnpinned: true}
		if pin {
			opts.LogKeys = bundle.PinLogKey(e.logKey)
		}
		rep, err := bundle.Verify(bytes.NewReader(b), opts)
		if err != nil {
			var ve *bundle.VerifyError
			if !errors.As(err, &ve) {
				t.Fatalf("Verify: got error %T %v, want a *bundle.VerifyError", err, err)
			}
			return
		}
		if rep.Events == 0 || rep.Trace == "" || rep.TreeSize < uint64(rep.Events) || rep.LogPinned != pin {
			t.Fatalf("Verify accepted a bundle with report %+v", rep)
		}
	})
}

// FuzzBundleRepack drives the streaming reader with the ways a bundle may be
// packed again — its files in any order, "./" names, directory entries,
// zero padding, gzip or not — and with one damage — a file dropped or
// repeated, data after the archive, an unknown file, a link, a cut file. A
// repacked bundle must verify; a damaged one must fail with a
// *bundle.VerifyError.
func FuzzBundleRepack(f *testing.F) {
	e := export(f, f.TempDir(), 12)
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0x01})
	f.Add([]byte{7, 3, 5, 1, 0, 2, 6, 4, 0x55, 0xaa, 0x02, 3})
	for damage := byte(0); damage < 9; damage++ {
		f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, damage, 4})
	}
	f.Fuzz(func(t *testing.T, ops []byte) {
		next := func() byte {
			if len(ops) == 0 {
				return 0
			}
			b := ops[0]
			ops = ops[1:]
			return b
		}
		files := clone(e.files)
		for i := len(files) - 1; i > 0; i-- {
			j := int(next()) % (i + 1)
			files[i], files[j] = files[j], files[i]
		}
		dotNames, dirs, gz := next(), next(), next()&1 == 1
		damage, at := next()%9, int(next())
		sound := true
		type entry struct {
			hdr  tar.Header
			data []byte
		}
		var entries []entry
		if dirs&1 == 1 {
			entries = append(entries, entry{hdr: tar.Header{Name: "./", Typeflag: tar.TypeDir, Mode: 0o755}})
		}
		if dirs&2 == 2 {
			entries = append(entries, entry{hdr: tar.Header{Name: "artifacts/", Typeflag: tar.TypeDir, Mode: 0o755}}, entry{hdr: tar.Header{Name: "artifacts/sha256/", Typeflag: tar.TypeDir, Mode: 0o755}})
		}
		for i, f := range files {
			name := f.name
			if dotNames>>(i%8)&1 == 1 {
				name = "./" + name
			}
			entries = append(entries, entry{tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(f.data))}, f.data})
		}
		i := at % len(entries)
		var trailer []byte
		switch damage {
		case 1: // a file dropped
			if entries[i].hdr.Typeflag == tar.TypeReg {
				entries, sound = append(entries[:i], entries[i+1:]...), false
			}
		case 2: // a file repeated
			entries, sound = append(entries, entries[i]), entries[i].hdr.Typeflag != tar.TypeReg
		case 3: // data after the archive
			trailer, sound = []byte{0, 0, byte(at) | 1}, false
		case 4: // zero padding, as tar writes
			trailer = make([]byte, 512*(at%30))
		case 5: // an unknown file
			entries, sound = append(entries, entry{tar.Header{Name: "notes.txt", Typeflag: tar.TypeReg, Mode: 0o644, Size: 1}, []byte("x")}), false
		case 6: // a link in place of a file
			if entries[i].hdr.Typeflag == tar.TypeReg {
				entries[i] = entry{hdr: tar.Header{Name: entries[i].hdr.Name, Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"}}
				sound = false
			}
		case 7: // a file cut short, its header in step
			if entries[i].hdr.Typeflag == tar.TypeReg && len(entries[i].data) > 0 {
				entries[i].data = entries[i].data[:len(entries[i].data)-1]
				entries[i].hdr.Size--
				sound = false
			}
		case 8: // a directory that is not one of a bundle's
			entries, sound = append(entries, entry{hdr: tar.Header{Name: "x/", Typeflag: tar.TypeDir, Mode: 0o755}}), false
		}
		var buf bytes.Buffer
		tw := tar.NewWriter(&buf)
		for _, en := range entries {
			if err := tw.WriteHeader(&en.hdr); err != nil {
				t.Fatal(err)
			}
			tw.Write(en.data)
		}
		tw.Close()
		b := append(buf.Bytes(), trailer...)
		if gz {
			b = gzipped(t, b)
		}
		_, err := e.verify(b)
		if sound && err != nil {
			t.Fatalf("Verify of a repacked bundle: got error %v, want nil", err)
		}
		if !sound {
			var ve *bundle.VerifyError
			if !errors.As(err, &ve) {
				t.Fatalf("Verify of a damaged bundle (damage %d at %d): got %v, want a *bundle.VerifyError", damage, i, err)
			}
		}
	})
}
