// Package bundletest builds bundles for tests of the verifier and its
// callers: forgeries that are whole and self-consistent but signed by keys of
// the forger's own.
package bundletest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
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
)

// File is one file of a bundle.
type File struct {
	Name string
	Data []byte
}

// Read returns the files of the bundle b (gzip-compressed or a plain tar),
// in order.
func Read(tb testing.TB, b []byte) []File {
	tb.Helper()
	if len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			tb.Fatalf("bundletest: gzip: %v", err)
		}
		if b, err = io.ReadAll(zr); err != nil {
			tb.Fatalf("bundletest: gzip: %v", err)
		}
	}
	tr := tar.NewReader(bytes.NewReader(b))
	var files []File
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			tb.Fatalf("bundletest: tar: %v", err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			tb.Fatalf("bundletest: tar: %v", err)
		}
		files = append(files, File{hdr.Name, data})
	}
}

// Write returns files as a gzip-compressed tar, with the headers the
// exporter writes.
func Write(tb testing.TB, files []File) []byte {
	tb.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, f := range files {
		hdr := &tar.Header{Name: f.Name, Mode: 0o644, Size: int64(len(f.Data)), ModTime: time.Unix(0, 0).UTC(), Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			tb.Fatalf("bundletest: tar: %v", err)
		}
		if _, err := tw.Write(f.Data); err != nil {
			tb.Fatalf("bundletest: tar: %v", err)
		}
	}
	if err := tw.Close(); err != nil {
		tb.Fatalf("bundletest: tar: %v", err)
	}
	if err := zw.Close(); err != nil {
		tb.Fatalf("bundletest: gzip: %v", err)
	}
	return buf.Bytes()
}

// Get returns the data of the file named name, or nil.
func Get(files []File, name string) []byte {
	for _, f := range files {
		if f.Name == name {
			return f.Data
		}
	}
	return nil
}

// Set replaces the data of the file named name.
func Set(files []File, name string, data []byte) {
	for i := range files {
		if files[i].Name == name {
			files[i].Data = data
			return
		}
	}
}

// FixManifest recomputes the manifest's entry (hash, and size from v2) for
// every other file, as a forger does after changing them.
func FixManifest(tb testing.TB, files []File) {
	tb.Helper()
	var m bundle.Manifest
	if err := json.Unmarshal(Get(files, bundle.ManifestFile), &m); err != nil {
		tb.Fatalf("bundletest: manifest: %v", err)
	}
	m.Files = map[string]string{}
	if m.Format != bundle.FormatV1 {
		m.Sizes = map[string]int64{}
	}
	for _, f := range files {
		if f.Name != bundle.ManifestFile && f.Name != bundle.HeadFile {
			m.Files[f.Name] = "sha256:" + hexSum(f.Data)
			if m.Sizes != nil {
				m.Sizes[f.Name] = int64(len(f.Data))
			}
		}
	}
	Set(files, bundle.ManifestFile, marshal(tb, m))
}

// Forge rewrites the bundle b as a forger who holds none of its keys would,
// keeping its trace and its log's name (origin): every event is signed again
// by a fresh key of its signer's identity and chained again (edit, if not
// nil, first changes the first event), the events make a new Merkle tree of
// their own, and a fresh log key under the same origin signs its checkpoint
// and the head; keys.json and the manifest match. The forgery is
// self-consistent: only a pinned log key tells it from the real bundle. It
// returns the forged bundle, gzip-compressed.
func Forge(tb testing.TB, b []byte, edit func(ev map[string]any)) []byte {
	tb.Helper()
	files := Read(tb, b)
	var keys bundle.Keys
	if err := json.Unmarshal(Get(files, bundle.KeysFile), &keys); err != nil {
		tb.Fatalf("bundletest: keys.json: %v", err)
	}
	kr, err := keyring.Open(tb.TempDir())
	if err != nil {
		tb.Fatalf("bundletest: keyring: %v", err)
	}
	fresh := map[string]*keyring.Key{} // by old key id
	newKeys := bundle.Keys{Runtime: keys.Runtime, Keys: map[string]keyring.PublicKey{}}
	for id, pub := range keys.Keys {
		k, err := kr.Key(pub.Identity)
		if err != nil {
			tb.Fatalf("bundletest: key for %s: %v", pub.Identity, err)
		}
		fresh[id] = k
		newKeys.Keys[k.ID] = keyring.PublicKey{Identity: k.Identity, Algorithm: keyring.Algorithm, Public: k.Public}
	}
	lines := bytes.Split(bytes.TrimSuffix(Get(files, bundle.EventsFile), []byte("\n")), []byte("\n"))
	var events []byte
	var prev string
	tree := tlog.NewTree()
	nodes := nodeMap{}
	var last *ledger.Event
	for i, line := range lines {
		key := fresh[ledgertest.Field(tb, line, "actor.key")]
		if key == nil {
			tb.Fatalf("bundletest: event %d: key not in keys.json", i+1)
		}
		raw := ledgertest.Reseal(tb, line, key, func(ev map[string]any) {
			if i == 0 && edit != nil {
				edit(ev)
			}
			ev["actor"].(map[string]any)["key"] = key.ID
			if i > 0 {
				ev["prev"] = prev
			}
		})
		ev, err := ledger.Decode(raw)
		if err != nil {
			tb.Fatalf("bundletest: event %d: %v", i+1, err)
		}
		prev, last = ev.Hash.String(), ev
		if err := tree.Append(tlog.LeafHash(ev.Hash[:]), func(n tlog.Node) { nodes[n.ID] = n.Hash }); err != nil {
			tb.Fatal(err)
		}
		events = append(append(events, raw...), '\n')
	}
	root, err := tree.Root()
	if err != nil {
		tb.Fatal(err)
	}
	proofs := bundle.Proofs{TreeSize: tree.Size(), RootHash: root}
	prover := tlog.Prover{Nodes: nodes}
	for i := range lines {
		p, err := prover.Inclusion(context.Background(), uint64(i), tree.Size())
		if err != nil {
			tb.Fatal(err)
		}
		ev, _ := ledger.Decode(bytes.Split(events, []byte("\n"))[i])
		proofs.Events = append(proofs.Events, bundle.Proof{Seq: ev.Seq, EventHash: ev.Hash.String(), LeafIndex: uint64(i), Proof: p})
	}
	origin, _, _ := strings.Cut(string(Get(files, bundle.CheckpointFile)), "\n")
	skey, vkey, err := note.GenerateKey(rand.Reader, origin)
	if err != nil {
		tb.Fatal(err)
	}
	signer, err := note.NewSigner(skey)
	if err != nil {
		tb.Fatal(err)
	}
	cp, err := tlog.Sign(tlog.Checkpoint{Origin: origin, Size: tree.Size(), Hash: root}, signer)
	if err != nil {
		tb.Fatal(err)
	}
	newKeys.Log = vkey
	Set(files, bundle.EventsFile, events)
	Set(files, bundle.ProofsFile, marshal(tb, proofs))
	Set(files, bundle.CheckpointFile, cp)
	Set(files, bundle.KeysFile, marshal(tb, newKeys))
	FixManifest(tb, files)
	head := bundle.Head{Trace: last.Trace, Seq: last.Seq, Hash: last.Hash.String(), Manifest: "sha256:" + hexSum(Get(files, bundle.ManifestFile))}
	signedHead, err := note.Sign(&note.Note{Text: head.Text()}, signer)
	if err != nil {
		tb.Fatal(err)
	}
	Set(files, bundle.HeadFile, signedHead)
	return Write(tb, files)
}

// nodeMap is an in-memory tlog.NodeReader.
type nodeMap map[compact.NodeID][]byte

func (m nodeMap) ReadNodes(_ context.Context, ids []compact.NodeID) ([][]byte, error) {
	out := make([][]byte, len(ids))
	for i, id := range ids {
		out[i] = m[id]
	}
	return out, nil
}

func marshal(tb testing.TB, v any) []byte {
	tb.Helper()
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		tb.Fatalf("bundletest: json: %v", err)
	}
	return append(b, '\n')
}

func hexSum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
