package ledger

// Signed returns a channel closed once p's events are signed.
func Signed(p *Pending) <-chan struct{} { return p.signed }

// Queued returns how many appends wait for a committer to take them.
func Queued(l *Ledger) int {
	l.qmu.Lock()
	defer l.qmu.Unlock()
	return len(l.queued)
}
