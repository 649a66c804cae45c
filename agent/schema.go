package agent

import (
	"embed"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/schemafile"
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
	return schemafile.Compile(schemaFiles, schemaURL, schemaProfile, schemaAbility)
})

// patternHints say, for each pattern of the schemas, what a value must look
// like, in words an author can act on.
var patternHints = map[string]string{
	`^[a-z0-9]+(-[a-z0-9]+)*$`:       "use lower case letters and digits in words joined by single hyphens, such as legal-reviewer",
	`^[A-Za-z][A-Za-z0-9_.-]{0,63}$`: "use letters, digits, '_', '.' or '-', starting with a letter, at most 64",
	`^[a-z][a-z0-9_.-]{0,63}$`:       "a tool name is lower case letters, digits, '_', '.' or '-', starting with a letter",
	`^[a-z][a-z0-9-]{0,31}$`:         "use lower case letters, digits and '-', such as reasoning, fast or none",
	`[\p{L}\p{N}]`:                   "it must contain a letter or a digit",
	`^[^\r\n]*[\p{L}\p{N}][^\r\n]*$`: "write it on one line, with at least a letter or a digit",
}

// schema returns the named schema.
func schema(name string) (*jsonschema.Schema, error) {
	all, err := schemas()
	if err != nil {
		// The schemas are part of the binary: failing to compile them is a bug.
		return nil, sanad.Wrap(err, sanad.CodeInternal, opValidate, "agent schemas do not compile")
	}
	return all[name], nil
}

// validate checks root, read from file, against the named schema. Of all
// violations it reports the one written first in the file.
func validate(name, file string, root *schemafile.Node) error {
	s, err := schema(name)
	if err != nil {
		return err
	}
	return schemafile.Validate(file, root, s, patternHints)
}

// validateValue checks v, a Go value that marshals to a JSON object, against
// the named schema. what names it in errors ("profile legal-reviewer").
func validateValue(name, what string, v any) error {
	s, err := schema(name)
	if err != nil {
		return err
	}
	return schemafile.ValidateValue(what, v, s, patternHints)
}
