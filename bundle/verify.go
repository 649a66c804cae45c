package bundle

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/keyring"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/tlog"
	"golang.org/x/mod/sumdb/note"
)

// Limits on what a bundle may hold, so a hostile file cannot exhaust memory.
const (
	MaxFiles     = 1 << 20
	MaxFileBytes = 1 << 30
	MaxTotal     = 4 << 30
)

// VerifyError is the first failure found in a bundle: the file and, for
// events, the trace position.
type VerifyError struct {
	File   string
	Reason string
	Err    error
}

func (e *VerifyError) Error() string {
	if e.File == "" {
		return "bundle: " + e.Reason
	}
	return fmt.Sprintf("bundle %s: %s", e.File, e.Reason)
}

func (e *VerifyError) Unwrap() error { return e.Err }

// Options tune [Verify].
type Options struct {
	// Types are the event types to accept. Required.
	Types *ledger.Types
	// LogKeys returns the checkpoint verifier keys ("<origin>+<hash>+<base64>")
	// pinned for the log named origin, the first line of the bundle's
	// checkpoint; [TrustedLogs.For] and [PinLogKey] make one. When it returns
	// keys, the checkpoint and the head must be signed by one of them. When it
	// is nil or returns none, nothing pins the log: the bundle is checked
	// against the key it carries, which proves it intact and self-consistent
	// but not who issued it, and Verify fails with [ErrUnpinned] unless
	// AllowUnpinned is set.
	LogKeys func(origin string) []string
	// AllowUnpinned accepts a bundle whose log no key is pinned for, after
	// checking it against the key it carries ([Report.LogPinned] is false).
	AllowUnpinned bool
}

// ErrUnpinned is the failure of a bundle that is intact and self-consistent
// but whose log no key is pinned for: nothing shows which log issued it, as
// anyone can sign a bundle with a key of their own under any log's name.
// [Verify] returns it (in a [*VerifyError], with the full report) unless
// [Options.AllowUnpinned] is set.
var ErrUnpinned = errors.New("no trusted log key is pinned for the bundle's log")

// PinLogKey returns an [Options.LogKeys] that pins key whatever the bundle's
// log: a bundle of any other log fails.
func PinLogKey(key string) func(origin string) []string {
	return func(string) []string { return []string{key} }
}

// Report describes a verified bundle.
type Report struct {
	Trace     string `json:"trace"`
	Events    int    `json:"events"`
	Artifacts int    `json:"artifacts"`
	Keys      int    `json:"keys"`
	TreeSize  uint64 `json:"tree_size"`
	RootHash  []byte `json:"root_hash"`
	// LogKey is the key that signed the checkpoint and the head.
	LogKey string `json:"log_key"`
	// LogPinned says whether LogKey was one pinned for the log
	// ([Options.LogKeys]); if not, it is the key the bundle carries, and the
	// bundle is only known to be self-consistent.
	LogPinned  bool   `json:"log_key_pinned"`
	Checkpoint string `json:"checkpoint_origin"`
}

func fail(file, format string, args ...any) error {
	return &VerifyError{File: file, Reason: fmt.Sprintf(format, args...)}
}

// Verify reads a bundle and checks all of it: the manifest lists exactly the
// other files with their hashes; every event decodes strictly, hashes, is
// signed by its key, matches its schema and follows the one before it (seq,
// prev, ordering rules) from seq 1; the checkpoint is signed by the log key;
// every event has an inclusion proof against the checkpoint; and every
// referenced artifact is present with its hash. It returns the first failure.
func Verify(r io.Reader, opts Options) (Report, error) {
	var rep Report
	if opts.Types == nil {
		return rep, errors.New("bundle: Verify needs event types")
	}
	files, err := readTar(r)
	if err != nil {
		return rep, err
	}
	manifestRaw, ok := files[ManifestFile]
	if !ok {
		return rep, fail(ManifestFile, "missing")
	}
	var m Manifest
	if err := strictJSON(manifestRaw, &m); err != nil {
		return rep, fail(ManifestFile, "malformed: %v", err)
	}
	if m.Format != Format {
		return rep, fail(ManifestFile, "format %q, want %q", m.Format, Format)
	}
	for name, data := range files {
		if name == ManifestFile || name == HeadFile {
			continue
		}
		want, listed := m.Files[name]
		if !listed {
			return rep, fail(name, "not listed in the manifest")
		}
		if got := "sha256:" + hexSum(data); got != want {
			return rep, fail(name, "hash %s does not match the manifest's %s", got, want)
		}
	}
	for name := range m.Files {
		if _, ok := files[name]; !ok {
			return rep, fail(name, "listed in the manifest but missing")
		}
	}
	for _, name := range []string{EventsFile, CheckpointFile, ProofsFile, KeysFile, HeadFile} {
		if _, ok := files[name]; !ok {
			return rep, fail(name, "missing")
		}
	}
	var keys Keys
	if err := strictJSON(files[KeysFile], &keys); err != nil {
		return rep, fail(KeysFile, "malformed: %v", err)
	}
	for id, k := range keys.Keys {
		if k.Algorithm != keyring.Algorithm || len(k.Public) != 32 || keyring.KeyID(k.Public) != id {
			return rep, fail(KeysFile, "key %s is malformed or does not match its id", id)
		}
	}
	logKey, pinned, verifier, cp, err := openCheckpoint(files[CheckpointFile], keys.Log, opts.LogKeys)
	if err != nil {
		return rep, err
	}
	hn, err := note.Open(files[HeadFile], note.VerifierList(verifier))
	if err != nil {
		return rep, fail(HeadFile, "signature: %v", err)
	}
	head, err := ParseHead(hn.Text)
	if err != nil {
		return rep, fail(HeadFile, "%v", err)
	}
	if head.Trace != m.Trace || head.Manifest != "sha256:"+hexSum(manifestRaw) {
		return rep, fail(HeadFile, "the signed head is for another trace or manifest")
	}
	var proofs Proofs
	if err := strictJSON(files[ProofsFile], &proofs); err != nil {
		return rep, fail(ProofsFile, "malformed: %v", err)
	}
	if proofs.TreeSize != cp.Size || !bytes.Equal(proofs.RootHash, cp.Hash) {
		return rep, fail(ProofsFile, "proofs are for tree size %d, the checkpoint is for %d", proofs.TreeSize, cp.Size)
	}
	chk := &ledger.Checker{Types: opts.Types, Keys: ledger.KeyMap(keys.Keys), RuntimeIdentity: keys.Runtime}
	refs := make(map[string]bool)
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(files[EventsFile]))
	sc.Buffer(make([]byte, 0, 64<<10), MaxFileBytes)
	for sc.Scan() {
		line := sc.Bytes()
		pos := fmt.Sprintf("%s line %d", EventsFile, n+1)
		ev, err := ledger.Decode(line)
		if err != nil {
			return rep, &VerifyError{File: pos, Reason: err.Error(), Err: err}
		}
		if ev.Trace != m.Trace {
			return rep, fail(pos, "event of trace %q in a bundle of trace %q", ev.Trace, m.Trace)
		}
		if err := chk.CheckEvent(ev); err != nil {
			return rep, &VerifyError{File: pos, Reason: err.Error(), Err: err}
		}
		if err := chk.Next(ev); err != nil {
			return rep, &VerifyError{File: pos, Reason: err.Error(), Err: err}
		}
		if n >= len(proofs.Events) {
			return rep, fail(ProofsFile, "no proof for seq %d", ev.Seq)
		}
		p := proofs.Events[n]
		if p.Seq != ev.Seq || p.EventHash != ev.Hash.String() {
			return rep, fail(ProofsFile, "proof %d is for seq %d %s, not for seq %d %s", n, p.Seq, p.EventHash, ev.Seq, ev.Hash)
		}
		if err := tlog.VerifyInclusion(p.LeafIndex, cp.Size, tlog.LeafHash(ev.Hash[:]), p.Proof, cp.Hash); err != nil {
			return rep, fail(ProofsFile, "seq %d is not included in the checkpoint: %v", ev.Seq, err)
		}
		for _, r := range ev.Refs {
			refs[r.SHA256] = true
		}
		n++
	}
	if err := sc.Err(); err != nil {
		return rep, fail(EventsFile, "%v", err)
	}
	if n == 0 {
		return rep, fail(EventsFile, "no events")
	}
	if seq, h := chk.Head(m.Trace); seq != head.Seq || h.String() != head.Hash {
		return rep, fail(EventsFile, "the trace ends at seq %d, the signed head says seq %d", seq, head.Seq)
	}
	if n != len(proofs.Events) {
		return rep, fail(ProofsFile, "%d proofs for %d events", len(proofs.Events), n)
	}
	if err := chk.Finish(); err != nil {
		return rep, &VerifyError{File: EventsFile, Reason: err.Error(), Err: err}
	}
	artifacts := 0
	for name := range files {
		if sum, ok := strings.CutPrefix(name, ArtifactsDir); ok {
			if !refs[sum] {
				return rep, fail(name, "no event refers to this artifact")
			}
			if hexSum(files[name]) != sum {
				return rep, fail(name, "content does not match its name")
			}
			artifacts++
		}
	}
	for sum := range refs {
		if _, ok := files[ArtifactsDir+sum]; !ok {
			return rep, fail(ArtifactsDir+sum, "referenced by an event but missing")
		}
	}
	rep = Report{Trace: m.Trace, Events: n, Artifacts: artifacts, Keys: len(keys.Keys), TreeSize: cp.Size, RootHash: cp.Hash,
		LogKey: logKey, LogPinned: pinned, Checkpoint: cp.Origin}
	if !pinned && !opts.AllowUnpinned {
		return rep, &VerifyError{File: CheckpointFile, Reason: fmt.Sprintf("the bundle is intact and self-consistent, but no trusted key is pinned for its log %q: "+
			"it is signed by the key it carries (%s), which anyone can make", cp.Origin, logKey), Err: ErrUnpinned}
	}
	return rep, nil
}

// openCheckpoint verifies the signed checkpoint: with the keys pinned for its
// origin if there are any (pinned is then true), else with the key the bundle
// carries (carried), which must then be for the same origin.
func openCheckpoint(signed []byte, carried string, pins func(string) []string) (key string, pinned bool, v note.Verifier, cp tlog.Checkpoint, err error) {
	origin, _, _ := strings.Cut(string(signed), "\n")
	var keys []string
	if pins != nil {
		keys = pins(origin)
	}
	if len(keys) == 0 {
		v, err := note.NewVerifier(carried)
		if err != nil {
			return "", false, nil, cp, fail(KeysFile, "log key %q is not a note verifier key: %v", carried, err)
		}
		cp, err := tlog.Open(signed, v)
		if err != nil {
			return "", false, nil, cp, fail(CheckpointFile, "%v", err)
		}
		return carried, false, v, cp, nil
	}
	var others []string
	for _, k := range keys {
		v, err := note.NewVerifier(k)
		if err != nil {
			return "", false, nil, cp, fail("", "pinned log key %q is not a note verifier key: %v", k, err)
		}
		if v.Name() != origin {
			others = append(others, v.Name())
			continue
		}
		if cp, err := tlog.Open(signed, v); err == nil {
			if carried != k {
				return "", false, nil, cp, fail(KeysFile, "the bundle names log key %q, but its checkpoint is signed by the pinned key %q", carried, k)
			}
			return k, true, v, cp, nil
		}
	}
	if len(others) == len(keys) {
		return "", false, nil, cp, fail(CheckpointFile, "the checkpoint is of log %q, not of the pinned log %q", origin, strings.Join(others, `", "`))
	}
	return "", false, nil, cp, fail(CheckpointFile, "the checkpoint of log %q is not signed by the pinned key (%s): it is signed by another key under the same name, such as the one the bundle carries (%s)",
		origin, strings.Join(keys, ", "), carried)
}

func strictJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data")
	}
	return nil
}

// readTar reads every regular file of a (gzip-compressed or plain) tar,
// refusing unsafe or duplicate names, other entry types and oversized files.
func readTar(r io.Reader) (map[string][]byte, error) {
	br := bufio.NewReader(r)
	var src io.Reader = br
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, &VerifyError{Reason: fmt.Sprintf("not a readable gzip file: %v", err), Err: err}
		}
		defer gz.Close()
		src = gz
	}
	tr := tar.NewReader(src)
	files := make(map[string][]byte)
	var total int64
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, &VerifyError{Reason: fmt.Sprintf("not a readable tar file (truncated or damaged): %v", err), Err: err}
		}
		name := hdr.Name
		if !validName(name) {
			return nil, fail(name, "unexpected file name in a bundle")
		}
		if hdr.Typeflag != tar.TypeReg {
			return nil, fail(name, "not a regular file")
		}
		if _, dup := files[name]; dup {
			return nil, fail(name, "appears twice")
		}
		if hdr.Size < 0 || hdr.Size > MaxFileBytes || total+hdr.Size > MaxTotal || len(files) >= MaxFiles {
			return nil, fail(name, "too large")
		}
		total += hdr.Size
		data, err := io.ReadAll(io.LimitReader(tr, hdr.Size))
		if err != nil || int64(len(data)) != hdr.Size {
			return nil, &VerifyError{File: name, Reason: "truncated", Err: err}
		}
		files[name] = data
	}
	if len(files) == 0 {
		return nil, &VerifyError{Reason: "empty or not a bundle"}
	}
	// Read to the end: a damaged or padded compressed stream is a damaged file.
	if gz, ok := src.(*gzip.Reader); ok {
		if _, err := io.Copy(io.Discard, gz); err != nil {
			return nil, &VerifyError{Reason: fmt.Sprintf("damaged gzip stream: %v", err), Err: err}
		}
	}
	return files, nil
}

func validName(name string) bool {
	switch name {
	case ManifestFile, EventsFile, CheckpointFile, ProofsFile, KeysFile, HeadFile:
		return true
	}
	sum, ok := strings.CutPrefix(name, ArtifactsDir)
	return ok && sanad.ValidSHA256Hex(sum)
}
