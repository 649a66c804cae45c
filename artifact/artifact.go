// Package artifact stores the immutable blobs that runs take and produce,
// addressed by their SHA-256, and indexes which scope each belongs to. Blobs
// live in a folder, <dir>/sha256/<2 hex>/<64 hex>, written atomically and
// synced before a reference to them is returned, so an event that refers to an
// artifact never commits before the artifact is durable.
package artifact

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/sanadhq/sanad"
)

// MaxSize bounds one artifact (1 GiB).
const MaxSize = 1 << 30

// Index records artifact refs by scope. Implemented by the stores.
type Index interface {
	// PutArtifact records ref; recording the same ref twice is not an error.
	PutArtifact(ctx context.Context, ref sanad.ArtifactRef) error
	// Artifact returns the ref of id within scope, or NOT_FOUND.
	Artifact(ctx context.Context, id string, scope sanad.Scope) (sanad.ArtifactRef, error)
}

// Store is a content-addressed blob folder with an index. It is safe for
// concurrent use.
type Store struct {
	dir   string
	index Index
	// NoSync skips the fsyncs of blob writes: a blob then survives a crash
	// of the process but not a power failure, the guarantee SQLite gives
	// with synchronous=NORMAL. Set it before first use.
	NoSync bool
}

// Open returns the store over dir (created if needed) and index.
func Open(dir string, index Index) (*Store, error) {
	if err := os.MkdirAll(filepath.Join(dir, "sha256"), 0o700); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, "artifact.open", fmt.Sprintf("cannot create blob folder %s: %v", dir, err))
	}
	return &Store{dir: dir, index: index}, nil
}

// Path returns where the blob with hex digest sum lives.
func (s *Store) Path(sum string) string { return filepath.Join(s.dir, "sha256", sum[:2], sum) }

// Put stores data as an artifact of scope, created by run, and returns its ref
// once the blob is durable and indexed.
func (s *Store) Put(ctx context.Context, scope sanad.Scope, run, mediaType string, data []byte) (sanad.ArtifactRef, error) {
	ref, err := s.Stage(scope, run, mediaType, data)
	if err != nil {
		return ref, err
	}
	if err := s.index.PutArtifact(ctx, ref); err != nil {
		return sanad.ArtifactRef{}, err
	}
	return ref, nil
}

// Stage stores data as an artifact of scope, created by run, and returns its
// ref once the blob is durable, without indexing it: the store indexes an
// artifact when an event of its scope that cites it in its refs commits. It
// is for a caller that records such an event and waits for it anyway (the
// tool gateway citing a call's input and output), and saves that caller a
// commit of its own; until the event commits, Get does not find the
// artifact.
func (s *Store) Stage(scope sanad.Scope, run, mediaType string, data []byte) (sanad.ArtifactRef, error) {
	const op = "artifact.put"
	if err := scope.Validate(); err != nil {
		return sanad.ArtifactRef{}, err
	}
	if mediaType == "" {
		return sanad.ArtifactRef{}, sanad.Errorf(sanad.CodeInvalidInput, op, "an artifact needs a media type")
	}
	if len(data) > MaxSize {
		return sanad.ArtifactRef{}, sanad.Errorf(sanad.CodeInvalidInput, op, "artifact of %d bytes exceeds the %d byte limit", len(data), MaxSize)
	}
	sum := sha256.Sum256(data)
	h := hex.EncodeToString(sum[:])
	if err := s.writeBlob(h, data); err != nil {
		return sanad.ArtifactRef{}, sanad.Wrap(err, sanad.CodeDependencyDown, op, fmt.Sprintf("cannot write blob: %v", err))
	}
	return sanad.ArtifactRef{
		ID: sanad.ArtifactID(h), SHA256: h, MediaType: mediaType, SizeBytes: int64(len(data)),
		URI: sanad.ArtifactURI(h), Scope: scope, CreatedByRun: run,
	}, nil
}

func (s *Store) writeBlob(sum string, data []byte) error {
	p := s.Path(sum)
	if sameContent(p, data) {
		return nil // already stored; a damaged copy is replaced below
	}
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if !s.NoSync {
		if err := f.Sync(); err != nil {
			f.Close()
			return err
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, p); err != nil {
		return err
	}
	if s.NoSync {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Get returns the content of the artifact id, which must belong to scope
// (case isolation: another case's artifact is NOT_FOUND). The content is
// checked against its hash.
func (s *Store) Get(ctx context.Context, id string, scope sanad.Scope) ([]byte, sanad.ArtifactRef, error) {
	ref, err := s.index.Artifact(ctx, id, scope)
	if err != nil {
		return nil, ref, err
	}
	data, err := s.Read(ref.SHA256)
	return data, ref, err
}

// Read returns the blob with hex digest sum, checked against it. It does no
// scope check: callers outside the runtime use [Store.Get].
func (s *Store) Read(sum string) ([]byte, error) {
	const op = "artifact.read"
	if !sanad.ValidSHA256Hex(sum) {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "%q is not a sha256 digest", sum)
	}
	data, err := os.ReadFile(s.Path(sum))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, sanad.Errorf(sanad.CodeNotFound, op, "blob %s is missing", sum)
	}
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeDependencyDown, op, fmt.Sprintf("cannot read blob %s: %v", sum, err))
	}
	got := sha256.Sum256(data)
	if hex.EncodeToString(got[:]) != sum {
		return nil, sanad.Errorf(sanad.CodeIntegrity, op, "blob %s does not match its hash", sum)
	}
	return data, nil
}
