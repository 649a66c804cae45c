package debate

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/sanadhq/sanad"
)

func TestD10_EnrichmentSources(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "companies.csv")
	os.WriteFile(csvPath, []byte("entity_type,entity_name,data_point,value,number,source,source_grade\nCOMPANY,Tessaro,headcount,410,410,a web directory,D\nCOMPANY,Other,headcount,9,9,x,C\n"), 0o600)
	f, err := LoadFileEnrichment(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.Query(context.Background(), "COMPANY", "tessaro", []string{"headcount", "revenue"})
	if err != nil || len(got) != 1 || got[0].Number != 410 || got[0].Grade != "D" {
		t.Fatalf("file source: %+v %v", got, err)
	}
	if _, err := LoadFileEnrichment(filepath.Join(dir, "x.txt")); sanad.ErrorCode(err) != sanad.CodeInvalidInput {
		t.Fatalf("a .txt source: %v", err)
	}

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("entity_name") != "Tessaro" || len(r.URL.Query()["data_point"]) != 2 {
			http.Error(w, "bad query", http.StatusBadRequest)
			return
		}
		json.NewEncoder(w).Encode([]EnrichmentRecord{{DataPoint: "revenue", Value: "£50m", Number: 50e6, Grade: "C"}})
	}))
	defer srv.Close()
	got, err = HTTPEnrichment{BaseURL: srv.URL}.Query(context.Background(), "COMPANY", "Tessaro", []string{"revenue", "headcount"})
	if err != nil || len(got) != 1 || got[0].Source != srv.URL || got[0].Grade != "C" {
		t.Fatalf("http source: %+v %v", got, err)
	}
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", http.StatusServiceUnavailable) }))
	defer down.Close()
	if _, err := (HTTPEnrichment{BaseURL: down.URL}).Query(context.Background(), "COMPANY", "Tessaro", []string{"revenue"}); sanad.ErrorCode(err) != sanad.CodeDependencyDown {
		t.Fatalf("a source that is down: %v", err)
	}
}
