package agent

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/sanadhq/sanad"
)

// FuzzParseProfile feeds arbitrary bytes to ParseProfile, seeded with the
// example profiles. It must never panic, must answer every bad file with an
// INVALID_INPUT *LoadError, and what it accepts must be a valid profile.
func FuzzParseProfile(f *testing.F) {
	files, err := filepath.Glob("../examples/agents/*.yaml")
	if err != nil || len(files) == 0 {
		f.Fatalf("no example profiles: %v", err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(goodProfile))
	f.Add([]byte("a: &x [*x]\n"))
	f.Add([]byte("id: x\n---\nid: y\n"))
	f.Add([]byte("{id: [[[[[[]]]]]]}"))
	f.Add([]byte("id: !!binary aGVsbG8=\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseProfile("fuzz.yaml", data)
		if err != nil {
			var le *LoadError
			if !errors.As(err, &le) || sanad.ErrorCode(err) != sanad.CodeInvalidInput {
				t.Fatalf("got %v (%T), want an INVALID_INPUT *LoadError", err, err)
			}
			if le.Line < 0 || le.Reason == "" {
				t.Fatalf("got a load error without a place or reason: %+v", le)
			}
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("ParseProfile accepted a profile that Validate refuses: %v", err)
		}
		if err := NewRegistry().Create(p); err != nil && p.ID != StandardID {
			t.Fatalf("Create of a parsed profile: %v", err)
		}
	})
}
