package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/connector"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/ingest"
	"github.com/sanadhq/sanad/memory"
	"github.com/sanadhq/sanad/model"
)

// embedder returns the home's embedding model, nil when none is
// configured (search is then by words alone).
func (a *app) embedder(file string) (memory.Embedder, error) {
	s, err := loadModels(a.home(), file, os.Environ())
	if err != nil {
		return nil, err
	}
	if _, ok := s.cfg.Classes[model.ClassEmbedding]; !ok {
		return nil, nil
	}
	reg, err := s.open()
	if err != nil {
		return nil, err
	}
	m, ok := reg.Model(model.ClassEmbedding)
	if !ok {
		return nil, nil
	}
	return m, nil
}

func (a *app) ingestCommand() *cobra.Command {
	var sf scopeFlags
	var recursive, forceOCR, private bool
	var modelConfig string
	c := a.jsonFlag(&cobra.Command{
		Use:   "ingest PATH|URL|gdrive://ID ...",
		Short: "Fetch, parse and index documents into a case's memory",
		Long: `Fetches each source (a file, folder or glob; an http(s) URL; gdrive://FILE_OR_FOLDER_ID, with
?credentials=NAME for a key file in <home>/credentials), parses every file, and indexes its
chunks in the case's memory. The whole ingestion is one recorded run: each fetch and parse is
a tool call through the gateway, each new document version a db_write. Content already
indexed is skipped; a changed file becomes a new version and its old chunks are superseded.
A Drive file whose modified time, md5 checksum and size are those the case's records hold for
its current version is not downloaded again. A document gone from a source that was listed whole (deleted from the folder, trashed in
Drive) is marked removed.

Every input is processed; each failure is reported with its source and code, and the command
exits 1 if any failed. --json prints {"documents","chunks","skipped_unchanged","removed","errors"}.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			emb, err := a.embedder(modelConfig)
			if err != nil {
				return err
			}
			return a.withHome(cmd.Context(), func(h *home.Home) error {
				p, err := ingest.ForHome(h, ingest.HomeOptions{Embedder: emb, AllowPrivateNetworks: private})
				if err != nil {
					return err
				}
				var sources []connector.Input
				for _, arg := range args {
					sources = append(sources, ingest.Source(arg, recursive))
				}
				opt := ingest.Options{Scope: sanad.Scope{Tenant: sf.tenant, Case: sf.caseID}, ForceOCR: forceOCR}
				if f, ok := a.stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) && !a.jsonOut {
					bar := progressbar.NewOptions(-1, progressbar.OptionSetWriter(f), progressbar.OptionSetDescription("ingesting"),
						progressbar.OptionShowCount(), progressbar.OptionClearOnFinish())
					opt.Progress = func(ingest.Item) { _ = bar.Add(1) }
					defer bar.Finish()
				}
				rep, err := p.Ingest(cmd.Context(), sources, opt)
				if err != nil {
					return err
				}
				if a.jsonOut {
					if err := a.printJSON(rep); err != nil {
						return err
					}
				} else {
					fmt.Fprintf(a.stdout, "ingested %d document(s), %d chunk(s); %d unchanged; %d removed at the source; %d error(s) (run %s)\n", rep.Documents, rep.Chunks, rep.SkippedUnchanged, rep.Removed, len(rep.Errors), rep.Run)
					for _, e := range rep.Errors {
						fmt.Fprintf(a.stdout, "  %s: %s: %s\n", e.Source, e.Code, e.Message)
					}
				}
				if len(rep.Errors) > 0 {
					return failure{fmt.Errorf("%d input(s) could not be ingested", len(rep.Errors))}
				}
				return nil
			})
		},
	})
	c.Flags().StringVar(&sf.tenant, "tenant", "default", "tenant of the case")
	c.Flags().StringVar(&sf.caseID, "case", "default", "the case whose memory the documents go to")
	c.Flags().BoolVarP(&recursive, "recursive", "r", false, "descend into folders; follow same-site links of web pages")
	c.Flags().BoolVar(&forceOCR, "force-ocr", false, "read every PDF page by OCR (needs tesseract)")
	c.Flags().BoolVar(&private, "allow-private-networks", false, "let web sources be loopback or private addresses (an intranet)")
	c.Flags().StringVar(&modelConfig, "model-config", "", "file with a models: section (default: sanad.yaml in the home folder); an embedding class adds vectors")
	return c
}

func (a *app) searchCommand() *cobra.Command {
	var sf scopeFlags
	var k int
	var min float64
	var filters []string
	var modelConfig string
	c := a.jsonFlag(&cobra.Command{
		Use:   "search QUERY",
		Short: "Search a case's memory",
		Long: `Ranks the chunks of the case's current documents: BM25 over their text, headings and
titles, and, when an embedding model is configured, vector similarity, fused. Each result
has a relevance score in [0,1], its document, page and the bytes of the parse it came from.
--filter KEY=VALUE keeps documents whose field or metadata matches (source_type, document_id,
format, tags, ingested_after, ingested_before, or any metadata key). Exits 1 with
ERR_MEMORY_NO_RESULTS when nothing clears --min-score.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f := map[string]any{}
			for _, kv := range filters {
				key, val, ok := strings.Cut(kv, "=")
				if !ok || key == "" {
					return usagef("--filter %q: want KEY=VALUE", kv)
				}
				f[key] = val
			}
			emb, err := a.embedder(modelConfig)
			if err != nil {
				return err
			}
			return a.withHomeRead(cmd.Context(), func(h *home.Home) error {
				out, err := ingest.HomeIndex(h, emb).Search(cmd.Context(), sanad.Scope{Tenant: sf.tenant, Case: sf.caseID},
					memory.Query{QueryText: args[0], TopK: k, MinRelevanceScore: min, Filters: f})
				if err != nil {
					if sanad.ErrorCode(err) == sanad.CodeMemoryNoResults {
						return failure{err}
					}
					return err
				}
				if a.jsonOut {
					return a.printJSON(searchJSON(out))
				}
				for i, r := range out.Results {
					page := ""
					if p, ok := r.Metadata["page"]; ok && p != nil && p != 0 {
						page = fmt.Sprintf(", page %v", p)
					}
					fmt.Fprintf(a.stdout, "%d. %.3f  %v%s  [%s]\n   %s\n", i+1, r.RelevanceScore, r.Metadata["source"], page, r.ChunkID, oneLine(r.Content, 240))
				}
				fmt.Fprintf(a.stdout, "%d of %d found\n", len(out.Results), out.TotalFound)
				return nil
			})
		},
	})
	c.Flags().StringVar(&sf.tenant, "tenant", "default", "tenant of the case")
	c.Flags().StringVar(&sf.caseID, "case", "default", "the case to search")
	c.Flags().IntVarP(&k, "k", "k", 5, "how many results")
	c.Flags().Float64Var(&min, "min-score", 0, "leave out results scored below this (0 to 1)")
	c.Flags().StringArrayVar(&filters, "filter", nil, "KEY=VALUE a document must match (repeatable)")
	c.Flags().StringVar(&modelConfig, "model-config", "", "file with a models: section (default: sanad.yaml in the home folder)")
	return c
}

// searchResult is a result as sanad search --json prints it.
type searchResult struct {
	ChunkID    string  `json:"chunk_id"`
	DocumentID string  `json:"document_id"`
	Source     any     `json:"source"`
	Page       any     `json:"page"`
	Score      float64 `json:"score"`
	Content    string  `json:"content"`
	Metadata   any     `json:"metadata"`
}

func searchJSON(out memory.Output) map[string]any {
	res := make([]searchResult, len(out.Results))
	for i, r := range out.Results {
		res[i] = searchResult{ChunkID: r.ChunkID, DocumentID: r.SourceID, Source: r.Metadata["source"], Page: r.Metadata["page"], Score: r.RelevanceScore, Content: r.Content, Metadata: r.Metadata}
	}
	return map[string]any{"results": res, "total_found": out.TotalFound}
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

func (a *app) docsCommand() *cobra.Command {
	return group("docs", "List, show and remove the documents of a case's memory",
		a.docsListCommand(), a.docsShowCommand(), a.docsRemoveCommand())
}

func (a *app) docsListCommand() *cobra.Command {
	var sf scopeFlags
	var all bool
	c := a.jsonFlag(&cobra.Command{
		Use:   "list",
		Short: "List the documents of a case: id, status, chunks, format, source",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withHomeRead(cmd.Context(), func(h *home.Home) error {
				docs, err := ingest.HomeIndex(h, nil).Documents(cmd.Context(), sanad.Scope{Tenant: sf.tenant, Case: sf.caseID})
				if err != nil {
					return err
				}
				shown := []memory.DocumentInfo{}
				for _, d := range docs {
					if all || d.Status == memory.StatusCurrent {
						shown = append(shown, d)
					}
				}
				if a.jsonOut {
					return a.printJSON(shown)
				}
				for _, d := range shown {
					fmt.Fprintf(a.stdout, "%s  %-10s %4d chunks  %-5s %s\n", d.ID, d.Status, d.Chunks, d.Format, d.Source)
				}
				if len(shown) == 0 {
					fmt.Fprintln(a.stdout, "no documents (sanad ingest adds some)")
				}
				return nil
			})
		},
	})
	c.Flags().StringVar(&sf.tenant, "tenant", "default", "tenant of the case")
	c.Flags().StringVar(&sf.caseID, "case", "default", "the case")
	c.Flags().BoolVar(&all, "all", false, "also list superseded and removed versions")
	return c
}

func (a *app) docsShowCommand() *cobra.Command {
	var sf scopeFlags
	c := a.jsonFlag(&cobra.Command{
		Use:   "show DOCUMENT_ID",
		Short: "Show a document's current version: source, format, pages, chunks, metadata",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withHomeRead(cmd.Context(), func(h *home.Home) error {
				d, err := ingest.HomeIndex(h, nil).Document(cmd.Context(), sanad.Scope{Tenant: sf.tenant, Case: sf.caseID}, args[0])
				if err != nil {
					if sanad.ErrorCode(err) == sanad.CodeNotFound {
						return failure{err}
					}
					return err
				}
				if a.jsonOut {
					return a.printJSON(d)
				}
				fmt.Fprintf(a.stdout, "%s (%s)\n  source  %s (%s)\n  title   %s\n  format  %s, %d page(s), %d chunk(s)\n  version %s, added %s\n",
					d.ID, d.Status, d.Source, d.SourceType, d.Title, d.Format, d.Pages, d.Chunks, d.Version, d.Added.Format("2006-01-02 15:04:05"))
				return nil
			})
		},
	})
	c.Flags().StringVar(&sf.tenant, "tenant", "default", "tenant of the case")
	c.Flags().StringVar(&sf.caseID, "case", "default", "the case")
	return c
}

func (a *app) docsRemoveCommand() *cobra.Command {
	var sf scopeFlags
	var by string
	c := a.jsonFlag(&cobra.Command{
		Use:   "remove DOCUMENT_ID",
		Short: "Remove a document from a case's memory, as a recorded run",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if by == "" {
				return usagef("--as NAME is required: a removal is recorded under the name of who made it")
			}
			return a.withHome(cmd.Context(), func(h *home.Home) error {
				p, err := ingest.ForHome(h, ingest.HomeOptions{})
				if err != nil {
					return err
				}
				run, err := p.Remove(cmd.Context(), sanad.Scope{Tenant: sf.tenant, Case: sf.caseID}, args[0], by)
				if err != nil {
					if sanad.ErrorCode(err) == sanad.CodeNotFound {
						return failure{err}
					}
					return err
				}
				if a.jsonOut {
					return a.printJSON(map[string]string{"removed": args[0], "run": run})
				}
				fmt.Fprintf(a.stdout, "removed %s (run %s)\n", args[0], run)
				return nil
			})
		},
	})
	c.Flags().StringVar(&sf.tenant, "tenant", "default", "tenant of the case")
	c.Flags().StringVar(&sf.caseID, "case", "default", "the case")
	c.Flags().StringVar(&by, "as", "", "who removes it (recorded)")
	return c
}
