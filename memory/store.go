package memory

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/chunk"
)

// Source types of [Document.SourceType] (seed 004's ConnectorInput).
const (
	SourceLocal  = "local"
	SourceWeb    = "web"
	SourceGDrive = "gdrive"
)

// Document is one version of an indexed document.
type Document struct {
	// ID is stable for a source: the same file or URL always has the same
	// ID ([DocumentID] derives one).
	ID string `json:"document_id"`
	// Version identifies the content, a checksum of it: a changed file is a
	// new version of the same document.
	Version string `json:"version"`
	// Source is the path, URL or Google Drive file id the document came from.
	Source     string `json:"source"`
	SourceType string `json:"source_type"` // SourceLocal, SourceWeb or SourceGDrive
	SourceURL  string `json:"source_url,omitempty"`
	Title      string `json:"title,omitempty"`
	Format     string `json:"format,omitempty"` // pdf, html, docx, pptx, txt...
	Pages      int    `json:"pages,omitempty"`
	// Ingested is when the content was fetched; Add sets it to the current
	// time when it is zero.
	Ingested time.Time `json:"ingested"`
	// Metadata is what the source says about the document: author, dates,
	// tags. It must be a JSON object; filters match its top-level keys.
	Metadata map[string]any `json:"metadata,omitempty"`
}

// DocumentID returns the ID of the document of a source: the first 32 hex
// digits of the SHA-256 of its type and identifier.
func DocumentID(sourceType, source string) string {
	sum := sha256.Sum256([]byte(sourceType + "\x00" + source))
	return hex.EncodeToString(sum[:16])
}

// Status is the state of a document version in the index.
type Status string

// Statuses of a version. Only current versions are searched.
const (
	StatusCurrent    Status = "current"
	StatusSuperseded Status = "superseded" // a later version was added
	StatusRemoved    Status = "removed"    // Remove withdrew the document
)

// DocumentInfo is a version as the index holds it.
type DocumentInfo struct {
	Document
	Status Status `json:"status"`
	Chunks int    `json:"chunks"`
	// Added is when the version was added, Changed when its status last
	// changed (Added for a version that is still current).
	Added   time.Time `json:"added"`
	Changed time.Time `json:"changed"`
}

// Added reports what [Index.Add] did.
type Added struct {
	DocumentID string `json:"document_id"`
	Version    string `json:"version"`
	// Unchanged: the version was already the current one; nothing was
	// written.
	Unchanged bool `json:"unchanged,omitempty"`
	// Restored: the version had been added before, then superseded or
	// removed, and is current again (its stored chunks are searched again).
	Restored bool `json:"restored,omitempty"`
	Chunks   int  `json:"chunks"`
	// Embedded is how many chunks got a vector.
	Embedded int `json:"embedded,omitempty"`
	// Superseded are the versions this one replaced.
	Superseded []string `json:"superseded,omitempty"`
}

// Version is what a store writes for [Index.Add].
type Version struct {
	Doc    Document
	Chunks []chunk.Chunk
	// Vectors[i] is the unit-length embedding of Chunks[i] made by Model,
	// nil for a chunk without one; Vectors is nil without an embedder.
	Vectors [][]float32
	Model   string
	Now     time.Time
}

// Store is where an [Index] keeps its data. Implementations are safe for
// concurrent use, and every method sees and touches only the given scope's
// rows. Errors are *sanad.Error values (NOT_FOUND, DEPENDENCY_DOWN, ...).
type Store interface {
	// AddVersion stores v in one transaction, unless v.Doc's version is
	// already the current one (then it writes nothing and reports
	// Unchanged). A version added before and since superseded or removed is
	// made current again from what was stored (v.Chunks and v.Vectors are
	// not used). The document's other current version, if any, becomes
	// superseded.
	AddVersion(ctx context.Context, scope sanad.Scope, v Version) (Added, error)
	// RemoveDocument marks the current version of docID removed, at now.
	// A document without versions is NOT_FOUND; one already removed is
	// left as it is.
	RemoveDocument(ctx context.Context, scope sanad.Scope, docID string, now time.Time) error
	// Versions returns the versions of docID, or of every document when
	// docID is "", ordered by document ID and then by when each was added.
	Versions(ctx context.Context, scope sanad.Scope, docID string) ([]DocumentInfo, error)
	// Lexical ranks the current chunks of scope that match q (see
	// [LexicalQuery]), best first.
	Lexical(ctx context.Context, scope sanad.Scope, q LexicalQuery) (LexicalResult, error)
	// Chunks returns the stored chunks with the given keys, in that order;
	// a key the scope does not hold is left out.
	Chunks(ctx context.Context, scope sanad.Scope, keys []int64) ([]StoredChunk, error)
	// Vectors returns the vectors model made for the current chunks of
	// scope, with the scope's generation.
	Vectors(ctx context.Context, scope sanad.Scope, model string) (*VectorSet, error)
	// Generation returns a number that changes whenever scope's index does.
	Generation(ctx context.Context, scope sanad.Scope) (int64, error)
}

// StoredChunk is a chunk as the store holds it, with its document version.
type StoredChunk struct {
	Key   int64 // the store's key of the chunk
	Chunk chunk.Chunk
	Doc   Document
}

// Term is a word of a [LexicalQuery] and its weight: a chunk's BM25 score
// for the word is multiplied by it (a word a query repeats n times weighs
// n).
type Term struct {
	Text   string
	Weight float64
}

// Phrase is a proximity clause: its words next to each other in that order
// (Near 0), or all of them within Near words of each other. Its words must
// be among the query's terms.
type Phrase struct {
	Terms  []string
	Near   int
	Weight float64
}

// FieldWeights weigh a term's occurrences in each field of a chunk.
type FieldWeights struct {
	Content  float64 `json:"content"`
	Headings float64 `json:"headings"`
	Title    float64 `json:"title"`
}

// LexicalQuery is a weighted BM25 query. A chunk matches when it holds at
// least one of Terms. Its score is the sum, over terms and phrases, of the
// clause's weight times its BM25 part (k1 = 1.2, b = 0.75): idf·f·(k1+1) /
// (f + k1·(1 − b + b·len/avglen)), f the clause's occurrences in the chunk
// with each field's weighed by Fields (a phrase's occurrences are those that
// satisfy it). Terms are words, never query syntax: a store quotes them.
type LexicalQuery struct {
	Terms   []Term
	Phrases []Phrase
	Fields  FieldWeights
	Filter  Filter
	Limit   int
}

// LexicalHit is a chunk's BM25 score: TermScore from the terms, PhraseScore
// from the phrases.
type LexicalHit struct {
	Key         int64
	TermScore   float64
	PhraseScore float64
}

// LexicalResult is the answer to a [LexicalQuery]. Bound is the largest
// score any chunk could have: the sum over the clauses that some chunk
// matches of weight·idf·(k1+1), where the idf of a NEAR clause is the sum of
// its words'.
type LexicalResult struct {
	Hits  []LexicalHit
	Bound float64
}

// VectorSet is every vector of a scope made by one model, as one row-major
// matrix: row i, Data[i*Dim:(i+1)*Dim], is the unit-length vector of the
// chunk Keys[i], of the document Docs[DocOf[i]]. Its fields are not
// changed once it has been searched.
type VectorSet struct {
	Generation int64
	Dim        int
	Keys       []int64
	DocOf      []int32
	Docs       []Document
	Data       []float32

	quantOnce sync.Once
	quant     *quantized // Data in 8 bits a value, made by the first search that uses it
}

// quantized returns the set's 8-bit codes, making them on the first call.
func (set *VectorSet) quantized() *quantized {
	set.quantOnce.Do(func() { set.quant = quantize(set) })
	return set.quant
}
