package tool

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sanadhq/sanad/canon"
)

// flagDefect is the input schema of seed 000's flag_defect (§4.4).
const flagDefect = `{"type":"object","additionalProperties":false,
 "required":["claim_id","defect_type","severity","description","evidence_refs","cure_protocol"],
 "properties":{"claim_id":{"type":"string","minLength":1},"defect_type":{"type":"string","minLength":1},
  "severity":{"enum":["FATAL","MAJOR","MINOR"]},"description":{"type":"string"},
  "evidence_refs":{"type":"array","items":{"type":"string"}},"cure_protocol":{"type":"string"}}}`

const flagDefectInput = `{"claim_id":"c-1","defect_type":"BROKEN_CHAIN","severity":"MAJOR",
 "description":"The revenue figure cites a management deck with no audited source behind it.",
 "evidence_refs":["ev-9","ev-12"],"cure_protocol":"REQUEST_SOURCE"}`

func testEntry(tb testing.TB, schema string) *entry {
	tb.Helper()
	e, err := compile(Spec{
		Name: "flag_defect", InputSchema: json.RawMessage(schema), OutputSchema: json.RawMessage(`{}`),
		Func: func(context.Context, Call) (json.RawMessage, error) { return nil, nil },
	})
	if err != nil {
		tb.Fatalf("compile: got error %v, want nil", err)
	}
	return e
}

// BenchmarkSchemaValidate measures what the gateway does to a call's input
// before authorizing it: parse (strict RFC 8785 parser), canonicalize, hash
// (normalized) and validate against the tool's compiled input schema.
//
//	go test ./tool -run '^$' -bench SchemaValidate
func BenchmarkSchemaValidate(b *testing.B) {
	e := testEntry(b, flagDefect)
	raw := []byte(flagDefectInput)
	b.Run("parse+hash+validate", func(b *testing.B) {
		for b.Loop() {
			if _, _, _, reason := parseInput(e, raw); reason != "" {
				b.Fatal(reason)
			}
		}
	})
	tree, err := canon.Parse(raw)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("validate", func(b *testing.B) {
		for b.Loop() {
			if err := e.input.Validate(tree); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// FuzzParseInput: whatever the bytes, parseInput neither panics nor accepts
// what is not a JSON object matching the schema; what it accepts is
// canonical, parses back to valid input, and hashes as canon does.
func FuzzParseInput(f *testing.F) {
	for _, s := range []string{
		flagDefectInput, `{}`, `[]`, `null`, `{"claim_id":1}`, `{"a":1,"a":2}`, "{\"claim_id\":\"\xff\"}",
		`{"claim_id":"c","defect_type":"d","severity":"FATAL","description":"","evidence_refs":[],"cure_protocol":"x","time":"t"}`,
		`{"claim_id":"c","defect_type":"d","severity":"MINOR","description":"\u0000","evidence_refs":["\ud83d\ude00"],"cure_protocol":"1e400"}`,
	} {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"a":[{"time":1,"b":{"run_id":"r","c":[{"created_at":0}]}}],"timestamp":"x"}`))
	e := testEntry(f, flagDefect)
	f.Fuzz(func(t *testing.T, raw []byte) {
		canonical, tree, hash, reason := parseInput(e, raw)
		if hash != "" {
			d, err := canon.RequestHash(json.RawMessage(raw))
			if err != nil || d.String() != hash {
				t.Fatalf("input %q: hash %s, want canon.RequestHash %v (%v)", raw, hash, d, err)
			}
		}
		if reason != "" {
			if canonical != nil || tree != nil {
				t.Fatalf("refused input %q (%s) but returned a value", raw, reason)
			}
			if !utf8.ValidString(reason) && utf8.Valid(raw) {
				t.Fatalf("reason is not valid UTF-8: %q", reason)
			}
			return
		}
		if err := canon.Check(canonical); err != nil {
			t.Fatalf("accepted input %q: canonical form %q: %v", raw, canonical, err)
		}
		again, _, hash2, reason := parseInput(e, canonical)
		if reason != "" || string(again) != string(canonical) || hash2 != hash {
			t.Fatalf("canonical input %q does not round-trip: %q %s %s", canonical, again, hash2, reason)
		}
		for _, k := range []string{"claim_id", "severity", "evidence_refs"} {
			if _, ok := tree[k]; !ok {
				t.Fatalf("accepted input %q without %s", raw, k)
			}
		}
	})
}

// TestClip: names and reasons taken from requests are bounded on a UTF-8
// boundary.
func TestClip(t *testing.T) {
	for _, s := range []string{"", "short", strings.Repeat("é", 200), strings.Repeat("x", 129), "\xff" + strings.Repeat("x", 200)} {
		got := clip(s, maxName)
		if len(got) > maxName {
			t.Errorf("clip(%.10q): got %d bytes, want at most %d", s, len(got), maxName)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Errorf("clip(%.10q): got invalid UTF-8 %q", s, got)
		}
		if len(s) <= maxName && got != s {
			t.Errorf("clip(%q): got %q, want it unchanged", s, got)
		}
	}
}
