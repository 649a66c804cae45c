package sanad

import (
	"encoding/hex"
	"strings"
)

// ArtifactRef addresses an immutable blob by its content. All inputs and
// outputs of runs are artifact refs (contract v1 §1). The ID is derived from
// the content, so two refs with equal SHA256 name the same bytes.
type ArtifactRef struct {
	ID           string `json:"artifact_id"`
	SHA256       string `json:"sha256"` // lower-case hex of the content's SHA-256
	MediaType    string `json:"media_type"`
	SizeBytes    int64  `json:"size_bytes"`
	URI          string `json:"uri,omitempty"`
	Scope        Scope  `json:"scope"`
	CreatedByRun string `json:"created_by_run,omitempty"`
}

// ArtifactID returns the artifact id of content with the given hex SHA-256.
func ArtifactID(sha256Hex string) string { return "sha256:" + sha256Hex }

// ArtifactURI returns the location-independent URI of content with the given
// hex SHA-256, the path it has inside an export bundle.
func ArtifactURI(sha256Hex string) string { return "artifacts/sha256/" + sha256Hex }

// Validate checks the ref's form: a 64-digit lower-case hex digest, an id that
// matches it, a media type and a non-negative size.
func (a ArtifactRef) Validate() error {
	const op = "artifact.validate"
	if !ValidSHA256Hex(a.SHA256) {
		return Errorf(CodeInvalidInput, op, "artifact sha256 %q is not 64 lower-case hex digits", a.SHA256)
	}
	if a.ID != ArtifactID(a.SHA256) {
		return Errorf(CodeInvalidInput, op, "artifact id %q does not match its sha256", a.ID)
	}
	if a.MediaType == "" || a.SizeBytes < 0 {
		return Errorf(CodeInvalidInput, op, "artifact %s needs a media type and a size", a.ID)
	}
	return nil
}

// ValidSHA256Hex reports whether s is 64 lower-case hex digits.
func ValidSHA256Hex(s string) bool {
	if len(s) != 64 || strings.ToLower(s) != s {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}
