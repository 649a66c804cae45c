package canon_test

import (
	"errors"

	"bytes"
	"encoding/json"
	"github.com/gowebpki/jcs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/internal/sharedtest"
)

func TestJCSVectors(t *testing.T) {
	dir := sharedtest.Dir(t, "jcs", "cyberphone-json-canonicalization", "testdata")
	inputs, err := filepath.Glob(filepath.Join(dir, "input", "*.json"))
	if err != nil || len(inputs) != 6 {
		t.Fatalf("got %d input vectors (err %v), want 6", len(inputs), err)
	}
	for _, in := range inputs {
		name := filepath.Base(in)
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join(dir, "output", name))
			if err != nil {
				t.Fatal(err)
			}
			got, err := canon.Transform(raw)
			if err != nil {
				t.Fatalf("Transform: %v", err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("got %q, want %q", got, want)
			}
			if err := canon.Check(want); err != nil {
				t.Fatalf("Check(output) = %v, want nil", err)
			}
		})
	}
}

func TestJCSNumbers10k(t *testing.T) {
	path := filepath.Join(sharedtest.Dir(t, "jcs"), "es6_numbers_10k.csv")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) != 10000 {
		t.Fatalf("got %d lines, want 10000", len(lines))
	}
	for i, line := range lines {
		hexBits, want, ok := strings.Cut(line, ",")
		if !ok {
			t.Fatalf("line %d: no comma in %q", i+1, line)
		}
		bits, err := strconv.ParseUint(hexBits, 16, 64)
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		f := math.Float64frombits(bits)
		got, err := canon.Marshal(f)
		if err != nil {
			t.Fatalf("line %d: Marshal(%v): %v", i+1, f, err)
		}
		if string(got) != want {
			t.Fatalf("line %d (%s): got %s, want %s", i+1, hexBits, got, want)
		}
	}
}

// TestAppendStringMatchesReference compares AppendString with the reference
// JCS implementation (github.com/gowebpki/jcs) on the string encoding/json
// writes, which makes invalid UTF-8 U+FFFD. Strings are drawn from any
// bytes, any runes, and mostly-ASCII text with every byte that needs an
// escape or a look, at every offset of the word-at-a-time scan.
func TestAppendStringMatchesReference(t *testing.T) {
	special := []byte{'"', '\\', 0, 0x1f, '\n', 0x7f, 0x80, 0xc3, 0xa9, 0xe2, 0x80, 0xa8, 0xff}
	rapid.Check(t, func(t *rapid.T) {
		var s string
		switch rapid.IntRange(0, 2).Draw(t, "kind") {
		case 0:
			s = string(rapid.SliceOf(rapid.Byte()).Draw(t, "bytes"))
		case 1:
			s = rapid.String().Draw(t, "runes")
		default:
			b := []byte(rapid.StringMatching(`[ -~]{0,40}`).Draw(t, "ascii"))
			for range rapid.IntRange(0, 3).Draw(t, "specials") {
				i := rapid.IntRange(0, len(b)).Draw(t, "at")
				c := rapid.SampledFrom(special).Draw(t, "byte")
				b = append(b[:i], append([]byte{c}, b[i:]...)...)
			}
			s = string(b)
		}
		checkAppendString(t, s)
	})
}

// FuzzAppendStringMatchesReference is TestAppendStringMatchesReference
// driven by the fuzzer.
func FuzzAppendStringMatchesReference(f *testing.F) {
	for _, s := range []string{"", "plain-ascii-id-0123", "q\"uote", "back\\slash", "ctl\x01\x1f\x7f", "é\u2028\xff\xfe", "01234567\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkAppendString(t, s) })
}

// checkAppendString fails t unless AppendString(nil, s) is the reference
// encoding of s.
func checkAppendString(t interface{ Fatalf(string, ...any) }, s string) {
	js, err := json.Marshal(s)
	if err != nil {
		t.Fatalf("json.Marshal(%q): %v", s, err)
	}
	want, err := jcs.Transform(js)
	if err != nil {
		t.Fatalf("jcs.Transform(%s): %v", js, err)
	}
	if got := canon.AppendString(nil, s); !bytes.Equal(got, want) {
		t.Fatalf("AppendString(%q) = %q, reference %q", s, got, want)
	}
}

func TestRequestHashIgnoresVolatileFields(t *testing.T) {
	a := map[string]any{"agent_name": "INTAKE_AGENT", "run_id": "r1", "parameters": map[string]any{"b": 1, "a": []any{"x", map[string]any{"timestamp": "t1", "k": "v"}}}}
	b := map[string]any{"parameters": map[string]any{"a": []any{"x", map[string]any{"k": "v", "timestamp": "t2"}}, "b": 1.0}, "agent_name": "INTAKE_AGENT", "run_id": "r2", "started_at": "now"}
	ha, err := canon.RequestHash(a)
	if err != nil {
		t.Fatal(err)
	}
	hb, err := canon.RequestHash(b)
	if err != nil {
		t.Fatal(err)
	}
	if ha != hb {
		t.Fatalf("got %s and %s, want equal hashes", ha, hb)
	}
	b["parameters"].(map[string]any)["b"] = 2
	hc, _ := canon.RequestHash(b)
	if hc == ha {
		t.Fatalf("got equal hashes %s for different parameters, want different", hc)
	}
}

func TestDigestText(t *testing.T) {
	d := canon.Sum([]byte("abc"))
	s := d.String()
	if s != "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Fatalf("got %s", s)
	}
	p, err := canon.ParseDigest(s)
	if err != nil || p != d {
		t.Fatalf("got %v %v, want %v", p, err, d)
	}
	for _, bad := range []string{"", "sha256:", "sha256:" + strings.Repeat("A", 64), "md5:" + d.Hex(), s + "0", "sha256:" + strings.Repeat("g", 64)} {
		if _, err := canon.ParseDigest(bad); err == nil {
			t.Errorf("ParseDigest(%q) = nil error, want error", bad)
		}
	}
	j, _ := json.Marshal(struct{ H canon.Digest }{d})
	if string(j) != `{"H":"`+s+`"}` {
		t.Fatalf("got %s", j)
	}
}

func FuzzTransform(f *testing.F) {
	addJCSInputs(f)
	f.Add([]byte(`{"a":1e400}`))
	f.Add([]byte(`[1,2`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		out, err := canon.Transform(raw)
		if err != nil {
			return
		}
		// Canonical form is a fixed point.
		again, err := canon.Transform(out)
		if err != nil {
			t.Fatalf("canonical output does not parse: %v\n%q", err, out)
		}
		if !bytes.Equal(again, out) {
			t.Fatalf("not idempotent:\n%q\n%q", out, again)
		}
	})
}

// FuzzTransformMatchesReference compares Transform with the reference
// implementation github.com/gowebpki/jcs: both accept and agree, or both
// refuse. Transform is stricter in one way only: duplicate member names.
func FuzzTransformMatchesReference(f *testing.F) {
	addJCSInputs(f)
	for _, s := range []string{`{"a":1,"a":2}`, `"\ud800"`, `1e400`, `-0`, `[1.5e-7, 1e21, 123456789012345678]`, `{"\u20ac":1,"\ud83d\ude00":2,"\uffff":3}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, err := canon.Transform(raw)
		want, refErr := jcs.Transform(raw)
		var se *canon.SyntaxError
		if err != nil && refErr == nil && errors.As(err, &se) && strings.Contains(se.Reason, "duplicate") {
			return
		}
		if (err == nil) != (refErr == nil) {
			t.Fatalf("Transform(%q): err %v, reference err %v", raw, err, refErr)
		}
		if err == nil && !bytes.Equal(got, want) {
			t.Fatalf("Transform(%q) = %q, reference %q", raw, got, want)
		}
	})
}

// FuzzAppendTransformMatchesTree: the one-pass transcoder accepts what
// Parse accepts and writes what AppendCanonical writes for Parse's tree,
// after whatever dst already holds.
func FuzzAppendTransformMatchesTree(f *testing.F) {
	addJCSInputs(f)
	for _, s := range []string{
		`{"b":{"z":1,"y":[{"d":1,"c":2}]},"a":"\u00e9\n"}`, `{"a":1,"b":{"a":1,"a":2}}`, `{"\u0061":1,"a":2}`,
		`{"\ud83d\ude00":1,"\uffff":2,"\u20ac":3}`, `[{"b":1,"a":2},{"d":3,"c":4}]`, ` { "x" : [ 1.50 , -0 , 1E3 ] } `,
		`{"a":{"b":{"c":{}}},"":0}`, `"<>&\u2028"`, `{"k":"v"} x`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, err := canon.AppendTransform([]byte("prefix"), raw)
		v, perr := canon.Parse(raw)
		var want []byte
		if perr == nil {
			want, perr = canon.AppendCanonical([]byte("prefix"), v)
		}
		if (err == nil) != (perr == nil) {
			t.Fatalf("AppendTransform(%q): err %v, tree err %v", raw, err, perr)
		}
		if err == nil && !bytes.Equal(got, want) {
			t.Fatalf("AppendTransform(%q) = %q, tree gives %q", raw, got, want)
		}
	})
}

// FuzzMember: on any bytes ValueEnd and Member answer without panicking; on
// canonical JSON, ValueEnd finds the end of the document
// and Member finds each top-level member's canonical value, and nothing for
// a name the object lacks.
func FuzzMember(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":{"c":[1,"x\"y"]},"d\u00e9":"\n"}`, `[1,{"a":2}]`, `"s"`, `{}`, `{"":null,"\\":true}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		// Any bytes: an answer, no panic.
		if end := canon.ValueEnd(raw, 0, 0); end > len(raw) {
			t.Fatalf("ValueEnd(%q) = %d, past the end", raw, end)
		}
		canon.Member(raw, "a")
		b, err := canon.Transform(raw)
		if err != nil {
			return
		}
		if end := canon.ValueEnd(b, 0, 0); end != len(b) {
			t.Fatalf("ValueEnd(%q) = %d, want %d", b, end, len(b))
		}
		v, _ := canon.Parse(b)
		m, isObject := v.(map[string]any)
		for name, want := range m {
			got, ok := canon.Member(b, name)
			wantForm, _ := canon.AppendCanonical(nil, want)
			if !ok || !bytes.Equal(got, wantForm) {
				t.Fatalf("Member(%q, %q) = %q, %v; want %q", b, name, got, ok, wantForm)
			}
		}
		if _, ok := canon.Member(b, "\x00absent"); ok && isObject && m["\x00absent"] == nil {
			t.Fatalf("Member(%q) found an absent name", b)
		}
	})
}

// addJCSInputs seeds f with the JCS test vectors' input files.
func addJCSInputs(f *testing.F) {
	dir := sharedtest.Dir(f, "jcs", "cyberphone-json-canonicalization", "testdata", "input")
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// FuzzHashWithoutMatchesTree: dropping members while transcoding hashes
// what dropping them from the parsed tree does, and refuses what Parse
// refuses (a duplicate name among dropped members included).
func FuzzHashWithoutMatchesTree(f *testing.F) {
	addJCSInputs(f)
	for _, s := range []string{`{"run_id":"r1","x":{"time":1,"y":[{"started_at":"t","z":2}]}}`, `{"time":1,"time":2}`, `[{"b":1,"time":0,"a":2}]`, `{"z":{"run_id":1},"a":0}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, err := canon.RequestHash(json.RawMessage(raw))
		tree, perr := canon.Parse(raw)
		var want canon.Digest
		if perr == nil {
			var b []byte
			b, perr = canon.AppendCanonical(nil, stripTree(tree))
			want = canon.Sum(b)
		}
		if (err == nil) != (perr == nil) {
			t.Fatalf("RequestHash(%q): err %v, tree err %v", raw, err, perr)
		}
		if err == nil && got != want {
			t.Fatalf("RequestHash(%q) = %s, the tree gives %s", raw, got, want)
		}
	})
}

// stripTree removes canon.VolatileFields from every object of v.
func stripTree(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range t {
			if !slices.Contains(canon.VolatileFields, k) {
				out[k] = stripTree(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = stripTree(e)
		}
		return out
	}
	return v
}
