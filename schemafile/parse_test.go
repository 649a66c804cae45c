package schemafile

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// parseError returns the *Error of Parse(file, data), or fails the test.
func parseError(tb testing.TB, data string, lim Limits) *Error {
	tb.Helper()
	root, err := Parse("f.yaml", []byte(data), lim)
	if err == nil {
		tb.Fatalf("got %v, want an error", root.Value())
	}
	var e *Error
	if !errors.As(err, &e) {
		tb.Fatalf("got %v (%T), want an *Error", err, err)
	}
	if e.File != "f.yaml" || e.Reason == "" {
		tb.Fatalf("got %+v, want file f.yaml and a reason", e)
	}
	return e
}

func TestParse_Good(t *testing.T) {
	tests := []struct {
		name, data string
		want       any
	}{
		{"good_block", "a: x\nb:\n  - 1\n  - 2.5\nc: true\nd: ~\n",
			map[string]any{"a": "x", "b": []any{json.Number("1"), json.Number("2.5")}, "c": true, "d": nil}},
		{"good_flow", "{a: [x, \"y\"], b: {c: -3}}",
			map[string]any{"a": []any{"x", "y"}, "b": map[string]any{"c": json.Number("-3")}}},
		{"good_json", `{"a": {"b": [1, null, false]}}`,
			map[string]any{"a": map[string]any{"b": []any{json.Number("1"), nil, false}}}},
		{"good_literal", "a: |\n  one\n  two\n", map[string]any{"a": "one\ntwo\n"}},
		{"good_comments", "# head\na: x # tail\n# foot\n", map[string]any{"a": "x"}},
		{"good_empty_value", "a:\nb: x\n", map[string]any{"a": nil, "b": "x"}},
		{"good_scalar", "just text", "just text"},
		{"good_list", "- a\n- b\n", []any{"a", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, err := Parse("f.yaml", []byte(tt.data), Limits{})
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if got := root.Value(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestParse_Bad(t *testing.T) {
	tests := []struct {
		name, data string
		where      string // the start of the error: "file:line:column:"
		reason     string // a part of the reason
	}{
		{"bad_empty", "", "f.yaml: ", "file is empty"},
		{"bad_only_comments", "# nothing\n", "f.yaml: ", "file is empty"},
		{"bad_two_documents", "a: 1\n---\nb: 2\n", "f.yaml:3:1:", "one YAML document; this is the second"},
		{"bad_anchor", "a: &x 1\nb: 2\n", "f.yaml:1:4:", "anchors and aliases are not allowed"},
		{"bad_alias", "a: [1]\nb: *x\n", "f.yaml:2:4:", "anchors and aliases are not allowed"},
		{"bad_tag", "a: !!str 1\n", "f.yaml:1:4:", "tags are not allowed; quote the value"},
		{"bad_merge_key", "a: {x: 1}\nb:\n  <<: {x: 2}\n", "f.yaml:3:3:", "merge keys (<<) are not allowed"},
		{"bad_explicit_key", "? a\n: 1\n", "f.yaml:1:1:", "explicit keys (?) are not allowed"},
		{"bad_integer_key", "a:\n  1: x\n", "f.yaml:2:3:", "keys must be strings; quote it"},
		{"bad_duplicate_key", "a: 1\nb: 2\na: 3\n", "f.yaml:3:1:", `mapping key "a" already defined`},
		{"bad_duplicate_flow_key", "{a: 1, a: 2}", "f.yaml:1:8:", `mapping key "a" already defined`},
		{"bad_nan", "a: .nan\n", "f.yaml:1:4:", `".nan" is not a finite number`},
		{"bad_infinity", "a: [-.inf]\n", "f.yaml:1:5:", "is not a finite number"},
		{"bad_syntax", "a: \"x\nb: 1\n", "f.yaml:", "invalid YAML"},
		{"bad_indentation", "a:\n  b: 1\n c: 2\n", "f.yaml:", "invalid YAML"},
		{"bad_deep", "a: " + strings.Repeat("[", 33) + strings.Repeat("]", 33) + "\n", "f.yaml:1:36:", "brackets nest more than 32 deep"},
		{"bad_large", "a: x\n" + strings.Repeat("# padding\n", 7000), "f.yaml: ", "file is larger than 65536 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := parseError(t, tt.data, Limits{}).Error()
			if !strings.HasPrefix(msg, tt.where) {
				t.Errorf("got %q, want it to start with %q", msg, tt.where)
			}
			if !strings.Contains(msg, tt.reason) {
				t.Errorf("got %q, want it to say %q", msg, tt.reason)
			}
		})
	}
}

func TestParse_Limits(t *testing.T) {
	lim := Limits{MaxBytes: 10, MaxDepth: 2}
	if e := parseError(t, "a: 123456789\n", lim); !strings.Contains(e.Reason, "larger than 10 bytes") {
		t.Errorf("got %q, want larger than 10 bytes", e.Reason)
	}
	if e := parseError(t, "[[[1]]]", lim); e.Line != 1 || e.Column != 3 || !strings.Contains(e.Reason, "more than 2 deep") {
		t.Errorf("got %v, want 1:3 more than 2 deep", e)
	}
	if _, err := Parse("f.yaml", []byte("[[1]]"), lim); err != nil {
		t.Errorf("got %v, want two levels accepted", err)
	}
}

func TestNode(t *testing.T) {
	root, err := Parse("f.yaml", []byte("name: x\nlimit: 7\non: true\ntags:\n  - a\n  - 3\nparts:\n  p: {size: 1}\n  q: {size: 2}\n"), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !root.IsMap() || root.Pos() != (Pos{1, 1}) {
		t.Errorf("root: got map %v at %v, want a map at 1:1", root.IsMap(), root.Pos())
	}
	if got := root.Keys(); !reflect.DeepEqual(got, []string{"name", "limit", "on", "tags", "parts"}) {
		t.Errorf("keys: got %q, want them in file order", got)
	}
	if got := root.Get("name").Str(); got != "x" {
		t.Errorf("name: got %q, want x", got)
	}
	if got := root.Get("limit").Int(); got != 7 {
		t.Errorf("limit: got %d, want 7", got)
	}
	if !root.Get("on").Bool() {
		t.Error("on: got false, want true")
	}
	tags, at := root.Get("tags").Strings()
	if !reflect.DeepEqual(tags, []string{"a", ""}) || !reflect.DeepEqual(at, []Pos{{5, 5}, {6, 5}}) {
		t.Errorf("tags: got %q at %v, want [a \"\"] at [{5 5} {6 5}]", tags, at)
	}
	parts := root.Get("parts")
	if got := parts.Pos(); got != (Pos{7, 1}) {
		t.Errorf("parts: got %v, want the position of its key, {7 1}", got)
	}
	if got := parts.KeyPos("q"); got != (Pos{9, 3}) {
		t.Errorf("parts.q: got %v, want {9 3}", got)
	}
	if items := parts.Items(); len(items) != 2 || items[1].Get("size").Int() != 2 {
		t.Errorf("parts: got %d items, want p then q", len(items))
	}
	// Keys and Items hand out copies.
	root.Keys()[0] = "changed"
	parts.Items()[0] = nil
	if root.Keys()[0] != "name" || parts.Items()[0] == nil {
		t.Error("changing what Keys or Items returned changed the node")
	}
	// A missing key reads as nothing, all the way down.
	missing := root.Get("nope").Get("deeper")
	if missing != nil || missing.Str() != "" || missing.Int() != 0 || missing.Bool() || missing.IsMap() ||
		missing.Keys() != nil || missing.Items() != nil || missing.Value() != nil || missing.Pos() != (Pos{}) {
		t.Error("got something from a missing key, want the zero of each")
	}
	if got := root.KeyPos("nope"); got != root.Pos() {
		t.Errorf("KeyPos of a missing key: got %v, want the map's %v", got, root.Pos())
	}
}

func TestError(t *testing.T) {
	tests := []struct {
		e    Error
		want string
	}{
		{Error{File: "f.yaml", Line: 3, Column: 7, Reason: "bad"}, "f.yaml:3:7: bad"},
		{Error{File: "f.yaml", Line: 3, Reason: "bad"}, "f.yaml:3: bad"},
		{Error{File: "f.yaml", Reason: "bad"}, "f.yaml: bad"},
	}
	for _, tt := range tests {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}

func TestParse_EmptyIsErrEmpty(t *testing.T) {
	for _, data := range []string{"", "\n\n", "# nothing\n", "# a\n\n# b\n"} {
		if _, err := Parse("f.yaml", []byte(data), Limits{}); !errors.Is(err, ErrEmpty) {
			t.Errorf("%q: got %v, want ErrEmpty", data, err)
		}
	}
	for _, data := range []string{"a: 1\n", "~\n", "a: \"x\n"} {
		if _, err := Parse("f.yaml", []byte(data), Limits{}); errors.Is(err, ErrEmpty) {
			t.Errorf("%q: got ErrEmpty, want another answer", data)
		}
	}
}
