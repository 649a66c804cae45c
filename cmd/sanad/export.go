package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/bundle"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/keyring"
)

func (a *app) exportCommand() *cobra.Command {
	var out, tenant string
	c := a.jsonFlag(&cobra.Command{
		Use:   "export TRACE -o FILE",
		Short: "Export a trace as a bundle that verifies offline",
		Long: `Export writes the trace's events, a signed checkpoint, an inclusion proof per event, the
public keys and the referenced artifacts to a gzip-compressed tar. The export itself is a
governed run recorded in the ledger (export.authorized, export.assembled, export.finalized).
The home's own log key is added to <home>/trusted-logs, so that 'sanad verify' with this
home trusts the bundles it exports; elsewhere, pin it with --log-key or 'sanad trust add'.`,
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
// only when complete. It first adds the home's own log key to the home's
// trusted-logs file, so that 'sanad verify' with this home pins it.
func exportTrace(cmd *cobra.Command, h *home.Home, scope sanad.Scope, trace, out string) (bundle.Result, error) {
	key, err := h.Ledger.VerifierKey()
	if err != nil {
		return bundle.Result{}, err
	}
	if _, err := addTrustedLog(filepath.Join(h.Dir, trustedLogsFile), key, "this home's own log (added by sanad export)"); err != nil {
		return bundle.Result{}, err
	}
	dir := filepath.Dir(out)
	removeStaleExports(dir, time.Now())
	f, err := os.CreateTemp(dir, exportTempPrefix+"*")
	if err != nil {
		return bundle.Result{}, usagef("cannot write to %s: %v", dir, err)
	}
	// The temporary file goes on every path but the rename: an error, a
	// panic, or a signal (it cancels the context, which ends the export).
	done := false
	defer func() {
		if !done {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	ctx := cmd.Context()
	x := &bundle.Exporter{Ledger: h.Ledger, Artifacts: h.Artifacts, Runs: h.Runs}
	res, err := x.Export(ctx, scope, trace, ctxWriter{ctx, f})
	if err != nil {
		return res, err
	}
	if err := f.Sync(); err != nil {
		return res, err
	}
	if err := f.Close(); err != nil {
		return res, err
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	if err := os.Rename(f.Name(), out); err != nil {
		return res, err
	}
	done = true
	return res, nil
}

// exportTempPrefix begins the name of the temporary file an export writes
// in the output folder before renaming it into place.
const exportTempPrefix = ".sanad-export-"

// staleExportAge is how old a temporary export file must be to be taken for
// the leftover of an export that was killed (SIGKILL cannot be handled).
const staleExportAge = time.Hour

// removeStaleExports removes from dir the temporary export files (regular
// files only) last written more than staleExportAge before now: what exports
// killed midway left. Errors are ignored: the files are only litter.
func removeStaleExports(dir string, now time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), exportTempPrefix) || !e.Type().IsRegular() {
			continue
		}
		if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) > staleExportAge {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// ctxWriter fails writes once ctx is done, so that an interrupted export
// stops writing at once.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (w ctxWriter) Write(p []byte) (int, error) {
	if err := w.ctx.Err(); err != nil {
		return 0, err
	}
	return w.w.Write(p)
}

func (a *app) verifyCommand() *cobra.Command {
	var logKey, trustedFile string
	var unpinned bool
	c := a.jsonFlag(&cobra.Command{
		Use:   "verify FILE",
		Short: "Verify an export bundle offline (no home folder, no network)",
		Long: `Verify checks the manifest hashes, every event's canonical form, hash, signature and
schema, the trace's hash chain and ordering rules, the signed checkpoint, each event's
inclusion proof, and every referenced artifact. Exit 0 if sound, 1 with the first failure.

Trust is pinned, never taken from the bundle: the checkpoint must be signed by a log key
you trust. --log-key KEY pins one key (from 'sanad ledger key' of the issuing home); else
the keys of the trusted-logs file are used: <home>/trusted-logs, to which 'sanad export'
adds the home's own key and 'sanad trust add KEY' others, or the file --trusted-logs
names (one key per line, # comments). A bundle of a log no trusted key is pinned for is
checked against the key it carries, which proves only that it is intact and
self-consistent (anyone can sign a bundle with a key of their own): that check fails with
exit 1 unless --unpinned accepts it, and says so either way.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if logKey != "" && (trustedFile != "" || unpinned) {
				return usagef("--log-key pins the one key to verify with: it does not go with --trusted-logs or --unpinned")
			}
			opts := bundle.Options{AllowUnpinned: unpinned}
			if logKey != "" {
				if _, err := keyring.NewNoteVerifier(logKey); err != nil {
					return usagef("--log-key %q is not a log key (<origin>+<hash>+<base64>, as sanad ledger key prints it): %v", logKey, err)
				}
				opts.LogKeys = bundle.PinLogKey(logKey)
			} else {
				trusted, err := a.trustedLogs(trustedFile)
				if err != nil {
					return err
				}
				opts.LogKeys = trusted.For
			}
			f, err := os.Open(args[0])
			if err != nil {
				return usagef("cannot open bundle: %v", err)
			}
			defer f.Close()
			if opts.Types, err = home.Types(); err != nil {
				return err
			}
			rep, err := bundle.Verify(f, opts)
			if err != nil && !errors.Is(err, bundle.ErrUnpinned) {
				return err
			}
			out := map[string]any{"verified": err == nil, "pinned": rep.LogPinned, "report": rep}
			warning := ""
			if !rep.LogPinned {
				warning = fmt.Sprintf("only self-consistency was checked: no trusted key is pinned for log %s, and the bundle's own log key (%s) proves nothing about who issued it; "+
					"pin the issuer's key with --log-key, 'sanad trust add KEY' or --trusted-logs", rep.Checkpoint, rep.LogKey)
				out["warning"] = warning
			}
			if err != nil {
				if a.jsonOut {
					if perr := a.printJSON(out); perr != nil {
						return perr
					}
				}
				return failure{fmt.Errorf("not verified: the bundle of trace %s is intact, but %s (--unpinned accepts that)", rep.Trace, warning)}
			}
			return a.report(out, func() {
				if !rep.LogPinned {
					fmt.Fprintf(a.stdout, "verified as self-consistent only (UNPINNED): trace %s, %d events, %d artifacts, checkpoint %s size %d signed by the bundle's own log key\n",
						rep.Trace, rep.Events, rep.Artifacts, rep.Checkpoint, rep.TreeSize)
					fmt.Fprintf(a.stderr, "sanad: warning: %s\n", warning)
					return
				}
				fmt.Fprintf(a.stdout, "verified: trace %s, %d events, %d artifacts, checkpoint %s size %d signed by the pinned log key\n",
					rep.Trace, rep.Events, rep.Artifacts, rep.Checkpoint, rep.TreeSize)
			})
		},
	})
	c.Flags().StringVar(&logKey, "log-key", "", "pin this checkpoint verifier key: the bundle must be of its log, signed by it")
	c.Flags().StringVar(&trustedFile, "trusted-logs", "", "file of trusted log keys, one per line (default <home>/trusted-logs)")
	c.Flags().BoolVar(&unpinned, "unpinned", false, "accept a bundle of a log no trusted key is pinned for, checked for self-consistency only")
	return c
}

// exported is a trace exported into the home's exports folder and verified
// offline against the home's log key.
type exported struct {
	Path   string
	Result bundle.Result
	Report bundle.Report
	LogKey string
}

// exportVerified exports trace to <home>/exports/TRACE.tar.gz and verifies
// the bundle against the home's own log key.
func exportVerified(cmd *cobra.Command, h *home.Home, scope sanad.Scope, trace string) (exported, error) {
	var x exported
	if err := os.MkdirAll(filepath.Join(h.Dir, "exports"), 0o755); err != nil {
		return x, err
	}
	x.Path = filepath.Join(h.Dir, "exports", trace+".tar.gz")
	var err error
	if x.Result, err = exportTrace(cmd, h, scope, trace, x.Path); err != nil {
		return x, err
	}
	if x.LogKey, err = h.Ledger.VerifierKey(); err != nil {
		return x, err
	}
	f, err := os.Open(x.Path)
	if err != nil {
		return x, err
	}
	defer f.Close()
	x.Report, err = bundle.Verify(f, bundle.Options{Types: h.Types, LogKeys: bundle.PinLogKey(x.LogKey)})
	return x, err
}
