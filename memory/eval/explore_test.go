package eval

import (
	"fmt"
	"testing"
	"time"

	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/internal/sharedtest"
	"github.com/sanadhq/sanad/memory"
)

func TestExplore(t *testing.T) {
	dir := sharedtest.Dir(t, "retrieval", "cranfield")
	ds, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	h, err := home.Open(t.Context(), home.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	x := &memory.Index{Store: h.DB}
	start := time.Now()
	if err := ds.Index(t.Context(), x, Scope); err != nil {
		t.Fatal(err)
	}
	fmt.Println("indexed", len(ds.Docs), time.Since(start))
	run := func(name string, c memory.LexicalConfig) {
		x.Lexical = &c
		start := time.Now()
		r, err := ds.Run(t.Context(), x, Scope)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("%-40s ndcg10 %.4f recall100 %.4f q %d (%v)\n", name, r.NDCG10, r.Recall100, r.Queries, time.Since(start))
	}
	base := memory.LexicalConfig{Fields: memory.DefaultFields}
	for _, p := range []memory.Proximity{{0.25, 0}, {0.4, 0}} {
		for _, f := range []memory.Feedback{{10, 10, 0.5}, {10, 20, 0.5}, {5, 20, 0.5}, {10, 20, 0.3}} {
			c := base
			c.Proximity, c.Feedback = p, f
			run(fmt.Sprintf("prox %v prf %v", p, f), c)
		}
	}
}
