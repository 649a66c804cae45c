package diligence

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestD10_ManifestNamesAnEnrichmentSource: deal.yaml may name an
// enrichment file in the deal's folder or an http(s) URL; anything else is
// a *ManifestError on the field.
func TestD10_ManifestNamesAnEnrichmentSource(t *testing.T) {
	for _, tc := range []struct {
		enrichment, want string
	}{
		{"enrichment.json", "enrichment.json"},
		{"data/enrichment.csv", filepath.Join("data", "enrichment.csv")},
		{"https://enrich.example/v1", "https://enrich.example/v1"},
		{"../outside.json", ""},
		{"/etc/enrichment.json", ""},
		{"enrichment.txt", ""},
	} {
		t.Run(tc.enrichment, func(t *testing.T) {
			dir := t.TempDir()
			body := "name: Acme\nas_of: 2025-06-30\ndocuments:\n  - {file: deck.pdf, kind: deck}\nenrichment: " + tc.enrichment + "\n"
			if err := os.WriteFile(filepath.Join(dir, ManifestFile), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			m, err := ReadManifest(dir)
			var me *ManifestError
			switch {
			case tc.want == "" && (!errors.As(err, &me) || me.Field != "enrichment"):
				t.Fatalf("got %v, want a manifest error on enrichment", err)
			case tc.want == "":
			case err != nil:
				t.Fatal(err)
			case IsURL(tc.want) && m.EnrichmentSource(dir) != tc.want,
				!IsURL(tc.want) && m.EnrichmentSource(dir) != filepath.Join(dir, tc.want):
				t.Fatalf("got source %q, want %q", m.EnrichmentSource(dir), tc.want)
			}
		})
	}
}
