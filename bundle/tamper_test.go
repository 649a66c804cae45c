package bundle_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sanadhq/sanad/bundle"
	"github.com/sanadhq/sanad/keyring"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/ledgertest"
	"github.com/sanadhq/sanad/tlog"
	"github.com/transparency-dev/merkle/compact"
	"golang.org/x/mod/sumdb/note"
	"pgregory.net/rapid"
)

// editEvents applies one drawn edit to the events of files, as the ledger
// tamper test does to stored events. depth 0 changes events.jsonl alone; 1
// also recomputes the manifest; 2 also brings proofs.json in step with the
// changed events, so that only the signatures, the chain and the inclusion
// proofs against the signed checkpoint are left to catch it.
func editEvents(t *testing.T, rt *rapid.T, e *exported, files []file) string {
	ls := lines(get(files, bundle.EventsFile))
	pr := proofs(t, files)
	n := len(ls)
	kind := rapid.SampledFrom([]string{"flip", "delete", "swap", "insert", "sigswap", "keyswap", "rewrite"}).Draw(rt, "kind")
	depth := rapid.SampledFrom([]int{0, 1, 2, 2}).Draw(rt, "depth")
	line := func(label string) int { return rapid.IntRange(0, n-1).Draw(rt, label) }
	other := func(i int, label string) int { return (i + 1 + rapid.IntRange(0, n-2).Draw(rt, label)) % n }
	setHash := func(i int) {
		pr.Events[i].EventHash = ledgertest.Field(t, ls[i], "hash")
	}
	var desc string
	switch kind {
	case "flip":
		i := line("line")
		pos := rapid.IntRange(0, len(ls[i])-1).Draw(rt, "pos")
		mask := byte(rapid.IntRange(1, 255).Draw(rt, "mask"))
		ls[i][pos] ^= mask
		desc = fmt.Sprintf("byte %d of line %d xor %#02x", pos, i+1, mask)
	case "delete":
		i := line("line")
		ls = append(ls[:i], ls[i+1:]...)
		pr.Events = append(pr.Events[:i], pr.Events[i+1:]...)
		desc = fmt.Sprintf("delete line %d", i+1)
	case "swap":
		i := line("a")
		j := other(i, "b")
		ls[i], ls[j] = ls[j], ls[i]
		pr.Events[i], pr.Events[j] = pr.Events[j], pr.Events[i]
		desc = fmt.Sprintf("swap lines %d and %d", i+1, j+1)
	case "insert":
		src, at := line("copy of"), line("at")
		ls = append(ls[:at], append([][]byte{append([]byte(nil), ls[src]...)}, ls[at:]...)...)
		pr.Events = append(pr.Events[:at], append([]bundle.Proof{pr.Events[src]}, pr.Events[at:]...)...)
		desc = fmt.Sprintf("insert a copy of line %d before line %d", src+1, at+1)
	case "sigswap":
		i := line("a")
		j := other(i, "b")
		si, sj := ledgertest.Field(t, ls[i], "sig"), ledgertest.Field(t, ls[j], "sig")
		ls[i] = bytes.Replace(ls[i], []byte(si), []byte(sj), 1)
		ls[j] = bytes.Replace(ls[j], []byte(sj), []byte(si), 1)
		desc = fmt.Sprintf("swap the signatures of lines %d and %d", i+1, j+1)
	case "keyswap":
		i := line("line")
		old := ledgertest.Field(t, ls[i], "actor.key")
		var others []string
		for id := range e.keys {
			if id != old {
				others = append(others, id)
			}
		}
		sort.Strings(others)
		swapped := rapid.SampledFrom(others).Draw(rt, "key")
		level := rapid.IntRange(0, 2).Draw(rt, "level")
		desc = fmt.Sprintf("line %d: actor.key %s -> %s (%s)", i+1, old, swapped, []string{"edit", "edit and rehash", "edit, rehash and sign with that key"}[level])
		if level == 0 {
			ls[i] = bytes.Replace(ls[i], []byte(`"key":"`+old+`"`), []byte(`"key":"`+swapped+`"`), 1)
			break
		}
		var key *keyring.Key
		if level == 2 {
			key = e.keys[swapped]
		}
		ls[i] = ledgertest.Reseal(t, ls[i], key, func(ev map[string]any) { ev["actor"].(map[string]any)["key"] = swapped })
		setHash(i)
	case "rewrite":
		i := line("line")
		desc = fmt.Sprintf("rewrite line %d (time moved by 1ms) and re-sign and re-chain the rest with the real keys", i+1)
		rewriteFrom(t, e, ls, &pr, i)
	}
	set(files, bundle.EventsFile, joinLines(ls))
	if depth == 2 {
		set(files, bundle.ProofsFile, marshalIndent(t, pr))
	}
	if depth >= 1 {
		fixManifest(t, files)
	}
	return fmt.Sprintf("events %s, depth %d", desc, depth)
}

// sameMeaning reports whether a changed file still says exactly what the
// original said, so that a verifier may accept it: the same JSON value for
// the JSON files, the same lines for events.jsonl. Any change to the
// checkpoint or an artifact changes its meaning.
// rewriteFrom moves the time of event i by a millisecond and signs it and
// every later event again with the real keys, re-chaining them, and points
// their proofs at the new hashes: events, signatures and chain are sound,
// only the inclusion proofs against the signed checkpoint can tell.
func rewriteFrom(t *testing.T, e *exported, ls [][]byte, pr *bundle.Proofs, i int) {
	var prev string
	for j := i; j < len(ls); j++ {
		key := e.keys[ledgertest.Field(t, ls[j], "actor.key")]
		ls[j] = ledgertest.Reseal(t, ls[j], key, func(ev map[string]any) {
			if j == i {
				tm, err := time.Parse(time.RFC3339Nano, ev["time"].(string))
				if err != nil {
					t.Fatalf("event time: %v", err)
				}
				ev["time"] = tm.Add(time.Millisecond).UTC().Format(time.RFC3339Nano)
			} else {
				ev["prev"] = prev
			}
		})
		prev = ledgertest.Field(t, ls[j], "hash")
		pr.Events[j].EventHash = prev
	}
}

func sameMeaning(name string, orig, changed []byte) bool {
	switch name {
	case bundle.ManifestFile, bundle.KeysFile, bundle.ProofsFile:
		var a, b any
		if json.Unmarshal(orig, &a) != nil || json.Unmarshal(changed, &b) != nil {
			return false
		}
		return reflect.DeepEqual(a, b)
	case bundle.EventsFile:
		return reflect.DeepEqual(scanLines(orig), scanLines(changed))
	}
	return bytes.Equal(orig, changed)
}

func scanLines(b []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, len(b)+1)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

func sameFiles(a, b []file) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].name != b[i].name || !sameMeaning(a[i].name, a[i].data, b[i].data) {
			return false
		}
	}
	return true
}

// TestTamperDetectedInBundle: bundle.Verify rejects a bundle of a trace of
// more than 1,000 events after any one edit: the ledger tamper kinds applied
// to events.jsonl (alone, with the manifest recomputed, and with the proofs
// brought in step too), a flipped byte in any file (with and without the
// manifest recomputed), and a flipped byte anywhere in the tar stream or the
// gzip stream. An edit may pass only if it changes no meaning (JSON
// whitespace, tar padding, gzip header fields a reader ignores, and — a gap
// TestBadInputGzipTrailer reports — damage to the gzip stream that leaves
// the tar's files whole).
func TestTamperDetectedInBundle(t *testing.T) {
	e := bigExport(t)
	if e.events < 1000 {
		t.Fatalf("shared bundle: got %d events, want at least 1000", e.events)
	}
	plain := writeTar(t, e.files)
	for _, b := range [][]byte{e.gz, plain} {
		if _, err := e.verify(b); err != nil {
			t.Fatalf("Verify of the untouched bundle: got error %v, want nil", err)
		}
	}
	var names []string
	for _, f := range e.files {
		if !strings.HasPrefix(f.name, bundle.ArtifactsDir) {
			names = append(names, f.name)
		}
	}
	names = append(names, "artifact")
	rapid.Check(t, func(rt *rapid.T) {
		mode := rapid.SampledFrom([]string{"events", "events", "file", "tar", "gzip"}).Draw(rt, "mode")
		files := clone(e.files)
		var b []byte
		var desc string
		neutral := false
		switch mode {
		case "events":
			desc = editEvents(t, rt, e, files)
			b = writeTar(t, files)
		case "file":
			name := rapid.SampledFrom(names).Draw(rt, "file")
			if name == "artifact" {
				var arts []string
				for _, f := range files {
					if strings.HasPrefix(f.name, bundle.ArtifactsDir) {
						arts = append(arts, f.name)
					}
				}
				name = rapid.SampledFrom(arts).Draw(rt, "artifact")
			}
			data := get(files, name)
			orig := append([]byte(nil), data...)
			pos := rapid.IntRange(0, len(data)-1).Draw(rt, "pos")
			mask := byte(rapid.IntRange(1, 255).Draw(rt, "mask"))
			data[pos] ^= mask
			fix := name != bundle.ManifestFile && rapid.Bool().Draw(rt, "fix manifest")
			if fix {
				fixManifest(t, files)
			}
			desc = fmt.Sprintf("byte %d of %s xor %#02x (manifest recomputed: %v)", pos, name, mask, fix)
			neutral = sameMeaning(name, orig, data)
			b = writeTar(t, files)
		case "tar":
			b = append([]byte(nil), plain...)
			pos := rapid.IntRange(0, len(b)-1).Draw(rt, "pos")
			mask := byte(rapid.IntRange(1, 255).Draw(rt, "mask"))
			b[pos] ^= mask
			desc = fmt.Sprintf("byte %d of the tar stream xor %#02x", pos, mask)
			got, err := parseFiles(b)
			neutral = err == nil && sameFiles(e.files, got)
		case "gzip":
			b = append([]byte(nil), e.gz...)
			pos := rapid.IntRange(0, len(b)-1).Draw(rt, "pos")
			mask := byte(rapid.IntRange(1, 255).Draw(rt, "mask"))
			b[pos] ^= mask
			desc = fmt.Sprintf("byte %d of the gzip stream xor %#02x", pos, mask)
			// Verify does not check the gzip stream's own checksum
			// (TestBadInputGzipTrailer): what counts here is the content.
			got, err := parseContent(b)
			neutral = err == nil && sameFiles(e.files, got)
		}
		_, err := e.verify(b)
		if err == nil && !neutral {
			rt.Fatalf("%s: Verify: got nil, want an error", desc)
		}
		rt.Logf("%s: %v (meaning unchanged: %v)", desc, err, neutral)
	})
}

// TestBundleDeepForgeries: events rewritten and re-signed with the real
// agent and runtime keys, re-chained, with proofs.json and the manifest
// brought in step, fail on the head the log key signed (it names the
// manifest) and, behind it, on the inclusion proofs against the checkpoint.
func TestBundleDeepForgeries(t *testing.T) {
	e := bigExport(t)
	for _, i := range []int{0, e.events / 2, e.events - 1} {
		files := clone(e.files)
		ls := lines(get(files, bundle.EventsFile))
		pr := proofs(t, files)
		rewriteFrom(t, e, ls, &pr, i)
		set(files, bundle.EventsFile, joinLines(ls))
		set(files, bundle.ProofsFile, marshalIndent(t, pr))
		fixManifest(t, files)
		_, err := e.verify(writeTar(t, files))
		var ve *bundle.VerifyError
		if !errors.As(err, &ve) || ve.File != bundle.HeadFile {
			t.Errorf("rewrite from line %d: got %v, want a *bundle.VerifyError about the signed head", i+1, err)
		}
		// Dropping the head does not help: it is required.
		var noHead []file
		for _, f := range files {
			if f.name != bundle.HeadFile {
				noHead = append(noHead, f)
			}
		}
		_, err = e.verify(writeTar(t, noHead))
		if !errors.As(err, &ve) || ve.File != bundle.HeadFile || !strings.Contains(ve.Reason, "missing") {
			t.Errorf("rewrite from line %d without head: got %v, want the head reported missing", i+1, err)
		}
	}
}

// nodeMap is an in-memory tlog.NodeReader.
type nodeMap map[compact.NodeID][]byte

func (m nodeMap) ReadNodes(_ context.Context, ids []compact.NodeID) ([][]byte, error) {
	out := make([][]byte, len(ids))
	for i, id := range ids {
		h, ok := m[id]
		if !ok {
			return nil, fmt.Errorf("no node %v", id)
		}
		out[i] = h
	}
	return out, nil
}

// TestBundleForgedLogNeedsPin: a forger holding every agent and runtime key
// but not the log key can rewrite a trace and build a whole new log for it —
// tree, proofs, a checkpoint signed by a log key of their own under the same
// origin, and keys.json naming that key. Such a bundle is self-consistent, so
// with no key pinned it passes only as self-consistent ([bundle.ErrUnpinned],
// or a report not pinned when that is allowed); pinned to the real log key it
// fails on the checkpoint.
func TestBundleForgedLogNeedsPin(t *testing.T) {
	e := bigExport(t)
	files := clone(e.files)
	ls := lines(get(files, bundle.EventsFile))
	pr := proofs(t, files)
	rewriteFrom(t, e, ls, &pr, 0)
	nodes := nodeMap{}
	tree := tlog.NewTree()
	for _, l := range ls {
		ev, err := ledger.Decode(l)
		if err != nil {
			t.Fatal(err)
		}
		if err := tree.Append(tlog.LeafHash(ev.Hash[:]), func(n tlog.Node) { nodes[n.ID] = n.Hash }); err != nil {
			t.Fatal(err)
		}
	}
	root, err := tree.Root()
	if err != nil {
		t.Fatal(err)
	}
	prover := tlog.Prover{Nodes: nodes}
	for i := range pr.Events {
		p, err := prover.Inclusion(context.Background(), uint64(i), tree.Size())
		if err != nil {
			t.Fatal(err)
		}
		pr.Events[i].LeafIndex, pr.Events[i].Proof = uint64(i), p
	}
	pr.TreeSize, pr.RootHash = tree.Size(), root
	origin := strings.SplitN(e.logKey, "+", 2)[0]
	skey, vkey, err := note.GenerateKey(rand.Reader, origin)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := note.NewSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := tlog.Sign(tlog.Checkpoint{Origin: origin, Size: tree.Size(), Hash: root}, signer)
	if err != nil {
		t.Fatal(err)
	}
	var keys bundle.Keys
	if err := json.Unmarshal(get(files, bundle.KeysFile), &keys); err != nil {
		t.Fatal(err)
	}
	keys.Log = vkey
	set(files, bundle.EventsFile, joinLines(ls))
	set(files, bundle.ProofsFile, marshalIndent(t, pr))
	set(files, bundle.CheckpointFile, cp)
	set(files, bundle.KeysFile, marshalIndent(t, keys))
	fixManifest(t, files)
	last, err := ledger.Decode(ls[len(ls)-1])
	if err != nil {
		t.Fatal(err)
	}
	manifestSum := sha256.Sum256(get(files, bundle.ManifestFile))
	head := bundle.Head{Trace: last.Trace, Seq: last.Seq, Hash: last.Hash.String(), Manifest: "sha256:" + hex.EncodeToString(manifestSum[:])}
	signedHead, err := note.Sign(&note.Note{Text: head.Text()}, signer)
	if err != nil {
		t.Fatal(err)
	}
	set(files, bundle.HeadFile, signedHead)
	forged := writeTar(t, files)
	rep, err := bundle.Verify(bytes.NewReader(forged), bundle.Options{Types: e.types, AllowUnpinned: true})
	if err != nil || rep.LogPinned {
		t.Fatalf("unpinned Verify of a self-consistent forgery, allowed: got %+v, %v; want it accepted as not pinned (the forger's test is sound)", rep, err)
	}
	if _, err = bundle.Verify(bytes.NewReader(forged), bundle.Options{Types: e.types}); !errors.Is(err, bundle.ErrUnpinned) {
		t.Fatalf("unpinned Verify of a self-consistent forgery: got %v, want bundle.ErrUnpinned", err)
	}
	_, err = e.verify(forged)
	var ve *bundle.VerifyError
	if !errors.As(err, &ve) || ve.File != bundle.CheckpointFile {
		t.Fatalf("Verify pinned to the real log key: got %v, want a *bundle.VerifyError about %s", err, bundle.CheckpointFile)
	}
}
