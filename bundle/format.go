// Package bundle writes and verifies export bundles: a trace's signed events,
// a signed checkpoint of the log, an inclusion proof per event, the public
// keys, and the artifacts the events refer to, in one tar file that anyone can
// verify offline with no home folder and no network.
//
// Layout (tar, gzip-compressed), in this order:
//
//	manifest.json            {"format":..,"trace":..,"files":{"<path>":"sha256:<hex>",..},
//	                          "sizes":{"<path>":<bytes>,..}}
//	head                     a note signed by the log key: the trace, its last
//	                         event and the manifest's hash, so that nothing can
//	                         be dropped from the end or swapped in the manifest
//	events.jsonl             one canonical event per line, in order
//	checkpoint               the log's signed checkpoint (C2SP signed note)
//	proofs.json              an inclusion proof per event against the checkpoint
//	keys.json                public keys by key id, and the checkpoint verifier key
//	artifacts/sha256/<hex>   the content of each referenced artifact
//
// The manifest comes first so that a verifier knows, before it reads any
// other file, which files there are and how large each is.
package bundle

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/sanadhq/sanad/keyring"
	"github.com/sanadhq/sanad/ledger"
)

// Format names this bundle layout. v2 added the sizes to the manifest;
// [Verify] still reads v1 bundles ([FormatV1]).
const Format = "sanad-bundle/v2"

// FormatV1 is the first layout: a manifest without sizes.
const FormatV1 = "sanad-bundle/v1"

// File names inside a bundle.
const (
	ManifestFile   = "manifest.json"
	EventsFile     = "events.jsonl"
	CheckpointFile = "checkpoint"
	ProofsFile     = "proofs.json"
	KeysFile       = "keys.json"
	HeadFile       = "head"
	ArtifactsDir   = "artifacts/sha256/"
)

// Manifest lists every other file of the bundle (but the head, which signs
// the manifest) with its SHA-256 and its size.
type Manifest struct {
	Format string            `json:"format"`
	Trace  string            `json:"trace"`
	Files  map[string]string `json:"files"`
	// Sizes holds the size in bytes of each file in Files (from v2; nil in v1).
	Sizes map[string]int64 `json:"sizes,omitempty"`
}

// Head is what the head note attests.
type Head struct {
	Trace    string
	Seq      uint64
	Hash     string // "sha256:<hex>" of the last event
	Manifest string // "sha256:<hex>" of manifest.json
}

// headTitle is the head note's first line; the head's layout is unchanged
// since v1.
const headTitle = "sanad-bundle/v1 head"

// Text returns the note text of h.
func (h Head) Text() string {
	return fmt.Sprintf("%s\n%s\n%d\n%s\n%s\n", headTitle, h.Trace, h.Seq, h.Hash, h.Manifest)
}

// ParseHead parses a head note's text.
func ParseHead(text string) (Head, error) {
	lines := strings.Split(text, "\n")
	if len(lines) != 6 || lines[0] != headTitle || lines[5] != "" {
		return Head{}, errors.New("not a bundle head")
	}
	seq, err := strconv.ParseUint(lines[2], 10, 64)
	if err != nil || strconv.FormatUint(seq, 10) != lines[2] {
		return Head{}, errors.New("bad seq in bundle head")
	}
	return Head{Trace: lines[1], Seq: seq, Hash: lines[3], Manifest: lines[4]}, nil
}

// Keys is the content of keys.json.
type Keys struct {
	// Runtime is the identity that signs runtime events.
	Runtime string `json:"runtime"`
	// Log is the checkpoint verifier key, "<origin>+<hash>+<base64>".
	Log  string                       `json:"log"`
	Keys map[string]keyring.PublicKey `json:"keys"`
}

// Proofs is the content of proofs.json.
type Proofs struct {
	TreeSize uint64  `json:"tree_size"`
	RootHash []byte  `json:"root_hash"`
	Events   []Proof `json:"events"`
}

// Proof is the inclusion proof of one event.
type Proof struct {
	Seq       uint64   `json:"seq"`
	EventHash string   `json:"event_hash"`
	LeafIndex uint64   `json:"leaf_index"`
	Proof     [][]byte `json:"proof"`
}

// Export event types (contract v1 §4.6: authorize, assemble, finalize).
const (
	TypeExportAuthorized = "export.authorized"
	TypeExportAssembled  = "export.assembled"
	TypeExportFinalized  = "export.finalized"
)

// Vocabulary declares the export audit events.
func Vocabulary() ledger.Vocabulary {
	const s = `{"type":"object","required":["trace"],"additionalProperties":false,"properties":{
  "trace":{"type":"string","minLength":1},"format":{"type":"string"},"events":{"type":"integer","minimum":0},
  "artifacts":{"type":"integer","minimum":0},"tree_size":{"type":"integer","minimum":0},
  "manifest_sha256":{"type":"string","pattern":"^sha256:[0-9a-f]{64}$"},"bundle_sha256":{"type":"string","pattern":"^sha256:[0-9a-f]{64}$"},
  "reason":{"type":"string"}}}`
	return ledger.Vocabulary{Types: []ledger.TypeDef{
		{Name: TypeExportAuthorized, Schema: s, Signer: ledger.SignedByRuntime, Doc: "an export of a trace was authorized"},
		{Name: TypeExportAssembled, Schema: s, Signer: ledger.SignedByRuntime, Doc: "the bundle's contents were gathered"},
		{Name: TypeExportFinalized, Schema: s, Signer: ledger.SignedByRuntime, Doc: "the bundle was written, with its hashes"},
	}}
}
