package canon

import (
	"encoding/json"
	"fmt"
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
	raw, err := json.Marshal(v)
	if err != nil {
		return Digest{}, fmt.Errorf("canon: %w", err)
	}
	tree, err := Parse(raw)
	if err != nil {
		return Digest{}, err
	}
	drop := make(map[string]bool, len(keys))
	for _, k := range keys {
		drop[k] = true
	}
	out, err := AppendCanonical(nil, strip(tree, drop))
	if err != nil {
		return Digest{}, err
	}
	return Sum(out), nil
}

func strip(v any, drop map[string]bool) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			if drop[k] {
				delete(t, k)
				continue
			}
			t[k] = strip(e, drop)
		}
	case []any:
		for i, e := range t {
			t[i] = strip(e, drop)
		}
	}
	return v
}
