package ledger

import (
	"bytes"
	"encoding/base64"
	"strconv"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/canon"
)

// decodeDirect reads a sealed event in the one form it can take once
// canonical: the members in the order appendCanonical writes them, strings
// without escapes. It builds no tree: the body is checked where it lies
// (canonical JSON, an object), the envelope's values are read in place, and
// the event is accepted only if checkFields passes and its canonical
// encoding is raw, byte for byte. ok is false for anything else, valid or
// not (a string with an escape, say); decodeTree then decodes it, and says
// what is wrong if something is. FuzzDecodePathsAgree checks that it
// accepts nothing decodeTree refuses and reads what decodeTree reads.
func decodeDirect(raw []byte) (*Event, bool) {
	r := envelope{b: raw, ok: true}
	var e Event
	r.lit(`{"actor":{"agent":`)
	e.Actor.Agent = r.str()
	r.lit(`,"key":`)
	e.Actor.Key = r.str()
	if r.opt(`,"role":`) {
		e.Actor.Role = r.str()
	}
	r.lit(`},"body":`)
	e.Body = r.value()
	r.lit(`,"hash":`)
	e.Hash = r.digest()
	if r.opt(`,"parent":`) {
		e.Parent = r.str()
	}
	r.lit(`,"prev":`)
	e.Prev = r.digest()
	if r.opt(`,"refs":[`) {
		for {
			e.Refs = append(e.Refs, r.ref())
			if !r.ok || !r.opt(",") {
				break
			}
		}
		r.lit("]")
	}
	if r.opt(`,"root":`) {
		e.Root = r.str()
	}
	if r.opt(`,"run":`) {
		e.Run = r.str()
	}
	r.lit(`,"scope":`)
	e.Scope = r.scope()
	r.lit(`,"seq":`)
	e.Seq = r.uint()
	r.lit(`,"sig":`)
	sig := r.str()
	r.lit(`,"time":`)
	at := r.str()
	r.lit(`,"trace":`)
	e.Trace = r.str()
	r.lit(`,"type":`)
	e.Type = r.str()
	r.lit(`,"v":`)
	e.V = int(r.uint())
	r.lit("}")
	if !r.ok || r.i != len(raw) {
		return nil, false
	}
	var err error
	if e.Sig, err = base64.StdEncoding.Strict().DecodeString(sig); err != nil {
		return nil, false
	}
	if e.Time, err = time.Parse(time.RFC3339Nano, at); err != nil {
		return nil, false
	}
	if e.checkFields() != nil || !canonicalObject(e.Body) {
		return nil, false
	}
	buf := encodeBufs.Get().(*[]byte)
	*buf = e.appendCanonical((*buf)[:0], true)
	same := bytes.Equal(*buf, raw)
	encodeBufs.Put(buf)
	if !same {
		return nil, false
	}
	e.raw = raw
	return &e, true
}

// canonicalObject reports whether b is a JSON object in canonical form.
func canonicalObject(b []byte) bool {
	if len(b) == 0 || b[0] != '{' {
		return false
	}
	buf := encodeBufs.Get().(*[]byte)
	c, err := canon.AppendTransform((*buf)[:0], b)
	ok := err == nil && bytes.Equal(c, b)
	if err == nil {
		*buf = c
	}
	encodeBufs.Put(buf)
	return ok
}

// envelope reads the bytes of a canonical event in order. A read that
// does not find what it expects clears ok, and later reads do nothing.
type envelope struct {
	b  []byte
	i  int
	ok bool
}

// lit reads s.
func (r *envelope) lit(s string) {
	if r.ok && !r.opt(s) {
		r.ok = false
	}
}

// opt reads s if it comes next, and reports whether it did.
func (r *envelope) opt(s string) bool {
	if r.ok && len(r.b)-r.i >= len(s) && string(r.b[r.i:r.i+len(s)]) == s {
		r.i += len(s)
		return true
	}
	return false
}

// str reads a string without escapes.
func (r *envelope) str() string {
	if !r.ok || r.i >= len(r.b) || r.b[r.i] != '"' {
		r.ok = false
		return ""
	}
	end := bytes.IndexByte(r.b[r.i+1:], '"')
	if end < 0 || bytes.IndexByte(r.b[r.i+1:r.i+1+end], '\\') >= 0 {
		r.ok = false
		return ""
	}
	s := string(r.b[r.i+1 : r.i+1+end])
	r.i += end + 2
	return s
}

// uint reads a whole number below 2^53.
func (r *envelope) uint() uint64 {
	j := r.i
	for j < len(r.b) && '0' <= r.b[j] && r.b[j] <= '9' {
		j++
	}
	if !r.ok || j == r.i {
		r.ok = false
		return 0
	}
	u, err := strconv.ParseUint(string(r.b[r.i:j]), 10, 64)
	if err != nil || u >= maxSafeInt {
		r.ok = false
		return 0
	}
	r.i = j
	return u
}

// digest reads a "sha256:<hex>" string.
func (r *envelope) digest() canon.Digest {
	d, err := canon.ParseDigest(r.str())
	if err != nil {
		r.ok = false
	}
	return d
}

// value reads any JSON value and returns its bytes.
func (r *envelope) value() []byte {
	if !r.ok {
		return nil
	}
	end := canon.ValueEnd(r.b, r.i, 1)
	if end < 0 {
		r.ok = false
		return nil
	}
	v := r.b[r.i:end]
	r.i = end
	return v
}

// scope reads a scope as appendScope writes it.
func (r *envelope) scope() sanad.Scope {
	var s sanad.Scope
	r.lit("{")
	if r.opt(`"case":`) {
		s.Case = r.str()
		r.lit(",")
	}
	r.lit(`"tenant":`)
	s.Tenant = r.str()
	r.lit("}")
	return s
}

// ref reads an artifact reference as appendRef writes it.
func (r *envelope) ref() sanad.ArtifactRef {
	var a sanad.ArtifactRef
	r.lit(`{"artifact_id":`)
	a.ID = r.str()
	if r.opt(`,"created_by_run":`) {
		a.CreatedByRun = r.str()
	}
	r.lit(`,"media_type":`)
	a.MediaType = r.str()
	r.lit(`,"scope":`)
	a.Scope = r.scope()
	r.lit(`,"sha256":`)
	a.SHA256 = r.str()
	r.lit(`,"size_bytes":`)
	a.SizeBytes = int64(r.uint())
	if r.opt(`,"uri":`) {
		a.URI = r.str()
	}
	r.lit("}")
	return a
}
