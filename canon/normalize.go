package canon

import (
	"bytes"
	"encoding/json"
	"slices"
)

// VolatileFields are the object keys [RequestHash] drops at any depth: times
// and run identities, which differ between two runs of the same request
// (contract v1 §2: "stable ordering, exclude volatile timestamps").
var VolatileFields = []string{
	"time", "timestamp", "created_at", "updated_at", "started_at", "ended_at",
	"run_id", "parent_run_id", "root_run_id", "correlation_id",
	"request_hash", "request_hash_sha256", "response_hash", "response_hash_sha256",
}

// RequestHash returns the normalized hash of a request or response payload:
// the SHA-256 of the canonical JSON of v with the [VolatileFields] removed
// from every object, at any depth. Two requests that differ only in those
// fields hash the same.
func RequestHash(v any) (Digest, error) {
	return HashWithout(v, VolatileFields...)
}

// HashWithout returns the digest of the canonical JSON of v after removing
// the named keys from every object at any depth.
func HashWithout(v any, keys ...string) (Digest, error) {
	raw, ok := v.(json.RawMessage)
	if !ok || len(raw) == 0 {
		var err error
		if raw, err = AppendMarshal(nil, v); err != nil {
			return Digest{}, err
		}
		if !mentionsMember(raw, keys) {
			return Sum(raw), nil // canonical already, and nothing to drop
		}
	}
	out, err := appendTransform(make([]byte, 0, len(raw)), raw, func(name string) bool { return slices.Contains(keys, name) })
	if err != nil {
		return Digest{}, err
	}
	return Sum(out), nil
}

// mentionsMember reports whether canonical JSON might have a member named
// one of keys: a member name is written as its string literal followed by
// a colon, so bytes without any such sequence have none (a string value
// containing one only costs the full transform).
func mentionsMember(canonical []byte, keys []string) bool {
	var lit [64]byte
	for _, k := range keys {
		if bytes.Contains(canonical, append(AppendString(lit[:0], k), ':')) {
			return true
		}
	}
	return false
}
