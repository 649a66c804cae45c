package ledger

import (
	"context"
	"fmt"

	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/tlog"
)

// Stored is an event as a store keeps it: its position in the log and its
// canonical bytes.
type Stored struct {
	Index uint64       // leaf index in the Merkle log, from 0
	Hash  canon.Digest // the leaf data as stored (must be the hash of Raw's event)
	Raw   []byte
	// Trace, Seq, Type and Run are what the store files the event under:
	// the columns its lookups search. Nothing signs them; a reader trusts
	// them only once they agree with the decoded event ([Stored.Check]).
	Trace string
	Seq   uint64
	Type  string
	Run   string
}

// Check reports, as a *VerifyError, index columns of s that disagree with ev,
// the event decoded from s.Raw.
func (s Stored) Check(ev *Event) error {
	if s.Trace == ev.Trace && s.Seq == ev.Seq && s.Type == ev.Type && s.Run == ev.Run {
		return nil
	}
	return &VerifyError{Trace: ev.Trace, Seq: ev.Seq, Index: int64(s.Index), Reason: fmt.Sprintf(
		"the store files this event as trace %q seq %d type %q run %q, but it is signed as trace %q seq %d type %q run %q",
		s.Trace, s.Seq, s.Type, s.Run, ev.Trace, ev.Seq, ev.Type, ev.Run)}
}

// Filed is one entry of a store's index of traces: the trace and seq an
// event is filed under, and its leaf index.
type Filed struct {
	Trace string
	Seq   uint64
	Index uint64
}

// Appender durably appends events.
type Appender interface {
	// AppendEvents stores events in order, all or none, and adds their hashes
	// to the Merkle log in the same transaction. It returns the leaf index of
	// the first event; the others follow consecutively. It returns only after
	// the transaction is durable. If an event's (trace, seq) is taken it returns
	// an error with code CONFLICT and stores nothing: with seq always one past
	// the head the appender read, that is enough to keep every chain linear
	// when several processes append.
	AppendEvents(ctx context.Context, events []*Event) (first uint64, err error)
}

// Reader reads stored events.
type Reader interface {
	// TraceHead returns the seq and hash of the last event of trace; seq 0 if
	// the trace has no events.
	TraceHead(ctx context.Context, trace string) (seq uint64, hash canon.Digest, err error)
	// ReadTrace calls fn for the events of trace with seq > after, in order.
	ReadTrace(ctx context.Context, trace string, after uint64, fn func(Stored) error) error
	// ReadLog calls fn for every event with index >= from, in index order.
	ReadLog(ctx context.Context, from uint64, fn func(Stored) error) error
	// EventByHash returns the event with that hash, or NOT_FOUND.
	EventByHash(ctx context.Context, hash canon.Digest) (Stored, error)
	// Traces lists trace ids, in order of their first event.
	Traces(ctx context.Context) ([]string, error)
	// ReadTraceIndex calls fn for every event as the store's index of
	// traces files it, in order of trace, then seq: it reads the index
	// itself, so that a damaged index shows.
	ReadTraceIndex(ctx context.Context, fn func(Filed) error) error
}

// TreeStore reads the Merkle log.
type TreeStore interface {
	tlog.NodeReader
	// TreeSize returns the number of leaves in the log.
	TreeSize(ctx context.Context) (uint64, error)
	// ReadLeaves calls fn with the leaf data (event hash) of every leaf with
	// index >= from, in index order.
	ReadLeaves(ctx context.Context, from uint64, fn func(index uint64, hash canon.Digest) error) error
	// ReadTreeNodes calls fn with every stored node of level 1 and above, in
	// order of level, then index.
	ReadTreeNodes(ctx context.Context, fn func(tlog.Node) error) error
}

// NodeKeeper is the optional capability of a [TreeStore] that keeps every
// complete node of some levels of the tree and hashes the others from them
// when read: a node of such a level that is missing makes the proofs that
// need it fail, so verification requires every one.
type NodeKeeper interface {
	// KeepsLevel reports whether the store keeps every complete node of
	// level (>= 1).
	KeepsLevel(level uint) bool
}

// CheckpointStore keeps the signed checkpoints the ledger has issued.
type CheckpointStore interface {
	// SaveCheckpoint stores a signed checkpoint note for a tree size; saving the
	// same size twice keeps the first.
	SaveCheckpoint(ctx context.Context, size uint64, signed []byte) error
	// Checkpoints returns every stored checkpoint note, in increasing size.
	Checkpoints(ctx context.Context) ([][]byte, error)
}

// Syncer is the optional capability of a store whose commits may be
// acknowledged before they reach the disk (SQLite's synchronous=NORMAL): Sync
// makes every commit so far durable. The ledger calls it before it signs a
// checkpoint, so that a checkpoint never covers what a power loss can undo.
type Syncer interface {
	Sync(ctx context.Context) error
}

// Store is everything a [Ledger] needs from storage.
type Store interface {
	Appender
	Reader
	TreeStore
	CheckpointStore
}
