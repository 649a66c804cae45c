package workflow_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/workflow"
)

// FuzzParse: any input is parsed into a valid definition or refused with
// INVALID_INPUT; nothing panics.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("../examples/workflows/*.yaml")
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("name: x\nagent: a\nsteps:\n  - {id: a, depends_on: [b]}\n  - {id: b, depends_on: [a]}\n"))
	f.Add([]byte("name: x\nsteps: [{id: a, tool: t, with: {k: [1, 2, {z: null}]}}]\n"))
	f.Add([]byte("{\"name\":\"x\",\"agent\":\"a\",\"steps\":[{\"id\":\"a\"}]}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := workflow.Parse("fuzz.yaml", data)
		if err != nil {
			if sanad.ErrorCode(err) != sanad.CodeInvalidInput {
				t.Fatalf("got %v, want INVALID_INPUT", err)
			}
			return
		}
		if err := d.Validate(); err != nil {
			t.Fatalf("a parsed definition does not validate: %v", err)
		}
		if _, err := d.Digest(); err != nil {
			t.Fatalf("a parsed definition has no digest: %v", err)
		}
	})
}
