package bundle_test

import (
	"bytes"
	"errors"
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
