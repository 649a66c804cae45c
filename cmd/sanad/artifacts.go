package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/home"
)

func (a *app) artifactsCommand() *cobra.Command {
	return group("artifacts", "List and read the artifacts of a case",
		a.artifactsListCommand(), a.artifactsCatCommand())
}

// scopeFlags are the flags that name the case whose artifacts are read:
// --tenant and --case, or --run, whose case it is.
type scopeFlags struct {
	tenant, caseID, run string
}

func (f *scopeFlags) add(c *cobra.Command) {
	c.Flags().StringVar(&f.tenant, "tenant", "default", "tenant of the case")
	c.Flags().StringVar(&f.caseID, "case", "default", "the case")
	c.Flags().StringVar(&f.run, "run", "", "read the case of this run (instead of --tenant and --case)")
}

// scope returns the scope the flags name.
func (f *scopeFlags) scope(cmd *cobra.Command, h *home.Home) (sanad.Scope, error) {
	if f.run == "" {
		return sanad.Scope{Tenant: f.tenant, Case: f.caseID}, nil
	}
	rec, err := h.DB.Run(cmd.Context(), f.run)
	if err != nil {
		return sanad.Scope{}, failure{notFound(err, f.run)}
	}
	return rec.Scope, nil
}

func (a *app) artifactsListCommand() *cobra.Command {
	var sf scopeFlags
	var limit int
	c := a.jsonFlag(&cobra.Command{
		Use:   "ls",
		Short: "List the artifacts of a case: id, media type, size and the run that made it",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withHomeRead(cmd.Context(), func(h *home.Home) error {
				scope, err := sf.scope(cmd, h)
				if err != nil {
					return err
				}
				refs, err := h.DB.Artifacts(cmd.Context(), scope, limit)
				if err != nil {
					return err
				}
				if refs == nil {
					refs = []sanad.ArtifactRef{}
				}
				return a.report(refs, func() {
					if len(refs) == 0 {
						fmt.Fprintf(a.stdout, "no artifacts in %s\n", scope)
					}
					for _, r := range refs {
						fmt.Fprintf(a.stdout, "%s  %8d  %-32s run %s\n", r.ID, r.SizeBytes, r.MediaType, r.CreatedByRun)
					}
				})
			})
		},
	})
	sf.add(c)
	c.Flags().IntVar(&limit, "limit", 0, "how many to list (0: all)")
	return c
}

func (a *app) artifactsCatCommand() *cobra.Command {
	var sf scopeFlags
	c := &cobra.Command{
		Use:   "cat ARTIFACT",
		Short: "Print an artifact's content (checked against its hash), by id within its case",
		Long: `Cat prints the content of the artifact ARTIFACT (sha256:HEX, or HEX) of the case given by
--tenant and --case, or by --run. An artifact of another case is not found: cases are isolated.
The content is checked against its hash before it is printed. Exit 1 when it is not found.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := args[0]
			if !strings.HasPrefix(id, "sha256:") {
				id = "sha256:" + id
			}
			if !sanad.ValidSHA256Hex(strings.TrimPrefix(id, "sha256:")) {
				return usagef("%s is not an artifact id: sha256: and 64 hex digits", args[0])
			}
			return a.withHomeRead(cmd.Context(), func(h *home.Home) error {
				scope, err := sf.scope(cmd, h)
				if err != nil {
					return err
				}
				data, _, err := h.Artifacts.Get(cmd.Context(), id, scope)
				if sanad.ErrorCode(err) == sanad.CodeNotFound {
					return failure{sanad.Errorf(sanad.CodeNotFound, "artifacts.cat", "no artifact %s in %s (sanad artifacts ls lists them)", id, scope)}
				}
				if err != nil {
					return err
				}
				_, err = a.stdout.Write(data)
				return err
			})
		},
	}
	sf.add(c)
	return c
}
