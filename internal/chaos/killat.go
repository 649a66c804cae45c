package chaos

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
)

// KillAt returns a crash hook (the Crash of a workflow, ledger, store or
// session Config) that kills the process (SIGKILL on Unix, TerminateProcess
// on Windows) at the n-th pass
// through a named point, spec being "point:n". Before dying it calls hit
// with the point, so that a parent reading the output knows where it
// stopped. An empty spec gives a hook that does nothing.
func KillAt(spec string, hit func(point string)) (func(string), error) {
	if spec == "" {
		return func(string) {}, nil
	}
	point, nth, ok := strings.Cut(spec, ":")
	n, err := strconv.Atoi(nth)
	if !ok || err != nil || n < 1 {
		return nil, fmt.Errorf("crash-at %q: want point:n", spec)
	}
	var mu sync.Mutex // guards hits
	hits := 0
	return func(p string) {
		if p != point {
			return
		}
		mu.Lock()
		hits++
		h := hits
		mu.Unlock()
		if h == n {
			hit(p)
			if self, err := os.FindProcess(os.Getpid()); err == nil {
				_ = self.Kill()
			}
			select {} // the kill is on its way
		}
	}, nil
}
