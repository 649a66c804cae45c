// Package builtin holds the tools every sanad runtime offers: storing text as
// an artifact of the call's case, hashing a text, and waiting. Each is a
// typed function ([tool.Define]) whose schemas come from its Go types.
package builtin

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/artifact"
	"github.com/sanadhq/sanad/tool"
)

// The names of the built-in tools.
const (
	ArtifactPut = "artifact.put"
	HashSHA256  = "hash.sha256"
	TimeWait    = "time.wait"
)

// MaxWait is the longest time.wait waits.
const MaxWait = 10 * time.Second

// DefaultMediaType is the media type artifact.put gives content that names
// none.
const DefaultMediaType = "text/plain; charset=utf-8"

// PutInput is the input of artifact.put.
type PutInput struct {
	Content   string `json:"content" jsonschema:"the text to store"`
	MediaType string `json:"media_type,omitempty" jsonschema:"its media type (text/plain; charset=utf-8 when empty)"`
}

// PutOutput is the output of artifact.put: the stored artifact's ref.
type PutOutput struct {
	ID        string `json:"id"`
	SHA256    string `json:"sha256"`
	SizeBytes int64  `json:"size_bytes"`
	URI       string `json:"uri"`
}

// HashInput is the input of hash.sha256.
type HashInput struct {
	Text string `json:"text" jsonschema:"the text to hash"`
}

// HashOutput is the output of hash.sha256.
type HashOutput struct {
	SHA256 string `json:"sha256" jsonschema:"the SHA-256 of the text's UTF-8 bytes, in lower-case hex"`
}

// WaitInput is the input of time.wait.
type WaitInput struct {
	MS int `json:"ms" jsonschema:"how long to wait, in milliseconds, at most 10000"`
}

// WaitOutput is the output of time.wait.
type WaitOutput struct {
	WaitedMS int `json:"waited_ms"`
}

// Tools returns the built-in tools, artifact.put storing into store.
func Tools(store *artifact.Store) []tool.Spec {
	return []tool.Spec{
		tool.MustDefine(tool.Spec{
			Name:        ArtifactPut,
			Description: "Store text as an artifact of the call's case and return its ref.",
			InputSchema: []byte(`{"type":"object","additionalProperties":false,"required":["content"],"properties":{
				"content":{"type":"string","description":"the text to store"},
				"media_type":{"type":"string","maxLength":255,"pattern":"^[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+( *;.*)?$","description":"its media type (text/plain; charset=utf-8 when empty)"}}}`),
			Risk: "write",
			// It writes sanad's own artifact store, and storing the same
			// content again yields the same ref: a repeat changes nothing.
			SideEffect: tool.SideEffectInternal,
			Idempotent: true,
		}, func(ctx context.Context, call tool.Call, in PutInput) (PutOutput, error) {
			if in.MediaType == "" {
				in.MediaType = DefaultMediaType
			}
			ref, err := store.Put(ctx, call.Principal.Scope, call.Run, in.MediaType, []byte(in.Content))
			if err != nil {
				return PutOutput{}, err
			}
			uri := ref.URI
			if uri == "" {
				uri = sanad.ArtifactURI(ref.SHA256)
			}
			return PutOutput{ID: ref.ID, SHA256: ref.SHA256, SizeBytes: ref.SizeBytes, URI: uri}, nil
		}),
		tool.MustDefine(tool.Spec{
			Name:        HashSHA256,
			Description: "Return the SHA-256 of a text, in lower-case hex.",
			Risk:        "read",
			SideEffect:  tool.SideEffectNone,
			Idempotent:  true,
		}, func(_ context.Context, _ tool.Call, in HashInput) (HashOutput, error) {
			sum := sha256.Sum256([]byte(in.Text))
			return HashOutput{SHA256: hex.EncodeToString(sum[:])}, nil
		}),
		tool.MustDefine(tool.Spec{
			Name:        TimeWait,
			Description: "Wait a number of milliseconds (at most 10000), or until the call is cancelled.",
			InputSchema: []byte(`{"type":"object","additionalProperties":false,"required":["ms"],"properties":{
				"ms":{"type":"integer","minimum":0,"maximum":10000,"description":"how long to wait, in milliseconds"}}}`),
			Risk:       "read",
			SideEffect: tool.SideEffectNone,
			Idempotent: true,
		}, func(ctx context.Context, _ tool.Call, in WaitInput) (WaitOutput, error) {
			const op = "tool." + TimeWait
			d := time.Duration(in.MS) * time.Millisecond
			if in.MS < 0 || d > MaxWait {
				return WaitOutput{}, sanad.Errorf(sanad.CodeInvalidInput, op, "ms must be an integer from 0 to %d", MaxWait.Milliseconds())
			}
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-t.C:
				return WaitOutput{WaitedMS: in.MS}, nil
			case <-ctx.Done():
				code := sanad.CodeCancelled
				if errors.Is(ctx.Err(), context.DeadlineExceeded) {
					code = sanad.CodeTimeout
				}
				return WaitOutput{}, sanad.Wrap(ctx.Err(), code, op, "the wait was cut short")
			}
		}),
	}
}
