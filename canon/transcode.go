package canon

import (
	"fmt"
	"slices"
	"sync"
	"unsafe"
)

// AppendTransform appends the RFC 8785 form of the JSON document raw to dst.
// It accepts and refuses exactly what [Parse] does and writes what
// [AppendCanonical] writes for Parse's tree, but in one pass over raw
// without building the tree: values are written as they are read, and the
// members of an object are reordered in place when they were not in
// canonical order already.
func AppendTransform(dst, raw []byte) ([]byte, error) {
	return appendTransform(dst, raw, nil)
}

// appendTransform is AppendTransform leaving out, at any depth, the object
// members drop names (nil: none).
func appendTransform(dst, raw []byte, drop func(string) bool) ([]byte, error) {
	t := transcoders.Get().(*transcoder)
	defer t.release()
	t.parser, t.out, t.drop = parser{data: raw}, dst, drop
	t.space()
	if err := t.value(0); err != nil {
		return nil, err
	}
	t.space()
	if t.i != len(t.data) {
		return nil, t.fail("data after the JSON value")
	}
	return t.out, nil
}

// transcoders keeps transcoders' member stacks and scratch buffers between
// documents.
var transcoders = sync.Pool{New: func() any { return new(transcoder) }}

// release returns t to the pool without references to the caller's data;
// buffers grown past 64 KiB are dropped.
func (t *transcoder) release() {
	t.parser, t.out, t.drop = parser{}, nil, nil
	clear(t.members[:cap(t.members)])
	t.members = t.members[:0]
	if cap(t.members) > 1024 || cap(t.scratch) > 64<<10 {
		t.members, t.scratch = nil, nil
	}
	t.scratch = t.scratch[:0]
	transcoders.Put(t)
}

type transcoder struct {
	parser
	out []byte
	// members holds the members of the objects being written, innermost
	// last; an object uses the entries from where they stood when it began.
	members []member
	scratch []byte // an object's members while they are reordered
	// drop, if set, names the members left out of every object.
	drop func(name string) bool
}

// member is one member of an object: its name and where `"name":value` lies
// in out (start and end -1 for a dropped member).
type member struct {
	name       string
	at         int // offset of the name in the input, for errors
	start, end int
}

func (t *transcoder) value(depth int) error {
	if depth > maxDepth {
		return t.fail("nested too deeply")
	}
	if t.i >= len(t.data) {
		return t.fail("unexpected end of input")
	}
	switch c := t.data[t.i]; {
	case c == '{':
		return t.object(depth)
	case c == '[':
		return t.array(depth)
	case c == '"':
		s, _, err := t.quoted()
		if err != nil {
			return err
		}
		t.out = AppendString(t.out, s)
		return nil
	case c == '-' || '0' <= c && c <= '9':
		start := t.i
		if _, err := t.number(); err != nil {
			return err
		}
		var err error
		t.out, err = appendNumber(t.out, view(t.data[start:t.i]))
		return err
	case c == 't':
		t.out = append(t.out, "true"...)
		return t.literal("true")
	case c == 'f':
		t.out = append(t.out, "false"...)
		return t.literal("false")
	case c == 'n':
		t.out = append(t.out, "null"...)
		return t.literal("null")
	}
	return t.fail(fmt.Sprintf("unexpected character %q", t.data[t.i]))
}

func (t *transcoder) object(depth int) error {
	t.i++ // {
	t.out = append(t.out, '{')
	body := len(t.out)
	base := len(t.members)
	kept := 0
	defer func() { t.members = t.members[:base] }()
	t.space()
	if t.i < len(t.data) && t.data[t.i] == '}' {
		t.i++
		t.out = append(t.out, '}')
		return nil
	}
	for {
		t.space()
		if t.i >= len(t.data) || t.data[t.i] != '"' {
			return t.fail("expected a member name")
		}
		at := t.i
		name, _, err := t.quoted()
		if err != nil {
			return err
		}
		before := len(t.out)
		if kept > 0 {
			t.out = append(t.out, ',')
		}
		start := len(t.out)
		t.out = AppendString(t.out, name)
		t.out = append(t.out, ':')
		t.space()
		if t.i >= len(t.data) || t.data[t.i] != ':' {
			return t.fail("expected ':'")
		}
		t.i++
		t.space()
		if err := t.value(depth + 1); err != nil {
			return err
		}
		m := member{name: name, at: at, start: start, end: len(t.out)}
		if t.drop != nil && t.drop(name) {
			// Read, so that the document is checked whole, but not written.
			t.out = t.out[:before]
			m.start, m.end = -1, -1
		} else {
			kept++
		}
		t.members = append(t.members, m)
		t.space()
		if t.i >= len(t.data) {
			return t.fail("unexpected end of input in an object")
		}
		switch t.data[t.i] {
		case ',':
			t.i++
		case '}':
			t.i++
			if err := t.order(body, t.members[base:]); err != nil {
				return err
			}
			t.out = append(t.out, '}')
			return nil
		default:
			return t.fail("expected ',' or '}'")
		}
	}
}

// order puts an object's written members, which begin at out[body], in
// canonical order, and refuses duplicate names.
func (t *transcoder) order(body int, ms []member) error {
	sorted := true
	for i := 1; i < len(ms); i++ {
		if compareUTF16(ms[i-1].name, ms[i].name) >= 0 {
			sorted = false
			break
		}
	}
	if sorted {
		return nil
	}
	slices.SortStableFunc(ms, func(a, b member) int { return compareUTF16(a.name, b.name) })
	for i := 1; i < len(ms); i++ {
		if ms[i-1].name == ms[i].name {
			return &SyntaxError{Offset: max(ms[i-1].at, ms[i].at), Reason: fmt.Sprintf("duplicate member name %q", ms[i].name)}
		}
	}
	t.scratch = append(t.scratch[:0], t.out[body:]...)
	t.out = t.out[:body]
	for _, m := range ms {
		if m.start < 0 {
			continue // dropped
		}
		if len(t.out) > body {
			t.out = append(t.out, ',')
		}
		t.out = append(t.out, t.scratch[m.start-body:m.end-body]...)
	}
	return nil
}

func (t *transcoder) array(depth int) error {
	t.i++ // [
	t.out = append(t.out, '[')
	t.space()
	if t.i < len(t.data) && t.data[t.i] == ']' {
		t.i++
		t.out = append(t.out, ']')
		return nil
	}
	for first := true; ; first = false {
		t.space()
		if !first {
			t.out = append(t.out, ',')
		}
		if err := t.value(depth + 1); err != nil {
			return err
		}
		t.space()
		if t.i >= len(t.data) {
			return t.fail("unexpected end of input in an array")
		}
		switch t.data[t.i] {
		case ',':
			t.i++
		case ']':
			t.i++
			t.out = append(t.out, ']')
			return nil
		default:
			return t.fail("expected ',' or ']'")
		}
	}
}

// view returns b as a string without copying; b must not change while the
// string is in use.
func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
