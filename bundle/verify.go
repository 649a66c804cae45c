package bundle

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sanadhq/sanad/keyring"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/tlog"
	"golang.org/x/mod/sumdb/note"
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
	file := e.File
	if strings.ContainsFunc(file, func(r rune) bool { return r < ' ' || r > '~' || r == '"' }) || file != strings.TrimSpace(file) {
		file = strconv.Quote(file) // a member's name, as a hostile file may spell it
	}
	return fmt.Sprintf("bundle %s: %s", file, e.Reason)
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
// other files with their hashes (and, from v2, their sizes); every event
// decodes strictly, hashes, is signed by its key, matches its schema and
// follows the one before it (seq, prev, ordering rules) from seq 1; the
// checkpoint and the head are signed by the log key pinned for the
// checkpoint's origin ([Options.LogKeys]); every event has an inclusion proof
// against the checkpoint; and every referenced artifact is present with its
// hash. It returns the first failure, a [*VerifyError].
//
// Verify reads r once, as a stream, with bounded memory. A tar member is
// refused from its header alone if it is not a regular file (links, devices,
// pipes), if its name is absolute, has a ".." component or is not one of a
// bundle's files (directory entries of artifacts/sha256/ and "./" names, as
// tar writes them, are accepted), if it repeats, or if it is larger than
// its kind allows ([MaxFileBytes], [MaxManifestBytes], [MaxKeysBytes],
// [MaxNoteBytes]). Once the manifest is read, a file it does not list, or
// whose size is not the size it declares, is refused before its data is
// read, and the whole stream may not exceed what the listed files need.
// Every member goes through SHA-256 as it is read; artifacts are only hashed,
// never held. The files that must be parsed are kept parsed: events.jsonl a
// line at a time (at most [MaxEventBytes] a line), the JSON files by a
// decoder that fails at the first byte that is not JSON. Before the
// manifest, events.jsonl, proofs.json and keys.json may hold at most
// [MaxHeldBeforeManifest] together: a bundle packed with a larger trace must
// have the manifest first, as the exporter writes it. Peak memory is thus
// the parsed trace (events, proofs and keys, bounded by what the manifest
// declares) plus a fixed amount under 64 MiB, whatever the artifacts and
// whatever a hostile file claims. After the tar's end-of-archive blocks only
// zero padding may follow ([MaxPadding]), and nothing after the gzip
// stream: no second gzip member, no other data.
func Verify(r io.Reader, opts Options) (Report, error) {
	var rep Report
	if opts.Types == nil {
		return rep, errors.New("bundle: Verify needs event types")
	}
	c, err := readBundle(r)
	if err != nil {
		return rep, err
	}
	if c.manifest == nil {
		return rep, fail(ManifestFile, "missing")
	}
	m := *c.manifest
	for name, f := range c.files {
		want, listed := m.Files[name]
		if !listed {
			return rep, fail(name, "not listed in the manifest")
		}
		if f.sum != want {
			return rep, fail(name, "hash %s does not match the manifest's %s", f.sum, want)
		}
		if size, ok := m.Sizes[name]; ok && size != f.size {
			return rep, fail(name, "%d bytes, the manifest says %d", f.size, size)
		}
	}
	for name := range m.Files {
		if _, ok := c.files[name]; !ok {
			return rep, fail(name, "listed in the manifest but missing")
		}
	}
	for _, name := range []string{EventsFile, CheckpointFile, ProofsFile, KeysFile} {
		if _, ok := c.files[name]; !ok {
			return rep, fail(name, "missing")
		}
	}
	if c.head == nil {
		return rep, fail(HeadFile, "missing")
	}
	keys := *c.keys
	for id, k := range keys.Keys {
		if k.Algorithm != keyring.Algorithm || len(k.Public) != 32 || keyring.KeyID(k.Public) != id {
			return rep, fail(KeysFile, "key %s is malformed or does not match its id", id)
		}
	}
	logKey, pinned, verifier, cp, err := openCheckpoint(c.checkpoint, keys.Log, opts.LogKeys)
	if err != nil {
		return rep, err
	}
	hn, err := tlog.OpenNote(c.head, verifier)
	if err != nil {
		return rep, fail(HeadFile, "signature: %v", err)
	}
	head, err := ParseHead(hn.Text)
	if err != nil {
		return rep, fail(HeadFile, "%v", err)
	}
	if head.Trace != m.Trace || head.Manifest != c.manifestSum {
		return rep, fail(HeadFile, "the signed head is for another trace or manifest")
	}
	proofs := *c.proofs
	if proofs.TreeSize != cp.Size || !bytes.Equal(proofs.RootHash, cp.Hash) {
		return rep, fail(ProofsFile, "proofs are for tree size %d, the checkpoint is for %d", proofs.TreeSize, cp.Size)
	}
	chk := &ledger.Checker{Types: opts.Types, Keys: ledger.KeyMap(keys.Keys), RuntimeIdentity: keys.Runtime}
	refs := make(map[string]bool)
	n := 0
	for _, ev := range c.events {
		pos := fmt.Sprintf("%s line %d", EventsFile, n+1)
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
	for name := range c.files {
		if sum, ok := strings.CutPrefix(name, ArtifactsDir); ok && !refs[sum] {
			return rep, fail(name, "no event refers to this artifact")
		}
	}
	for sum := range refs {
		if _, ok := c.files[ArtifactsDir+sum]; !ok {
			return rep, fail(ArtifactsDir+sum, "referenced by an event but missing")
		}
	}
	rep = Report{Trace: m.Trace, Events: n, Artifacts: c.artifacts, Keys: len(keys.Keys), TreeSize: cp.Size, RootHash: cp.Hash,
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
		v, err := keyring.NewNoteVerifier(carried)
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
		v, err := keyring.NewNoteVerifier(k)
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
