// Package tlog is sanad's transparency log: one append-only RFC 6962 Merkle
// tree over the hashes of every event in a store, with inclusion and
// consistency proofs and checkpoints signed in the C2SP tlog-checkpoint
// signed-note format.
//
// A leaf's data is the 32 raw bytes of an event hash. The tree's nodes live in
// the store; [Tree] computes the nodes an append adds, and [Prover] reads the
// nodes a proof needs through a [NodeReader]. Both use the RFC 6962 SHA-256
// hasher of github.com/transparency-dev/merkle, so standard tooling checks
// what sanad produces.
package tlog
