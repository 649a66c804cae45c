package intake_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/casework/intake"
)

// FuzzParseForm feeds arbitrary bytes to ParseForm, seeded with the forms
// of testdata. It must never panic, must refuse with INVALID_INPUT only,
// and what it accepts must assess without panicking.
func FuzzParseForm(f *testing.F) {
	files, err := filepath.Glob("testdata/*.json")
	if err != nil || len(files) == 0 {
		f.Fatalf("no seeds: %v", err)
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"schema_version":"1.0.0","client":{"name":"x"},"parties":[],"key_dates":[{"label":"l","date":"0000-00-00"}],"narrative":""}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		form, err := intake.ParseForm(data)
		if err != nil {
			if code := sanad.ErrorCode(err); code != sanad.CodeInvalidInput {
				t.Fatalf("got %v, want %s", err, sanad.CodeInvalidInput)
			}
			return
		}
		a := intake.Assess(form, intake.Options{AsOf: time.Date(2025, 10, 6, 0, 0, 0, 0, time.UTC)})
		if !a.Triage.RequiresHumanConfirmation || len(a.Triage.Reasons) == 0 {
			t.Fatalf("triage %+v: want reasons and a person to confirm", a.Triage)
		}
	})
}
