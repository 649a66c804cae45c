package ledger

// OnQueued has f called with the size of the open batch after every append
// joins it, while the batcher's lock is held. Set it before appending.
func OnQueued(l *Ledger, f func(open int)) {
	l.batcher.mu.Lock()
	defer l.batcher.mu.Unlock()
	l.batcher.onQueued = f
}

// OnSigned has f called by the batcher's signer with the number of appends
// it has just signed ahead of their commit. Set it before appending.
func OnSigned(l *Ledger, f func(n int)) {
	l.batcher.mu.Lock()
	defer l.batcher.mu.Unlock()
	l.batcher.onSigned = f
}
