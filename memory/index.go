package memory

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/chunk"
	"github.com/sanadhq/sanad/model"
)

// Defaults of [Index].
const (
	DefaultEmbedBatch   = 64  // texts per Embed call
	DefaultDepth        = 100 // candidates each retriever contributes
	DefaultCachedScopes = 16  // scopes whose vectors stay in memory
)

// Embedder makes embedding vectors: a [model.Model] is one
// ([model.HashEmbedder] for tests, model/openai for an OpenAI-compatible
// /embeddings endpoint).
type Embedder interface {
	// Embed returns one vector per text, in order.
	Embed(ctx context.Context, texts []string) (model.Embeddings, error)
}

// Index is the retrieval index over a [Store]. It is safe for concurrent
// use. Set its fields before the first call and do not change them after.
type Index struct {
	Store Store
	// Embedder makes the vectors of chunks and queries; nil searches by
	// words alone. Chunks added while it was nil have no vector.
	Embedder Embedder
	// EmbedBatch is the most chunks embedded in one call (DefaultEmbedBatch
	// when 0).
	EmbedBatch int
	// Lexical configures the lexical retriever; nil is DefaultLexical().
	Lexical *LexicalConfig
	// Depth is how many candidates each retriever contributes to the
	// fusion (DefaultDepth when 0; at least the query's TopK).
	Depth int
	// CachedScopes is how many (scope, model) vector sets stay in memory
	// (DefaultCachedScopes when 0); the least recently used goes first.
	CachedScopes int
	// Now is the clock (time.Now when nil).
	Now func() time.Time

	mu    sync.Mutex // guards cache and tick
	cache map[cacheKey]*cachedSet
	tick  uint64
}

func (x *Index) now() time.Time {
	if x.Now != nil {
		return x.Now()
	}
	return time.Now()
}

// Add indexes a version of a document with its chunks (from chunk.Split). It
// is idempotent: when doc's version is already the current one it writes
// nothing and reports Unchanged, without embedding anything. Otherwise the
// version, its chunks and, when the index has an embedder, their vectors are
// written in one transaction, and the document's earlier current version is
// superseded. A version that was superseded or removed and is added again
// becomes current again from what was stored.
//
// Errors: INVALID_INPUT for a missing ID or version, an unknown source type
// or metadata that is not JSON; the embedder's and the store's errors.
func (x *Index) Add(ctx context.Context, scope sanad.Scope, doc Document, chunks []chunk.Chunk) (Added, error) {
	const op = "memory.add"
	if err := scope.Validate(); err != nil {
		return Added{}, err
	}
	if err := validateDocument(&doc); err != nil {
		return Added{}, err
	}
	now := x.now().UTC()
	if doc.Ingested.IsZero() {
		doc.Ingested = now
	}
	doc.Ingested = doc.Ingested.UTC()
	meta, err := normalizeMetadata(doc.Metadata)
	if err != nil {
		return Added{}, sanad.Wrap(err, sanad.CodeInvalidInput, op, "document metadata is not a JSON object: "+err.Error())
	}
	doc.Metadata = meta
	for i, c := range chunks {
		if c.Index != i {
			return Added{}, sanad.Errorf(sanad.CodeInvalidInput, op, "chunk %d has index %d; pass the chunks of one document in order", i, c.Index)
		}
	}
	v := Version{Doc: doc, Chunks: chunks, Now: now}
	if x.Embedder != nil && len(chunks) > 0 {
		known, err := x.Store.Versions(ctx, scope, doc.ID)
		if err != nil {
			return Added{}, err
		}
		stored := false
		for _, k := range known {
			stored = stored || k.Version == doc.Version
		}
		if !stored { // a stored version is unchanged or restored: no embedding
			if v.Vectors, v.Model, err = x.embedChunks(ctx, &doc, chunks); err != nil {
				return Added{}, err
			}
		}
	}
	added, err := x.Store.AddVersion(ctx, scope, v)
	if err != nil {
		return Added{}, err
	}
	for _, vec := range v.Vectors {
		if vec != nil {
			added.Embedded++
		}
	}
	if !added.Unchanged {
		x.forget(scope)
	}
	return added, nil
}

// Remove withdraws a document: its current version becomes removed, and its
// chunks are no longer searched (they stay stored). Removing a removed
// document does nothing; one never added is NOT_FOUND.
func (x *Index) Remove(ctx context.Context, scope sanad.Scope, docID string) error {
	if err := scope.Validate(); err != nil {
		return err
	}
	if docID == "" {
		return sanad.Errorf(sanad.CodeInvalidInput, "memory.remove", "no document id")
	}
	if err := x.Store.RemoveDocument(ctx, scope, docID, x.now().UTC()); err != nil {
		return err
	}
	x.forget(scope)
	return nil
}

// Documents lists every version of every document indexed in scope, current,
// superseded and removed, ordered by document ID and then by when each
// version was added.
func (x *Index) Documents(ctx context.Context, scope sanad.Scope) ([]DocumentInfo, error) {
	if err := scope.Validate(); err != nil {
		return nil, err
	}
	return x.Store.Versions(ctx, scope, "")
}

// Document returns the latest version of a document: the current one, or,
// for a removed document, the one that was removed. NOT_FOUND when scope
// has no version of it; [Index.Documents] lists the earlier versions.
func (x *Index) Document(ctx context.Context, scope sanad.Scope, id string) (DocumentInfo, error) {
	if err := scope.Validate(); err != nil {
		return DocumentInfo{}, err
	}
	vs, err := x.Store.Versions(ctx, scope, id)
	if err != nil {
		return DocumentInfo{}, err
	}
	for _, v := range vs {
		if v.Status == StatusCurrent {
			return v, nil
		}
	}
	// No current version: the one whose status changed last was removed.
	var latest *DocumentInfo
	for i := range vs {
		if vs[i].Status == StatusRemoved && (latest == nil || !vs[i].Changed.Before(latest.Changed)) {
			latest = &vs[i]
		}
	}
	if latest == nil {
		return DocumentInfo{}, sanad.Errorf(sanad.CodeNotFound, "memory.document", "document %q is not indexed in %s", id, scope)
	}
	return *latest, nil
}

func validateDocument(d *Document) error {
	const op = "memory.add"
	switch {
	case d.ID == "":
		return sanad.Errorf(sanad.CodeInvalidInput, op, "the document has no id")
	case d.Version == "":
		return sanad.Errorf(sanad.CodeInvalidInput, op, "document %q has no version (a checksum of its content)", d.ID)
	case len(d.ID) > 256 || len(d.Version) > 256:
		return sanad.Errorf(sanad.CodeInvalidInput, op, "document ids and versions are limited to 256 bytes")
	}
	switch d.SourceType {
	case SourceLocal, SourceWeb, SourceGDrive:
	default:
		return sanad.Errorf(sanad.CodeInvalidInput, op, "document %q: source type %q is not %s, %s or %s", d.ID, d.SourceType, SourceLocal, SourceWeb, SourceGDrive)
	}
	if d.Pages < 0 {
		return sanad.Errorf(sanad.CodeInvalidInput, op, "document %q has %d pages", d.ID, d.Pages)
	}
	return nil
}

// embedText is what a chunk's vector is made from: its document's title and
// the headings above it give a passage the context its text may lack.
func embedText(d *Document, c *chunk.Chunk) string {
	var parts []string
	if t := strings.TrimSpace(d.Title); t != "" {
		parts = append(parts, t)
	}
	if len(c.Headings) > 0 {
		parts = append(parts, strings.Join(c.Headings, " > "))
	}
	if t := strings.TrimSpace(c.Content); t != "" {
		parts = append(parts, t)
	} else {
		return "" // nothing of its own to embed
	}
	return strings.Join(parts, "\n\n")
}

// embedChunks returns the unit-length vector of each chunk (nil for one
// without text) and the model key they are stored under.
func (x *Index) embedChunks(ctx context.Context, d *Document, chunks []chunk.Chunk) ([][]float32, string, error) {
	const op = "memory.embed"
	batch := x.EmbedBatch
	if batch <= 0 {
		batch = DefaultEmbedBatch
	}
	vectors := make([][]float32, len(chunks))
	var idx []int
	var texts []string
	for i := range chunks {
		if t := embedText(d, &chunks[i]); t != "" {
			idx = append(idx, i)
			texts = append(texts, t)
		}
	}
	key := ""
	for lo := 0; lo < len(texts); lo += batch {
		hi := min(lo+batch, len(texts))
		emb, err := x.Embedder.Embed(ctx, texts[lo:hi])
		if err != nil {
			return nil, "", err
		}
		if len(emb.Vectors) != hi-lo {
			return nil, "", sanad.Errorf(sanad.CodeModelOutput, op, "the embedder returned %d vectors for %d texts", len(emb.Vectors), hi-lo)
		}
		for j, v := range emb.Vectors {
			k := modelKey(emb, len(v))
			if key == "" {
				key = k
			}
			if k != key || len(v) == 0 {
				return nil, "", sanad.Errorf(sanad.CodeModelOutput, op, "the embedder returned vectors of different models or sizes (%s, %s)", key, k)
			}
			vectors[idx[lo+j]] = normalized(v)
		}
	}
	return vectors, key, nil
}

// modelKey names the vectors of one model: provider, model and dimension,
// so that vectors of different models are never compared.
func modelKey(e model.Embeddings, dim int) string {
	return fmt.Sprintf("%s/%s@%d", e.Provider, e.Model, dim)
}

// normalized returns v scaled to unit length (a copy); the zero vector
// stays zero.
func normalized(v []float32) []float32 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	out := make([]float32, len(v))
	if s == 0 || math.IsNaN(s) || math.IsInf(s, 0) {
		return out
	}
	inv := 1 / math.Sqrt(s)
	for i, x := range v {
		out[i] = float32(float64(x) * inv)
	}
	return out
}
