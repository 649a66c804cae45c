package ledger

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/canon"
)

// Decode parses the canonical JSON of a sealed event. It is strict: unknown or
// missing fields, a wrong type, a non-canonical encoding (of the envelope or
// the body) or an impossible value is an error, so that every byte of raw is
// covered by the event's hash. Decode does not check the hash or the
// signature; [Verify] does. The event keeps a copy of raw.
func Decode(raw []byte) (*Event, error) {
	return decodeOwned(bytes.Clone(raw))
}

// decodeOwned is Decode for a raw the event may keep: the caller gives it
// up. Events in their canonical form are read directly (decodeDirect);
// anything else is decoded from a tree of the whole event (decodeTree),
// which accepts the same events and says what is wrong with the others.
func decodeOwned(raw []byte) (*Event, error) {
	if e, ok := decodeDirect(raw); ok {
		return e, nil
	}
	return decodeTree(raw)
}

// decodeTree decodes raw from a tree of the whole event, checking every
// field and that raw is the event's canonical encoding.
func decodeTree(raw []byte) (*Event, error) {
	tree, err := canon.Parse(raw)
	if err != nil {
		return nil, &DecodeError{Reason: err.Error()}
	}
	m, ok := tree.(map[string]any)
	if !ok {
		return nil, &DecodeError{Reason: "an event is a JSON object"}
	}
	r := fields{m: m, path: ""}
	var e Event
	e.V = int(r.uint("v", true))
	e.Trace = r.str("trace", true)
	e.Seq = r.uint("seq", true)
	e.Prev = r.digest("prev")
	e.Type = r.str("type", true)
	e.Run = r.str("run", false)
	e.Parent = r.str("parent", false)
	e.Root = r.str("root", false)
	if a := r.obj("actor", true); a != nil {
		e.Actor = Actor{Agent: a.str("agent", true), Key: a.str("key", true), Role: a.str("role", false)}
		a.done()
		r.take(a)
	}
	e.Scope = r.scope("scope")
	if t := r.str("time", true); t != "" {
		if e.Time, err = time.Parse(time.RFC3339Nano, t); err != nil {
			r.fail("time %q is not RFC 3339", t)
		}
	}
	if body, ok := m["body"]; ok {
		r.used++
		if _, isObj := body.(map[string]any); !isObj {
			r.fail("body must be a JSON object")
		} else if e.Body, err = canon.AppendCanonical(nil, body); err != nil {
			r.fail("body: %v", err)
		}
		e.tree = body
	} else {
		r.fail("body is required")
	}
	if refs, ok := m["refs"]; ok {
		r.used++
		list, isList := refs.([]any)
		if !isList || len(list) == 0 {
			r.fail("refs must be a non-empty array")
		}
		for i, x := range list {
			ro := r.sub(fmt.Sprintf("refs[%d]", i), x)
			if ro == nil {
				break
			}
			e.Refs = append(e.Refs, sanad.ArtifactRef{
				ID: ro.str("artifact_id", true), SHA256: ro.str("sha256", true), MediaType: ro.str("media_type", true),
				SizeBytes: int64(ro.uint("size_bytes", true)), URI: ro.str("uri", false),
				CreatedByRun: ro.str("created_by_run", false), Scope: ro.scope("scope"),
			})
			ro.done()
			r.take(ro)
		}
	}
	e.Hash = r.digest("hash")
	if sig := r.str("sig", true); sig != "" {
		if e.Sig, err = base64.StdEncoding.Strict().DecodeString(sig); err != nil {
			r.fail("sig is not base64")
		}
	}
	r.done()
	if r.err != nil {
		return nil, r.err
	}
	if err := e.checkFields(); err != nil {
		return nil, err
	}
	buf := encodeBufs.Get().(*[]byte)
	*buf = e.appendCanonical((*buf)[:0], true)
	canonical := bytes.Equal(*buf, raw)
	encodeBufs.Put(buf)
	if !canonical {
		return nil, &DecodeError{Reason: "not in canonical form"}
	}
	e.raw = raw
	return &e, nil
}

// encodeBufs holds buffers for re-encoding decoded events.
var encodeBufs = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

// fields reads the members of one JSON object, remembering the first error
// and how many members were used, so that unknown members are refused.
type fields struct {
	m    map[string]any
	path string
	used int
	err  *DecodeError
}

func (f *fields) fail(format string, args ...any) {
	if f.err == nil {
		f.err = &DecodeError{Reason: f.path + fmt.Sprintf(format, args...)}
	}
}

func (f *fields) get(key string, required bool) (any, bool) {
	v, ok := f.m[key]
	if !ok {
		if required {
			f.fail("%s is required", key)
		}
		return nil, false
	}
	f.used++
	return v, true
}

func (f *fields) str(key string, required bool) string {
	v, ok := f.get(key, required)
	if !ok {
		return ""
	}
	s, isStr := v.(string)
	if !isStr || s == "" && !required {
		f.fail("%s must be a non-empty string", key)
	}
	return s
}

func (f *fields) uint(key string, required bool) uint64 {
	v, ok := f.get(key, required)
	if !ok {
		return 0
	}
	n, isNum := v.(json.Number)
	if !isNum {
		f.fail("%s must be a number", key)
		return 0
	}
	u, err := strconv.ParseUint(string(n), 10, 64)
	if err != nil || u >= maxSafeInt {
		f.fail("%s must be a whole number below 2^53", key)
	}
	return u
}

func (f *fields) digest(key string) canon.Digest {
	s := f.str(key, true)
	d, err := canon.ParseDigest(s)
	if err != nil && f.err == nil {
		f.fail("%s: %v", key, err)
	}
	return d
}

func (f *fields) sub(key string, v any) *fields {
	o, ok := v.(map[string]any)
	if !ok {
		f.fail("%s must be an object", key)
		return nil
	}
	return &fields{m: o, path: f.path + key + "."}
}

func (f *fields) obj(key string, required bool) *fields {
	v, ok := f.get(key, required)
	if !ok {
		return nil
	}
	return f.sub(key, v)
}

func (f *fields) scope(key string) sanad.Scope {
	o := f.obj(key, true)
	if o == nil {
		return sanad.Scope{}
	}
	s := sanad.Scope{Tenant: o.str("tenant", true), Case: o.str("case", false)}
	o.done()
	f.take(o)
	return s
}

// done records an error if the object has members nobody read.
func (f *fields) done() {
	if f.used != len(f.m) && f.err == nil {
		for k := range f.m {
			f.fail("unknown field %q", k)
			break
		}
	}
}

// take adopts a nested reader's error.
func (f *fields) take(o *fields) {
	if o.err != nil && f.err == nil {
		f.err = o.err
	}
}
