package sqlite_test

import (
	"database/sql"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/chunk"
	"github.com/sanadhq/sanad/memory"
	"github.com/sanadhq/sanad/sqlite"
	_ "modernc.org/sqlite"
)

var memEpoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

func memDoc(id, version string, meta map[string]any) memory.Document {
	return memory.Document{ID: id, Version: version, Source: "/" + id, SourceType: memory.SourceLocal, Title: "title " + id,
		Format: "txt", Ingested: memEpoch, Metadata: meta}
}

func memChunks(texts ...string) []chunk.Chunk {
	out := make([]chunk.Chunk, len(texts))
	for i, t := range texts {
		out[i] = chunk.Chunk{ID: fmt.Sprintf("c%d-%x", i, len(t)), Index: i, Content: t, LayoutType: "text", End: len(t)}
	}
	return out
}

func addVersion(t *testing.T, db *sqlite.DB, s sanad.Scope, d memory.Document, texts ...string) memory.Added {
	t.Helper()
	a, err := db.AddVersion(t.Context(), s, memory.Version{Doc: d, Chunks: memChunks(texts...), Now: memEpoch})
	if err != nil {
		t.Fatalf("AddVersion: %v", err)
	}
	return a
}

func lexical(t *testing.T, db *sqlite.DB, s sanad.Scope, q memory.LexicalQuery) memory.LexicalResult {
	t.Helper()
	if q.Fields == (memory.FieldWeights{}) {
		q.Fields = memory.DefaultFields
	}
	if q.Limit == 0 {
		q.Limit = 1000
	}
	res, err := db.Lexical(t.Context(), s, q)
	if err != nil {
		t.Fatalf("Lexical: %v", err)
	}
	return res
}

func terms(words ...string) []memory.Term {
	out := make([]memory.Term, len(words))
	for i, w := range words {
		out[i] = memory.Term{Text: w, Weight: 1}
	}
	return out
}

// checkFTSRows: memory_stats counts the rows of memory_fts, which are the
// current chunks.
func checkFTSRows(t *testing.T, path string) {
	t.Helper()
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var stat, current, fts int
	raw.QueryRow(`SELECT fts_rows FROM memory_stats`).Scan(&stat)
	raw.QueryRow(`SELECT count(*) FROM memory_chunks WHERE status = 'current'`).Scan(&current)
	if err := raw.QueryRow(`SELECT count(*) FROM memory_fts_docsize`).Scan(&fts); err != nil {
		t.Fatal(err)
	}
	if stat != current || fts != current {
		t.Fatalf("memory_stats says %d rows, memory_fts holds %d, %d chunks are current", stat, fts, current)
	}
}

// TestMemoryBM25: scores are SQLite's bm25() as the formula gives it, with
// clause weights summed, and the bound is above every score.
func TestMemoryBM25(t *testing.T) {
	path := dbPath(t)
	db := openDB(t, path)
	// Eight rows of the same length (title "title dN" adds two words).
	addVersion(t, db, scope, memDoc("d1", "v", nil), "apple apple pear")
	addVersion(t, db, scope, memDoc("d2", "v", nil), "apple plum plum")
	for i, w := range []string{"fig", "kiwi", "lime", "date", "yuzu", "sloe"} {
		addVersion(t, db, scope, memDoc(fmt.Sprintf("d%d", i+3), "v", nil), strings.Repeat(w+" ", 3))
	}
	checkFTSRows(t, path)

	const n, k1 = 8.0, 1.2
	idf := func(hits float64) float64 { return math.Max(math.Log((n-hits+0.5)/(hits+0.5)), 1e-6) }
	part := func(f, hits float64) float64 { return idf(hits) * f * (k1 + 1) / (f + k1) } // every row of average length
	res := lexical(t, db, scope, memory.LexicalQuery{Terms: []memory.Term{{Text: "apple", Weight: 1}, {Text: "plum", Weight: 2.5}}})
	want := map[string]float64{"d1": part(2, 2), "d2": part(1, 2) + 2.5*part(2, 1)}
	if len(res.Hits) != 2 {
		t.Fatalf("hits %+v", res.Hits)
	}
	chunks, err := db.Chunks(t.Context(), scope, []int64{res.Hits[0].Key, res.Hits[1].Key})
	if err != nil {
		t.Fatal(err)
	}
	for i, h := range res.Hits {
		id := chunks[i].Doc.ID
		if math.Abs(h.TermScore-want[id]) > 1e-9 {
			t.Errorf("%s: score %v, want %v", id, h.TermScore, want[id])
		}
		if h.TermScore >= res.Bound {
			t.Errorf("%s: score %v not below the bound %v", id, h.TermScore, res.Bound)
		}
	}
	if wantBound := (idf(2) + 2.5*idf(1)) * (k1 + 1); math.Abs(res.Bound-wantBound) > 1e-9 {
		t.Errorf("bound %v, want %v", res.Bound, wantBound)
	}
	// A word no row holds adds nothing to the bound.
	if r := lexical(t, db, scope, memory.LexicalQuery{Terms: terms("apple", "durian")}); math.Abs(r.Bound-idf(2)*(k1+1)) > 1e-9 {
		t.Errorf("bound with an absent word %v, want %v", r.Bound, idf(2)*(k1+1))
	}
	// A phrase boost: only the row with the words adjacent and in order.
	r := lexical(t, db, scope, memory.LexicalQuery{Terms: terms("apple", "pear", "plum"),
		Phrases: []memory.Phrase{{Terms: []string{"apple", "pear"}, Weight: 0.5}, {Terms: []string{"pear", "apple"}, Weight: 0.5}}})
	for _, h := range r.Hits {
		c, _ := db.Chunks(t.Context(), scope, []int64{h.Key})
		if got := h.PhraseScore > 0; got != (c[0].Doc.ID == "d1") {
			t.Errorf("%s: phrase score %v", c[0].Doc.ID, h.PhraseScore)
		}
	}
	// A word half the rows hold has the floor idf, and still finds them
	// when the query has nothing else.
	for i := 9; i <= 12; i++ {
		addVersion(t, db, scope, memDoc(fmt.Sprintf("d%d", i), "v", nil), "apple fig sloe")
	}
	if r := lexical(t, db, scope, memory.LexicalQuery{Terms: terms("apple")}); len(r.Hits) != 6 {
		t.Errorf("a word half the rows hold, alone: %d hits, want 6", len(r.Hits))
	}
	if r := lexical(t, db, scope, memory.LexicalQuery{Terms: terms("apple", "plum")}); len(r.Hits) != 1 {
		t.Errorf("with a rarer word: %d hits, want the one with the rarer word", len(r.Hits))
	}
	if _, err := db.Lexical(t.Context(), scope, memory.LexicalQuery{Terms: terms("apple"), Phrases: []memory.Phrase{{Terms: []string{"apple", "fig"}, Weight: 1}}}); sanad.ErrorCode(err) != sanad.CodeInvalidInput {
		t.Errorf("a phrase of words outside the query: %v, want INVALID_INPUT", err)
	}
}

// TestMemoryScopes: nothing of one scope is visible from another, through
// any method.
func TestMemoryScopes(t *testing.T) {
	db := openDB(t, dbPath(t))
	other := sanad.Scope{Tenant: scope.Tenant, Case: "c2"}
	tenantWide := sanad.Scope{Tenant: scope.Tenant}
	d := memDoc("d1", "v1", nil)
	if _, err := db.AddVersion(t.Context(), scope, memory.Version{Doc: d, Chunks: memChunks("secret merger terms"), Now: memEpoch,
		Vectors: [][]float32{{1, 0}}, Model: "m@2"}); err != nil {
		t.Fatal(err)
	}
	addVersion(t, db, other, memDoc("d2", "v1", nil), "public merger notice")
	for _, s := range []sanad.Scope{other, tenantWide, {Tenant: "t2", Case: scope.Case}} {
		res := lexical(t, db, s, memory.LexicalQuery{Terms: terms("secret", "merger")})
		for _, h := range res.Hits {
			c, _ := db.Chunks(t.Context(), s, []int64{h.Key})
			if len(c) != 1 || strings.Contains(c[0].Chunk.Content, "secret") {
				t.Errorf("%v sees %+v", s, c)
			}
		}
		own := lexical(t, db, scope, memory.LexicalQuery{Terms: terms("secret")})
		if c, _ := db.Chunks(t.Context(), s, []int64{own.Hits[0].Key}); len(c) != 0 {
			t.Errorf("%v reads another scope's chunk by key", s)
		}
		if v, _ := db.Versions(t.Context(), s, "d1"); len(v) != 0 {
			t.Errorf("%v lists another scope's document", s)
		}
		if set, _ := db.Vectors(t.Context(), s, "m@2"); len(set.Keys) != 0 {
			t.Errorf("%v loads another scope's vectors", s)
		}
		if err := db.RemoveDocument(t.Context(), s, "d1", memEpoch); sanad.ErrorCode(err) != sanad.CodeNotFound {
			t.Errorf("%v removes another scope's document: %v", s, err)
		}
	}
	set, err := db.Vectors(t.Context(), scope, "m@2")
	if err != nil || len(set.Keys) != 1 || set.Dim != 2 || set.Docs[set.DocOf[0]].ID != "d1" {
		t.Fatalf("own vectors: %+v, %v", set, err)
	}
}

// TestMemoryVersionsKeepAudit: superseded and removed versions leave the
// full-text index and the counts, and keep their chunks.
func TestMemoryVersionsKeepAudit(t *testing.T) {
	path := dbPath(t)
	db := openDB(t, path)
	addVersion(t, db, scope, memDoc("d", "v1", nil), "first text", "second text")
	g1, _ := db.Generation(t.Context(), scope)
	a := addVersion(t, db, scope, memDoc("d", "v2", nil), "third text")
	if len(a.Superseded) != 1 {
		t.Fatalf("added %+v", a)
	}
	if g2, _ := db.Generation(t.Context(), scope); g2 == g1 {
		t.Errorf("generation unchanged by a write")
	}
	if u := addVersion(t, db, scope, memDoc("d", "v2", nil), "third text"); !u.Unchanged {
		t.Errorf("same version again: %+v", u)
	}
	checkFTSRows(t, path)
	if err := db.RemoveDocument(t.Context(), scope, "d", memEpoch); err != nil {
		t.Fatal(err)
	}
	checkFTSRows(t, path)
	if r := lexical(t, db, scope, memory.LexicalQuery{Terms: terms("text")}); len(r.Hits) != 0 {
		t.Errorf("removed chunks searched: %+v", r.Hits)
	}
	raw, _ := sql.Open("sqlite", path)
	defer raw.Close()
	var kept int
	raw.QueryRow(`SELECT count(*) FROM memory_chunks WHERE content LIKE '%text'`).Scan(&kept)
	if kept != 3 {
		t.Errorf("%d chunks kept, want 3", kept)
	}
	if r := addVersion(t, db, scope, memDoc("d", "v1", nil)); !r.Restored || r.Chunks != 2 {
		t.Errorf("restore: %+v", r)
	}
	checkFTSRows(t, path)
	vs, _ := db.Versions(t.Context(), scope, "d")
	if len(vs) != 2 || vs[0].Status != memory.StatusCurrent || vs[1].Status != memory.StatusRemoved {
		t.Errorf("versions %+v", vs)
	}
}

// TestMemoryFilterSQL: the store's filter keeps exactly the documents
// memory.Filter.Match keeps.
func TestMemoryFilterSQL(t *testing.T) {
	db := openDB(t, dbPath(t))
	metas := []map[string]any{
		{"author": "Ann", "tags": []any{"a", "b"}, "year": 2021.0},
		{"author": "Bo", "tags": []any{"b"}, "year": 2022.0, "signed": true},
		{"author": []any{"Ann", "Bo"}, "tags": "c", "signed": false},
		{"nested": map[string]any{"author": "Ann"}, "year": "2021"},
		{},
	}
	var docs []memory.Document
	for i, m := range metas {
		d := memDoc(fmt.Sprintf("d%d", i), "v", m)
		d.Ingested = memEpoch.Add(time.Duration(i) * 24 * time.Hour)
		d.SourceType = []string{memory.SourceLocal, memory.SourceWeb, memory.SourceGDrive}[i%3]
		d.Format = []string{"pdf", "html"}[i%2]
		addVersion(t, db, scope, d, "common words here")
		docs = append(docs, d)
	}
	for _, raw := range []map[string]any{
		{},
		{"author": "Ann"},
		{"author": []string{"Bo", "Cy"}},
		{"tags": "b"},
		{"tags": []string{"c", "a"}},
		{"year": 2021},
		{"year": "2021"},
		{"signed": true},
		{"signed": false},
		{"signed": "true"},
		{"nested": "Ann"},
		{"source_type": "web"},
		{"source_type": []string{"gdrive", "local"}, "format": "pdf"},
		{"document_id": []string{"d1", "d3"}},
		{"source": "/d2"},
		{"ingested_after": memEpoch.Add(24 * time.Hour)},
		{"ingested_before": memEpoch.Add(48 * time.Hour)},
		{"ingested_after": "2025-01-02", "ingested_before": "2025-01-04", "tags": "b"},
		{"missing": "x"},
	} {
		f, err := memory.ParseFilters(raw)
		if err != nil {
			t.Fatalf("%v: %v", raw, err)
		}
		var want []string
		for i := range docs {
			if f.Match(&docs[i]) {
				want = append(want, docs[i].ID)
			}
		}
		res := lexical(t, db, scope, memory.LexicalQuery{Terms: terms("common"), Filter: f})
		var keys []int64
		for _, h := range res.Hits {
			keys = append(keys, h.Key)
		}
		chunks, err := db.Chunks(t.Context(), scope, keys)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range chunks {
			got = append(got, c.Doc.ID)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("filter %v: store kept %v, Match keeps %v", raw, got, want)
		}
	}
}

// TestMemoryScopeCheckedTwice: a full-text row that carries the scope's
// word but belongs to another scope (what a hash collision would give) is
// still kept out by the check on memory_chunks, and the ranking still
// returns as many of the scope's own chunks as asked.
func TestMemoryScopeCheckedTwice(t *testing.T) {
	path := dbPath(t)
	db := openDB(t, path)
	other := sanad.Scope{Tenant: scope.Tenant, Case: "c2"}
	addVersion(t, db, scope, memDoc("own", "v", nil), "merger talks", "merger terms", "merger close")
	addVersion(t, db, other, memDoc("theirs", "v", nil), "merger merger merger secret")
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var key int64
	if err := raw.QueryRow(`SELECT id FROM memory_chunks WHERE content LIKE '%secret'`).Scan(&key); err != nil {
		t.Fatal(err)
	}
	var id int64
	if err := raw.QueryRow(`SELECT id FROM memory_scope_ids WHERE tenant = ? AND case_id = ?`, scope.Tenant, scope.Case).Scan(&id); err != nil {
		t.Fatal(err)
	}
	token := fmt.Sprintf("%020d", id)
	if _, err := raw.Exec(`DELETE FROM memory_fts WHERE rowid = ?`, key); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`INSERT INTO memory_fts (rowid, content, headings, title, scope) VALUES (?, 'merger merger merger secret', '', '', ?)`, key, token); err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int{1, 2, 10} {
		res := lexical(t, db, scope, memory.LexicalQuery{Terms: terms("merger"), Limit: limit})
		if want := min(limit, 3); len(res.Hits) != want {
			t.Errorf("limit %d: %d hits, want %d", limit, len(res.Hits), want)
		}
		for _, h := range res.Hits {
			if h.Key == key {
				t.Errorf("limit %d: another scope's chunk returned", limit)
			}
		}
	}
}

// TestMigrateMemoryScopeWord: a store of schema version 6, whose full-text
// table had no scope column, migrates to one whose rows carry their scope's
// word, holding the same current chunks with their headings and titles.
func TestMigrateMemoryScopeWord(t *testing.T) {
	path := dbPath(t)
	db := openDB(t, path)
	other := sanad.Scope{Tenant: scope.Tenant, Case: "c2"}
	v1 := memory.Version{Doc: memDoc("d", "v1", nil), Chunks: memChunks("old wording"), Now: memEpoch}
	if _, err := db.AddVersion(t.Context(), scope, v1); err != nil {
		t.Fatal(err)
	}
	v2 := memory.Version{Doc: memDoc("d", "v2", nil), Chunks: memChunks("indemnity clause", "payment schedule"), Now: memEpoch}
	v2.Chunks[1].Headings = []string{"Annex", "Fees"}
	if _, err := db.AddVersion(t.Context(), scope, v2); err != nil {
		t.Fatal(err)
	}
	addVersion(t, db, other, memDoc("e", "v1", nil), "indemnity cap")
	// Rows elsewhere, so that no searched word is in half of them (BM25's
	// floor: such a word is not searched when the query has a rarer one).
	addVersion(t, db, sanad.Scope{Tenant: "t2"}, memDoc("g", "v1", nil), "lorem", "ipsum", "dolor", "sit", "amet")
	db.Close()

	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		`DROP TABLE memory_fts`,
		`DROP TABLE memory_scope_ids`,
		`CREATE VIRTUAL TABLE memory_fts USING fts5 (content, headings, title, content = '', contentless_delete = 1,
			tokenize = 'porter unicode61 remove_diacritics 2')`,
		`INSERT INTO memory_fts (rowid, content, headings, title) SELECT c.id, c.content, '', d.title
			FROM memory_chunks c JOIN memory_documents d ON d.id = c.doc WHERE c.status = 'current'`,
		`PRAGMA user_version = 6`,
	} {
		if _, err := raw.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	raw.Close()

	db = openDB(t, path)
	checkFTSRows(t, path)
	find := func(s sanad.Scope, words ...string) []string {
		res := lexical(t, db, s, memory.LexicalQuery{Terms: terms(words...)})
		var got []string
		for _, h := range res.Hits {
			c, _ := db.Chunks(t.Context(), s, []int64{h.Key})
			got = append(got, c[0].Chunk.Content)
		}
		slices.Sort(got)
		return got
	}
	if got := find(scope, "indemnity", "wording", "fees"); !slices.Equal(got, []string{"indemnity clause", "payment schedule"}) {
		t.Errorf("after the migration, scope c1 finds %q", got)
	}
	if got := find(other, "indemnity"); !slices.Equal(got, []string{"indemnity cap"}) {
		t.Errorf("after the migration, scope c2 finds %q", got)
	}
	addVersion(t, db, other, memDoc("f", "v1", nil), "indemnity again")
	if got := find(other, "indemnity"); len(got) != 2 {
		t.Errorf("a version added after the migration: %q", got)
	}
	checkFTSRows(t, path)
}
