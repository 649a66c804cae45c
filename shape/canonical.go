package shape

import (
	"encoding/json"
	"unicode/utf8"
	"unsafe"

	"github.com/sanadhq/sanad/canon"
)

// ValidCanonical reports whether b satisfies the schema, reading the
// bytes without decoding them into a tree. b must be RFC 8785 canonical
// JSON, as canon writes it (no white space, canonical strings and
// numbers); other input gets no particular answer, and no panic. A caller
// that needs the reason for a rejection parses b and asks a general
// validator.
func (s *Validator) ValidCanonical(b []byte) bool {
	end, ok := s.root.validAt(b, 0)
	return ok && end == len(b)
}

// validAt checks the value starting at b[i] and returns where it ends (-1
// if b holds no value there).
func (n *node) validAt(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return -1, false
	}
	var t uint8
	end, ok := -1, true
	switch c := b[i]; {
	case c == '{':
		t = tObject
		end, ok = n.objectAt(b, i)
	case c == '[':
		t = tArray
		end, ok = n.arrayAt(b, i)
	case c == '"':
		t, end = tString, canon.ValueEnd(b, i, 0)
	case c == 't' || c == 'f':
		t, end = tBoolean, canon.ValueEnd(b, i, 0)
	case c == 'n':
		t, end = tNull, canon.ValueEnd(b, i, 0)
	default:
		t, end = tNumber, canon.ValueEnd(b, i, 0)
	}
	if end < 0 {
		return -1, false
	}
	if !ok || n.never {
		return end, false
	}
	v := b[i:end]
	if t == tNumber && isInteger(json.Number(view(v))) {
		t |= tInteger
	}
	if n.types != 0 && n.types&t == 0 {
		return end, false
	}
	switch t {
	case tString:
		if !n.stringAt(v) {
			return end, false
		}
	case tNumber, tNumber | tInteger:
		x := json.Number(view(v))
		if n.minimum != nil {
			if c, ok := compareNumber(x, n.minimum); !ok || c < 0 {
				return end, false
			}
		}
		if n.maximum != nil {
			if c, ok := compareNumber(x, n.maximum); !ok || c > 0 {
				return end, false
			}
		}
	}
	if n.enum != nil && !n.inEnum(v) {
		return end, false
	}
	if n.hasConst && string(v) != string(n.constForm) {
		return end, false
	}
	if n.anyOf != nil {
		found := false
		for _, s := range n.anyOf {
			if _, ok := s.validAt(b, i); ok {
				found = true
				break
			}
		}
		if !found {
			return end, false
		}
	}
	if n.not != nil {
		if _, ok := n.not.validAt(b, i); ok {
			return end, false
		}
	}
	if n.ifn != nil {
		if _, ok := n.ifn.validAt(b, i); ok {
			if n.then != nil {
				if _, ok := n.then.validAt(b, i); !ok {
					return end, false
				}
			}
		} else if n.els != nil {
			if _, ok := n.els.validAt(b, i); !ok {
				return end, false
			}
		}
	}
	return end, true
}

// inEnum compares canonical bytes: two canonical values are equal JSON
// exactly when their bytes are.
func (n *node) inEnum(v []byte) bool {
	for _, e := range n.enumForms {
		if string(v) == string(e) {
			return true
		}
	}
	return false
}

// objectAt walks the object at b[i], checking its members against the
// object keywords, and returns where it ends.
func (n *node) objectAt(b []byte, i int) (int, bool) {
	if n.props == nil && n.additional == nil && n.required == nil {
		return canon.ValueEnd(b, i, 0), true
	}
	var seen uint64 // bit k: required[k] is present
	valid := true
	i++ // {
	if i < len(b) && b[i] == '}' {
		return i + 1, len(n.required) == 0
	}
	for {
		keyEnd := canon.ValueEnd(b, i, 0)
		if keyEnd < 0 || b[i] != '"' || keyEnd >= len(b) || b[keyEnd] != ':' {
			return -1, false
		}
		name, ok := unquote(b[i:keyEnd])
		if !ok {
			return -1, false
		}
		if k, ok := n.requiredAt[name]; ok {
			seen |= 1 << k
		}
		sub := n.additional
		if p, ok := n.props[name]; ok {
			sub = p
		}
		end := -1
		if sub != nil && valid {
			end, ok = sub.validAt(b, keyEnd+1)
			valid = valid && ok
		} else {
			end = canon.ValueEnd(b, keyEnd+1, 0)
		}
		if end < 0 || end >= len(b) {
			return -1, false
		}
		switch b[end] {
		case ',':
			i = end + 1
		case '}':
			return end + 1, valid && seen == 1<<len(n.required)-1
		default:
			return -1, false
		}
	}
}

// arrayAt walks the array at b[i], checking its items, and returns where it
// ends.
func (n *node) arrayAt(b []byte, i int) (int, bool) {
	if n.items == nil && n.minItems < 0 && n.maxItems < 0 {
		return canon.ValueEnd(b, i, 0), true
	}
	count, valid := 0, true
	i++ // [
	inBounds := func() bool {
		return (n.minItems < 0 || count >= n.minItems) && (n.maxItems < 0 || count <= n.maxItems)
	}
	if i < len(b) && b[i] == ']' {
		return i + 1, inBounds()
	}
	for {
		end := -1
		if n.items != nil && valid {
			var ok bool
			end, ok = n.items.validAt(b, i)
			valid = valid && ok
		} else {
			end = canon.ValueEnd(b, i, 0)
		}
		if end < 0 || end >= len(b) {
			return -1, false
		}
		count++
		switch b[end] {
		case ',':
			i = end + 1
		case ']':
			return end + 1, valid && inBounds()
		default:
			return -1, false
		}
	}
}

// stringAt checks a quoted canonical string against the string keywords.
func (n *node) stringAt(q []byte) bool {
	if n.minLen < 0 && n.maxLen < 0 && n.pattern == nil {
		return true
	}
	s, ok := unquote(q)
	if !ok {
		return false
	}
	if n.minLen >= 0 || n.maxLen >= 0 {
		c := utf8.RuneCountInString(s)
		if (n.minLen >= 0 && c < n.minLen) || (n.maxLen >= 0 && c > n.maxLen) {
			return false
		}
	}
	return n.pattern == nil || n.pattern.MatchString(s)
}

// unquote returns the value of a quoted canonical string: a view of its
// bytes when it has no escapes, else the decoded text.
func unquote(q []byte) (string, bool) {
	if len(q) < 2 {
		return "", false
	}
	inner := q[1 : len(q)-1]
	for _, c := range inner {
		if c == '\\' {
			v, err := canon.Parse(q)
			s, ok := v.(string)
			return s, err == nil && ok
		}
	}
	return view(inner), true
}

// view returns b as a string without copying: the canonical bytes this
// package reads are never changed once made (tool results are read-only
// views of them), and copying every number and string on the validation
// path would double its allocations.
func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
