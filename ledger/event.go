package ledger

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/canon"
)

// Version is the version of the event envelope.
const Version = 1

// sigContext separates event signatures from every other use of a key.
const sigContext = "sanad/event/v1\n"

// Actor is who asserts an event: the agent (or runtime identity), its role,
// and the id of the key that signed.
type Actor struct {
	Agent string `json:"agent"`
	Role  string `json:"role,omitempty"`
	Key   string `json:"key"`
}

// Event is one signed, hash-chained record of a trace. Events are immutable
// once sealed: a ledger never changes or deletes one.
type Event struct {
	V      int                 `json:"v"`
	Trace  string              `json:"trace"`
	Seq    uint64              `json:"seq"`
	Prev   canon.Digest        `json:"prev"`
	Type   string              `json:"type"`
	Run    string              `json:"run,omitempty"`
	Parent string              `json:"parent,omitempty"`
	Root   string              `json:"root,omitempty"`
	Actor  Actor               `json:"actor"`
	Scope  sanad.Scope         `json:"scope"`
	Time   time.Time           `json:"time"`
	Body   json.RawMessage     `json:"body"`
	Refs   []sanad.ArtifactRef `json:"refs,omitempty"`
	Hash   canon.Digest        `json:"hash"`
	Sig    []byte              `json:"sig"`

	raw []byte // canonical bytes of the sealed event, hash and sig included
	// sealing is raw while the event waits for its signature: the hash
	// preimage laid out with the hash in place and room for the signature
	// at sigAt (see seal).
	sealing []byte
	sigAt   int
	tree    any // the body parsed, when prepare or Decode made the event (saves a parse)
}

// BodyField returns the top-level field key of the body, as canon.Parse
// gives JSON values (string, json.Number, bool, nil, map[string]any, []any),
// and whether the body has it. See BodyPath.
func (e *Event) BodyField(key string) (any, bool) { return e.BodyPath(key) }

// BodyPath returns the value at a path of member names in the body
// (BodyPath("run", "kind") is body.run.kind) and whether the body has it.
// Events decoded by the ledger keep their parsed body; for events it sealed,
// the members are found in the canonical body and only the value is
// decoded, so ordering rules read fields without decoding whole bodies.
func (e *Event) BodyPath(path ...string) (any, bool) {
	tree := e.tree
	if tree == nil {
		raw, ok := []byte(e.Body), true
		for _, k := range path {
			if raw, ok = canon.Member(raw, k); !ok {
				break
			}
		}
		if ok {
			v, err := canon.Parse(raw)
			return v, err == nil
		}
		if canon.ValueEnd(e.Body, 0, 0) == len(e.Body) {
			return nil, false // compact JSON without the member
		}
		var err error
		if tree, err = canon.Parse(e.Body); err != nil { // a body made by hand
			return nil, false
		}
	}
	for _, k := range path {
		m, ok := tree.(map[string]any)
		if !ok {
			return nil, false
		}
		if tree, ok = m[k]; !ok {
			return nil, false
		}
	}
	return tree, true
}

// BodyString returns the top-level string field key of the body, or "" if
// it is missing or not a string.
func (e *Event) BodyString(key string) string {
	v, _ := e.BodyField(key)
	s, _ := v.(string)
	return s
}

// Canonical returns the canonical JSON of the sealed event, as stored and
// exported. It must not be modified.
func (e *Event) Canonical() []byte { return e.raw }

// SigningMessage returns the bytes an event signature covers: a fixed context
// string followed by the 32 bytes of the event hash.
func SigningMessage(hash canon.Digest) []byte {
	return appendSigningMessage(make([]byte, 0, signingMessageLen), hash)
}

const signingMessageLen = len(sigContext) + len(canon.Digest{})

func appendSigningMessage(b []byte, hash canon.Digest) []byte {
	b = append(b, sigContext...)
	return append(b, hash[:]...)
}

// computeHash returns the SHA-256 of the canonical JSON of e without its hash
// and sig fields.
func (e *Event) computeHash(buf []byte) (canon.Digest, []byte) {
	buf = e.appendCanonical(buf[:0], false)
	return canon.Sum(buf), buf
}

// The fields a sealed event has and its hash preimage lacks: the hash,
// right after the body, and the signature, right after seq.
const (
	hashFieldLen = len(`,"hash":"sha256:`) + 2*len(canon.Digest{}) + len(`"`)
	sigFieldLen  = len(`,"sig":"`) + sigTextLen + len(`"`)
	sigTextLen   = 88 // base64 of a 64-byte ed25519 signature
)

// seal computes e's hash from its canonical JSON without hash and sig, and
// lays out its sealed encoding from that preimage: the hash in place and
// room for the signature, which setSig fills in. The event is encoded once.
// buf is scratch space for the preimage, returned for reuse.
func (e *Event) seal(buf []byte) []byte {
	var at fieldOffsets
	buf = e.appendEvent(buf[:0], false, &at)
	e.Hash = canon.Sum(buf)
	raw := make([]byte, 0, len(buf)+hashFieldLen+sigFieldLen)
	raw = append(raw, buf[:at.hash]...)
	raw = append(raw, `,"hash":"`...)
	raw = e.Hash.AppendText(raw)
	raw = append(raw, '"')
	raw = append(raw, buf[at.hash:at.sig]...)
	raw = append(raw, `,"sig":"`...)
	e.sigAt = len(raw)
	raw = append(raw[:len(raw)+sigTextLen], '"')
	e.sealing = append(raw, buf[at.sig:]...)
	return buf
}

// setSig records e's signature and completes its sealed encoding.
func (e *Event) setSig(sig []byte) {
	e.Sig = sig
	if len(sig) == ed25519.SignatureSize && e.sealing != nil {
		base64.StdEncoding.Encode(e.sealing[e.sigAt:e.sigAt+sigTextLen], sig)
		e.raw = e.sealing
	} else {
		e.raw = e.appendCanonical(nil, true)
	}
	e.sealing = nil
}

// fieldOffsets are where, in a hash preimage, the hash and sig fields of
// the sealed encoding go.
type fieldOffsets struct{ hash, sig int }

// appendCanonical writes the RFC 8785 form of e. Keys appear in the sorted
// order JCS requires; the body is already canonical. With sealed false the
// hash and sig fields are left out (the hash preimage).
func (e *Event) appendCanonical(b []byte, sealed bool) []byte {
	return e.appendEvent(b, sealed, nil)
}

// appendEvent is appendCanonical; unsealed, it also records in at (if not
// nil) where the hash and sig fields go.
func (e *Event) appendEvent(b []byte, sealed bool, at *fieldOffsets) []byte {
	b = append(b, `{"actor":{"agent":`...)
	b = canon.AppendString(b, e.Actor.Agent)
	b = append(b, `,"key":`...)
	b = canon.AppendString(b, e.Actor.Key)
	if e.Actor.Role != "" {
		b = append(b, `,"role":`...)
		b = canon.AppendString(b, e.Actor.Role)
	}
	b = append(b, `},"body":`...)
	b = append(b, e.Body...)
	if sealed {
		b = append(b, `,"hash":"`...)
		b = e.Hash.AppendText(b)
		b = append(b, '"')
	} else if at != nil {
		at.hash = len(b)
	}
	if e.Parent != "" {
		b = append(b, `,"parent":`...)
		b = canon.AppendString(b, e.Parent)
	}
	b = append(b, `,"prev":"`...)
	b = e.Prev.AppendText(b)
	b = append(b, '"')
	if len(e.Refs) > 0 {
		b = append(b, `,"refs":[`...)
		for i := range e.Refs {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendRef(b, &e.Refs[i])
		}
		b = append(b, ']')
	}
	if e.Root != "" {
		b = append(b, `,"root":`...)
		b = canon.AppendString(b, e.Root)
	}
	if e.Run != "" {
		b = append(b, `,"run":`...)
		b = canon.AppendString(b, e.Run)
	}
	b = append(b, `,"scope":`...)
	b = appendScope(b, e.Scope)
	b = append(b, `,"seq":`...)
	b = strconv.AppendUint(b, e.Seq, 10)
	if sealed {
		b = append(b, `,"sig":"`...)
		b = base64.StdEncoding.AppendEncode(b, e.Sig)
		b = append(b, '"')
	} else if at != nil {
		at.sig = len(b)
	}
	b = append(b, `,"time":"`...)
	b = e.Time.UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","trace":`...)
	b = canon.AppendString(b, e.Trace)
	b = append(b, `,"type":`...)
	b = canon.AppendString(b, e.Type)
	b = append(b, `,"v":`...)
	b = strconv.AppendInt(b, int64(e.V), 10)
	return append(b, '}')
}

func appendScope(b []byte, s sanad.Scope) []byte {
	b = append(b, '{')
	if s.Case != "" {
		b = append(b, `"case":`...)
		b = canon.AppendString(b, s.Case)
		b = append(b, ',')
	}
	b = append(b, `"tenant":`...)
	b = canon.AppendString(b, s.Tenant)
	return append(b, '}')
}

func appendRef(b []byte, r *sanad.ArtifactRef) []byte {
	b = append(b, `{"artifact_id":`...)
	b = canon.AppendString(b, r.ID)
	if r.CreatedByRun != "" {
		b = append(b, `,"created_by_run":`...)
		b = canon.AppendString(b, r.CreatedByRun)
	}
	b = append(b, `,"media_type":`...)
	b = canon.AppendString(b, r.MediaType)
	b = append(b, `,"scope":`...)
	b = appendScope(b, r.Scope)
	b = append(b, `,"sha256":`...)
	b = canon.AppendString(b, r.SHA256)
	b = append(b, `,"size_bytes":`...)
	b = strconv.AppendInt(b, r.SizeBytes, 10)
	if r.URI != "" {
		b = append(b, `,"uri":`...)
		b = canon.AppendString(b, r.URI)
	}
	return append(b, '}')
}

// maxSafeInt is the largest integer JSON numbers carry exactly (2^53).
const maxSafeInt = 1 << 53

// DecodeError reports bytes that are not a well-formed sanad event.
type DecodeError struct{ Reason string }

func (e *DecodeError) Error() string { return "ledger: malformed event: " + e.Reason }

func (e *Event) checkFields() error {
	switch {
	case e.V != Version:
		return &DecodeError{Reason: fmt.Sprintf("envelope version %d, want %d", e.V, Version)}
	case e.Trace == "" || e.Type == "" || e.Actor.Agent == "" || e.Actor.Key == "":
		return &DecodeError{Reason: "trace, type, actor.agent and actor.key are required"}
	case e.Seq == 0 || e.Seq >= maxSafeInt:
		return &DecodeError{Reason: fmt.Sprintf("seq %d out of range", e.Seq)}
	case e.Scope.Tenant == "":
		return &DecodeError{Reason: "scope.tenant is required"}
	case len(e.Body) == 0 || e.Body[0] != '{':
		return &DecodeError{Reason: "body must be a JSON object"}
	case len(e.Sig) == 0:
		return &DecodeError{Reason: "sig is required"}
	case e.Hash.IsZero():
		return &DecodeError{Reason: "hash is required"}
	}
	for i := range e.Refs {
		if err := e.Refs[i].Validate(); err != nil || e.Refs[i].SizeBytes >= maxSafeInt {
			return &DecodeError{Reason: fmt.Sprintf("refs[%d]: %v", i, err)}
		}
	}
	return nil
}
