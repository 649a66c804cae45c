package policy

import (
	"bytes"
	"embed"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/sanadhq/sanad"
)

// The JSON Schemas of the three policy files. Each rejects unknown keys, so a
// misspelt rule is an error at load time instead of a rule silently ignored.
//
//go:embed schema/*.schema.json
var schemaFiles embed.FS

// schemaURL is the $id prefix of the embedded schemas.
const schemaURL = "https://sanad.dev/schema/policy/"

// schemas compiles the embedded schemas once, on first use.
var schemas = sync.OnceValues(func() (map[string]*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	out := make(map[string]*jsonschema.Schema, len(fileNames))
	for _, name := range fileNames {
		data, err := schemaFiles.ReadFile("schema/" + name + ".schema.json")
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("schema %s: %w", name, err)
		}
		if err := c.AddResource(schemaURL+name+".schema.json", doc); err != nil {
			return nil, fmt.Errorf("schema %s: %w", name, err)
		}
	}
	for _, name := range fileNames {
		s, err := c.Compile(schemaURL + name + ".schema.json")
		if err != nil {
			return nil, fmt.Errorf("schema %s: %w", name, err)
		}
		out[name] = s
	}
	return out, nil
})

// validate checks root, read from file, against the schema of kind (one of
// fileNames). Of all violations it reports the one written first in the file.
func validate(kind, file string, root *node) error {
	all, err := schemas()
	if err != nil {
		// The schemas are part of the binary: failing to compile them is a bug.
		return sanad.Wrap(err, sanad.CodeInternal, opLoad, "policy schemas do not compile")
	}
	verr := all[kind].Validate(root.value())
	if verr == nil {
		return nil
	}
	ve, ok := verr.(*jsonschema.ValidationError)
	if !ok {
		return &LoadError{File: file, Reason: verr.Error()}
	}
	var first *LoadError
	for _, leaf := range leaves(ve, nil) {
		le := describe(file, root, leaf)
		if first == nil || le.Line < first.Line || (le.Line == first.Line && le.Column < first.Column) {
			first = le
		}
	}
	if first == nil {
		return &LoadError{File: file, Reason: ve.Error()}
	}
	return first
}

// leaves collects the innermost causes of e: the violations an author fixes.
func leaves(e *jsonschema.ValidationError, out []*jsonschema.ValidationError) []*jsonschema.ValidationError {
	if _, ok := e.ErrorKind.(*kind.PropertyNames); ok || len(e.Causes) == 0 {
		return append(out, e)
	}
	for _, c := range e.Causes {
		out = leaves(c, out)
	}
	return out
}

// describe turns one schema violation into a *LoadError at the line the
// violation is written on.
func describe(file string, root *node, e *jsonschema.ValidationError) *LoadError {
	at, path := root.locate(e.InstanceLocation)
	where := func(msg string) string {
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
		sort.Slice(props, func(i, j int) bool { return before(at.keyPos(props[i]), at.keyPos(props[j])) })
		p = at.keyPos(props[0])
		msg = where(fmt.Sprintf("unknown key %q", props[0]))
	case *kind.Required:
		msg = where(fmt.Sprintf("missing key %q", k.Missing[0]))
	case *kind.PropertyNames:
		// The library reuses the slice behind InstanceLocation for
		// propertyNames, so find the offending key by its name instead.
		if m, mpath := root.findKey(k.Property, ""); m != nil {
			at, path = m, mpath
		}
		p = at.keyPos(k.Property)
		msg = where(fmt.Sprintf("%q is not a valid name: use letters, digits, '_', '.' or '-', starting with a letter, at most 64", k.Property))
	case *kind.Type:
		msg = where(fmt.Sprintf("got %s, want %s", k.Got, strings.Join(k.Want, " or ")))
		if len(k.Want) == 1 && k.Want[0] == "string" && k.Got != "object" && k.Got != "array" {
			msg += ` (quote it: "…")`
		}
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = fmt.Sprint(w)
		}
		msg = where(fmt.Sprintf("got %v, want one of %s", k.Got, strings.Join(want, ", ")))
	case *kind.Pattern:
		msg = where(fmt.Sprintf("%q is not valid here (it must match %s)", k.Got, k.Want))
	case *kind.UniqueItems:
		if k.Duplicates[1] < len(at.items) {
			p = at.items[k.Duplicates[1]].pos
		}
		msg = where(fmt.Sprintf("items %d and %d are the same; list each once", k.Duplicates[0], k.Duplicates[1]))
	case *kind.MinItems:
		msg = where(fmt.Sprintf("got %d items, want at least %d", k.Got, k.Want))
	case *kind.MinProperties:
		msg = where(fmt.Sprintf("got %d entries, want at least %d", k.Got, k.Want))
	case *kind.Minimum:
		msg = where(fmt.Sprintf("got %s, want at least %s", k.Got.RatString(), k.Want.RatString()))
	case *kind.Maximum:
		msg = where(fmt.Sprintf("got %s, want at most %s", k.Got.RatString(), k.Want.RatString()))
	case *kind.MinLength:
		msg = where(fmt.Sprintf("got %d characters, want at least %d", k.Got, k.Want))
	case *kind.MaxLength:
		msg = where(fmt.Sprintf("got %d characters, want at most %d", k.Got, k.Want))
	default:
		// The library words the rest well; drop its location prefix,
		// since the path is given in our own form.
		bare := &jsonschema.ValidationError{SchemaURL: e.SchemaURL, ErrorKind: e.ErrorKind}
		msg = where(strings.TrimPrefix(bare.Error(), "at '': "))
	}
	return fileError(file, p, "%s", msg)
}

// before orders positions as they appear in a file.
func before(a, b pos) bool {
	if a.line != b.line {
		return a.line < b.line
	}
	return a.col < b.col
}
