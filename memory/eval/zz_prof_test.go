package eval_test

import (
	"fmt"
	"os"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/internal/sharedtest"
	"github.com/sanadhq/sanad/memory"
	"github.com/sanadhq/sanad/memory/eval"
)

func TestZZProf(t *testing.T) {
	if os.Getenv("ZZ") == "" {
		t.Skip()
	}
	ds, _ := eval.Load(sharedtest.Dir(t, "retrieval", "cranfield"))
	h, err := home.Open(t.Context(), home.Config{Dir: "/tmp/bm25home"})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	x := &memory.Index{Store: h.DB}
	f, _ := os.Create("/tmp/cpu3.out")
	pprof.StartCPUProfile(f)
	defer pprof.StopCPUProfile()
	lex, _ := eval.Variant(os.Getenv("ZZ")).Lexical()
	x.Lexical = &lex
	for _, q := range ds.Queries[:6] {
		start := time.Now()
		_, err := x.Search(t.Context(), eval.Scope, memory.Query{QueryText: q.Text, TopK: 10})
		fmt.Println(time.Since(start), err)
	}
}
