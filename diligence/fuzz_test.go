package diligence

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadManifest: any deal.yaml and expected.json either read or give a
// typed error; nothing panics.
func FuzzReadManifest(f *testing.F) {
	dirs, _ := filepath.Glob(filepath.Join("..", "examples", "deals", "[0-9]*"))
	for _, d := range dirs[:min(len(dirs), 3)] {
		m, _ := os.ReadFile(filepath.Join(d, ManifestFile))
		e, _ := os.ReadFile(filepath.Join(d, ExpectedFile))
		f.Add(m, e)
	}
	f.Add([]byte("name: x\nas_of: 2025-01-01\ndocuments: [{file: ../etc/passwd, kind: deck}]\n"), []byte("{"))
	f.Add([]byte(":"), []byte("null"))
	f.Fuzz(func(t *testing.T, manifest, expected []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, ManifestFile), manifest, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ExpectedFile), expected, 0o600); err != nil {
			t.Fatal(err)
		}
		m, err := ReadManifest(dir)
		if err != nil && !errors.Is(err, ErrManifest) {
			t.Fatalf("an untyped error: %v", err)
		}
		if err == nil {
			for _, d := range m.Documents {
				if filepath.IsAbs(d.File) || filepath.Clean(d.File) != d.File && !filepath.IsLocal(d.File) {
					t.Fatalf("a document outside the folder was accepted: %q", d.File)
				}
			}
		}
		_, _ = ReadExpected(dir)
	})
}
