package bundle_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/bundle"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/ledgertest"
)

// lyingStore returns a trace's rows as they are the first time it is asked
// (when the ledger verifies the trace), then edited by lie: a store whose
// index returns other rows than the signed events say, after the trace was
// verified.
type lyingStore struct {
	ledger.Store
	target string // the trace it lies about
	calls  int
	lie    func(rows []ledger.Stored, other ledger.Stored) []ledger.Stored
	other  ledger.Stored // an event of another trace
}

func (s *lyingStore) ReadTrace(ctx context.Context, trace string, after uint64, fn func(ledger.Stored) error) error {
	if trace != s.target {
		return s.Store.ReadTrace(ctx, trace, after, fn)
	}
	s.calls++
	if s.calls == 1 {
		return s.Store.ReadTrace(ctx, trace, after, fn)
	}
	var rows []ledger.Stored
	if err := s.Store.ReadTrace(ctx, trace, after, func(st ledger.Stored) error {
		st.Raw = append([]byte(nil), st.Raw...)
		rows = append(rows, st)
		return nil
	}); err != nil {
		return err
	}
	for _, st := range s.lie(rows, s.other) {
		if err := fn(st); err != nil {
			return err
		}
	}
	return nil
}

// TestAssembleChecksTheStoresRows: even after the trace verified, Assemble
// refuses rows of the trace that are not its signed events in order from
// seq 1 (swapped, missing, another trace's), and events of the trace the
// store's index left out at its end.
func TestAssembleChecksTheStoresRows(t *testing.T) {
	h := ledgertest.Home(t)
	trace := ledgertest.Record(t, h, 40)
	other := ledgertest.Record(t, h, 10)
	var otherRow ledger.Stored
	if err := h.DB.ReadTrace(context.Background(), other, 0, func(st ledger.Stored) error {
		otherRow = ledger.Stored{Index: st.Index, Hash: st.Hash, Raw: append([]byte(nil), st.Raw...)}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		lie  func(rows []ledger.Stored, other ledger.Stored) []ledger.Stored
		want string
	}{
		{"two rows swapped", func(r []ledger.Stored, _ ledger.Stored) []ledger.Stored { r[4], r[5] = r[5], r[4]; return r }, "does not match the signed events"},
		{"a row missing", func(r []ledger.Stored, _ ledger.Stored) []ledger.Stored { return append(r[:10], r[11:]...) }, "does not match the signed events"},
		{"another trace's row", func(r []ledger.Stored, o ledger.Stored) []ledger.Stored { return append(r[:10], o) }, "does not match the signed events"},
		{"a row repeated", func(r []ledger.Stored, _ ledger.Stored) []ledger.Stored { return append(r, r[len(r)-1]) }, "does not match the signed events"},
		{"the last rows left out", func(r []ledger.Stored, _ ledger.Stored) []ledger.Stored { return r[:len(r)-3] }, "the index hides events"},
		{"the rows as they are", func(r []ledger.Stored, _ ledger.Stored) []ledger.Stored { return r }, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l, err := ledger.Open(ledger.Config{Store: &lyingStore{Store: h.DB, target: trace, lie: tt.lie, other: otherRow}, Keys: h.Keys, Types: h.Types, Origin: h.Ledger.Origin()})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close(context.Background())
			_, err = bundle.Assemble(context.Background(), l, h.Artifacts, trace)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Assemble: got error %v, want nil", err)
				}
				return
			}
			if sanad.ErrorCode(err) != sanad.CodeIntegrity || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Assemble: got %v, want an INTEGRITY error that says %q", err, tt.want)
			}
		})
	}
}
