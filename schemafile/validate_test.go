package schemafile

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// testSchemas are two schemas, the second referring to the first.
var testSchemas = fstest.MapFS{
	"schema/thing.schema.json": {Data: []byte(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "additionalProperties": false,
  "required": ["name", "version"],
  "properties": {
    "name": {"$ref": "#/$defs/word"},
    "version": {"type": "string", "minLength": 1, "pattern": "^[0-9.]*$"},
    "kind": {"enum": ["a", "b"]},
    "limit": {"type": "integer", "minimum": 1, "maximum": 10},
    "title": {"type": "string", "maxLength": 5},
    "tags": {"type": "array", "minItems": 1, "uniqueItems": true, "items": {"$ref": "#/$defs/word"}},
    "parts": {
      "type": "object",
      "minProperties": 1,
      "propertyNames": {"$ref": "#/$defs/word"},
      "additionalProperties": {"$ref": "#/$defs/part"}
    }
  },
  "$defs": {
    "word": {"type": "string", "pattern": "^[a-z]+$"},
    "part": {
      "type": "object",
      "additionalProperties": false,
      "required": ["size"],
      "properties": {"size": {"type": "integer"}, "colour": {"type": "string"}}
    }
  }
}`)},
	"schema/box.schema.json": {Data: []byte(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "additionalProperties": false,
  "properties": {"part": {"$ref": "thing.schema.json#/$defs/part"}}
}`)},
}

var testHints = map[string]string{"^[a-z]+$": "use lower case letters"}

// compiled compiles testSchemas or fails the test.
func compiled(tb testing.TB) map[string]*jsonschema.Schema {
	tb.Helper()
	all, err := Compile(testSchemas, "https://example.com/schema/", "thing", "box")
	if err != nil {
		tb.Fatalf("Compile: %v", err)
	}
	return all
}

func TestCompile_Bad(t *testing.T) {
	tests := []struct {
		name string
		fsys fstest.MapFS
		want string
	}{
		{"bad_missing", fstest.MapFS{}, "thing.schema.json"},
		{"bad_json", fstest.MapFS{"schema/thing.schema.json": {Data: []byte("{")}}, "schema thing"},
		{"bad_schema", fstest.MapFS{"schema/thing.schema.json": {Data: []byte(`{"type": 3}`)}}, "schema thing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile(tt.fsys, "https://example.com/schema/", "thing")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error naming %s", err, tt.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name, schema, data string
		want               string // the whole error; "" for none
	}{
		{"good_thing", "thing", "name: x\nversion: \"1.0\"\nparts: {p: {size: 1}}\n", ""},
		{"good_box", "box", "part: {size: 1, colour: red}\n", ""},
		{"unknown_key", "thing", "name: x\nversion: \"1\"\nlimt: 3\n",
			`f.yaml:3:1: unknown key "limt"; did you mean "limit"?`},
		{"unknown_key_far_from_any", "thing", "name: x\nversion: \"1\"\nsomething: 3\n",
			`f.yaml:3:1: unknown key "something"`},
		{"unknown_key_beside_the_right_one", "thing", "name: x\nversion: \"1\"\nnme: y\n",
			`f.yaml:3:1: unknown key "nme"; did you mean "name"?`},
		{"unknown_nested_key", "thing", "name: x\nversion: \"1\"\nparts:\n  p:\n    size: 1\n    color: red\n",
			`f.yaml:6:5: parts.p: unknown key "color"; did you mean "colour"?`},
		{"unknown_key_in_another_schema", "box", "part: {size: 1, colur: red}\n",
			`f.yaml:1:17: part: unknown key "colur"; did you mean "colour"?`},
		{"first_unknown_key", "thing", "name: x\nversion: \"1\"\nzz: 1\naa: 2\n",
			`f.yaml:3:1: unknown key "zz"`},
		{"missing_key", "thing", "name: x\n", `f.yaml:1:1: missing key "version": add it`},
		{"missing_keys", "thing", "kind: a\n", `f.yaml:1:1: missing keys ["name" "version"]: add them`},
		{"misspelt_missing_key", "thing", "name: x\nverson: \"1\"\n",
			`f.yaml:2:1: unknown key "verson"; did you mean "version"?`},
		{"missing_nested_key", "thing", "name: x\nversion: \"1\"\nparts:\n  p: {colour: red}\n",
			`f.yaml:4:3: parts.p: missing key "size": add it`},
		{"bad_key_name", "thing", "name: x\nversion: \"1\"\nparts:\n  p: {size: 1}\n  Q: {size: 2}\n",
			`f.yaml:5:3: parts: "Q" is not a valid name: use lower case letters`},
		{"type", "thing", "name: x\nversion: 1\n", `f.yaml:2:10: version: got number, want string (quote it: "…")`},
		{"type_of_a_map", "thing", "name: x\nversion: \"1\"\nparts: [a]\n", `f.yaml:3:1: parts: got array, want object`},
		{"enum", "thing", "name: x\nversion: \"1\"\nkind: c\n", `f.yaml:3:7: kind: got c, want one of a, b`},
		{"hinted_pattern", "thing", "name: X1\nversion: \"1\"\n", `f.yaml:1:7: name: "X1" is not valid: use lower case letters`},
		{"pattern", "thing", "name: x\nversion: v1\n", `f.yaml:2:10: version: "v1" is not valid here (it must match ^[0-9.]*$)`},
		{"unique_items", "thing", "name: x\nversion: \"1\"\ntags:\n  - a\n  - b\n  - a\n",
			`f.yaml:6:5: tags: items 0 and 2 are the same; list each once`},
		{"min_items", "thing", "name: x\nversion: \"1\"\ntags: []\n", `f.yaml:3:1: tags: got 0 items, want at least 1`},
		{"min_properties", "thing", "name: x\nversion: \"1\"\nparts: {}\n", `f.yaml:3:1: parts: got 0 entries, want at least 1`},
		{"minimum", "thing", "name: x\nversion: \"1\"\nlimit: 0\n", `f.yaml:3:8: limit: got 0, want at least 1`},
		{"maximum", "thing", "name: x\nversion: \"1\"\nlimit: 11\n", `f.yaml:3:8: limit: got 11, want at most 10`},
		{"min_length", "thing", "name: x\nversion: \"\"\n", `f.yaml:2:10: version: got 0 characters, want at least 1`},
		{"max_length", "thing", "name: x\nversion: \"1\"\ntitle: abcdef\n", `f.yaml:3:8: title: got 6 characters, want at most 5`},
		{"first_written_wins", "thing", "limit: 0\nname: X\nversion: \"1\"\nkind: c\n", `f.yaml:1:8: limit: got 0, want at least 1`},
		{"not_a_map", "thing", "- a\n", `f.yaml:1:1: got array, want object`},
	}
	all := compiled(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, err := Parse("f.yaml", []byte(tt.data), Limits{})
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			err = Validate("f.yaml", root, all[tt.schema], testHints)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("got %v, want none", err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v (%T), want an *Error", err, err)
			}
			if got := e.Error(); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestValidate_Deterministic(t *testing.T) {
	// Several violations on one line: the same one is reported every time.
	all := compiled(t)
	root, err := Parse("f.yaml", []byte(`{name: X, version: v, kind: c, limit: 0, title: abcdefg}`), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	first := Validate("f.yaml", root, all["thing"], testHints).Error()
	for range 50 {
		if got := Validate("f.yaml", root, all["thing"], testHints).Error(); got != first {
			t.Fatalf("got %q, then %q: want the same error every time", first, got)
		}
	}
}

func TestValidateValue(t *testing.T) {
	type part struct {
		Size   int    `json:"size"`
		Colour string `json:"colour,omitempty"`
	}
	type thing struct {
		Name    string          `json:"name"`
		Version string          `json:"version"`
		Limit   int             `json:"limit,omitempty"`
		Tags    []string        `json:"tags,omitempty"`
		Parts   map[string]part `json:"parts,omitempty"`
	}
	s := compiled(t)["thing"]
	tests := []struct {
		name string
		v    any
		want string // "" for none
	}{
		{"good", thing{Name: "x", Version: "1", Parts: map[string]part{"p": {Size: 1}}}, ""},
		{"hinted_pattern", thing{Name: "X", Version: "1"}, `thing x: name: "X" is not valid: use lower case letters`},
		{"nested", thing{Name: "x", Version: "1", Tags: []string{"a", "B"}}, `thing x: tags[1]: "B" is not valid: use lower case letters`},
		{"first_by_path", thing{Name: "x", Version: "", Limit: 20}, `thing x: limit: got 20, want at most 10`},
		{"not_json", map[string]any{"f": func() {}}, "thing x: json: unsupported type: func()"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateValue("thing x", tt.v, s, testHints)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("got %v, want none", err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || e.Line != 0 {
				t.Fatalf("got %v (%T), want an *Error with no line", err, err)
			}
			if got := e.Error(); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"", "abc", 3}, {"kitten", "sitting", 3},
		{"keyword", "keywords", 1}, {"colour", "color", 1}, {"ab", "ba", 2},
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q): got %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
