package model_test

import (
	"context"
	"math"
	"reflect"
	"testing"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/model"
)

func cosine(a, b []float32) float64 {
	var dot float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
	}
	return dot
}

func TestHashEmbedder(t *testing.T) {
	texts := []string{
		"The tenant must pay the rent monthly.",
		"Rent is paid by the TENANT, monthly!",
		"Quarterly revenue grew by eight percent.",
		"",
	}
	e, err := model.HashEmbedder{}.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Vectors) != len(texts) {
		t.Fatalf("got %d vectors, want %d", len(e.Vectors), len(texts))
	}
	for i, v := range e.Vectors[:3] {
		if len(v) != model.DefaultHashDim {
			t.Fatalf("vector %d has %d dimensions, want %d", i, len(v), model.DefaultHashDim)
		}
		if n := cosine(v, v); math.Abs(n-1) > 1e-6 {
			t.Errorf("vector %d has norm² %v, want 1", i, n)
		}
	}
	if got := e.Vectors[3]; cosine(got, got) != 0 {
		t.Errorf("the empty text: got %v, want the zero vector", got)
	}
	same, other := cosine(e.Vectors[0], e.Vectors[1]), cosine(e.Vectors[0], e.Vectors[2])
	if same <= other {
		t.Errorf("texts sharing words: similarity %v, want more than the %v of unrelated texts", same, other)
	}
	again, _ := model.HashEmbedder{}.Embed(context.Background(), texts)
	if !reflect.DeepEqual(again.Vectors, e.Vectors) {
		t.Error("the same texts got different vectors")
	}
	wide, _ := model.HashEmbedder{Dim: 256}.Embed(context.Background(), texts[:1])
	if len(wide.Vectors[0]) != 256 {
		t.Errorf("Dim 256: got %d dimensions", len(wide.Vectors[0]))
	}
	if _, err := (model.HashEmbedder{}).Generate(context.Background(), model.Request{}); sanad.ErrorCode(err) != sanad.CodeInvalidInput {
		t.Errorf("Generate: got %v, want INVALID_INPUT", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (model.HashEmbedder{}).Embed(ctx, texts); sanad.ErrorCode(err) != sanad.CodeCancelled {
		t.Errorf("cancelled: got %v, want CANCELLED", err)
	}
}

// TestHashEmbedderGolden pins the vectors, so that stored test indexes stay
// valid across versions.
func TestHashEmbedderGolden(t *testing.T) {
	e, _ := model.HashEmbedder{Dim: 8}.Embed(context.Background(), []string{"chain of evidence"})
	got := e.Vectors[0]
	const r = 0.57735026 // 1/√3: three tokens, each its own dimension
	want := []float32{r, 0, 0, 0, -r, 0, -r, 0}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
