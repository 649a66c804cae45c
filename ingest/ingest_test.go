package ingest_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/connector"
	"github.com/sanadhq/sanad/connector/local"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/ingest"
	"github.com/sanadhq/sanad/internal/sharedtest"
	"github.com/sanadhq/sanad/ledgertest"
	"github.com/sanadhq/sanad/memory"
)

func pipeline(t *testing.T, h *home.Home) (*ingest.Pipeline, *memory.Index) {
	t.Helper()
	idx := &memory.Index{Store: h.DB}
	lc, err := local.New(connector.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := ingest.New(ingest.Config{Home: h, Index: idx, Connectors: connector.Mux{connector.SourceLocal: lc}})
	if err != nil {
		t.Fatal(err)
	}
	return p, idx
}

// copyFiles copies the named Docling sources into a new folder.
func copyFiles(t *testing.T, names ...string) string {
	t.Helper()
	root := sharedtest.Dir(t, "docparse", "docling", "tests", "data")
	dir := t.TempDir()
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(root, n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(n)), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestIngestFolderIsRecordedIndexedAndIncremental(t *testing.T) {
	ctx := context.Background()
	h := ledgertest.Open(t, t.TempDir())
	p, idx := pipeline(t, h)
	dir := copyFiles(t, "docx/sources/docx_lists.docx", "html/sources/table_01.html", "md/sources/wiki.md", "csv/sources/csv-comma.csv")
	if err := os.WriteFile(filepath.Join(dir, "broken.pdf"), []byte("%PDF-1.7 truncated"), 0o600); err != nil {
		t.Fatal(err)
	}
	scope := sanad.Scope{Tenant: "acme", Case: "deal-1"}
	src := ingest.Source(dir, true)

	rep, err := p.Ingest(ctx, []connector.Input{src}, ingest.Options{Scope: scope})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Documents != 4 || rep.Chunks == 0 || len(rep.Errors) != 1 || rep.Errors[0].Code == "" {
		t.Fatalf("first ingestion: %+v", rep)
	}
	first := rep.Chunks
	t.Logf("first ingestion: %d documents, %d chunks, errors %+v", rep.Documents, rep.Chunks, rep.Errors)

	// The record verifies, and holds the fetch, the parses and the writes.
	if _, err := h.Ledger.Verify(ctx, ""); err != nil {
		t.Fatalf("ledger verify after ingestion: %v", err)
	}
	evs, err := h.Ledger.Events(ctx, rep.Trace)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	defer func() { t.Logf("event types: %v", kinds) }()
	for _, ev := range evs {
		kinds[ev.Type]++
	}
	// One fetch and five parses through the gateway (one fails), four writes.
	if kinds["db.write"] != 4 || kinds["tool.started"] != 6 || kinds["tool.completed"] != 5 || kinds["tool.failed"] != 1 {
		t.Errorf("event types of the ingestion: %v", kinds)
	}

	// Search finds the content, in this case only.
	out, err := idx.Search(ctx, scope, memory.Query{QueryText: "list item", TopK: 3})
	if err != nil || len(out.Results) == 0 {
		t.Fatalf("search after ingestion: %v %+v", err, out)
	}
	if _, err := idx.Search(ctx, sanad.Scope{Tenant: "acme", Case: "deal-2"}, memory.Query{QueryText: "list item"}); sanad.ErrorCode(err) != sanad.CodeMemoryNoResults {
		t.Errorf("another case sees the chunks: %v", err)
	}

	// Again, unchanged: nothing parsed, no chunk written.
	rep, err = p.Ingest(ctx, []connector.Input{src}, ingest.Options{Scope: scope})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Documents != 0 || rep.Chunks != 0 || rep.SkippedUnchanged != 4 {
		t.Fatalf("unchanged re-ingestion: %+v", rep)
	}

	// One file changed: only it is parsed and indexed again.
	if err := os.WriteFile(filepath.Join(dir, "wiki.md"), []byte("# Changed\n\nThe revenue was restated in 2025.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	rep, err = p.Ingest(ctx, []connector.Input{src}, ingest.Options{Scope: scope})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Documents != 1 || rep.SkippedUnchanged != 3 || rep.Chunks >= first {
		t.Fatalf("one file changed: %+v", rep)
	}
	docs, err := idx.Documents(ctx, scope)
	if err != nil {
		t.Fatal(err)
	}
	statuses := map[memory.Status]int{}
	for _, d := range docs {
		statuses[d.Status]++
	}
	if statuses[memory.StatusCurrent] != 4 || statuses[memory.StatusSuperseded] != 1 {
		t.Errorf("versions after a change: %v", statuses)
	}
	out, err = idx.Search(ctx, scope, memory.Query{QueryText: "revenue restated", TopK: 1})
	if err != nil || len(out.Results) != 1 {
		t.Fatalf("search for the new version: %v %+v", err, out)
	}

	// A file deleted from the folder is marked removed by the next
	// ingestion of the folder, as a recorded write.
	if err := os.Remove(filepath.Join(dir, "csv-comma.csv")); err != nil {
		t.Fatal(err)
	}
	rep, err = p.Ingest(ctx, []connector.Input{src}, ingest.Options{Scope: scope})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Removed != 1 || rep.Documents != 0 || rep.SkippedUnchanged != 3 {
		t.Fatalf("one file deleted at the source: %+v", rep)
	}
	gone, err := idx.Document(ctx, scope, memory.DocumentID(connector.SourceLocal, filepath.Join(dir, "csv-comma.csv")))
	if err != nil || gone.Status != memory.StatusRemoved {
		t.Fatalf("the deleted file's document: %+v, %v", gone, err)
	}
	if n, err := ingest.CheckIndex(ctx, h); err != nil || n == 0 {
		t.Fatalf("CheckIndex after a removal at the source: %d, %v", n, err)
	}

	// Removal is a recorded run, and the document leaves the index.
	id := memory.DocumentID(connector.SourceLocal, filepath.Join(dir, "wiki.md"))
	if _, err := p.Remove(ctx, scope, id, "alice"); err != nil {
		t.Fatal(err)
	}
	if _, err := idx.Search(ctx, scope, memory.Query{QueryText: "revenue restated", TopK: 1, MinRelevanceScore: 0.3}); sanad.ErrorCode(err) != sanad.CodeMemoryNoResults {
		t.Errorf("a removed document is still found: %v", err)
	}
	if _, err := h.Ledger.Verify(ctx, ""); err != nil {
		t.Fatalf("ledger verify after removal: %v", err)
	}
}

// TestCheckIndexAgainstRecords edits the index and its records as someone
// with the database and no key could: a chunk's text or id, a version, a
// record pointed at another stored blob. Each edit is made on a fresh home
// and CheckIndex finds it; the untouched home passes.
func TestCheckIndexAgainstRecords(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct{ name, edit string }{
		{"untouched", ""},
		{"chunk text changed", `UPDATE memory_chunks SET content = content || ' (restated)' WHERE id = (SELECT min(id) FROM memory_chunks)`},
		{"chunk id changed", `UPDATE memory_chunks SET chunk_id = 'ck_forged' WHERE id = (SELECT min(id) FROM memory_chunks)`},
		{"version changed", `UPDATE memory_documents SET version = 'sha256:00' WHERE id = (SELECT min(id) FROM memory_documents)`},
		{"record pointed at another blob", `UPDATE records SET sha256 = (SELECT max(sha256) FROM records) WHERE sha256 = (SELECT min(sha256) FROM records)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			h := ledgertest.Open(t, dir)
			p, _ := pipeline(t, h)
			docs := copyFiles(t, "md/sources/wiki.md", "html/sources/table_01.html")
			scope := sanad.Scope{Tenant: "acme", Case: "deal-1"}
			if _, err := p.Ingest(ctx, []connector.Input{ingest.Source(docs, false)}, ingest.Options{Scope: scope}); err != nil {
				t.Fatal(err)
			}
			if tt.edit == "" {
				if n, err := ingest.CheckIndex(ctx, h); err != nil || n == 0 {
					t.Fatalf("CheckIndex of an untouched index: %d chunks, %v", n, err)
				}
				return
			}
			res, err := rawDB(t, dir).Exec(tt.edit)
			if err != nil {
				t.Fatal(err)
			}
			if n, _ := res.RowsAffected(); n != 1 {
				t.Fatalf("the edit changed %d rows", n)
			}
			if _, err := ingest.CheckIndex(ctx, h); sanad.ErrorCode(err) != sanad.CodeIntegrity {
				t.Errorf("CheckIndex gave %v, want INTEGRITY", err)
			}
		})
	}
}

func rawDB(t *testing.T, dir string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, "sanad.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
