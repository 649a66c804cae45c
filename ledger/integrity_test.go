package ledger_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/ledgertest"
)

// recordTraces writes n traces of about size events each to a new home and
// closes it, returning its folder and the traces.
func recordTraces(t *testing.T, n, size int) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	h := ledgertest.Open(t, dir)
	var traces []string
	for range n {
		traces = append(traces, ledgertest.Record(t, h, size))
	}
	ledgertest.Close(t, h)
	return dir, traces
}

// verify opens the home in dir and verifies trace ("" for the whole log).
func verify(t *testing.T, dir, trace string) error {
	t.Helper()
	h := ledgertest.Open(t, dir)
	defer ledgertest.Close(t, h)
	_, err := h.Ledger.Verify(context.Background(), trace)
	return err
}

// Finding 1: a trace's tail hidden by changing its rows' seq column, which
// the events' signatures do not cover, is found by the whole-log and the
// per-trace verification alike.
func TestIntegrity1_HiddenTailThroughIndexColumns(t *testing.T) {
	dir, traces := recordTraces(t, 2, 30)
	ledgertest.Tamper(t, dir, func(db *sql.DB) error {
		_, err := db.Exec("UPDATE events SET seq = -seq WHERE trace = ? AND seq >= 19", traces[0])
		return err
	})
	for _, trace := range []string{"", traces[0]} {
		err := verify(t, dir, trace)
		if !errors.Is(err, ledger.ErrVerify) {
			t.Errorf("verify %q after hiding the tail: got %v, want a verification failure", trace, err)
		}
	}
	// The other trace is untouched, but a log with a hidden tail is not.
	if err := verify(t, dir, traces[1]); err != nil {
		t.Errorf("verify of the untouched trace: %v", err)
	}
}

// Finding 1: an event filed under another trace's name in the index is
// found, and so is one filed under another seq.
func TestIntegrity1_IndexColumnsAgreeWithSignedFields(t *testing.T) {
	for _, tc := range []struct {
		name string
		sql  string
	}{
		{"trace", "UPDATE events SET trace = 'elsewhere' WHERE idx = 5"},
		{"seq", "UPDATE events SET seq = seq + 1000 WHERE idx = (SELECT max(idx) FROM events)"},
		{"type", "UPDATE events SET type = 'run.completed' WHERE idx = 3"},
		{"run", "UPDATE events SET run = 'rnone' WHERE idx = 4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, traces := recordTraces(t, 2, 20)
			ledgertest.Tamper(t, dir, func(db *sql.DB) error {
				_, err := db.Exec(tc.sql)
				return err
			})
			if err := verify(t, dir, ""); !errors.Is(err, ledger.ErrVerify) {
				t.Errorf("whole-log verify: got %v, want a verification failure", err)
			}
			failed := false
			for _, tr := range traces {
				if err := verify(t, dir, tr); err != nil {
					failed = true
				}
			}
			if !failed {
				t.Error("every per-trace verification passed")
			}
		})
	}
}
