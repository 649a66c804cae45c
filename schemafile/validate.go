package schemafile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// Compile compiles the schemas called names. The schema called n is the file
// schema/n.schema.json of fsys, known to the compiler as
// baseURL + n + ".schema.json", so that a $ref from one to another resolves
// inside fsys. An error means a schema is not valid JSON Schema.
func Compile(fsys fs.FS, baseURL string, names ...string) (map[string]*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	for _, name := range names {
		data, err := fs.ReadFile(fsys, "schema/"+name+".schema.json")
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("schema %s: %w", name, err)
		}
		if err := c.AddResource(baseURL+name+".schema.json", doc); err != nil {
			return nil, fmt.Errorf("schema %s: %w", name, err)
		}
	}
	out := make(map[string]*jsonschema.Schema, len(names))
	for _, name := range names {
		s, err := c.Compile(baseURL + name + ".schema.json")
		if err != nil {
			return nil, fmt.Errorf("schema %s: %w", name, err)
		}
		out[name] = s
	}
	return out, nil
}

// Validate checks root, read from file, against s. Of all violations it
// returns the one written first in the file, as an [*Error] that says where
// and what to do: the path to the value at fault, what was found and what
// the schema wants, and for a misspelt key the key that was likely meant.
//
// hints word the patterns of s for authors: a string that does not match the
// pattern p is "not valid: hints[p]" rather than a regular expression they
// have to read. hints may be nil.
func Validate(file string, root *Node, s *jsonschema.Schema, hints map[string]string) error {
	verr := s.Validate(root.Value())
	if verr == nil {
		return nil
	}
	ve, ok := verr.(*jsonschema.ValidationError)
	if !ok {
		return &Error{File: file, Reason: verr.Error(), Err: verr}
	}
	all := leaves(ve, nil)
	v := violation{file: file, root: root, schema: s, hints: hints, meant: map[keyOf]bool{}}
	for _, leaf := range all {
		if k, ok := leaf.ErrorKind.(*kind.AdditionalProperties); ok {
			obj, _ := root.locate(leaf.InstanceLocation)
			known := v.known(leaf)
			for _, prop := range k.Properties {
				if near := nearest(prop, known); near != "" {
					v.meant[keyOf{obj, near}] = true
				}
			}
		}
	}
	var first *Error
	var firstPath string
	for _, leaf := range all {
		e, path := v.describe(leaf)
		if e != nil && (first == nil || earlier(e, path, first, firstPath)) {
			first, firstPath = e, path
		}
	}
	if first == nil {
		return &Error{File: file, Reason: ve.Error(), Err: ve}
	}
	first.Err = ve
	return first
}

// ValidateValue checks v, a Go value that marshals to JSON, against s as
// [Validate] does. what names v in errors ("profile legal-reviewer"); the
// errors have no line, since v was not read from a file.
func ValidateValue(what string, v any, s *jsonschema.Schema, hints map[string]string) error {
	data, err := json.Marshal(v)
	if err != nil {
		return &Error{File: what, Reason: err.Error(), Err: err}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return &Error{File: what, Reason: err.Error(), Err: err}
	}
	return Validate(what, fromValue(doc), s, hints)
}

// earlier orders violations as an author reads them: by where they are
// written, then by path and reason so that the choice never depends on the
// order the validator found them in.
func earlier(a *Error, apath string, b *Error, bpath string) bool {
	ap, bp := Pos{a.Line, a.Column}, Pos{b.Line, b.Column}
	switch {
	case ap != bp:
		return ap.before(bp)
	case apath != bpath:
		return apath < bpath
	}
	return a.Reason < b.Reason
}

// leaves collects the innermost causes of e: the violations an author fixes.
// A key that is not a valid name is one violation, whatever its causes.
func leaves(e *jsonschema.ValidationError, out []*jsonschema.ValidationError) []*jsonschema.ValidationError {
	if _, ok := e.ErrorKind.(*kind.PropertyNames); ok || len(e.Causes) == 0 {
		return append(out, e)
	}
	for _, c := range e.Causes {
		out = leaves(c, out)
	}
	return out
}

// violation holds what describing a violation needs.
type violation struct {
	file   string
	root   *Node
	schema *jsonschema.Schema
	hints  map[string]string
	// meant holds the keys an unknown key was likely meant to be: a
	// missing key that was misspelt is reported as the unknown key, with
	// the spelling it should have.
	meant map[keyOf]bool
}

// keyOf is a key of the map obj.
type keyOf struct {
	obj *Node
	key string
}

// known returns the properties the schema that e is about declares.
func (v violation) known(e *jsonschema.ValidationError) map[string]*jsonschema.Schema {
	if s := schemaAt(v.schema, e.SchemaURL); s != nil {
		return s.Properties
	}
	return nil
}

// describe turns one schema violation into an *Error at the line the
// violation is written on, and returns the path of the value at fault. It
// returns nil for a violation another one explains.
func (v violation) describe(e *jsonschema.ValidationError) (*Error, string) {
	at, path := v.root.locate(e.InstanceLocation)
	where := func(format string, args ...any) string {
		msg := fmt.Sprintf(format, args...)
		if path == "" {
			return msg
		}
		return path + ": " + msg
	}
	p := at.Pos()
	var msg string
	switch k := e.ErrorKind.(type) {
	case *kind.AdditionalProperties:
		key := firstKey(at, k.Properties)
		p = at.KeyPos(key)
		msg = where("unknown key %q", key)
		if near := nearest(key, v.known(e)); near != "" {
			msg += fmt.Sprintf("; did you mean %q?", near)
		}
	case *kind.Required:
		var missing []string
		for _, key := range k.Missing {
			if !v.meant[keyOf{at, key}] {
				missing = append(missing, key)
			}
		}
		switch len(missing) {
		case 0:
			return nil, path
		case 1:
			msg = where("missing key %q: add it", missing[0])
		default:
			msg = where("missing keys %q: add them", missing)
		}
	case *kind.PropertyNames:
		// The library reuses the slice behind InstanceLocation for
		// propertyNames, so find the offending key by its name instead.
		if m, mpath := v.root.findKey(k.Property, ""); m != nil {
			at, path = m, mpath
		}
		p = at.KeyPos(k.Property)
		msg = where("%q is not a valid name", k.Property)
		if rule := v.nameRule(e); rule != "" {
			msg += ": " + rule
		}
	case *kind.Type:
		msg = where("got %s, want %s", k.Got, strings.Join(k.Want, " or "))
		if len(k.Want) == 1 && k.Want[0] == "string" && k.Got != "object" && k.Got != "array" {
			msg += ` (quote it: "…")`
		}
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = fmt.Sprint(w)
		}
		msg = where("got %v, want one of %s", k.Got, strings.Join(want, ", "))
	case *kind.Pattern:
		if hint := v.hints[k.Want]; hint != "" {
			msg = where("%q is not valid: %s", k.Got, hint)
		} else {
			msg = where("%q is not valid here (it must match %s)", k.Got, k.Want)
		}
	case *kind.UniqueItems:
		if items := at.Items(); k.Duplicates[1] < len(items) {
			p = items[k.Duplicates[1]].Pos()
		}
		msg = where("items %d and %d are the same; list each once", k.Duplicates[0], k.Duplicates[1])
	case *kind.MinItems:
		msg = where("got %d items, want at least %d", k.Got, k.Want)
	case *kind.MinProperties:
		msg = where("got %d entries, want at least %d", k.Got, k.Want)
	case *kind.Minimum:
		msg = where("got %s, want at least %s", k.Got.RatString(), k.Want.RatString())
	case *kind.Maximum:
		msg = where("got %s, want at most %s", k.Got.RatString(), k.Want.RatString())
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
	return Errorf(v.file, p, "%s", msg), path
}

// firstKey returns the one of keys, keys of the map n, written first.
func firstKey(n *Node, keys []string) string {
	want := make(map[string]bool, len(keys))
	for _, k := range keys {
		want[k] = true
	}
	if n != nil {
		for _, k := range n.keys {
			if want[k] {
				return k
			}
		}
	}
	if len(keys) == 0 {
		return ""
	}
	return slices.Min(keys) // not reached: keys are n's
}

// nameRule says what a key refused by propertyNames must look like, from the
// pattern it failed to match; "" if it failed for another reason.
func (v violation) nameRule(e *jsonschema.ValidationError) string {
	for _, leaf := range leaves(&jsonschema.ValidationError{Causes: e.Causes}, nil) {
		if k, ok := leaf.ErrorKind.(*kind.Pattern); ok {
			if hint := v.hints[k.Want]; hint != "" {
				return hint
			}
			return "it must match " + k.Want
		}
	}
	return ""
}

// schemaAt returns the schema reachable from s whose location is loc, or
// nil.
func schemaAt(s *jsonschema.Schema, loc string) *jsonschema.Schema {
	seen := map[*jsonschema.Schema]bool{}
	var walk func(s *jsonschema.Schema) *jsonschema.Schema
	walk = func(s *jsonschema.Schema) *jsonschema.Schema {
		if s == nil || seen[s] {
			return nil
		}
		seen[s] = true
		if s.Location == loc {
			return s
		}
		subs := []*jsonschema.Schema{s.Ref, s.Not, s.If, s.Then, s.Else, s.PropertyNames,
			s.Items2020, s.Contains, s.UnevaluatedProperties, s.UnevaluatedItems}
		subs = append(subs, s.AllOf...)
		subs = append(subs, s.AnyOf...)
		subs = append(subs, s.OneOf...)
		subs = append(subs, s.PrefixItems...)
		for _, sub := range s.Properties {
			subs = append(subs, sub)
		}
		for _, sub := range s.PatternProperties {
			subs = append(subs, sub)
		}
		for _, sub := range s.DependentSchemas {
			subs = append(subs, sub)
		}
		for _, sub := range []any{s.AdditionalProperties, s.Items, s.AdditionalItems} {
			switch sub := sub.(type) {
			case *jsonschema.Schema:
				subs = append(subs, sub)
			case []*jsonschema.Schema:
				subs = append(subs, sub...)
			}
		}
		for _, sub := range subs {
			if found := walk(sub); found != nil {
				return found
			}
		}
		return nil
	}
	return walk(s)
}

// nearest returns the key of known closest to key, if it is a likely typo:
// at most two edits away, the first in name order of those nearest.
func nearest(key string, known map[string]*jsonschema.Schema) string {
	best, bestD := "", 3
	for k := range known {
		if len(k) > len(key)+bestD || len(key) > len(k)+bestD {
			continue // the lengths alone are too far apart
		}
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
