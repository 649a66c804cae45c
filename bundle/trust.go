package bundle

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"

	"github.com/sanadhq/sanad/keyring"
)

// TrustedLogs are the checkpoint verifier keys a verifier trusts, as kept in
// a trusted-logs file (like ssh's known_hosts): one key per line as
// `sanad ledger key` prints it, "<origin>+<hash>+<base64>", optionally
// followed by a comment that starts with '#'; blank lines and lines that
// start with '#' are comments. A log may have several keys.
type TrustedLogs []string

// ParseTrustedLogs parses the content of a trusted-logs file. It refuses a
// line that is not a note verifier key, naming the line.
func ParseTrustedLogs(data []byte) (TrustedLogs, error) {
	var t TrustedLogs
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<16)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		key := fields[0]
		if len(fields) > 1 && !strings.HasPrefix(fields[1], "#") {
			return nil, fmt.Errorf("line %d: want one log key, optionally followed by a # comment", n)
		}
		if _, err := keyring.NewNoteVerifier(key); err != nil {
			return nil, fmt.Errorf("line %d: %q is not a log key (<origin>+<hash>+<base64>, as sanad ledger key prints it): %v", n, key, err)
		}
		t = append(t, key)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %v", n+1, err)
	}
	return t, nil
}

// For returns the keys trusted for the log named origin, for
// [Options.LogKeys].
func (t TrustedLogs) For(origin string) []string {
	var keys []string
	for _, k := range t {
		if name, _, ok := strings.Cut(k, "+"); ok && name == origin {
			keys = append(keys, k)
		}
	}
	return keys
}

// Contains reports whether key is one of t.
func (t TrustedLogs) Contains(key string) bool {
	for _, k := range t {
		if k == key {
			return true
		}
	}
	return false
}
