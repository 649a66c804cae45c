package schemafile

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

type nodeKind uint8

const (
	kindScalar nodeKind = iota
	kindMap
	kindList
)

// Node is one value of a file together with where it was written. A map or
// a list that is the value of a key is placed at the key, so an error about
// the whole map points at the line that names it.
//
// Every method may be called on a nil *Node, which holds nothing: a caller
// can follow keys a schema made optional without checking each step. A Node
// does not change once built, so it is safe for concurrent use.
type Node struct {
	kind  nodeKind
	pos   Pos
	val   any      // a scalar: string, json.Number, bool or nil
	keys  []string // map keys in file order
	kpos  []Pos    // where each key is written
	items []*Node  // map values, parallel to keys, or list items
}

// Pos returns where n is written.
func (n *Node) Pos() Pos {
	if n == nil {
		return Pos{}
	}
	return n.pos
}

// IsMap reports whether n is a map.
func (n *Node) IsMap() bool { return n != nil && n.kind == kindMap }

// Keys returns the keys of the map n in file order.
func (n *Node) Keys() []string {
	if !n.IsMap() {
		return nil
	}
	return slices.Clone(n.keys)
}

// Items returns the values of the map n, in the order of [Node.Keys], or the
// items of the list n.
func (n *Node) Items() []*Node {
	if n == nil {
		return nil
	}
	return slices.Clone(n.items)
}

// Get returns the value of key in the map n, or nil.
func (n *Node) Get(key string) *Node {
	if i := n.index(key); i >= 0 {
		return n.items[i]
	}
	return nil
}

// KeyPos returns where key is written in the map n, or where n is when it
// has no such key.
func (n *Node) KeyPos(key string) Pos {
	if i := n.index(key); i >= 0 {
		return n.kpos[i]
	}
	return n.Pos()
}

func (n *Node) index(key string) int {
	if !n.IsMap() {
		return -1
	}
	return slices.Index(n.keys, key)
}

// Str returns the string n holds, or "".
func (n *Node) Str() string {
	if n == nil {
		return ""
	}
	s, _ := n.val.(string)
	return s
}

// Int returns the integer n holds, or 0.
func (n *Node) Int() int {
	if n == nil {
		return 0
	}
	num, _ := n.val.(json.Number)
	v, err := strconv.Atoi(string(num))
	if err != nil {
		return 0
	}
	return v
}

// Bool returns the bool n holds, or false.
func (n *Node) Bool() bool {
	if n == nil {
		return false
	}
	b, _ := n.val.(bool)
	return b
}

// Strings returns the strings of the list n, with where each is written.
// An item that is not a string counts as "".
func (n *Node) Strings() ([]string, []Pos) {
	if n == nil || n.kind != kindList {
		return nil, nil
	}
	out := make([]string, len(n.items))
	at := make([]Pos, len(n.items))
	for i, item := range n.items {
		out[i], at[i] = item.Str(), item.pos
	}
	return out, at
}

// Value returns n as the JSON value a JSON Schema validates and
// [json.Marshal] writes: map[string]any, []any, string, [json.Number], bool
// or nil.
func (n *Node) Value() any {
	if n == nil {
		return nil
	}
	switch n.kind {
	case kindMap:
		m := make(map[string]any, len(n.keys))
		for i, k := range n.keys {
			m[k] = n.items[i].Value()
		}
		return m
	case kindList:
		l := make([]any, len(n.items))
		for i, item := range n.items {
			l[i] = item.Value()
		}
		return l
	}
	return n.val
}

// fromValue builds the node of a decoded JSON value, with no positions. Map
// keys are sorted so that errors come out in a fixed order.
func fromValue(v any) *Node {
	switch v := v.(type) {
	case map[string]any:
		m := &Node{kind: kindMap}
		for k := range v {
			m.keys = append(m.keys, k)
		}
		sort.Strings(m.keys)
		m.kpos = make([]Pos, len(m.keys))
		for _, k := range m.keys {
			m.items = append(m.items, fromValue(v[k]))
		}
		return m
	case []any:
		l := &Node{kind: kindList}
		for _, item := range v {
			l.items = append(l.items, fromValue(item))
		}
		return l
	}
	return &Node{val: v}
}

// locate follows a JSON Schema instance location from n. It returns the
// deepest node it reaches and the path in the dotted form an author reads
// ("tools.flag_defect.requires[0]").
func (n *Node) locate(path []string) (*Node, string) {
	var b strings.Builder
	cur := n
	for _, tok := range path {
		if cur == nil {
			break
		}
		var next *Node
		switch cur.kind {
		case kindMap:
			if next = cur.Get(tok); next != nil {
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(tok)
			}
		case kindList:
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(cur.items) {
				next = cur.items[i]
				fmt.Fprintf(&b, "[%d]", i)
			}
		}
		if next == nil {
			break
		}
		cur = next
	}
	return cur, b.String()
}

// findKey returns the first map, in file order, that has key, with its
// dotted path; path is the path of n.
func (n *Node) findKey(key, path string) (*Node, string) {
	if n == nil {
		return nil, ""
	}
	switch n.kind {
	case kindMap:
		if n.index(key) >= 0 {
			return n, path
		}
		for i, k := range n.keys {
			child := k
			if path != "" {
				child = path + "." + k
			}
			if m, p := n.items[i].findKey(key, child); m != nil {
				return m, p
			}
		}
	case kindList:
		for i, item := range n.items {
			if m, p := item.findKey(key, fmt.Sprintf("%s[%d]", path, i)); m != nil {
				return m, p
			}
		}
	}
	return nil, ""
}
