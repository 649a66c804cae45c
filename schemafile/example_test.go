package schemafile_test

import (
	"fmt"
	"testing/fstest"

	"github.com/sanadhq/sanad/schemafile"
)

func ExampleValidate() {
	// A package embeds its schemas as schema/NAME.schema.json.
	fsys := fstest.MapFS{"schema/team.schema.json": {Data: []byte(`{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"type": "object",
		"additionalProperties": false,
		"required": ["name"],
		"properties": {
			"name": {"type": "string", "pattern": "^[a-z-]+$"},
			"members": {"type": "array", "items": {"type": "string"}}
		}
	}`)}}
	schemas, err := schemafile.Compile(fsys, "https://example.com/schema/", "team")
	if err != nil {
		panic(err)
	}
	hints := map[string]string{"^[a-z-]+$": "use lower case letters and '-'"}

	for _, data := range []string{
		"name: red-team\nmembers: [ana, ben]\n",
		"name: red-team\nmembrs: [ana, ben]\n",
		"name: Red Team\n",
		"name: red-team\nname: blue-team\n",
	} {
		root, err := schemafile.Parse("team.yaml", []byte(data), schemafile.Limits{})
		if err == nil {
			err = schemafile.Validate("team.yaml", root, schemas["team"], hints)
		}
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(root.Get("name").Str(), root.Get("members").Value())
	}
	// Output:
	// red-team [ana ben]
	// team.yaml:2:1: unknown key "membrs"; did you mean "members"?
	// team.yaml:1:7: name: "Red Team" is not valid: use lower case letters and '-'
	// team.yaml:2:1: invalid YAML: mapping key "name" already defined at [1:1]
}
