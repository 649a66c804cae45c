// Package ledger records what happens in sanad as signed, hash-chained
// events, in a Merkle log that anyone holding the log's verifier key can
// check.
//
// # Events and traces
//
// An [Event] is one record of a trace: a run and everything it causes share
// a trace. Its type is declared in a [Vocabulary], which says who signs it
// (the runtime or the acting agent) and the JSON Schema its body must
// match; [Types] holds the vocabularies a ledger accepts and the ordering
// rules ([Rule]) that say which event may follow which in a trace. The
// events of a trace form a chain: each has the next seq and the hash of the
// one before (prev), and its own hash covers its canonical JSON (RFC 8785)
// without the hash and the signature. The signature is ed25519 over
// [SigningMessage] of that hash, by the key of the event's actor. A sealed
// event is never changed or deleted.
//
// # Appending
//
// [Ledger.Append] and [Ledger.AppendAll] take a [Draft], check it (ids,
// scope, declared type, signer, body schema, ordering rules), seal it on its
// trace's head (seq, prev, time, hash) and return once it is durable; an
// invalid draft fails with INVALID_INPUT and nothing is written.
// [Ledger.Enqueue] seals and queues without waiting: the caller goes on and
// calls [Pending.Wait] before anything outside the ledger depends on the
// events. Appends of one trace commit in the order they were sealed; if a
// commit fails, the appends chained on it fail unwritten, and the next
// append reads the trace's head again from the [Store].
//
// Sealed appends are committed in batches (group commit) by one batcher. It
// cuts the open batch when it holds Config.MaxBatch appends, when its
// oldest append has waited Config.MaxAge, when someone waits for an append
// in it, or at [Ledger.Close], and commits it in one store transaction: the
// events, the Merkle log nodes they complete, and the store's projections.
// While a batch is open, the batcher signs its events in batches
// (keyring.SignAll), so that signing runs beside sealing and beside the
// previous commit. Its goroutines sleep when there is nothing to do, and
// [Ledger.Close] commits what is queued and stops them. An append is
// acknowledged only once the transaction that holds it is durable.
//
// # The log and checkpoints
//
// Every event's hash is a leaf of one Merkle log over the whole ledger, in
// commit order (package tlog). [Ledger.Checkpoint] signs the log's size and
// root with the log key as a C2SP tlog-checkpoint note; [Ledger.Prove]
// proves an event is in the log at a checkpoint ([InclusionProof]), and
// [Ledger.ConsistencyProof] that a larger log extends a smaller one.
// [Ledger.Attest] signs other statements of the log, which can never pass
// for a checkpoint.
//
// # Verification
//
// [Ledger.Verify] checks the whole log, or one trace: each event's strict
// decoding ([Decode]), hash, signature, signer and body schema, each
// trace's chain and ordering rules, the Merkle log against the events, and
// every stored checkpoint. The first failure is a [*VerifyError] naming the
// trace and seq. [Checker] does the same checks on events from elsewhere,
// such as an exported bundle.
package ledger
