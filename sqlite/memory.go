package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/memory"
)

var _ memory.Store = (*DB)(nil)

// BM25 constants of SQLite's bm25() (fts5_aux.c).
const (
	bm25K1      = 1.2
	bm25MinIDF  = 1e-6
	memTimeForm = "2006-01-02T15:04:05.000000000Z" // fixed width: text order is time order
)

// scopeWord is the word memory_fts's scope column holds for the scope
// numbered id in memory_scope_ids (migration 0007): 20 decimal digits.
func scopeWord(id int64) string { return fmt.Sprintf("%020d", id) }

// scopeID returns the number of scope, numbering it first when create is
// set; 0 when it has none.
func scopeID(ctx context.Context, tx *sql.Tx, scope sanad.Scope, create bool) (int64, error) {
	if create {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO memory_scope_ids (tenant, case_id) VALUES (?, ?)`, scope.Tenant, scope.Case); err != nil {
			return 0, err
		}
	}
	var id int64
	err := tx.QueryRowContext(ctx, `SELECT id FROM memory_scope_ids WHERE tenant = ? AND case_id = ?`, scope.Tenant, scope.Case).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return id, err
}

// textColumns restricts an FTS5 expression to the columns of text.
const textColumns = "{content headings title} : "

func memTime(t time.Time) string { return t.UTC().Format(memTimeForm) }

func parseMemTime(s string) time.Time {
	t, _ := time.Parse(memTimeForm, s)
	return t
}

// AddVersion implements [memory.Store]: one write transaction.
func (db *DB) AddVersion(ctx context.Context, scope sanad.Scope, v memory.Version) (memory.Added, error) {
	const op = "sqlite.memory_add"
	if db.write == nil {
		return memory.Added{}, sanad.Errorf(sanad.CodeInvalidInput, op, "the store is open read-only")
	}
	d := &v.Doc
	out := memory.Added{DocumentID: d.ID, Version: d.Version, Chunks: len(v.Chunks)}
	meta, err := json.Marshal(d.Metadata)
	if err != nil || len(d.Metadata) == 0 {
		meta = []byte("{}")
	}
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return out, classify(err, op, "begin")
	}
	defer tx.Rollback()

	var id int64
	var status string
	var chunks int
	err = tx.QueryRowContext(ctx, `SELECT id, status, chunks FROM memory_documents
		WHERE tenant = ? AND case_id = ? AND doc_id = ? AND version = ?`,
		scope.Tenant, scope.Case, d.ID, d.Version).Scan(&id, &status, &chunks)
	found := err == nil
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return out, classify(err, op, "read version")
	}
	if found && status == string(memory.StatusCurrent) {
		out.Unchanged, out.Chunks = true, chunks
		return out, nil
	}
	sid, err := scopeID(ctx, tx, scope, true)
	if err != nil {
		return out, classify(err, op, "number the scope")
	}
	word := scopeWord(sid)
	delta := 0
	rows, err := tx.QueryContext(ctx, `SELECT id, version FROM memory_documents
		WHERE tenant = ? AND case_id = ? AND doc_id = ? AND status = 'current'`, scope.Tenant, scope.Case, d.ID)
	if err != nil {
		return out, classify(err, op, "read current version")
	}
	var old []int64
	for rows.Next() {
		var oid int64
		var ov string
		if err := rows.Scan(&oid, &ov); err != nil {
			rows.Close()
			return out, classify(err, op, "read current version")
		}
		old = append(old, oid)
		out.Superseded = append(out.Superseded, ov)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return out, classify(err, op, "read current version")
	}
	for _, oid := range old {
		n, err := withdraw(ctx, tx, oid, memory.StatusSuperseded, v.Now)
		if err != nil {
			return out, err
		}
		delta -= n
	}
	if found {
		n, err := restore(ctx, tx, word, id, v.Now)
		if err != nil {
			return out, err
		}
		delta += n
		out.Restored, out.Chunks = true, n
	} else {
		if err := insertVersion(ctx, tx, scope, word, &v, string(meta)); err != nil {
			return out, err
		}
		delta += len(v.Chunks)
	}
	if err := bump(ctx, tx, scope, delta); err != nil {
		return out, err
	}
	if err := tx.Commit(); err != nil {
		return out, classify(err, op, "commit")
	}
	return out, nil
}

func insertVersion(ctx context.Context, tx *sql.Tx, scope sanad.Scope, word string, v *memory.Version, meta string) error {
	const op = "sqlite.memory_add"
	d := &v.Doc
	now := memTime(v.Now)
	var docID int64
	err := tx.QueryRowContext(ctx, `INSERT INTO memory_documents (tenant, case_id, doc_id, version, status,
		source, source_type, source_url, title, format, pages, ingested, metadata, chunks, added, changed)
		VALUES (?, ?, ?, ?, 'current', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		scope.Tenant, scope.Case, d.ID, d.Version, d.Source, d.SourceType, d.SourceURL, d.Title, d.Format, d.Pages,
		memTime(d.Ingested), meta, len(v.Chunks), now, now).Scan(&docID)
	if err != nil {
		return classify(err, op, "insert document")
	}
	insChunk, err := tx.PrepareContext(ctx, `INSERT INTO memory_chunks (doc, tenant, case_id, status, chunk_id, idx,
		content, headings, layout_type, page, page_end, start, end_, bbox)
		VALUES (?, ?, ?, 'current', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return classify(err, op, "prepare")
	}
	defer insChunk.Close()
	insFTS, err := tx.PrepareContext(ctx, `INSERT INTO memory_fts (rowid, content, headings, title, scope) VALUES (?, ?, ?, ?, ?)`)
	if err != nil {
		return classify(err, op, "prepare")
	}
	defer insFTS.Close()
	var insVec *sql.Stmt
	if v.Vectors != nil {
		if insVec, err = tx.PrepareContext(ctx, `INSERT INTO memory_vectors (chunk, model, vec) VALUES (?, ?, ?)`); err != nil {
			return classify(err, op, "prepare")
		}
		defer insVec.Close()
	}
	for i := range v.Chunks {
		c := &v.Chunks[i]
		headings, _ := json.Marshal(c.Headings)
		if c.Headings == nil {
			headings = []byte("[]")
		}
		bbox := ""
		if c.BBox != nil {
			b, _ := json.Marshal(c.BBox)
			bbox = string(b)
		}
		res, err := insChunk.ExecContext(ctx, docID, scope.Tenant, scope.Case, c.ID, c.Index, c.Content, string(headings),
			c.LayoutType, c.Page, c.PageEnd, c.Start, c.End, bbox)
		if err != nil {
			return classify(err, op, "insert chunk")
		}
		key, err := res.LastInsertId()
		if err != nil {
			return classify(err, op, "insert chunk")
		}
		if _, err := insFTS.ExecContext(ctx, key, c.Content, strings.Join(c.Headings, "\n"), d.Title, word); err != nil {
			return classify(err, op, "index chunk")
		}
		if insVec != nil && i < len(v.Vectors) && v.Vectors[i] != nil {
			if _, err := insVec.ExecContext(ctx, key, v.Model, encodeVector(v.Vectors[i])); err != nil {
				return classify(err, op, "insert vector")
			}
		}
	}
	return nil
}

// withdraw takes a current version out of the full-text index and gives it
// and its chunks status; it returns how many rows left memory_fts.
func withdraw(ctx context.Context, tx *sql.Tx, doc int64, status memory.Status, now time.Time) (int, error) {
	const op = "sqlite.memory_withdraw"
	keys, err := queryInts(ctx, tx, `SELECT id FROM memory_chunks WHERE doc = ? AND status = 'current'`, doc)
	if err != nil {
		return 0, classify(err, op, "read chunks")
	}
	del, err := tx.PrepareContext(ctx, `DELETE FROM memory_fts WHERE rowid = ?`)
	if err != nil {
		return 0, classify(err, op, "prepare")
	}
	defer del.Close()
	for _, k := range keys {
		if _, err := del.ExecContext(ctx, k); err != nil {
			return 0, classify(err, op, "unindex chunk")
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE memory_chunks SET status = ? WHERE doc = ?`, string(status), doc); err != nil {
		return 0, classify(err, op, "update chunks")
	}
	if _, err := tx.ExecContext(ctx, `UPDATE memory_documents SET status = ?, changed = ? WHERE id = ?`, string(status), memTime(now), doc); err != nil {
		return 0, classify(err, op, "update document")
	}
	return len(keys), nil
}

// restore makes a withdrawn version current again; it returns how many
// rows it put back into memory_fts.
func restore(ctx context.Context, tx *sql.Tx, word string, doc int64, now time.Time) (int, error) {
	const op = "sqlite.memory_restore"
	rows, err := tx.QueryContext(ctx, `SELECT c.id, c.content, c.headings, d.title FROM memory_chunks c
		JOIN memory_documents d ON d.id = c.doc WHERE c.doc = ? ORDER BY c.idx`, doc)
	if err != nil {
		return 0, classify(err, op, "read chunks")
	}
	type row struct {
		key                      int64
		content, headings, title string
	}
	var all []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.key, &r.content, &r.headings, &r.title); err != nil {
			rows.Close()
			return 0, classify(err, op, "read chunks")
		}
		all = append(all, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, classify(err, op, "read chunks")
	}
	ins, err := tx.PrepareContext(ctx, `INSERT INTO memory_fts (rowid, content, headings, title, scope) VALUES (?, ?, ?, ?, ?)`)
	if err != nil {
		return 0, classify(err, op, "prepare")
	}
	defer ins.Close()
	for _, r := range all {
		var hs []string
		_ = json.Unmarshal([]byte(r.headings), &hs)
		if _, err := ins.ExecContext(ctx, r.key, r.content, strings.Join(hs, "\n"), r.title, word); err != nil {
			return 0, classify(err, op, "index chunk")
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE memory_chunks SET status = 'current' WHERE doc = ?`, doc); err != nil {
		return 0, classify(err, op, "update chunks")
	}
	if _, err := tx.ExecContext(ctx, `UPDATE memory_documents SET status = 'current', changed = ? WHERE id = ?`, memTime(now), doc); err != nil {
		return 0, classify(err, op, "update document")
	}
	return len(all), nil
}

// bump records a write to scope's index that changed memory_fts by delta
// rows.
func bump(ctx context.Context, tx *sql.Tx, scope sanad.Scope, delta int) error {
	const op = "sqlite.memory_bump"
	if _, err := tx.ExecContext(ctx, `UPDATE memory_stats SET fts_rows = fts_rows + ? WHERE id = 1`, delta); err != nil {
		return classify(err, op, "update stats")
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO memory_scopes (tenant, case_id, generation) VALUES (?, ?, 1)
		ON CONFLICT (tenant, case_id) DO UPDATE SET generation = generation + 1`, scope.Tenant, scope.Case)
	return classify(err, op, "update scope")
}

func queryInts(ctx context.Context, tx *sql.Tx, q string, args ...any) ([]int64, error) {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var k int64
		if err := rows.Scan(&k); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// RemoveDocument implements [memory.Store].
func (db *DB) RemoveDocument(ctx context.Context, scope sanad.Scope, docID string, now time.Time) error {
	const op = "sqlite.memory_remove"
	if db.write == nil {
		return sanad.Errorf(sanad.CodeInvalidInput, op, "the store is open read-only")
	}
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return classify(err, op, "begin")
	}
	defer tx.Rollback()
	ids, err := queryInts(ctx, tx, `SELECT id FROM memory_documents WHERE tenant = ? AND case_id = ? AND doc_id = ? AND status = 'current'`,
		scope.Tenant, scope.Case, docID)
	if err != nil {
		return classify(err, op, "read document")
	}
	if len(ids) == 0 {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM memory_documents WHERE tenant = ? AND case_id = ? AND doc_id = ?`,
			scope.Tenant, scope.Case, docID).Scan(&n); err != nil {
			return classify(err, op, "read document")
		}
		if n == 0 {
			return sanad.Errorf(sanad.CodeNotFound, op, "document %q is not indexed in %s", docID, scope)
		}
		return nil // already removed
	}
	delta := 0
	for _, id := range ids {
		n, err := withdraw(ctx, tx, id, memory.StatusRemoved, now)
		if err != nil {
			return err
		}
		delta -= n
	}
	if err := bump(ctx, tx, scope, delta); err != nil {
		return err
	}
	return classify(tx.Commit(), op, "commit")
}

const docCols = `d.id, d.doc_id, d.version, d.status, d.source, d.source_type, d.source_url, d.title, d.format,
	d.pages, d.ingested, d.metadata, d.chunks, d.added, d.changed`

type scanner interface{ Scan(dest ...any) error }

func scanDoc(s scanner, extra ...any) (int64, memory.DocumentInfo, error) {
	var id int64
	var info memory.DocumentInfo
	var status, ingested, meta, added, changed string
	d := &info.Document
	dest := append([]any{&id, &d.ID, &d.Version, &status, &d.Source, &d.SourceType, &d.SourceURL, &d.Title, &d.Format,
		&d.Pages, &ingested, &meta, &info.Chunks, &added, &changed}, extra...)
	if err := s.Scan(dest...); err != nil {
		return 0, info, err
	}
	info.Status = memory.Status(status)
	d.Ingested, info.Added, info.Changed = parseMemTime(ingested), parseMemTime(added), parseMemTime(changed)
	if err := json.Unmarshal([]byte(meta), &d.Metadata); err != nil {
		return 0, info, sanad.Wrap(err, sanad.CodeIntegrity, "sqlite.memory", "stored document metadata is not JSON")
	}
	return id, info, nil
}

// Versions implements [memory.Store].
func (db *DB) Versions(ctx context.Context, scope sanad.Scope, docID string) ([]memory.DocumentInfo, error) {
	const op = "sqlite.memory_versions"
	q := `SELECT ` + docCols + ` FROM memory_documents d WHERE d.tenant = ? AND d.case_id = ?`
	args := []any{scope.Tenant, scope.Case}
	if docID != "" {
		q += ` AND d.doc_id = ?`
		args = append(args, docID)
	}
	rows, err := db.read.QueryContext(ctx, q+` ORDER BY d.doc_id, d.id`, args...)
	if err != nil {
		return nil, classify(err, op, "query")
	}
	defer rows.Close()
	var out []memory.DocumentInfo
	for rows.Next() {
		_, info, err := scanDoc(rows)
		if err != nil {
			return nil, classify(err, op, "scan")
		}
		out = append(out, info)
	}
	return out, classify(rows.Err(), op, "read")
}

// Generation implements [memory.Store].
func (db *DB) Generation(ctx context.Context, scope sanad.Scope) (int64, error) {
	var g int64
	err := db.read.QueryRowContext(ctx, `SELECT generation FROM memory_scopes WHERE tenant = ? AND case_id = ?`, scope.Tenant, scope.Case).Scan(&g)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return g, classify(err, "sqlite.memory_generation", "query")
}

// Chunks implements [memory.Store]: current chunks only.
func (db *DB) Chunks(ctx context.Context, scope sanad.Scope, keys []int64) ([]memory.StoredChunk, error) {
	const op = "sqlite.memory_chunks"
	if len(keys) == 0 {
		return nil, nil
	}
	args := []any{scope.Tenant, scope.Case}
	for _, k := range keys {
		args = append(args, k)
	}
	rows, err := db.read.QueryContext(ctx, `SELECT `+docCols+`, c.id, c.chunk_id, c.idx, c.content, c.headings, c.layout_type,
		c.page, c.page_end, c.start, c.end_, c.bbox
		FROM memory_chunks c JOIN memory_documents d ON d.id = c.doc
		WHERE c.tenant = ? AND c.case_id = ? AND c.status = 'current' AND c.id IN (`+placeholders(len(keys))+`)`, args...)
	if err != nil {
		return nil, classify(err, op, "query")
	}
	defer rows.Close()
	byKey := map[int64]memory.StoredChunk{}
	for rows.Next() {
		var s memory.StoredChunk
		var headings, bbox string
		c := &s.Chunk
		_, info, err := scanDoc(rows, &s.Key, &c.ID, &c.Index, &c.Content, &headings, &c.LayoutType,
			&c.Page, &c.PageEnd, &c.Start, &c.End, &bbox)
		if err != nil {
			return nil, classify(err, op, "scan")
		}
		s.Doc = info.Document
		if err := json.Unmarshal([]byte(headings), &c.Headings); err != nil {
			return nil, sanad.Wrap(err, sanad.CodeIntegrity, op, "stored chunk headings are not JSON")
		}
		if len(c.Headings) == 0 {
			c.Headings = nil
		}
		if bbox != "" {
			if err := json.Unmarshal([]byte(bbox), &c.BBox); err != nil {
				return nil, sanad.Wrap(err, sanad.CodeIntegrity, op, "stored chunk box is not JSON")
			}
		}
		byKey[s.Key] = s
	}
	if err := rows.Err(); err != nil {
		return nil, classify(err, op, "read")
	}
	out := make([]memory.StoredChunk, 0, len(byKey))
	for _, k := range keys {
		if s, ok := byKey[k]; ok {
			out = append(out, s)
		}
	}
	return out, nil
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// Vectors implements [memory.Store].
func (db *DB) Vectors(ctx context.Context, scope sanad.Scope, model string) (*memory.VectorSet, error) {
	const op = "sqlite.memory_vectors"
	tx, err := db.read.BeginTx(ctx, nil)
	if err != nil {
		return nil, classify(err, op, "begin")
	}
	defer tx.Rollback()
	set := &memory.VectorSet{}
	err = tx.QueryRowContext(ctx, `SELECT generation FROM memory_scopes WHERE tenant = ? AND case_id = ?`, scope.Tenant, scope.Case).Scan(&set.Generation)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, classify(err, op, "query")
	}
	rows, err := tx.QueryContext(ctx, `SELECT `+docCols+` FROM memory_documents d
		WHERE d.tenant = ? AND d.case_id = ? AND d.status = 'current'`, scope.Tenant, scope.Case)
	if err != nil {
		return nil, classify(err, op, "query documents")
	}
	docIndex := map[int64]int32{}
	for rows.Next() {
		id, info, err := scanDoc(rows)
		if err != nil {
			rows.Close()
			return nil, classify(err, op, "scan document")
		}
		docIndex[id] = int32(len(set.Docs))
		set.Docs = append(set.Docs, info.Document)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, classify(err, op, "read documents")
	}
	rows, err = tx.QueryContext(ctx, `SELECT c.id, c.doc, v.vec FROM memory_chunks c
		JOIN memory_vectors v ON v.model = ? AND v.chunk = c.id
		WHERE c.tenant = ? AND c.case_id = ? AND c.status = 'current' ORDER BY c.id`, model, scope.Tenant, scope.Case)
	if err != nil {
		return nil, classify(err, op, "query vectors")
	}
	defer rows.Close()
	for rows.Next() {
		var key, doc int64
		var blob []byte
		if err := rows.Scan(&key, &doc, &blob); err != nil {
			return nil, classify(err, op, "scan vector")
		}
		di, ok := docIndex[doc]
		if !ok || len(blob)%4 != 0 || len(blob) == 0 || set.Dim != 0 && len(blob) != 4*set.Dim {
			return nil, sanad.Errorf(sanad.CodeIntegrity, op, "the vector of chunk %d is malformed (%d bytes)", key, len(blob))
		}
		if set.Dim == 0 {
			set.Dim = len(blob) / 4
		}
		set.Keys = append(set.Keys, key)
		set.DocOf = append(set.DocOf, di)
		for i := 0; i < len(blob); i += 4 {
			set.Data = append(set.Data, math.Float32frombits(binary.LittleEndian.Uint32(blob[i:])))
		}
	}
	return set, classify(rows.Err(), op, "read vectors")
}

func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// ftsQuote makes s one FTS5 string: whatever it holds, it is a phrase of
// the words the tokenizer finds in it, never query syntax.
func ftsQuote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// ftsPhrase is the FTS5 form of a proximity clause.
func ftsPhrase(p memory.Phrase) string {
	if p.Near <= 0 {
		return ftsQuote(strings.Join(p.Terms, " "))
	}
	quoted := make([]string, len(p.Terms))
	for i, t := range p.Terms {
		quoted[i] = ftsQuote(t)
	}
	return "NEAR(" + strings.Join(quoted, " ") + ", " + strconv.Itoa(p.Near) + ")"
}

// Lexical implements [memory.Store] with SQLite's FTS5 and its bm25().
//
// BM25 is a sum over the query's phrases, each part depending only on its
// phrase and the row. Clauses of the same weight are one FTS5 query (an OR
// of them), whose bm25() is multiplied by the weight; a row's score is the
// sum of its groups' scores: what one query of every clause would give,
// weighted. Every term and phrase is quoted: no query text is FTS5 syntax.
//
// A first statement counts the rows each term and exact phrase matches
// (bm25()'s n of the idf, for the bound) and reads N from memory_stats; the
// ranking runs in the same read transaction. A term that half the rows or
// more hold gets bm25()'s floor idf, 1e-6: it can add at most 2.2e-6 times
// its weight to a score, so it is left out of the ranking query (unless
// every term is such a word), which spares scoring most of the table for a
// word like "the".
func (db *DB) Lexical(ctx context.Context, scope sanad.Scope, q memory.LexicalQuery) (memory.LexicalResult, error) {
	const op = "sqlite.memory_lexical"
	var res memory.LexicalResult
	if len(q.Terms) == 0 {
		return res, nil
	}
	isTerm := map[string]bool{}
	for _, t := range q.Terms {
		isTerm[t.Text] = true
	}
	for _, p := range q.Phrases {
		for _, t := range p.Terms {
			if !isTerm[t] {
				return res, sanad.Errorf(sanad.CodeInvalidInput, op, "phrase word %q is not a term of the query", t)
			}
		}
	}
	tx, err := db.read.BeginTx(ctx, nil)
	if err != nil {
		return res, classify(err, op, "begin")
	}
	defer tx.Rollback()
	sid, err := scopeID(ctx, tx, scope, false)
	if err != nil {
		return res, classify(err, op, "read scope")
	}
	if sid == 0 {
		return res, nil // nothing was ever indexed in scope
	}

	// How many rows hold each term and exact phrase, and N.
	n := map[string]float64{}
	var counted []string
	for _, t := range q.Terms {
		counted = append(counted, ftsQuote(t.Text))
	}
	for _, p := range q.Phrases {
		if p.Near <= 0 {
			counted = append(counted, ftsPhrase(p))
		}
	}
	var b strings.Builder
	args := make([]any, 0, len(counted))
	b.WriteString(`SELECT -1, fts_rows FROM memory_stats WHERE id = 1`)
	for i, c := range counted {
		b.WriteString(` UNION ALL SELECT ` + strconv.Itoa(i) + `, (SELECT count(*) FROM memory_fts WHERE memory_fts MATCH ?)`)
		args = append(args, textColumns+c)
	}
	rows, err := tx.QueryContext(ctx, b.String(), args...)
	if err != nil {
		return res, classify(err, op, "count")
	}
	var nRow float64
	for rows.Next() {
		var i int
		var v float64
		if err := rows.Scan(&i, &v); err != nil {
			rows.Close()
			return res, classify(err, op, "count")
		}
		if i < 0 {
			nRow = v
		} else {
			n[counted[i]] = v
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return res, classify(err, op, "count")
	}
	// bm25()'s idf: ln((N - n + 0.5) / (n + 0.5)), at least 1e-6.
	idf := func(m float64) float64 { return max(math.Log((nRow-m+0.5)/(m+0.5)), bm25MinIDF) }

	// The bound: weight·idf·(k1+1) for every term, every exact phrase and
	// every word of a NEAR clause that some row holds (a clause no row holds
	// adds nothing any row could score).
	for _, t := range q.Terms {
		if m := n[ftsQuote(t.Text)]; m > 0 {
			res.Bound += t.Weight * idf(m) * (bm25K1 + 1)
		}
	}
	for _, p := range q.Phrases {
		if p.Near <= 0 {
			if m := n[ftsPhrase(p)]; m > 0 {
				res.Bound += p.Weight * idf(m) * (bm25K1 + 1)
			}
			continue
		}
		for _, t := range p.Terms {
			if m := n[ftsQuote(t)]; m > 0 {
				res.Bound += p.Weight * idf(m) * (bm25K1 + 1)
			}
		}
	}

	// The ranking: groups of clauses of one weight, terms first.
	var groups []*group
	at := map[[2]any]*group{}
	addTo := func(phrase bool, w float64, clause string) {
		g := at[[2]any{phrase, w}]
		if g == nil {
			g = &group{phrase: phrase, weight: w}
			at[[2]any{phrase, w}] = g
			groups = append(groups, g)
		}
		g.clauses = append(g.clauses, clause)
	}
	allCommon := true
	for _, t := range q.Terms {
		if m := n[ftsQuote(t.Text)]; m > 0 && idf(m) > bm25MinIDF {
			allCommon = false
		}
	}
	for _, t := range q.Terms {
		c := ftsQuote(t.Text)
		if m := n[c]; m > 0 && (allCommon || idf(m) > bm25MinIDF) {
			addTo(false, t.Weight, c)
		}
	}
	if len(groups) == 0 {
		return res, nil // no row holds any term
	}
	for _, p := range q.Phrases {
		if c := ftsPhrase(p); p.Near > 0 || n[c] > 0 {
			addTo(true, p.Weight, c)
		}
	}
	hits, complete, err := rank(ctx, tx, scope, scopeWord(sid), q, groups, true)
	if err == nil && !complete {
		hits, _, err = rank(ctx, tx, scope, scopeWord(sid), q, groups, false)
	}
	res.Hits = hits
	return res, err
}

// group is clauses of one weight, ORed in one FTS5 query.
type group struct {
	phrase  bool
	weight  float64
	clauses []string
}

// rank runs the ranking query. Each group's FTS5 query is limited to the
// scope's word, so that only the scope's rows are scored. With capped, and
// no document filter, only the best q.Limit rows are looked up in
// memory_chunks (the word being the scope's, they are the scope's, but
// the lookup checks): complete is false when one of them failed the check,
// and the caller runs the query again uncapped.
func rank(ctx context.Context, tx *sql.Tx, scope sanad.Scope, word string, q memory.LexicalQuery, groups []*group, capped bool) (hits []memory.LexicalHit, complete bool, err error) {
	const op = "sqlite.memory_lexical"
	capped = capped && q.Filter.Empty()
	limit := max(q.Limit, 1)
	f := q.Fields
	var b strings.Builder
	var args []any
	within := `scope : ` + ftsQuote(word) + ` AND (` + textColumns
	bm25 := func(g *group, kind string) {
		b.WriteString(`SELECT rowid AS id, ` + kind + `-bm25(memory_fts, ?, ?, ?, 0) * ? AS s FROM memory_fts WHERE memory_fts MATCH ?`)
		args = append(args, f.Content, f.Headings, f.Title, g.weight, within+`(`+strings.Join(g.clauses, " OR ")+`))`)
	}
	if len(groups) == 1 {
		b.WriteString(`WITH r AS (SELECT id, s AS ts, 0.0 AS ps FROM (`)
		bm25(groups[0], "")
		b.WriteString(`)`)
	} else {
		b.WriteString(`WITH g AS (`)
		for i, g := range groups {
			if i > 0 {
				b.WriteString(` UNION ALL `)
			}
			bm25(g, map[bool]string{false: "0 AS k, ", true: "1 AS k, "}[g.phrase])
		}
		b.WriteString(`), r AS (SELECT id, sum(iif(k = 0, s, 0.0)) AS ts, sum(iif(k = 1, s, 0.0)) AS ps FROM g GROUP BY id`)
	}
	if capped {
		b.WriteString(` ORDER BY ts + ps DESC, id LIMIT ?`)
		args = append(args, limit)
	}
	b.WriteString(`)`)
	if capped {
		b.WriteString(` SELECT r.id, r.ts, r.ps, c.id IS NOT NULL AND c.tenant = ? AND c.case_id = ? AND c.status = 'current'
			FROM r LEFT JOIN memory_chunks c ON c.id = r.id ORDER BY r.ts + r.ps DESC, r.id`)
		args = append(args, scope.Tenant, scope.Case)
	} else {
		b.WriteString(` SELECT c.id, r.ts, r.ps, 1 FROM r JOIN memory_chunks c ON c.id = r.id`)
		if !q.Filter.Empty() {
			b.WriteString(` JOIN memory_documents d ON d.id = c.doc`)
		}
		b.WriteString(` WHERE c.tenant = ? AND c.case_id = ? AND c.status = 'current'`)
		args = append(args, scope.Tenant, scope.Case)
		args = filterSQL(&b, q.Filter, args)
		b.WriteString(` ORDER BY r.ts + r.ps DESC, c.id LIMIT ?`)
		args = append(args, limit)
	}
	rows, err := tx.QueryContext(ctx, b.String(), args...)
	if err != nil {
		return nil, false, classify(err, op, "query")
	}
	defer rows.Close()
	complete = true
	for rows.Next() {
		var h memory.LexicalHit
		var ok bool
		if err := rows.Scan(&h.Key, &h.TermScore, &h.PhraseScore, &ok); err != nil {
			return nil, false, classify(err, op, "scan")
		}
		if !ok {
			complete = false
			continue
		}
		hits = append(hits, h)
	}
	return hits, complete, classify(rows.Err(), op, "read")
}

// filterSQL appends to b the conditions of f on the documents aliased d,
// and their arguments to args. It follows memory.Filter.Match.
func filterSQL(b *strings.Builder, f memory.Filter, args []any) []any {
	in := func(col string, vals []string) {
		if len(vals) == 0 {
			return
		}
		b.WriteString(` AND ` + col + ` IN (` + placeholders(len(vals)) + `)`)
		for _, v := range vals {
			args = append(args, v)
		}
	}
	in("d.source_type", f.SourceTypes)
	in("d.doc_id", f.DocumentIDs)
	in("d.format", f.Formats)
	in("d.source", f.Sources)
	if !f.IngestedAfter.IsZero() {
		b.WriteString(` AND d.ingested >= ?`)
		args = append(args, memTime(f.IngestedAfter))
	}
	if !f.IngestedBefore.IsZero() {
		b.WriteString(` AND d.ingested < ?`)
		args = append(args, memTime(f.IngestedBefore))
	}
	for _, k := range f.MetadataKeys() {
		var strs, nums []any
		var bools []string
		for _, v := range f.Metadata[k] {
			switch v := v.(type) {
			case string:
				strs = append(strs, v)
			case float64:
				nums = append(nums, v)
			case bool:
				bools = append(bools, strconv.FormatBool(v))
			}
		}
		match := func(x string) {
			b.WriteString(`(0`)
			if len(strs) > 0 {
				b.WriteString(` OR ` + x + `.type = 'text' AND ` + x + `.atom IN (` + placeholders(len(strs)) + `)`)
				args = append(args, strs...)
			}
			if len(nums) > 0 {
				b.WriteString(` OR ` + x + `.type IN ('integer', 'real') AND ` + x + `.atom IN (` + placeholders(len(nums)) + `)`)
				args = append(args, nums...)
			}
			for _, v := range bools {
				b.WriteString(` OR ` + x + `.type = '` + v + `'`) // v is "true" or "false"
			}
			b.WriteString(`)`)
		}
		b.WriteString(` AND EXISTS (SELECT 1 FROM json_each(d.metadata) m WHERE m.key = ? AND (`)
		args = append(args, k)
		match("m")
		b.WriteString(` OR m.type = 'array' AND EXISTS (SELECT 1 FROM json_each(m.value) e WHERE `)
		match("e")
		b.WriteString(`)))`)
	}
	return args
}

// IndexedChunk is a current chunk of the memory index as the index holds
// it, for checking it against the record of its document.
type IndexedChunk struct {
	Scope   sanad.Scope
	DocID   string
	Version string
	ChunkID string
	Content string
}

// EachIndexedChunk calls fn with every current chunk of every scope, by
// scope and document.
func (db *DB) EachIndexedChunk(ctx context.Context, fn func(IndexedChunk) error) error {
	const op = "sqlite.memory_each_chunk"
	rows, err := db.read.QueryContext(ctx, `SELECT c.tenant, c.case_id, d.doc_id, d.version, c.chunk_id, c.content
		FROM memory_chunks c JOIN memory_documents d ON d.id = c.doc
		WHERE c.status = 'current' ORDER BY c.tenant, c.case_id, d.doc_id, c.idx`)
	if err != nil {
		return classify(err, op, "query")
	}
	defer rows.Close()
	for rows.Next() {
		var c IndexedChunk
		if err := rows.Scan(&c.Scope.Tenant, &c.Scope.Case, &c.DocID, &c.Version, &c.ChunkID, &c.Content); err != nil {
			return classify(err, op, "scan")
		}
		if err := fn(c); err != nil {
			return err
		}
	}
	return classify(rows.Err(), op, "read")
}
