package model

import (
	"context"
	"hash/fnv"
	"math"
	"strings"
	"unicode"

	"github.com/sanadhq/sanad"
)

// DefaultHashDim is the dimension of a [HashEmbedder] whose Dim is zero.
const DefaultHashDim = 64

// HashEmbedder is a deterministic embedder for tests and offline runs. It is
// NOT a semantic model: it lower-cases a text, splits it into runs of
// letters and digits, hashes each token (FNV-1a) to one of Dim dimensions
// with a sign, and normalizes the sum to unit length. Texts that share words
// get close vectors; synonyms and paraphrases do not. The same text always
// gets the same vector, on every machine. A text without tokens gets the zero
// vector.
//
// Generate fails with INVALID_INPUT: a HashEmbedder writes no text.
type HashEmbedder struct {
	Dim int // DefaultHashDim when zero
}

var _ Model = HashEmbedder{}

// Embed returns the hash vector of each text.
func (h HashEmbedder) Embed(ctx context.Context, texts []string) (Embeddings, error) {
	if err := ctx.Err(); err != nil {
		return Embeddings{}, sanad.Wrap(err, sanad.CodeCancelled, "model.embed", "embedding was cancelled")
	}
	dim := h.Dim
	if dim <= 0 {
		dim = DefaultHashDim
	}
	out := Embeddings{Vectors: make([][]float32, len(texts)), Model: "hash", Provider: "hash"}
	for i, t := range texts {
		v := make([]float64, dim)
		n := 0
		for _, tok := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r)
		}) {
			f := fnv.New64a()
			f.Write([]byte(tok))
			sum := f.Sum64()
			sign := 1.0
			if sum>>63 == 1 {
				sign = -1
			}
			v[sum%uint64(dim)] += sign
			n++
		}
		out.Usage.InputTokens += int64(n)
		out.Vectors[i] = normalize(v)
	}
	out.Usage.TotalTokens = out.Usage.InputTokens
	return out, nil
}

// Generate fails: a HashEmbedder only embeds.
func (HashEmbedder) Generate(context.Context, Request) (Response, error) {
	return Response{}, sanad.Errorf(sanad.CodeInvalidInput, "model.generate", "the hash embedder cannot generate text: configure a provider model for this class")
}

func normalize(v []float64) []float32 {
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	out := make([]float32, len(v))
	if norm == 0 {
		return out
	}
	norm = math.Sqrt(norm)
	for i, x := range v {
		out[i] = float32(x / norm)
	}
	return out
}
