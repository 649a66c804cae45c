package agent

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/sanadhq/sanad"
)

// The JSON Schemas of profiles and abilities. Each rejects unknown keys, so a
// misspelt field is an error at load time instead of a setting silently
// ignored.
//
//go:embed schema/*.schema.json
var schemaFiles embed.FS

const schemaURL = "https://sanad.dev/schema/agent/"

// The schemas, by name: the file of name n is schema/n.schema.json.
const (
	schemaProfile = "profile"
	schemaAbility = "ability"
)

// schemas compiles the embedded schemas once, on first use.
var schemas = sync.OnceValues(func() (map[string]*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	out := make(map[string]*jsonschema.Schema, 2)
	for _, name := range []string{schemaProfile, schemaAbility} {
		data, err := schemaFiles.ReadFile("schema/" + name + ".schema.json")
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("schema %s: %w", name, err)
		}
		url := schemaURL + name + ".schema.json"
		if err := c.AddResource(url, doc); err != nil {
			return nil, fmt.Errorf("schema %s: %w", name, err)
		}
		if out[name], err = c.Compile(url); err != nil {
			return nil, fmt.Errorf("schema %s: %w", name, err)
		}
	}
	return out, nil
})

// patternHints say, for each pattern of the schemas, what a value must look
// like, in words an author can act on.
var patternHints = map[string]string{
	`^[a-z0-9]+(-[a-z0-9]+)*$`:       "use lower case letters and digits in words joined by single hyphens, such as legal-reviewer",
	`^[A-Za-z][A-Za-z0-9_.-]{0,63}$`: "use letters, digits, '_', '.' or '-', starting with a letter",
	`^[a-z][a-z0-9_.-]{0,63}$`:       "a tool name is lower case letters, digits, '_', '.' or '-', starting with a letter",
	`^[a-z][a-z0-9-]{0,31}$`:         "use lower case letters, digits and '-', such as reasoning, fast or none",
	`[\p{L}\p{N}]`:                   "it must contain a letter or a digit",
	`^[^\r\n]*[\p{L}\p{N}][^\r\n]*$`: "write it on one line, with at least a letter or a digit",
}

// validate checks root, read from file, against the named schema. Of all
// violations it reports the one written first in the file.
func validate(name, file string, root *node) error {
	all, err := schemas()
	if err != nil {
		// The schemas are part of the binary: failing to compile them is a bug.
		return sanad.Wrap(err, sanad.CodeInternal, opValidate, "agent schemas do not compile")
	}
	s := all[name]
	verr := s.Validate(root.value())
	if verr == nil {
		return nil
	}
	ve, ok := verr.(*jsonschema.ValidationError)
	if !ok {
		return &LoadError{File: file, Reason: verr.Error()}
	}
	var first *LoadError
	var firstPath string
	for _, leaf := range leaves(ve, nil) {
		le, path := describe(file, root, s, leaf)
		if first == nil || le.pos().before(first.pos()) || le.pos() == first.pos() && path < firstPath {
			first, firstPath = le, path
		}
	}
	if first == nil {
		return &LoadError{File: file, Reason: ve.Error()}
	}
	return first
}

func (e *LoadError) pos() pos { return pos{e.Line, e.Column} }

// leaves collects the innermost causes of e: the violations an author fixes.
func leaves(e *jsonschema.ValidationError, out []*jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return append(out, e)
	}
	for _, c := range e.Causes {
		out = leaves(c, out)
	}
	return out
}

// describe turns one violation into a *LoadError at the line it is written
// on, and returns the path of the value at fault.
func describe(file string, root *node, s *jsonschema.Schema, e *jsonschema.ValidationError) (*LoadError, string) {
	at, path := root.locate(e.InstanceLocation)
	where := func(format string, args ...any) string {
		msg := fmt.Sprintf(format, args...)
		if path == "" {
			return msg
		}
		return path + ": " + msg
	}
	p := at.pos
	var msg string
	switch k := e.ErrorKind.(type) {
	case *kind.AdditionalProperties:
		props := append([]string(nil), k.Properties...)
		sort.Slice(props, func(i, j int) bool { return at.keyPos(props[i]).before(at.keyPos(props[j])) })
		p = at.keyPos(props[0])
		msg = where("unknown key %q", props[0])
		if path == "" {
			if near := nearest(props[0], s.Properties); near != "" {
				msg += fmt.Sprintf("; did you mean %q?", near)
			}
		}
	case *kind.Required:
		if len(k.Missing) == 1 {
			msg = where("missing key %q: add it", k.Missing[0])
		} else {
			msg = where("missing keys %q: add them", k.Missing)
		}
	case *kind.Type:
		msg = where("got %s, want %s", k.Got, strings.Join(k.Want, " or "))
		if len(k.Want) == 1 && k.Want[0] == "string" && k.Got != "object" && k.Got != "array" {
			msg += ` (quote it: "…")`
		}
	case *kind.Pattern:
		msg = where("%q is not valid: %s", k.Got, patternHints[k.Want])
		if patternHints[k.Want] == "" {
			msg = where("%q is not valid (it must match %s)", k.Got, k.Want)
		}
	case *kind.UniqueItems:
		if k.Duplicates[1] < len(at.items) {
			p = at.items[k.Duplicates[1]].pos
		}
		msg = where("items %d and %d are the same; list each once", k.Duplicates[0], k.Duplicates[1])
	case *kind.MinLength:
		msg = where("got %d characters, want at least %d", k.Got, k.Want)
	case *kind.MaxLength:
		msg = where("got %d characters, want at most %d", k.Got, k.Want)
	default:
		// The library words the rest well; drop its location prefix,
		// since the path is given in our own form.
		bare := &jsonschema.ValidationError{SchemaURL: e.SchemaURL, ErrorKind: e.ErrorKind}
		msg = where("%s", strings.TrimPrefix(bare.Error(), "at '': "))
	}
	return fileError(file, p, "%s", msg), path
}

// nearest returns the key of known closest to key, if it is a likely typo.
func nearest(key string, known map[string]*jsonschema.Schema) string {
	best, bestD := "", 3 // at most two edits away
	for k := range known {
		if d := editDistance(key, k); d < bestD || d == bestD && k < best {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// validateValue checks v, a Go value that marshals to a JSON object, against
// the named schema. what names it in errors ("profile legal-reviewer").
func validateValue(name, what string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return &LoadError{File: what, Reason: err.Error()}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return &LoadError{File: what, Reason: err.Error()}
	}
	return validate(name, what, fromValue(doc))
}
