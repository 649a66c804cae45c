package memory_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/chunk"
	"github.com/sanadhq/sanad/document"
	"github.com/sanadhq/sanad/memory"
	"github.com/sanadhq/sanad/model"
	"github.com/sanadhq/sanad/sqlite"
)

var (
	caseA = sanad.Scope{Tenant: "firm", Case: "a"}
	caseB = sanad.Scope{Tenant: "firm", Case: "b"}
	epoch = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
)

func openStore(tb testing.TB) *sqlite.DB {
	tb.Helper()
	db, err := sqlite.Open(context.Background(), sqlite.Config{Path: filepath.Join(tb.TempDir(), "sanad.db")})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

func newIndex(tb testing.TB) *memory.Index {
	tb.Helper()
	return &memory.Index{Store: openStore(tb), Now: func() time.Time { return epoch }}
}

// split chunks text as the ingestion pipeline does: paragraphs separated by
// blank lines, a line starting with "# " a heading.
func split(text, key string) []chunk.Chunk {
	var doc document.Document
	for _, p := range strings.Split(text, "\n\n") {
		if h, ok := strings.CutPrefix(p, "# "); ok {
			doc.Blocks = append(doc.Blocks, document.Block{Kind: document.Header, Level: 1, Text: h})
			continue
		}
		doc.Blocks = append(doc.Blocks, document.Block{Kind: document.Text, Text: p})
	}
	md, spans := doc.MarkdownSpans()
	return chunk.Split(&doc, md, spans, key, chunk.Options{Size: 200})
}

func doc(id, version, title string, meta map[string]any) memory.Document {
	return memory.Document{ID: id, Version: version, Source: "/docs/" + id, SourceType: memory.SourceLocal,
		SourceURL: "file:///docs/" + id, Title: title, Format: "txt", Metadata: meta}
}

func add(tb testing.TB, x *memory.Index, scope sanad.Scope, d memory.Document, text string) memory.Added {
	tb.Helper()
	a, err := x.Add(context.Background(), scope, d, split(text, d.Version))
	if err != nil {
		tb.Fatalf("Add %s@%s: %v", d.ID, d.Version, err)
	}
	return a
}

func search(tb testing.TB, x *memory.Index, scope sanad.Scope, q memory.Query) memory.Output {
	tb.Helper()
	out, err := x.Search(context.Background(), scope, q)
	if err != nil {
		tb.Fatalf("Search %q: %v", q.QueryText, err)
	}
	return out
}

const lease = `# Lease agreement

The tenant shall pay the rent on the first day of each month.

# Termination

Either party may terminate the lease with ninety days written notice.`

const loan = `# Loan agreement

The borrower shall repay the principal with interest at five percent.

# Default

Failure to pay any instalment within thirty days is an event of default.`

func TestSearchFindsTheChunkAndItsSource(t *testing.T) {
	x := newIndex(t)
	add(t, x, caseA, doc("lease", "v1", "Lease", nil), lease)
	add(t, x, caseA, doc("loan", "v1", "Loan", nil), loan)

	out := search(t, x, caseA, memory.Query{QueryText: "How can the lease be terminated?"})
	if len(out.Results) == 0 {
		t.Fatal("no results")
	}
	r := out.Results[0]
	if r.SourceID != "lease" || !strings.Contains(r.Content, "terminate the lease") {
		t.Fatalf("top result %s %q, want the lease's termination clause", r.SourceID, r.Content)
	}
	if r.SourceURL != "file:///docs/lease" || r.Metadata["version"] != "v1" || r.Metadata["title"] != "Lease" {
		t.Errorf("source tracking: url %q metadata %v", r.SourceURL, r.Metadata)
	}
	if h, _ := r.Metadata["headings"].([]string); len(h) != 1 || h[0] != "Termination" {
		t.Errorf("headings %v, want [Termination]", r.Metadata["headings"])
	}
	for _, r := range out.Results {
		if r.RelevanceScore <= 0 || r.RelevanceScore > 1 {
			t.Errorf("relevance %v outside (0, 1]", r.RelevanceScore)
		}
	}
	if out.TotalFound < len(out.Results) {
		t.Errorf("total found %d < %d results", out.TotalFound, len(out.Results))
	}
}

func TestSearchNeverCrossesCases(t *testing.T) {
	x := newIndex(t)
	add(t, x, caseA, doc("lease", "v1", "Lease", nil), lease)
	add(t, x, caseB, doc("loan", "v1", "Loan", nil), loan)
	add(t, x, sanad.Scope{Tenant: "other", Case: "a"}, doc("loan", "v1", "Loan", nil), loan)

	for _, q := range []string{"borrower repay principal interest default", "lease rent tenant terminate"} {
		out, err := x.Search(t.Context(), caseA, memory.Query{QueryText: q, TopK: 50})
		if err != nil && sanad.ErrorCode(err) != sanad.CodeMemoryNoResults {
			t.Fatal(err)
		}
		for _, r := range out.Results {
			if r.SourceID != "lease" {
				t.Errorf("case a's search for %q returned %s from another case", q, r.SourceID)
			}
		}
	}
	_, err := x.Search(t.Context(), caseA, memory.Query{QueryText: "borrower instalment"})
	if sanad.ErrorCode(err) != sanad.CodeMemoryNoResults {
		t.Errorf("case a searching case b's words: %v, want %s", err, sanad.CodeMemoryNoResults)
	}
	out := search(t, x, caseB, memory.Query{QueryText: "borrower instalment"})
	if out.Results[0].SourceID != "loan" {
		t.Errorf("case b: %v", out.Results[0].SourceID)
	}
}

func TestVersions(t *testing.T) {
	ctx := t.Context()
	x := newIndex(t)
	a := add(t, x, caseA, doc("lease", "v1", "Lease", nil), lease)
	if a.Unchanged || a.Chunks == 0 {
		t.Fatalf("first add: %+v", a)
	}
	again := add(t, x, caseA, doc("lease", "v1", "Lease", nil), lease)
	if !again.Unchanged || again.Chunks != a.Chunks {
		t.Fatalf("same version again: %+v, want unchanged", again)
	}
	v2 := strings.Replace(lease, "ninety days", "sixty days", 1)
	b := add(t, x, caseA, doc("lease", "v2", "Lease", nil), v2)
	if b.Unchanged || len(b.Superseded) != 1 || b.Superseded[0] != "v1" {
		t.Fatalf("new version: %+v, want v1 superseded", b)
	}
	out := search(t, x, caseA, memory.Query{QueryText: "terminate notice days", TopK: 20})
	for _, r := range out.Results {
		if r.Metadata["version"] != "v2" || strings.Contains(r.Content, "ninety") {
			t.Errorf("superseded chunk returned: %v %q", r.Metadata["version"], r.Content)
		}
	}
	if _, err := x.Search(ctx, caseA, memory.Query{QueryText: "ninety"}); sanad.ErrorCode(err) != sanad.CodeMemoryNoResults {
		t.Errorf("a word only v1 had: %v, want no results", err)
	}
	docs, err := x.Documents(ctx, caseA)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 || docs[0].Version != "v1" || docs[0].Status != memory.StatusSuperseded ||
		docs[1].Version != "v2" || docs[1].Status != memory.StatusCurrent || docs[0].Chunks != a.Chunks {
		t.Fatalf("documents: %+v", docs)
	}

	if err := x.Remove(ctx, caseA, "lease"); err != nil {
		t.Fatal(err)
	}
	if err := x.Remove(ctx, caseA, "lease"); err != nil {
		t.Fatalf("removing again: %v", err)
	}
	if err := x.Remove(ctx, caseA, "nothing"); sanad.ErrorCode(err) != sanad.CodeNotFound {
		t.Fatalf("removing an unknown document: %v", err)
	}
	if _, err := x.Search(ctx, caseA, memory.Query{QueryText: "terminate lease"}); sanad.ErrorCode(err) != sanad.CodeMemoryNoResults {
		t.Errorf("after remove: %v, want no results", err)
	}
	info, err := x.Document(ctx, caseA, "lease")
	if err != nil || info.Status != memory.StatusRemoved || info.Version != "v2" {
		t.Fatalf("removed document: %+v, %v", info, err)
	}

	// Adding v1 again brings it back from what was stored.
	r := add(t, x, caseA, doc("lease", "v1", "Lease", nil), lease)
	if !r.Restored || r.Chunks != a.Chunks {
		t.Fatalf("restoring v1: %+v", r)
	}
	out = search(t, x, caseA, memory.Query{QueryText: "ninety days"})
	if out.Results[0].Metadata["version"] != "v1" {
		t.Errorf("restored version not searched: %v", out.Results[0].Metadata)
	}
	if info, _ := x.Document(ctx, caseA, "lease"); info.Version != "v1" || info.Status != memory.StatusCurrent {
		t.Errorf("after restore: %+v", info)
	}
}

func TestFilters(t *testing.T) {
	x := newIndex(t)
	d1 := doc("lease", "v1", "Lease", map[string]any{"author": "Ann", "tags": []string{"property", "contract"}, "year": 2021})
	d1.Ingested = epoch.Add(-48 * time.Hour)
	add(t, x, caseA, d1, lease)
	d2 := doc("loan", "v1", "Loan", map[string]any{"author": "Bo", "tags": []any{"finance", "contract"}, "year": 2023, "signed": true})
	d2.SourceType, d2.Format = memory.SourceGDrive, "pdf"
	add(t, x, caseA, d2, loan)

	const q = "agreement pay days"
	for _, tc := range []struct {
		name    string
		filters map[string]any
		want    string // "" = no results; "both"
	}{
		{"none", nil, "both"},
		{"source type", map[string]any{"source_type": "gdrive"}, "loan"},
		{"source types", map[string]any{"source_type": []string{"local", "gdrive"}}, "both"},
		{"document id", map[string]any{"document_id": "lease"}, "lease"},
		{"format", map[string]any{"format": "pdf"}, "loan"},
		{"ingested after", map[string]any{"ingested_after": epoch.Add(-time.Hour).Format(time.RFC3339)}, "loan"},
		{"ingested before", map[string]any{"ingested_before": "2025-03-01"}, "lease"},
		{"tag", map[string]any{"tags": "finance"}, "loan"},
		{"tags any of", map[string]any{"tags": []string{"property", "none"}}, "lease"},
		{"shared tag", map[string]any{"tags": "contract"}, "both"},
		{"author", map[string]any{"author": "Ann"}, "lease"},
		{"number", map[string]any{"year": 2023}, "loan"},
		{"number as float", map[string]any{"year": 2021.0}, "lease"},
		{"bool", map[string]any{"signed": true}, "loan"},
		{"bool false", map[string]any{"signed": false}, ""},
		{"and", map[string]any{"author": "Ann", "format": "pdf"}, ""},
		{"missing key", map[string]any{"court": "x"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := x.Search(t.Context(), caseA, memory.Query{QueryText: q, TopK: 50, Filters: tc.filters})
			if tc.want == "" {
				if sanad.ErrorCode(err) != sanad.CodeMemoryNoResults {
					t.Fatalf("got %v, want no results", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]bool{}
			for _, r := range out.Results {
				got[r.SourceID] = true
			}
			want := map[string]bool{tc.want: true}
			if tc.want == "both" {
				want = map[string]bool{"lease": true, "loan": true}
			}
			if len(got) != len(want) || !got["lease"] && want["lease"] || !got["loan"] && want["loan"] {
				t.Fatalf("got documents %v, want %v", got, want)
			}
		})
	}
	for _, bad := range []map[string]any{
		{"ingested_after": "yesterday"},
		{"source_type": 3},
		{"tags": map[string]any{"a": 1}},
		{"tags": []any{}},
	} {
		if _, err := x.Search(t.Context(), caseA, memory.Query{QueryText: q, Filters: bad}); sanad.ErrorCode(err) != sanad.CodeInvalidInput {
			t.Errorf("filters %v: %v, want INVALID_INPUT", bad, err)
		}
	}
}

func TestThreshold(t *testing.T) {
	x := newIndex(t)
	add(t, x, caseA, doc("lease", "v1", "Lease", nil), lease)
	out := search(t, x, caseA, memory.Query{QueryText: "terminate lease notice", TopK: 10})
	top := out.Results[0].RelevanceScore
	cut := search(t, x, caseA, memory.Query{QueryText: "terminate lease notice", TopK: 10, MinRelevanceScore: top})
	for _, r := range cut.Results {
		if r.RelevanceScore < top {
			t.Errorf("result scored %v below the threshold %v", r.RelevanceScore, top)
		}
	}
	_, err := x.Search(t.Context(), caseA, memory.Query{QueryText: "terminate lease notice", MinRelevanceScore: min(top+0.01, 1)})
	if sanad.ErrorCode(err) != sanad.CodeMemoryNoResults {
		t.Errorf("threshold above every score: %v, want %s", err, sanad.CodeMemoryNoResults)
	}
}

func TestQueriesThatAreNotSyntax(t *testing.T) {
	x := newIndex(t)
	add(t, x, caseA, doc("lease", "v1", "Lease", nil), lease)
	for _, q := range []string{
		`"`, `the of and`, `???`, `lease AND NOT rent`, `NEAR(lease rent, 2)`, `content:lease`, `lease*`, `^lease`,
		`"lease" OR "rent`, `(((`, `-rent`, `{content}: lease`, `lease + rent`, "\x00lease", `é`, `日本語`,
	} {
		_, err := x.Search(t.Context(), caseA, memory.Query{QueryText: q})
		if err != nil && sanad.ErrorCode(err) != sanad.CodeMemoryNoResults {
			t.Errorf("query %q: %v", q, err)
		}
	}
	out := search(t, x, caseA, memory.Query{QueryText: "the of each"})
	if len(out.Results) == 0 {
		t.Errorf("a query of stop words found nothing")
	}
}

func TestVectorSearchWithHashEmbedder(t *testing.T) {
	x := newIndex(t)
	x.Embedder = model.HashEmbedder{Dim: 256}
	x.EmbedBatch = 2
	a := add(t, x, caseA, doc("lease", "v1", "Lease", nil), lease)
	if a.Embedded != a.Chunks {
		t.Fatalf("embedded %d of %d chunks", a.Embedded, a.Chunks)
	}
	add(t, x, caseA, doc("loan", "v1", "Loan", nil), loan)
	add(t, x, caseB, doc("other", "v1", "Other", nil), lease)

	out := search(t, x, caseA, memory.Query{QueryText: "borrower repay principal", TopK: 3})
	r := out.Results[0]
	if r.SourceID != "loan" || r.Metadata["vector_score"] == nil || r.Metadata["lexical_score"] == nil {
		t.Fatalf("top %s %v", r.SourceID, r.Metadata)
	}
	if vs := r.Metadata["vector_score"].(float64); r.RelevanceScore != max(vs, r.Metadata["lexical_score"].(float64)) {
		t.Errorf("fused score %v, want the larger component", r.RelevanceScore)
	}
	for _, r := range search(t, x, caseA, memory.Query{QueryText: "lease tenant rent", TopK: 50}).Results {
		if r.SourceID == "other" {
			t.Fatalf("vector search crossed into case b")
		}
	}
	// Filters hold for the vector retriever too.
	out = search(t, x, caseA, memory.Query{QueryText: "borrower repay principal to the tenant", TopK: 50, Filters: map[string]any{"document_id": "lease"}})
	for _, r := range out.Results {
		if r.SourceID != "lease" {
			t.Fatalf("filtered search returned %s (vector rank %v)", r.SourceID, r.Metadata["vector_rank"])
		}
	}
	// A new version replaces the cached vectors.
	add(t, x, caseA, doc("loan", "v2", "Loan", nil), strings.ReplaceAll(loan, "borrower", "debtor"))
	for _, r := range search(t, x, caseA, memory.Query{QueryText: "borrower debtor", TopK: 50}).Results {
		if r.SourceID == "loan" && r.Metadata["version"] == "v1" {
			t.Fatalf("superseded vector returned: %v", r.Metadata)
		}
	}
}
