// Package memory is sanad's retrieval index, the Memory agent of seed 004:
// it keeps the chunks of ingested documents by scope, answers a query with
// the chunks most relevant to it, each with a relevance score in [0, 1] and
// the document, version, page and bytes it came from.
//
// # Versions
//
// A [Document] has a stable ID (from its source) and a Version (a checksum
// of its content). [Index.Add] stores a version and its chunks; adding the
// same version again writes nothing. A new version supersedes the earlier
// ones: their chunks are never returned again, but they stay in the store,
// with their status, so that an answer given before can still be traced to
// the text it cited. [Index.Remove] withdraws a document the same way.
//
// # Search
//
// [Index.Search] ranks chunks with two retrievers:
//
//   - Lexical: BM25 over the chunk's text, the headings above it and its
//     document's title, each with its own weight ([FieldWeights]). The query
//     is cut into words ([Terms]); user text never reaches the store as query
//     syntax. Stages, each measured on Cranfield (see [DefaultLexical] and
//     memory/eval): stop words left out, a boost for query words that appear
//     next to each other as in the query, and pseudo-relevance feedback
//     (RM3) that adds words of the best first-pass chunks to the query. The
//     default pipeline has all three: nDCG@10 0.4241 against plain BM25's
//     0.3808.
//   - Vectors, when the index has an [Embedder]: the cosine similarity
//     of the query's embedding and each chunk's, computed exactly over every
//     current chunk of the scope (vectors are loaded once per scope and kept
//     until the scope's index changes).
//
// The two lists are fused by reciprocal rank fusion (k = 60).
//
// # Relevance scores
//
// A score means the same thing whatever the query, so that a threshold does:
//
//   - lexical: the chunk's BM25 score divided by the largest score any chunk
//     could have for this query: the sum, over the query's clauses that some
//     chunk holds, of weight·idf·(k1+1) (a clause's part of BM25 approaches
//     idf·(k1+1) as its frequency grows). The clauses are the query's words,
//     the word pairs of the proximity boost and, after feedback, the added
//     words, each with its weight. A score nears 1 only for a chunk dense
//     with every clause; under plain BM25 a chunk that holds each query word
//     once, in a text of average length, scores 1/(1+k1) ≈ 0.45. Rarer words
//     weigh more, in the score and in the bound alike.
//   - vector: the cosine similarity, clipped to [0, 1].
//   - fused: the larger of the two (a retriever that did not return the
//     chunk counts 0): a threshold t keeps the chunks that at least one
//     retriever scores t or more. Results are in fused rank order.
//
// The seed's MemoryQuery defaults min_relevance_score to 0.7; in this API
// the zero value means no threshold, and callers that speak the seed's
// schema apply its default. Lexical scores run lower than that: on
// Cranfield, the default pipeline's best chunk for a query scores 0.34,
// 0.45 and 0.59 at the 10th, 50th and 90th percentiles, and the judged
// relevant chunks of the first ten a median 0.35 (the others 0.30).
//
// # Scope
//
// Every call names a [sanad.Scope]. A search sees only the current chunks of
// its own tenant and case: the store filters by scope before anything is
// returned (the SQLite store both restricts the full-text query to the
// scope's rows and checks each row's tenant and case). BM25's corpus
// statistics (how rare a word is, the average chunk length) are those of
// the whole store's current chunks.
package memory
