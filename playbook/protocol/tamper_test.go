package protocol_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/base64"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sanadhq/sanad/ledgertest"
	"github.com/sanadhq/sanad/playbook/protocol"
)

// stopBeforeAudit runs vendor-check in a child process killed as it enters
// auditing, and returns the home folder and the session id.
func stopBeforeAudit(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	task, err := filepath.Abs(filepath.Join("..", "..", "examples", "sessions", "vendor-check.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if _, killed := runChild(t, "-home", dir, "-task", task, "-crash-at", protocol.PointEnterAuditing+":1"); !killed {
		t.Fatal("the session did not stop before its audit")
	}
	h := openHomeAt(t, dir)
	id := onlyTrace(t, h)
	ledgertest.Close(t, h)
	return dir, id
}

// row is an event as the store keeps it.
type row struct {
	idx  int64
	data []byte
}

// rowsOf returns the rows of trace's events of type typ, in order.
func rowsOf(db *sql.DB, trace, typ string) ([]row, error) {
	rs, err := db.Query("SELECT idx, data FROM events WHERE trace = ? AND type = ? ORDER BY seq", trace, typ)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out []row
	for rs.Next() {
		var r row
		if err := rs.Scan(&r.idx, &r.data); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rs.Err()
}

// flipSignature flips one bit of the signature of the event in r, leaving
// it well formed: only signature verification can tell.
func flipSignature(db *sql.DB, r row) error {
	const key = `"sig":"`
	i := bytes.Index(r.data, []byte(key)) + len(key)
	j := i + bytes.IndexByte(r.data[i:], '"')
	sig, err := base64.StdEncoding.DecodeString(string(r.data[i:j]))
	if err != nil {
		return err
	}
	sig[7] ^= 0x10
	data := append(append(append([]byte{}, r.data[:i]...), base64.StdEncoding.EncodeToString(sig)...), r.data[j:]...)
	_, err = db.Exec("UPDATE events SET data = ? WHERE idx = ?", data, r.idx)
	return err
}

// TestP11_InvalidSignatureFailsSession: a flipped signature byte in a
// stopped session's trace is found when it resumes: the auditor records a
// failed integrity verification and the session fails, progressing no
// further.
func TestP11_InvalidSignatureFailsSession(t *testing.T) {
	dir, id := stopBeforeAudit(t)
	ledgertest.Tamper(t, dir, func(db *sql.DB) error {
		claims, err := rowsOf(db, id, protocol.TypeClaimIssued)
		if err != nil {
			return err
		}
		return flipSignature(db, claims[0])
	})
	h := openHomeAt(t, dir)
	res, err := newEngine(t, h).Resume(context.Background(), id)
	if err != nil {
		t.Fatalf("Resume: %v", err)
	}
	wantState(t, res, protocol.StateFailed, protocol.VerificationFail)
	if !res.Verification.Recorded || !strings.Contains(strings.Join(res.Verification.Errors, " "), "signature") {
		t.Errorf("verification: %+v, want a recorded failure naming the signature", res.Verification)
	}
	evs := events(t, h, id)
	started := ofType(evs, protocol.TypeVerificationRunStarted)
	if len(started) != 1 || started[0].BodyString("reason") != protocol.ReasonIntegrity {
		t.Errorf("want one integrity verification")
	}
	if len(ofType(evs, protocol.TypeFinalStatementSigned)) != 0 {
		t.Error("a final statement was signed over a trace with a bad signature")
	}
	if got := transitions(evs); got[len(got)-2] != protocol.StateAuditing || got[len(got)-1] != protocol.StateFailed {
		t.Errorf("states: %v, want auditing then failed", got)
	}
}

// TestP14_TamperedTraceFailsSession: a flipped signature, reordered events
// or a deleted event in a stopped session's trace make the auditor fail the
// session. A trace whose chain is broken can take no more events: the
// failure is in the stored report only.
func TestP14_TamperedTraceFailsSession(t *testing.T) {
	tests := []struct {
		name     string
		tamper   func(db *sql.DB, id string) error
		recorded bool
	}{
		{"flipped signature byte", func(db *sql.DB, id string) error {
			rs, err := rowsOf(db, id, protocol.TypeProposalReviewed)
			if err != nil {
				return err
			}
			return flipSignature(db, rs[1])
		}, true},
		{"reordered events", func(db *sql.DB, id string) error {
			rs, err := rowsOf(db, id, protocol.TypeClaimIssued)
			if err != nil {
				return err
			}
			if _, err := db.Exec("UPDATE events SET data = ? WHERE idx = ?", rs[1].data, rs[0].idx); err != nil {
				return err
			}
			_, err = db.Exec("UPDATE events SET data = ? WHERE idx = ?", rs[0].data, rs[1].idx)
			return err
		}, false},
		{"deleted event", func(db *sql.DB, id string) error {
			rs, err := rowsOf(db, id, protocol.TypeToolIntentSigned)
			if err != nil {
				return err
			}
			_, err = db.Exec("DELETE FROM events WHERE idx = ?", rs[1].idx)
			return err
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, id := stopBeforeAudit(t)
			ledgertest.Tamper(t, dir, func(db *sql.DB) error { return tt.tamper(db, id) })
			h := openHomeAt(t, dir)
			res, err := newEngine(t, h).Resume(context.Background(), id)
			if err != nil {
				t.Fatalf("Resume: %v", err)
			}
			wantState(t, res, protocol.StateFailed, protocol.VerificationFail)
			if res.Verification.Recorded != tt.recorded {
				t.Errorf("recorded: got %v, want %v", res.Verification.Recorded, tt.recorded)
			}
			r := report(t, h, res)
			if r.Status != protocol.VerificationFail || r.Trace != id || len(r.Checks) == 0 || r.Checks[0].Name != "integrity" || r.Checks[0].OK {
				t.Errorf("report: %+v, want a failed integrity check of trace %s", r, id)
			}
		})
	}
}

// TestP14_AuditAfterTampering: a completed session audited again after its
// trace was tampered with fails the audit.
func TestP14_AuditAfterTampering(t *testing.T) {
	ctx := context.Background()
	h := openHome(t)
	res := start(t, newEngine(t, h), exampleTask(t, "vendor-check"))
	r, err := newEngine(t, h).Audit(ctx, res.Session)
	if err != nil || r.Status != protocol.VerificationPass {
		t.Fatalf("Audit of the untouched session: %+v, %v; want pass", r, err)
	}
	dir := h.Dir
	ledgertest.Close(t, h)
	ledgertest.Tamper(t, dir, func(db *sql.DB) error {
		rs, err := rowsOf(db, res.Trace, protocol.TypeFinalStatementSigned)
		if err != nil {
			return err
		}
		return flipSignature(db, rs[0])
	})
	h = openHomeAt(t, dir)
	r, err = newEngine(t, h).Audit(ctx, res.Session)
	if err != nil || r.Status != protocol.VerificationFail {
		t.Fatalf("Audit after tampering: %+v, %v; want fail", r, err)
	}
}
