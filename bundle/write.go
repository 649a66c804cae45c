package bundle

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/artifact"
	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/keyring"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/runs"
)

// Contents is a bundle in memory, before it is written.
type Contents struct {
	Trace      string
	Events     [][]byte // canonical events, in order
	Checkpoint []byte
	Proofs     Proofs
	Keys       Keys
	Artifacts  map[string][]byte // by hex SHA-256
	// Attest signs the head note with the log key ([ledger.Ledger.Attest]).
	Attest func(text string) ([]byte, error)
	last   *ledger.Event
}

// Assemble gathers a trace's bundle: its events, a checkpoint of the log that
// covers them (issued now if needed), their inclusion proofs, the keys that
// signed them and the artifacts they refer to.
//
// Nothing is signed about a trace that was not verified against the log:
// Assemble first verifies the trace ([ledger.Ledger.Verify]) and refuses one
// that fails. As it reads the events it checks, besides, that the store
// returns the trace asked for in its signed fields, not only in its index:
// each event's signed trace, seq and prev must be the next of the trace,
// from seq 1, and no event of the trace may sit in the log after the last
// one returned, up to the checkpoint. The bundle holds the trace as of the
// checkpoint.
func Assemble(ctx context.Context, l *ledger.Ledger, arts *artifact.Store, trace string) (*Contents, error) {
	const op = "bundle.assemble"
	c := &Contents{Trace: trace, Artifacts: make(map[string][]byte), Attest: l.Attest}
	signed, cp, err := l.Checkpoint(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := l.Verify(ctx, trace); err != nil {
		if sanad.ErrorCode(err) == sanad.CodeNotFound {
			return nil, err
		}
		return nil, sanad.Wrap(err, sanad.CodeIntegrity, op, fmt.Sprintf("trace %s does not verify against the log, so it is not exported (sanad ledger verify %s says more): %v", trace, trace, err))
	}
	all, err := l.PublicKeys(ctx)
	if err != nil {
		return nil, err
	}
	vkey, err := l.VerifierKey()
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInternal, op, "log verifier key")
	}
	c.Checkpoint = signed
	c.Keys = Keys{Runtime: l.RuntimeIdentity(), Log: vkey, Keys: make(map[string]keyring.PublicKey)}
	c.Proofs = Proofs{TreeSize: cp.Size, RootHash: cp.Hash}
	var seq uint64
	var prev canon.Digest
	var lastIndex uint64
	err = l.Store().ReadTrace(ctx, trace, 0, func(s ledger.Stored) error {
		if s.Index >= cp.Size {
			return errStop // appended after the checkpoint
		}
		if len(s.Raw) > MaxEventBytes {
			return sanad.Errorf(sanad.CodeInvalidInput, op, "trace %s seq %d: the event is %d bytes, more than a bundle holds (%d)", trace, seq+1, len(s.Raw), MaxEventBytes)
		}
		ev, err := ledger.Decode(s.Raw)
		if err != nil {
			return sanad.Wrap(err, sanad.CodeIntegrity, op, fmt.Sprintf("trace %s seq %d: %v", trace, seq+1, err))
		}
		if ev.Trace != trace || ev.Seq != seq+1 || ev.Prev != prev || ev.Hash != s.Hash {
			return sanad.Errorf(sanad.CodeIntegrity, op, "the store returned, as event %d of trace %s, log leaf %d, which is signed as seq %d of trace %q: "+
				"its index does not match the signed events, so the trace is not exported (run sanad ledger verify)", seq+1, trace, s.Index, ev.Seq, ev.Trace)
		}
		seq, prev, lastIndex = ev.Seq, ev.Hash, s.Index
		c.last = ev
		p, err := l.ProveStored(ctx, s.Index, ev.Hash, cp)
		if err != nil {
			return err
		}
		c.Events = append(c.Events, append([]byte(nil), s.Raw...))
		c.Proofs.Events = append(c.Proofs.Events, Proof{Seq: ev.Seq, EventHash: ev.Hash.String(), LeafIndex: s.Index, Proof: p.Proof})
		k, ok := all[ev.Actor.Key]
		if !ok {
			return sanad.Errorf(sanad.CodeIntegrity, op, "key %s of %s seq %d is not in the keyring", ev.Actor.Key, trace, ev.Seq)
		}
		c.Keys.Keys[ev.Actor.Key] = k
		for _, r := range ev.Refs {
			if _, done := c.Artifacts[r.SHA256]; done {
				continue
			}
			data, err := arts.Read(r.SHA256)
			if err != nil {
				return err
			}
			c.Artifacts[r.SHA256] = data
		}
		return nil
	})
	if err != nil && err != errStop {
		return nil, err
	}
	if len(c.Events) == 0 {
		return nil, sanad.Errorf(sanad.CodeNotFound, op, "trace %q has no events", trace)
	}
	if err := checkNoLaterEvents(ctx, l.Store(), trace, seq, lastIndex+1, cp.Size); err != nil {
		return nil, err
	}
	return c, nil
}

// errStop ends a read early.
var errStop = errors.New("stop")

// checkNoLaterEvents reads the log's leaves from index from up to size and
// refuses any event signed as of trace: the store's index did not return it
// with the trace's events, which end at seq last. Only events whose bytes
// name the trace are decoded.
func checkNoLaterEvents(ctx context.Context, r ledger.Reader, trace string, last, from, size uint64) error {
	quoted, err := json.Marshal(trace)
	if err != nil {
		return err
	}
	needle := append([]byte(`"trace":`), quoted...)
	err = r.ReadLog(ctx, from, func(s ledger.Stored) error {
		if s.Index >= size {
			return errStop
		}
		if !bytes.Contains(s.Raw, needle) {
			return nil
		}
		ev, err := ledger.Decode(s.Raw)
		if err != nil {
			return sanad.Wrap(err, sanad.CodeIntegrity, "bundle.assemble", fmt.Sprintf("log leaf %d: %v", s.Index, err))
		}
		if ev.Trace == trace {
			return sanad.Errorf(sanad.CodeIntegrity, "bundle.assemble", "log leaf %d is signed as seq %d of trace %s, but the store's index ends the trace at seq %d: "+
				"the index hides events, so the trace is not exported (run sanad ledger verify)", s.Index, ev.Seq, trace, last)
		}
		return nil
	})
	if err != nil && err != errStop {
		return err
	}
	return nil
}

type file struct {
	name string
	data []byte
}

func (c *Contents) files() ([]file, Manifest, error) {
	var files []file
	var events []byte
	for _, e := range c.Events {
		events = append(append(events, e...), '\n')
	}
	proofs, err := json.MarshalIndent(c.Proofs, "", " ")
	if err != nil {
		return nil, Manifest{}, err
	}
	keys, err := json.MarshalIndent(c.Keys, "", " ")
	if err != nil {
		return nil, Manifest{}, err
	}
	files = append(files,
		file{EventsFile, events},
		file{CheckpointFile, c.Checkpoint},
		file{ProofsFile, append(proofs, '\n')},
		file{KeysFile, append(keys, '\n')},
	)
	sums := make([]string, 0, len(c.Artifacts))
	for s := range c.Artifacts {
		sums = append(sums, s)
	}
	sort.Strings(sums)
	for _, s := range sums {
		files = append(files, file{ArtifactsDir + s, c.Artifacts[s]})
	}
	var total int64
	for _, f := range files {
		if n := int64(len(f.data)); n > fileLimit(f.name) || total+n > MaxTotal || len(files) > MaxFiles {
			return nil, Manifest{}, fmt.Errorf("%s would be %d bytes, more than a bundle may hold (%d in one file, %d in all, %d files)", f.name, n, fileLimit(f.name), int64(MaxTotal), MaxFiles)
		}
		total += int64(len(f.data))
	}
	m := Manifest{Format: Format, Trace: c.Trace, Files: make(map[string]string, len(files)), Sizes: make(map[string]int64, len(files))}
	for _, f := range files {
		m.Files[f.name] = canon.Sum(f.data).String()
		m.Sizes[f.name] = int64(len(f.data))
	}
	return files, m, nil
}

// Write writes the bundle as a gzip-compressed tar and returns the manifest
// and the SHA-256 of the bytes written. The output depends only on the
// contents: writing the same contents twice gives the same bytes.
func (c *Contents) Write(w io.Writer) (Manifest, canon.Digest, error) {
	const op = "bundle.write"
	files, m, err := c.files()
	if err != nil {
		return m, canon.Digest{}, sanad.Wrap(err, sanad.CodeInternal, op, "encode bundle")
	}
	manifest, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return m, canon.Digest{}, sanad.Wrap(err, sanad.CodeInternal, op, "encode manifest")
	}
	manifest = append(manifest, '\n')
	head, err := c.Attest(Head{Trace: c.Trace, Seq: c.last.Seq, Hash: c.last.Hash.String(), Manifest: canon.Sum(manifest).String()}.Text())
	if err != nil {
		return m, canon.Digest{}, err
	}
	h := sha256.New()
	gz, _ := gzip.NewWriterLevel(io.MultiWriter(w, h), gzip.BestSpeed)
	tw := tar.NewWriter(gz)
	// The manifest first: a verifier reads it before any other file.
	all := append([]file{{ManifestFile, manifest}, {HeadFile, head}}, files...)
	for _, f := range all {
		hdr := &tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.data)), ModTime: time.Unix(0, 0).UTC(), Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return m, canon.Digest{}, sanad.Wrap(err, sanad.CodeDependencyDown, op, fmt.Sprintf("write bundle: %v", err))
		}
		if _, err := tw.Write(f.data); err != nil {
			return m, canon.Digest{}, sanad.Wrap(err, sanad.CodeDependencyDown, op, fmt.Sprintf("write bundle: %v", err))
		}
	}
	if err := tw.Close(); err != nil {
		return m, canon.Digest{}, sanad.Wrap(err, sanad.CodeDependencyDown, op, fmt.Sprintf("write bundle: %v", err))
	}
	if err := gz.Close(); err != nil {
		return m, canon.Digest{}, sanad.Wrap(err, sanad.CodeDependencyDown, op, fmt.Sprintf("write bundle: %v", err))
	}
	var d canon.Digest
	copy(d[:], h.Sum(nil))
	return m, d, nil
}

// Result describes an export.
type Result struct {
	Trace     string       `json:"trace"`
	ExportRun string       `json:"export_run"`
	Events    int          `json:"events"`
	Artifacts int          `json:"artifacts"`
	TreeSize  uint64       `json:"tree_size"`
	SHA256    canon.Digest `json:"bundle_sha256"`
}

// Exporter exports traces as governed export runs: each export is a run of
// kind export in its own trace, recording export.authorized,
// export.assembled and export.finalized (with the bundle's hash).
type Exporter struct {
	Ledger    *ledger.Ledger
	Artifacts *artifact.Store
	Runs      *runs.Recorder
	// Agent is the identity the export runs act as ("sanad-export" if empty).
	Agent string
}

// Export writes the bundle of trace to w.
func (x *Exporter) Export(ctx context.Context, scope sanad.Scope, trace string, w io.Writer) (Result, error) {
	agent := x.Agent
	if agent == "" {
		agent = "sanad-export"
	}
	run, err := x.Runs.Start(ctx, runs.Spec{
		Kind: sanad.KindExport, Scope: scope, Agent: agent, Role: "export", Request: map[string]any{"trace": trace},
		Decision: runs.Decision{Allow: true, Reason: "export of a trace to a bundle by its operator", Action: "export:trace", Resource: trace},
	})
	if err != nil {
		return Result{}, err
	}
	res := Result{Trace: trace, ExportRun: run.Record.ID}
	fail := func(err error) (Result, error) {
		// Recorded even when the export was interrupted (its context
		// cancelled): the run must not stay open.
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		_ = run.Fail(fctx, err)
		return res, err
	}
	if _, err := run.Append(ctx, TypeExportAuthorized, "", map[string]any{"trace": trace, "format": Format}, nil); err != nil {
		return fail(err)
	}
	c, err := Assemble(ctx, x.Ledger, x.Artifacts, trace)
	if err != nil {
		return fail(err)
	}
	res.Events, res.Artifacts, res.TreeSize = len(c.Events), len(c.Artifacts), c.Proofs.TreeSize
	if _, err := run.Append(ctx, TypeExportAssembled, "", map[string]any{"trace": trace, "events": res.Events, "artifacts": res.Artifacts, "tree_size": res.TreeSize}, nil); err != nil {
		return fail(err)
	}
	m, sum, err := c.Write(w)
	if err != nil {
		return fail(err)
	}
	res.SHA256 = sum
	mh, _ := canon.Hash(m)
	if _, err := run.Append(ctx, TypeExportFinalized, "", map[string]any{"trace": trace, "manifest_sha256": mh.String(), "bundle_sha256": sum.String()}, nil); err != nil {
		return fail(err)
	}
	return res, run.Complete(ctx, nil, map[string]any{"bundle_sha256": sum.String()})
}

// hexSum returns the hex SHA-256 of b.
func hexSum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// RunStore finds the runs an interrupted export left open.
type RunStore interface {
	Running(ctx context.Context, kind sanad.RunKind) ([]sanad.Run, error)
}

// CloseInterrupted ends as cancelled every export run that a process left
// running (one killed midway): exports are not resumed, and a run left open
// would stay "running" for ever. It must be called only by the one process
// that writes the home, before it exports anything.
func CloseInterrupted(ctx context.Context, rec *runs.Recorder, store RunStore) error {
	open, err := store.Running(ctx, sanad.KindExport)
	if err != nil {
		return err
	}
	for _, r := range open {
		run, err := rec.Attach(r, "export")
		if err != nil {
			return err
		}
		cause := sanad.Errorf(sanad.CodeCancelled, "bundle.export", "export run %s was interrupted: its process ended before it finished; export the trace again", r.ID)
		if err := run.Cancel(ctx, sanad.ErrorMessage(cause)); err != nil {
			return err
		}
	}
	return nil
}
