package ledger

// Signed returns a channel closed once p's events are signed.
func Signed(p *Pending) <-chan struct{} { return p.signed }
