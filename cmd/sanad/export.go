package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/bundle"
	"github.com/sanadhq/sanad/home"
)

func (a *app) exportCommand() *cobra.Command {
	var out, tenant string
	c := a.jsonFlag(&cobra.Command{
		Use:   "export TRACE -o FILE",
		Short: "Export a trace as a bundle that verifies offline",
		Long: `Export writes the trace's events, a signed checkpoint, an inclusion proof per event, the
public keys and the referenced artifacts to a gzip-compressed tar. The export itself is a
governed run recorded in the ledger (export.authorized, export.assembled, export.finalized).`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usagef("export needs -o FILE")
			}
			return a.withHome(cmd.Context(), func(h *home.Home) error {
				res, err := exportTrace(cmd, h, sanad.Scope{Tenant: tenant}, args[0], out)
				if err != nil {
					return err
				}
				return a.report(map[string]any{"bundle": out, "result": res}, func() {
					fmt.Fprintf(a.stdout, "exported %d events and %d artifacts of %s to %s (%s)\n", res.Events, res.Artifacts, res.Trace, out, res.SHA256)
				})
			})
		},
	})
	c.Flags().StringVarP(&out, "output", "o", "", "bundle file to write")
	c.Flags().StringVar(&tenant, "tenant", "operator", "tenant the export run is recorded under")
	return c
}

// exportTrace writes the bundle to a temporary file and renames it into place
// only when complete.
func exportTrace(cmd *cobra.Command, h *home.Home, scope sanad.Scope, trace, out string) (bundle.Result, error) {
	dir := filepath.Dir(out)
	f, err := os.CreateTemp(dir, ".sanad-export-*")
	if err != nil {
		return bundle.Result{}, usagef("cannot write to %s: %v", dir, err)
	}
	defer os.Remove(f.Name())
	x := &bundle.Exporter{Ledger: h.Ledger, Artifacts: h.Artifacts, Runs: h.Runs}
	res, err := x.Export(cmd.Context(), scope, trace, f)
	if err != nil {
		f.Close()
		return res, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return res, err
	}
	if err := f.Close(); err != nil {
		return res, err
	}
	return res, os.Rename(f.Name(), out)
}

func (a *app) verifyCommand() *cobra.Command {
	var logKey string
	c := a.jsonFlag(&cobra.Command{
		Use:   "verify FILE",
		Short: "Verify an export bundle offline (no home folder, no network)",
		Long: `Verify checks the manifest hashes, every event's canonical form, hash, signature and
schema, the trace's hash chain and ordering rules, the signed checkpoint, each event's
inclusion proof, and every referenced artifact. Exit 0 if sound, 1 with the first failure.

With --log-key the checkpoint must be signed by that key (from 'sanad ledger key' of the
issuing home); without it the bundle is checked against the key it carries.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := os.Open(args[0])
			if err != nil {
				return usagef("cannot open bundle: %v", err)
			}
			defer f.Close()
			types, err := home.Types()
			if err != nil {
				return err
			}
			rep, err := bundle.Verify(f, bundle.Options{Types: types, LogKey: logKey})
			if err != nil {
				return err
			}
			return a.report(map[string]any{"verified": true, "report": rep}, func() {
				pin := "the bundle's own log key"
				if rep.LogPinned {
					pin = "the pinned log key"
				}
				fmt.Fprintf(a.stdout, "verified: trace %s, %d events, %d artifacts, checkpoint %s size %d signed by %s\n",
					rep.Trace, rep.Events, rep.Artifacts, rep.Checkpoint, rep.TreeSize, pin)
			})
		},
	})
	c.Flags().StringVar(&logKey, "log-key", "", "pin the checkpoint verifier key")
	return c
}
