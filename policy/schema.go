package policy

import (
	"embed"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/schemafile"
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
	return schemafile.Compile(schemaFiles, schemaURL, fileNames...)
})

// patternHints say, for the patterns of the schemas that authors meet most,
// what a value must look like.
var patternHints = map[string]string{
	`^[A-Za-z][A-Za-z0-9_.-]{0,63}$`: "use letters, digits, '_', '.' or '-', starting with a letter, at most 64",
}

// validate checks root, read from file, against the schema of kind (one of
// fileNames). Of all violations it reports the one written first in the file.
func validate(kind, file string, root *schemafile.Node) error {
	all, err := schemas()
	if err != nil {
		// The schemas are part of the binary: failing to compile them is a bug.
		return sanad.Wrap(err, sanad.CodeInternal, opLoad, "policy schemas do not compile")
	}
	return schemafile.Validate(file, root, all[kind], patternHints)
}
