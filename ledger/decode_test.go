package ledger_test

import (
	"bytes"
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/ledgertest"
)

// realEvents records a short trace and returns its events' canonical bytes.
func realEvents(tb testing.TB, n int) [][]byte {
	tb.Helper()
	h := ledgertest.Home(tb)
	trace := ledgertest.Record(tb, h, n)
	events, err := h.Ledger.Events(context.Background(), trace)
	if err != nil {
		tb.Fatalf("Events: %v", err)
	}
	return canonicals(events)
}

// withRefs returns the first event that carries artifact refs and a role.
func withRefs(tb testing.TB, events [][]byte) []byte {
	tb.Helper()
	for _, e := range events {
		if bytes.Contains(e, []byte(`"refs":[`)) && bytes.Contains(e, []byte(`"role":`)) {
			return e
		}
	}
	tb.Fatal("no recorded event has refs and a role")
	return nil
}

// mutations are edits of a canonical event that must make Decode fail: each
// breaks the canonical form, the envelope's rules or JSON itself.
var mutations = []struct {
	name string
	edit func(s string) string
}{
	{"bad_trailing_newline", func(s string) string { return s + "\n" }},
	{"bad_leading_space", func(s string) string { return " " + s }},
	{"bad_space_after_colon", func(s string) string { return strings.Replace(s, `"v":`, `"v": `, 1) }},
	{"bad_unknown_field", func(s string) string { return `{"extra":1,` + s[1:] }},
	{"bad_duplicate_field", func(s string) string { return `{"v":1,` + s[1:] }},
	{"bad_keys_out_of_order", func(s string) string { return `{"v":1,` + strings.Replace(s[1:], `,"v":1}`, `}`, 1) }},
	{"bad_missing_sig", func(s string) string { return regexp.MustCompile(`,"sig":"[^"]*"`).ReplaceAllString(s, "") }},
	{"bad_missing_hash", func(s string) string { return regexp.MustCompile(`,"hash":"[^"]*"`).ReplaceAllString(s, "") }},
	{"bad_empty_sig", func(s string) string { return regexp.MustCompile(`"sig":"[^"]*"`).ReplaceAllString(s, `"sig":""`) }},
	{"bad_sig_not_base64", func(s string) string { return regexp.MustCompile(`"sig":"[^"]*"`).ReplaceAllString(s, `"sig":"!!!!"`) }},
	{"bad_sig_unpadded", func(s string) string {
		return regexp.MustCompile(`"sig":"([^"=]*)=*"`).ReplaceAllString(s, `"sig":"$1"`)
	}},
	{"bad_hash_upper_case", func(s string) string {
		return regexp.MustCompile(`"hash":"sha256:([0-9a-f]+)"`).ReplaceAllStringFunc(s, strings.ToUpper)
	}},
	{"bad_hash_short", func(s string) string {
		return regexp.MustCompile(`"hash":"sha256:[0-9a-f]{2}`).ReplaceAllString(s, `"hash":"sha256:`)
	}},
	{"bad_zero_hash", func(s string) string {
		return regexp.MustCompile(`"hash":"sha256:[0-9a-f]+"`).ReplaceAllString(s, `"hash":"sha256:`+strings.Repeat("0", 64)+`"`)
	}},
	{"bad_version_2", func(s string) string { return strings.Replace(s, `"v":1}`, `"v":2}`, 1) }},
	{"bad_seq_zero", func(s string) string { return regexp.MustCompile(`"seq":\d+`).ReplaceAllString(s, `"seq":0`) }},
	{"bad_seq_float", func(s string) string { return regexp.MustCompile(`"seq":(\d+)`).ReplaceAllString(s, `"seq":$1.0`) }},
	{"bad_seq_exponent", func(s string) string { return regexp.MustCompile(`"seq":(\d+)`).ReplaceAllString(s, `"seq":1e0`) }},
	{"bad_seq_negative", func(s string) string { return regexp.MustCompile(`"seq":(\d+)`).ReplaceAllString(s, `"seq":-1`) }},
	{"bad_seq_2_53", func(s string) string {
		return regexp.MustCompile(`"seq":\d+`).ReplaceAllString(s, `"seq":9007199254740992`)
	}},
	{"bad_seq_string", func(s string) string { return regexp.MustCompile(`"seq":(\d+)`).ReplaceAllString(s, `"seq":"$1"`) }},
	{"bad_time_offset", func(s string) string { return regexp.MustCompile(`("time":"[^"]*)Z"`).ReplaceAllString(s, `$1+00:00"`) }},
	{"bad_time_not_a_time", func(s string) string {
		return regexp.MustCompile(`"time":"[^"]*"`).ReplaceAllString(s, `"time":"yesterday"`)
	}},
	{"bad_escaped_ascii", func(s string) string { return strings.Replace(s, `"trace":"r`, `"trace":"\u0072`, 1) }},
	{"bad_invalid_utf8", func(s string) string { return strings.Replace(s, `"agent":"`, "\"agent\":\"\xff", 1) }},
	{"bad_empty_trace", func(s string) string { return regexp.MustCompile(`"trace":"[^"]*"`).ReplaceAllString(s, `"trace":""`) }},
	{"bad_empty_tenant", func(s string) string {
		return strings.Replace(s, `"tenant":"acme"},"seq"`, `"tenant":""},"seq"`, 1)
	}},
	{"bad_body_array", func(s string) string {
		return regexp.MustCompile(`"body":\{.*?\},"hash"`).ReplaceAllString(s, `"body":[],"hash"`)
	}},
	{"bad_body_null", func(s string) string {
		return regexp.MustCompile(`"body":\{.*?\},"hash"`).ReplaceAllString(s, `"body":null,"hash"`)
	}},
	{"bad_ref_sha256_short", func(s string) string {
		return regexp.MustCompile(`"sha256":"[0-9a-f]{2}`).ReplaceAllString(s, `"sha256":"`)
	}},
	{"bad_ref_negative_size", func(s string) string {
		return regexp.MustCompile(`"size_bytes":\d+`).ReplaceAllString(s, `"size_bytes":-1`)
	}},
	{"bad_ref_huge_size", func(s string) string {
		return regexp.MustCompile(`"size_bytes":\d+`).ReplaceAllString(s, `"size_bytes":9007199254740993`)
	}},
	{"bad_empty_refs", func(s string) string {
		return regexp.MustCompile(`,"refs":\[.*?\]\}?,"root"`).ReplaceAllString(s, `,"refs":[],"root"`)
	}},
	{"bad_role_empty", func(s string) string { return regexp.MustCompile(`,"role":"[^"]*"`).ReplaceAllString(s, `,"role":""`) }},
	{"bad_two_events", func(s string) string { return s + s }},
	{"bad_truncated", func(s string) string { return s[:len(s)-1] }},
	{"bad_null", func(string) string { return "null" }},
	{"bad_empty", func(string) string { return "" }},
	{"bad_array", func(s string) string { return "[" + s + "]" }},
}

// TestDecode: Decode accepts exactly the canonical bytes of a sealed event —
// every recorded event round-trips byte for byte — and refuses every
// mutation with a *ledger.DecodeError.
func TestDecode(t *testing.T) {
	events := realEvents(t, 30)
	for _, raw := range events {
		ev, err := ledger.Decode(raw)
		if err != nil {
			t.Fatalf("good_recorded_event: Decode: got error %v, want nil: %s", err, raw)
		}
		if !bytes.Equal(ev.Canonical(), raw) {
			t.Fatalf("good_recorded_event: Canonical:\ngot  %s\nwant %s", ev.Canonical(), raw)
		}
	}
	raw := string(withRefs(t, events))
	for _, m := range mutations {
		t.Run(m.name, func(t *testing.T) {
			bad := m.edit(raw)
			if bad == raw {
				t.Fatalf("the mutation did not change the event")
			}
			ev, err := ledger.Decode([]byte(bad))
			var de *ledger.DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("Decode(%.120q…): got event %v, error %v; want a *ledger.DecodeError", bad, ev != nil, err)
			}
		})
	}
}

// TestDecodeRejectsNonCanonicalBody: Decode is documented to refuse a
// non-canonical encoding, and the event hash is defined over RFC 8785 JSON.
// A body in another form (whitespace, keys out of order, a key twice) must
// be refused: a JCS-based verifier would hash other bytes, and parsers
// disagree on which of two duplicate keys counts.
//
// It fails today: Decode re-encodes every field but copies the body as it
// came (json.RawMessage), so the final byte comparison cannot see a
// non-canonical body.
func TestDecodeRejectsNonCanonicalBody(t *testing.T) {
	events := realEvents(t, 10)
	var raw string
	for _, e := range events {
		if bytes.Contains(e, []byte(`"type":"authz.decision"`)) {
			raw = string(e)
			break
		}
	}
	if raw == "" {
		t.Fatal("no authz.decision event recorded")
	}
	for _, tt := range []struct{ name, from, to string }{
		{"space in body", `"body":{"`, `"body":{ "`},
		{"keys out of order", `"body":{"action":`, `"body":{"zzz":1,"action":`},
		{"duplicate key", `"body":{"action":`, `"body":{"allow":false,"action":`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bad := strings.Replace(raw, tt.from, tt.to, 1)
			if bad == raw {
				t.Fatal("the mutation did not change the event")
			}
			if _, err := ledger.Decode([]byte(bad)); err == nil {
				t.Errorf("Decode of an event with a non-canonical body (%s): got nil, want a *ledger.DecodeError", tt.name)
			}
		})
	}
}

// FuzzDecode: Decode never panics, every error is a *ledger.DecodeError, and
// whatever it accepts is exactly its own canonical form, which decodes again
// to the same bytes.
func FuzzDecode(f *testing.F) {
	events := realEvents(f, 12)
	for _, e := range events {
		f.Add(e)
	}
	raw := string(withRefs(f, events))
	for _, m := range mutations {
		f.Add([]byte(m.edit(raw)))
	}
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"v":1}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		ev, err := ledger.Decode(raw)
		if err != nil {
			var de *ledger.DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("Decode: got error %T %v, want a *ledger.DecodeError", err, err)
			}
			if ev != nil {
				t.Fatalf("Decode: got an event with error %v, want nil", err)
			}
			return
		}
		if !bytes.Equal(ev.Canonical(), raw) {
			t.Fatalf("Decode accepted bytes that are not its canonical form:\ngot  %q\nwant %q", ev.Canonical(), raw)
		}
		again, err := ledger.Decode(ev.Canonical())
		if err != nil || !bytes.Equal(again.Canonical(), raw) {
			t.Fatalf("Decode(Canonical()): got error %v, want the same event", err)
		}
		if ev.V != ledger.Version || ev.Seq == 0 || ev.Trace == "" || ev.Actor.Key == "" || len(ev.Sig) == 0 || ev.Hash.IsZero() {
			t.Fatalf("Decode accepted an event without its required fields: %+v", ev)
		}
	})
}
