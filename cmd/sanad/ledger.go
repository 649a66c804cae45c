package main

import (
	"bufio"
	"encoding/base64"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/ingest"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/tlog"
)

func (a *app) ledgerCommand() *cobra.Command {
	return group("ledger", "Inspect and verify the ledger of the home",
		a.ledgerVerifyCommand(), a.ledgerShowCommand(), a.ledgerCheckpointCommand(), a.ledgerKeyCommand(), a.ledgerProofCommand(),
		a.ledgerConsistencyCommand())
}

func (a *app) ledgerVerifyCommand() *cobra.Command {
	var artifacts bool
	c := a.jsonFlag(&cobra.Command{
		Use:   "verify [TRACE]",
		Short: "Verify the whole ledger, or one trace",
		Long: `Verify reads the home read-only and needs no private key: every key comes from the
log's own registry (key.registered events, signed by the runtime's key, each before the
first event it signs). It checks every event's canonical form, hash, signature, signer and
body schema, that the store files each event where its signed trace and seq say, each trace's
hash chain and ordering rules, and the Merkle log: for the whole ledger, that the tree holds
exactly the event hashes, that every stored checkpoint and the one kept beside the database
are signed by the log's key and have the log's root at their size, that the store's index of
traces and its runs, gates and records projections agree with the events, that every chunk the memory index
serves is the content its document's recorded write lists, and with --artifacts that every
artifact an event refers to is present and matches its hash; for one trace, that no event of
it is missing from what its index returns, each event's inclusion and every checkpoint's
consistency. Exit 1 with the first failure on stderr.`,
		Args: maxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			trace := ""
			if len(args) == 1 {
				trace = args[0]
			}
			ctx := cmd.Context()
			return a.withAudit(ctx, func(h *home.Home, cfg ledger.AuditConfig) error {
				rep, err := ledger.Audit(ctx, cfg, trace)
				if err != nil {
					return err
				}
				chunks := 0
				if trace == "" {
					if err := h.DB.CheckRuns(ctx); err != nil {
						return failure{err}
					}
					if err := h.DB.CheckRecords(ctx); err != nil {
						return failure{err}
					}
					if err := h.DB.CheckGates(ctx); err != nil {
						return failure{err}
					}
					if chunks, err = ingest.CheckIndex(ctx, h); err != nil {
						return failure{err}
					}
				}
				blobs := 0
				if artifacts {
					if blobs, err = h.Artifacts.Check(ctx, h.DB); err != nil {
						return failure{err}
					}
				}
				return a.report(map[string]any{"verified": true, "report": rep, "artifacts_checked": blobs, "memory_chunks_checked": chunks}, func() {
					fmt.Fprintf(a.stdout, "verified: %d events in %d trace(s); tree size %d, root %s; %d checkpoint(s)\n",
						rep.Events, rep.Traces, rep.TreeSize, base64.StdEncoding.EncodeToString(rep.RootHash), rep.Checkpoints)
					if artifacts {
						fmt.Fprintf(a.stdout, "artifacts: %d present, each matching its hash\n", blobs)
					}
					if chunks > 0 {
						fmt.Fprintf(a.stdout, "memory: %d indexed chunks, each the content its document's signed record lists\n", chunks)
					}
				})
			})
		},
	})
	c.Flags().BoolVar(&artifacts, "artifacts", false, "also check every artifact the events refer to against its hash")
	return c
}

func (a *app) ledgerShowCommand() *cobra.Command {
	return a.jsonFlag(&cobra.Command{
		Use:   "show TRACE",
		Short: "Print a trace's events: seq, time, type, signer, run and event hash (JSON Lines with --json)",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withHomeRead(cmd.Context(), func(h *home.Home) error {
				w := bufio.NewWriter(a.stdout)
				defer w.Flush()
				n := 0
				err := h.DB.ReadTrace(cmd.Context(), args[0], 0, func(s ledger.Stored) error {
					n++
					if a.jsonOut {
						w.Write(s.Raw)
						return w.WriteByte('\n')
					}
					ev, err := ledger.Decode(s.Raw)
					if err != nil {
						return fmt.Errorf("seq %d: %w", n, err)
					}
					fmt.Fprintf(w, "%4d  %s  %-20s %-26s %s  %s\n", ev.Seq, ev.Time.Format("2006-01-02T15:04:05.000Z"), ev.Type, ev.Actor.Agent, ev.Run, ev.Hash)
					return nil
				})
				if err != nil {
					return err
				}
				if n == 0 {
					return failure{sanad.Errorf(sanad.CodeNotFound, "ledger.show", "no trace %q in this home (sanad runs list shows the traces)", args[0])}
				}
				return nil
			})
		},
	})
}

func (a *app) ledgerCheckpointCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "checkpoint",
		Short: "Print a signed checkpoint of the log (C2SP tlog-checkpoint signed note)",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withExistingHome(cmd.Context(), func(h *home.Home) error {
				signed, _, err := h.Ledger.Checkpoint(cmd.Context())
				if err != nil {
					return err
				}
				_, err = a.stdout.Write(signed)
				return err
			})
		},
	}
}

func (a *app) ledgerKeyCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "key",
		Short: "Print the checkpoint verifier key (<name>+<hash>+<base64>, as note.NewVerifier reads it)",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withExistingHome(cmd.Context(), func(h *home.Home) error {
				k, err := h.Ledger.VerifierKey()
				if err != nil {
					return err
				}
				fmt.Fprintln(a.stdout, k)
				return nil
			})
		},
	}
}

func (a *app) ledgerProofCommand() *cobra.Command {
	return a.jsonFlag(&cobra.Command{
		Use:   "proof EVENT_HASH",
		Short: "Print the inclusion proof of an event against the latest checkpoint",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := canon.ParseDigest(args[0])
			if err != nil {
				return usagef("%v", err)
			}
			return a.withExistingHome(cmd.Context(), func(h *home.Home) error {
				_, cp, err := h.Ledger.Checkpoint(cmd.Context())
				if err != nil {
					return err
				}
				p, err := h.Ledger.Prove(cmd.Context(), d, cp)
				if err != nil {
					return err
				}
				return a.report(p, func() {
					fmt.Fprintf(a.stdout, "leaf %d of %d\nleaf hash %s\nroot hash %s\n", p.LeafIndex, p.TreeSize,
						base64.StdEncoding.EncodeToString(p.LeafHash), base64.StdEncoding.EncodeToString(p.RootHash))
					for _, n := range p.Proof {
						fmt.Fprintln(a.stdout, base64.StdEncoding.EncodeToString(n))
					}
				})
			})
		},
	})
}

// consistencyReport is what ledger consistency prints with --json.
type consistencyReport struct {
	Old        checkpointSummary `json:"old"`
	New        checkpointSummary `json:"new"`
	Proof      [][]byte          `json:"proof"`
	Checkpoint string            `json:"checkpoint"` // the new checkpoint, a signed note
}

type checkpointSummary struct {
	Size     uint64 `json:"tree_size"`
	RootHash []byte `json:"root_hash"`
}

func (a *app) ledgerConsistencyCommand() *cobra.Command {
	return a.jsonFlag(&cobra.Command{
		Use:   "consistency OLD_CHECKPOINT_FILE",
		Short: "Prove that the log extends a checkpoint it published earlier (RFC 6962 consistency proof)",
		Long: `Consistency reads a checkpoint this home's log signed earlier (a signed note, as sanad ledger
checkpoint printed it, kept by anyone), signs a checkpoint of the log as it is now, and proves
that the old log is a prefix of the new one: an RFC 6962 consistency proof from the old size to
the new, which golang.org/x/mod/sumdb/tlog or transparency-dev/merkle's proof.VerifyConsistency
check with the two roots. Exit 1 when the log does not extend the old checkpoint (it was rolled
back or rewritten), 2 when the file is not a checkpoint signed by this log.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			data, err := readBounded(args[0], 64<<10)
			if err != nil {
				return usagef("%s: %v", args[0], err)
			}
			return a.withExistingHome(ctx, func(h *home.Home) error {
				v, err := h.Ledger.Verifier()
				if err != nil {
					return err
				}
				old, err := tlog.Open(data, v)
				if err != nil {
					return usagef("%s is not a checkpoint signed by this log's key (%s): %v", args[0], h.Ledger.Origin(), err)
				}
				signed, cur, err := h.Ledger.Checkpoint(ctx)
				if err != nil {
					return failure{err}
				}
				if old.Size > cur.Size {
					return failure{sanad.Errorf(sanad.CodeIntegrity, "ledger.consistency", "rollback: the old checkpoint has %d events, the log now %d", old.Size, cur.Size)}
				}
				prf, err := h.Ledger.ConsistencyProof(ctx, old.Size, cur.Size)
				if err != nil {
					return failure{err}
				}
				if err := tlog.VerifyConsistency(old.Size, cur.Size, prf, old.Hash, cur.Hash); err != nil {
					return failure{sanad.Wrap(err, sanad.CodeIntegrity, "ledger.consistency", "the log does not extend the old checkpoint: its history was rewritten")}
				}
				rep := consistencyReport{Old: checkpointSummary{old.Size, old.Hash}, New: checkpointSummary{cur.Size, cur.Hash}, Proof: prf, Checkpoint: string(signed)}
				if rep.Proof == nil {
					rep.Proof = [][]byte{}
				}
				return a.report(rep, func() {
					fmt.Fprintf(a.stdout, "consistent: the log of %d events extends the checkpoint of %d events\nold root %s\nnew root %s\n",
						cur.Size, old.Size, base64.StdEncoding.EncodeToString(old.Hash), base64.StdEncoding.EncodeToString(cur.Hash))
					for _, n := range prf {
						fmt.Fprintln(a.stdout, base64.StdEncoding.EncodeToString(n))
					}
					fmt.Fprintf(a.stdout, "new checkpoint:\n%s", signed)
				})
			})
		},
	})
}
