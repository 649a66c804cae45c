package ledger_test

import (
	"context"
	"errors"
	"flag"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/ledgertest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if big.dir != "" {
		os.RemoveAll(big.dir)
	}
	for _, dir := range exCleanup {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// big is a closed home shared by the tests that need a large ledger, built
// once per test binary: trace main of at least 1,000 events, a checkpoint,
// then a short trace other, and a second checkpoint. Tests copy it before
// changing anything.
var big struct {
	once        sync.Once
	dir         string
	main, other string
	mainEvents  int
	failed      bool
}

func bigHome(tb testing.TB) (dir, main, other string, mainEvents int) {
	tb.Helper()
	big.once.Do(func() {
		big.failed = true
		dir, err := os.MkdirTemp("", "sanad-ledger-test-")
		if err != nil {
			tb.Fatalf("MkdirTemp: %v", err)
		}
		big.dir = dir
		ctx := context.Background()
		h := ledgertest.Open(tb, dir)
		big.main = ledgertest.Record(tb, h, 1000)
		if _, _, err := h.Ledger.Checkpoint(ctx); err != nil {
			tb.Fatalf("Checkpoint: got error %v, want nil", err)
		}
		big.other = ledgertest.Record(tb, h, 20)
		if _, _, err := h.Ledger.Checkpoint(ctx); err != nil {
			tb.Fatalf("Checkpoint: got error %v, want nil", err)
		}
		evs, err := h.Ledger.Events(ctx, big.main)
		if err != nil {
			tb.Fatalf("Events: got error %v, want nil", err)
		}
		big.mainEvents = len(evs)
		ledgertest.Close(tb, h)
		big.failed = false
	})
	if big.failed {
		tb.Fatal("building the shared test ledger failed in an earlier test")
	}
	return big.dir, big.main, big.other, big.mainEvents
}

// isVerifyFailure reports whether err reports damaged data: a
// *ledger.VerifyError or a *sanad.Error with code INTEGRITY.
func isVerifyFailure(err error) bool {
	return errors.Is(err, ledger.ErrVerify) || sanad.ErrorCode(err) == sanad.CodeIntegrity
}

// setRapidChecks lowers rapid's number of checks to n for one test, unless
// -rapid.checks was given on the command line.
func setRapidChecks(t *testing.T, n int) {
	t.Helper()
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "rapid.checks" })
	f := flag.Lookup("rapid.checks")
	if explicit || f == nil || os.Getenv("RAPID_CHECKS") != "" {
		return
	}
	old := f.Value.String()
	if err := f.Value.Set(strconv.Itoa(n)); err != nil {
		t.Fatalf("setting rapid.checks: %v", err)
	}
	t.Cleanup(func() { _ = f.Value.Set(old) })
}

// keyEvents counts the key registrations in the log of h: events that are
// not the test's own.
func keyEvents(tb testing.TB, h *home.Home) uint64 {
	tb.Helper()
	n := uint64(0)
	err := h.DB.ReadTrace(context.Background(), ledger.KeysTrace, 0, func(ledger.Stored) error { n++; return nil })
	if err != nil {
		tb.Fatalf("reading the keys trace: %v", err)
	}
	return n
}

// workSize is the size of the log of h but its key registrations.
func workSize(tb testing.TB, h *home.Home) uint64 {
	tb.Helper()
	size, err := h.DB.TreeSize(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	return size - keyEvents(tb, h)
}
