package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/tool"
)

// The built-in tools every workflow may call.
const (
	toolArtifactPut = "artifact.put"
	toolHashSHA256  = "hash.sha256"
	toolTimeWait    = "time.wait"
)

// maxWaitMS is the longest time.wait may wait, in milliseconds.
const maxWaitMS = 10000

// defaultMediaType is the media type artifact.put gives content that names
// none.
const defaultMediaType = "text/plain; charset=utf-8"

// builtinTools returns a registry of the built-in tools, artifact.put storing
// into h's artifacts.
func builtinTools(h *home.Home) (*tool.Registry, error) {
	return tool.NewRegistry(
		tool.Spec{
			Name:        toolArtifactPut,
			Description: "Store text as an artifact of the call's case and return its ref.",
			InputSchema: json.RawMessage(`{
				"type": "object", "additionalProperties": false, "required": ["content"],
				"properties": {
					"content": {"type": "string"},
					"media_type": {"type": "string", "maxLength": 255, "pattern": "^[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+( *;.*)?$"}
				}
			}`),
			OutputSchema: json.RawMessage(`{
				"type": "object", "additionalProperties": false, "required": ["id", "sha256", "size_bytes", "uri"],
				"properties": {
					"id": {"type": "string", "pattern": "^sha256:[0-9a-f]{64}$"},
					"sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
					"size_bytes": {"type": "integer", "minimum": 0},
					"uri": {"type": "string", "minLength": 1}
				}
			}`),
			Risk: "write",
			// It writes sanad's own artifact store, and storing the same
			// content again yields the same ref: a repeat changes nothing.
			SideEffect: tool.SideEffectInternal,
			Idempotent: true,
			Func: func(ctx context.Context, call tool.Call) (json.RawMessage, error) {
				var in struct {
					Content   string `json:"content"`
					MediaType string `json:"media_type"`
				}
				if err := json.Unmarshal(call.Input, &in); err != nil {
					return nil, sanad.Wrap(err, sanad.CodeInvalidInput, "tool."+toolArtifactPut, "input")
				}
				if in.MediaType == "" {
					in.MediaType = defaultMediaType
				}
				ref, err := h.Artifacts.Put(ctx, call.Principal.Scope, call.Run, in.MediaType, []byte(in.Content))
				if err != nil {
					return nil, err
				}
				uri := ref.URI
				if uri == "" {
					uri = sanad.ArtifactURI(ref.SHA256)
				}
				return json.Marshal(map[string]any{"id": ref.ID, "sha256": ref.SHA256, "size_bytes": ref.SizeBytes, "uri": uri})
			},
		},
		tool.Spec{
			Name:        toolHashSHA256,
			Description: "Return the SHA-256 of a text, in lower-case hex.",
			InputSchema: json.RawMessage(`{
				"type": "object", "additionalProperties": false, "required": ["text"],
				"properties": {"text": {"type": "string"}}
			}`),
			OutputSchema: json.RawMessage(`{
				"type": "object", "additionalProperties": false, "required": ["sha256"],
				"properties": {"sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"}}
			}`),
			Risk:       "read",
			SideEffect: tool.SideEffectNone,
			Idempotent: true,
			Func: func(_ context.Context, call tool.Call) (json.RawMessage, error) {
				var in struct {
					Text string `json:"text"`
				}
				if err := json.Unmarshal(call.Input, &in); err != nil {
					return nil, sanad.Wrap(err, sanad.CodeInvalidInput, "tool."+toolHashSHA256, "input")
				}
				sum := sha256.Sum256([]byte(in.Text))
				return json.Marshal(map[string]string{"sha256": hex.EncodeToString(sum[:])})
			},
		},
		tool.Spec{
			Name:        toolTimeWait,
			Description: "Wait a number of milliseconds (at most 10000), or until the call is cancelled.",
			InputSchema: json.RawMessage(`{
				"type": "object", "additionalProperties": false, "required": ["ms"],
				"properties": {"ms": {"type": "integer", "minimum": 0, "maximum": 10000}}
			}`),
			OutputSchema: json.RawMessage(`{
				"type": "object", "additionalProperties": false, "required": ["waited_ms"],
				"properties": {"waited_ms": {"type": "integer", "minimum": 0, "maximum": 10000}}
			}`),
			Risk:       "read",
			SideEffect: tool.SideEffectNone,
			Idempotent: true,
			Func: func(ctx context.Context, call tool.Call) (json.RawMessage, error) {
				const op = "tool." + toolTimeWait
				var in struct {
					MS int `json:"ms"`
				}
				if err := json.Unmarshal(call.Input, &in); err != nil || in.MS < 0 || in.MS > maxWaitMS {
					return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "ms must be an integer from 0 to %d", maxWaitMS)
				}
				t := time.NewTimer(time.Duration(in.MS) * time.Millisecond)
				defer t.Stop()
				select {
				case <-t.C:
					return json.Marshal(map[string]int{"waited_ms": in.MS})
				case <-ctx.Done():
					code := sanad.CodeCancelled
					if errors.Is(ctx.Err(), context.DeadlineExceeded) {
						code = sanad.CodeTimeout
					}
					return nil, sanad.Wrap(ctx.Err(), code, op, "the wait was cut short")
				}
			},
		},
	)
}
