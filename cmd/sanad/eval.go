package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sanadhq/sanad/internal/bench"
	"github.com/sanadhq/sanad/memory"
	"github.com/sanadhq/sanad/memory/eval"
)

func (a *app) evalCommand() *cobra.Command {
	return group("eval", "Measure quality on a test collection", a.evalRetrievalCommand(), a.evalAnswersCommand(), a.evalGuardCommand(), a.evalDiligenceCommand(), a.evalIssuesCommand(), a.evalCasesCommand())
}

func (a *app) evalRetrievalCommand() *cobra.Command {
	var corpus, queries, qrels, variant, modelConfig string
	c := a.jsonFlag(&cobra.Command{
		Use:   "retrieval --corpus corpus.jsonl --queries queries.jsonl --qrels qrels.tsv",
		Short: "nDCG@10 and recall@100 of the memory index on a BEIR collection",
		Long: `Indexes a collection in the BEIR layout (corpus.jsonl of {_id, title, text}, queries.jsonl of
{_id, text}, a qrels TSV of query-id, corpus-id, score) into a temporary home, through the same
chunking and index as sanad ingest, runs every judged query and prints nDCG@10 and recall@100.
--pipeline bm25 measures plain BM25, the baseline; default is the pipeline sanad search uses.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if corpus == "" || queries == "" || qrels == "" {
				return usagef("--corpus, --queries and --qrels are required")
			}
			dir, cleanup, err := beirDir(corpus, queries, qrels)
			if err != nil {
				return err
			}
			defer cleanup()
			var emb memory.Embedder
			if modelConfig != "" {
				if emb, err = a.embedder(modelConfig); err != nil {
					return err
				}
			}
			res, err := eval.Evaluate(cmd.Context(), eval.Config{Dir: dir, Variant: eval.Variant(variant), Embedder: emb})
			if err != nil {
				return err
			}
			out := map[string]any{"ndcg@10": res.NDCG10, "recall@100": res.Recall100, "queries": res.Queries, "pipeline": variant}
			return a.report(out, func() {
				fmt.Fprintf(a.stdout, "nDCG@10 %.4f, recall@100 %.4f over %d queries (pipeline %s)\n", res.NDCG10, res.Recall100, res.Queries, variant)
			})
		},
	})
	c.Flags().StringVar(&corpus, "corpus", "", "corpus.jsonl")
	c.Flags().StringVar(&queries, "queries", "", "queries.jsonl")
	c.Flags().StringVar(&qrels, "qrels", "", "qrels TSV (query-id, corpus-id, score, with a header)")
	c.Flags().StringVar(&variant, "pipeline", string(eval.VariantDefault), "default or bm25")
	c.Flags().StringVar(&modelConfig, "model-config", "", "file with a models: section whose embedding class adds vector search")
	return c
}

// beirDir lays the three files out as a BEIR folder (corpus.jsonl,
// queries.jsonl, qrels/test.tsv) of links in a temporary folder.
func beirDir(corpus, queries, qrels string) (string, func(), error) {
	dir, err := os.MkdirTemp("", "sanad-beir-")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	if err := os.Mkdir(filepath.Join(dir, "qrels"), 0o700); err != nil {
		cleanup()
		return "", nil, err
	}
	for src, dst := range map[string]string{corpus: "corpus.jsonl", queries: "queries.jsonl", qrels: filepath.Join("qrels", "test.tsv")} {
		abs, err := filepath.Abs(src)
		if err == nil {
			_, err = os.Stat(abs)
		}
		if err != nil {
			cleanup()
			return "", nil, usagef("%s: %v", src, err)
		}
		if err := os.Symlink(abs, filepath.Join(dir, dst)); err != nil {
			cleanup()
			return "", nil, err
		}
	}
	return dir, cleanup, nil
}

func (a *app) benchSearchCommand() *cobra.Command {
	var n, dim, queries int
	var collection string
	c := a.jsonFlag(&cobra.Command{
		Use:   "search",
		Short: "Exact vector search over n×dim vectors, and BM25 over n chunks",
		Long: `Times the exact vector search the memory index runs (n random unit vectors of dim
dimensions, queries one after another) with its recall against a float64 brute force, and,
with --collection (a BEIR folder, e.g. ../shared/testdata/retrieval/cranfield), the lexical
search over n synthetic chunks drawn from the collection's words.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			res, err := memory.BenchVectors(cmd.Context(), n, dim, queries)
			if err != nil {
				return err
			}
			out := map[string]any{"n": res.N, "dim": res.Dim, "p50_ms": res.P50MS, "p90_ms": res.P90MS, "recall": res.Recall, "queries": res.Queries}
			if collection != "" {
				dir, cleanup, err := benchDir()
				if err != nil {
					return err
				}
				defer cleanup()
				lex, err := eval.BenchLexical(cmd.Context(), eval.LexicalBenchConfig{Dir: collection, Home: dir, N: n})
				if err != nil {
					return err
				}
				out["bm25"] = lex
			}
			return a.report(out, func() {
				fmt.Fprintf(a.stdout, "vector search: %d×%d, p50 %.2f ms, p90 %.2f ms, recall@%d %.3f\n", res.N, res.Dim, res.P50MS, res.P90MS, memory.BenchK, res.Recall)
				if lex, ok := out["bm25"].(eval.LexicalBenchResult); ok {
					fmt.Fprintf(a.stdout, "lexical search: %d chunks, p50 %.2f ms, p90 %.2f ms (indexed in %.1f s)\n", lex.N, lex.P50MS, lex.P90MS, lex.IndexS)
				}
			})
		},
	})
	c.Flags().IntVar(&n, "n", 100_000, "vectors (and chunks)")
	c.Flags().IntVar(&dim, "dim", 384, "dimensions")
	c.Flags().IntVar(&queries, "queries", 200, "queries timed")
	c.Flags().StringVar(&collection, "collection", "", "BEIR folder whose words make the chunks of the lexical benchmark")
	return c
}

func (a *app) benchIngestCommand() *cobra.Command {
	var dir string
	var rounds int
	c := a.jsonFlag(&cobra.Command{
		Use:   "ingest",
		Short: "PDF pages per second, next to pdftotext on the same files in the same run",
		Long: `Reads every PDF under --dir (default ../shared/testdata/docparse) with sanad's PDF reader
(text, reading order, headings, lists and tables; no OCR), and, when poppler's pdftotext is
installed, with pdftotext -layout, in alternating rounds. ratio_to_pdftotext is sanad's rate
over pdftotext's.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			var files []string
			err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".pdf") {
					files = append(files, p)
				}
				return err
			})
			if err != nil {
				return usagef("--dir %s: %v", dir, err)
			}
			res, err := bench.Ingest(cmd.Context(), bench.IngestConfig{Files: files, Rounds: rounds})
			if err != nil {
				return err
			}
			return a.report(res, func() {
				fmt.Fprintf(a.stdout, "%d PDFs, %d pages: %.1f pages/s", res.Files, res.Pages, res.PagesPerS)
				if res.PdftotextAbsent {
					fmt.Fprintln(a.stdout, " (pdftotext not installed: no comparison)")
					return
				}
				fmt.Fprintf(a.stdout, "; pdftotext -layout %.1f pages/s; ratio %.2f\n", res.PdftotextPerS, res.RatioPdftotext)
			})
		},
	})
	c.Flags().StringVar(&dir, "dir", filepath.Join("..", "shared", "testdata", "docparse"), "folder of PDFs (searched recursively)")
	c.Flags().IntVar(&rounds, "rounds", 3, "times each reader reads every file")
	return c
}
