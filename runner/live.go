package runner

import (
	"github.com/sanadhq/sanad"
)

// state says whether a running run rec is live, waiting on a gate or
// interrupted.
func (r *Runner) state(rec sanad.Run, waiting bool) (string, error) {
	switch {
	case r.isLive(cmpOr(rec.RootID, rec.ID)):
		return StateLive, nil
	case waiting:
		return StateWaiting, nil
	}
	return StateInterrupted, nil
}

// isLive reports whether a process is running the root run id.
func (r *Runner) isLive(id string) bool {
	r.liveMu.Lock()
	defer r.liveMu.Unlock()
	return r.live[id] > 0
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
