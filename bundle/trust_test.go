package bundle_test

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sanadhq/sanad/bundle"
	"github.com/sanadhq/sanad/bundle/bundletest"
	"golang.org/x/mod/sumdb/note"
)

// TestForgedBundleNeedsPin: a bundle re-signed by a forger with fresh agent
// keys and a fresh log key under the same log name is whole and
// self-consistent. Verified with no key pinned for its log it is refused
// (bundle.ErrUnpinned) unless that is allowed, and then the report says it
// is not pinned; pinned to the real log key, by one key or by trusted logs,
// it fails on the checkpoint with a message that says so.
func TestForgedBundleNeedsPin(t *testing.T) {
	e := export(t, t.TempDir(), 30)
	forged := bundletest.Forge(t, e.gz, func(ev map[string]any) {
		tm, err := time.Parse(time.RFC3339Nano, ev["time"].(string))
		if err != nil {
			t.Fatal(err)
		}
		ev["time"] = tm.Add(-time.Hour).UTC().Format(time.RFC3339Nano)
	})
	verify := func(opts bundle.Options) (bundle.Report, error) {
		opts.Types = e.types
		return bundle.Verify(bytes.NewReader(forged), opts)
	}
	rep, err := verify(bundle.Options{})
	var ve *bundle.VerifyError
	if !errors.Is(err, bundle.ErrUnpinned) || !errors.As(err, &ve) {
		t.Fatalf("Verify of the forgery with no key pinned: got %v, want a *bundle.VerifyError matching bundle.ErrUnpinned", err)
	}
	if rep.LogPinned || rep.Events != e.events || rep.LogKey == e.logKey {
		t.Errorf("Verify of the forgery with no key pinned: got report %+v, want %d events, not pinned, the forger's log key", rep, e.events)
	}
	if rep, err := verify(bundle.Options{AllowUnpinned: true}); err != nil || rep.LogPinned {
		t.Errorf("Verify of the forgery, unpinned allowed: got %+v, %v; want it accepted as not pinned (the forgery is sound)", rep, err)
	}
	for name, keys := range map[string]func(string) []string{
		"pinned key":   bundle.PinLogKey(e.logKey),
		"trusted logs": bundle.TrustedLogs{e.logKey}.For,
	} {
		_, err := verify(bundle.Options{LogKeys: keys, AllowUnpinned: true})
		if !errors.As(err, &ve) || ve.File != bundle.CheckpointFile || !strings.Contains(err.Error(), "not signed by the pinned key") || errors.Is(err, bundle.ErrUnpinned) {
			t.Errorf("Verify of the forgery with the real log key (%s): got %v, want a *bundle.VerifyError: the checkpoint is not signed by the pinned key", name, err)
		}
	}
}

// TestParseTrustedLogs: a trusted-logs file holds one key per line, with #
// comments; anything else is refused with its line number.
func TestParseTrustedLogs(t *testing.T) {
	a, b := otherLogKey(t, "sanad.log/a"), otherLogKey(t, "sanad.log/b")
	a2 := otherLogKey(t, "sanad.log/a")
	got, err := bundle.ParseTrustedLogs([]byte("# trusted\n\n" + a + "\n  " + b + "  # the b log\n\t" + a2 + "\n# end"))
	if err != nil {
		t.Fatalf("ParseTrustedLogs: got error %v, want nil", err)
	}
	if len(got) != 3 || !got.Contains(b) || got.Contains("x") {
		t.Fatalf("ParseTrustedLogs: got %q, want [%s %s %s]", got, a, b, a2)
	}
	if k := got.For("sanad.log/a"); len(k) != 2 || k[0] != a || k[1] != a2 {
		t.Errorf("For(sanad.log/a): got %q, want [%s %s]", k, a, a2)
	}
	if k := got.For("sanad.log/c"); k != nil {
		t.Errorf("For(sanad.log/c): got %q, want none", k)
	}
	for _, bad := range []string{"nonsense\n", a + " trailing\n", "# ok\n" + a + "x\n", "sanad.log/a+00000000+AAAA\n"} {
		if _, err := bundle.ParseTrustedLogs([]byte(bad)); err == nil || !strings.HasPrefix(err.Error(), "line ") {
			t.Errorf("ParseTrustedLogs(%q): got %v, want an error naming the line", bad, err)
		}
	}
}

// FuzzParseTrustedLogs: ParseTrustedLogs never panics, every key it returns
// is a note verifier key, and the keys written one per line parse back to
// the same keys.
func FuzzParseTrustedLogs(f *testing.F) {
	a := "sanad.log/00000000000000ff+269e9aee+AUmOm8tvd6R77KZ3NIOFPctpPlKfBRhUYHkrP5C4GFPm"
	f.Add([]byte("# trusted logs\n" + a + "\n"))
	f.Add([]byte(a + " # comment\n\n#\n"))
	f.Add([]byte("not a key\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := bundle.ParseTrustedLogs(data)
		if err != nil {
			return
		}
		for _, k := range got {
			if _, err := note.NewVerifier(k); err != nil {
				t.Fatalf("ParseTrustedLogs returned %q, not a verifier key: %v", k, err)
			}
		}
		again, err := bundle.ParseTrustedLogs([]byte(strings.Join(got, "\n")))
		if err != nil || !slices.Equal(again, got) {
			t.Fatalf("keys %q written back parse to %q, %v", got, again, err)
		}
	})
}
