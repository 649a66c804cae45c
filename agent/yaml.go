package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// Limits on a profile or ability file, checked before it is parsed.
const (
	// MaxFileBytes is the largest profile or ability file accepted.
	MaxFileBytes = 64 << 10
	// MaxFlowDepth is the deepest nesting of [ and { a file may hold.
	MaxFlowDepth = 32
)

// LoadError says where a profile or ability is wrong and why. File is the
// name the file was given as (or "profile <id>" for a [Profile] built in Go);
// Line and Column are 1-based, or 0 when the error has no place in a file.
type LoadError struct {
	File   string
	Line   int
	Column int
	Reason string
}

// Error returns "file:line:column: reason", the form editors turn into a link.
func (e *LoadError) Error() string {
	switch {
	case e.Line <= 0:
		return e.File + ": " + e.Reason
	case e.Column <= 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Reason)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Reason)
}

// pos is where something is written in a file; the zero pos is nowhere.
type pos struct{ line, col int }

func (p pos) before(q pos) bool {
	if p.line != q.line {
		return p.line < q.line
	}
	return p.col < q.col
}

func fileError(file string, p pos, format string, args ...any) *LoadError {
	return &LoadError{File: file, Line: p.line, Column: p.col, Reason: fmt.Sprintf(format, args...)}
}

type nodeKind uint8

const (
	kindScalar nodeKind = iota
	kindMap
	kindList
)

// node is one value of a file with where it is written. A map or list that
// is the value of a key is placed at the key, so an error about it points at
// the line that names it.
type node struct {
	kind  nodeKind
	pos   pos
	val   any      // a scalar: string, json.Number, bool or nil
	keys  []string // map keys in file order
	kpos  []pos    // where each key is written
	items []*node  // map values, parallel to keys, or list items
}

// parseYAML reads one file into a node tree. It refuses what a profile has
// no use for and what would make its meaning depend on more than the text in
// front of the reader: several documents, anchors and aliases, tags, merge
// keys, explicit keys, non-string keys, duplicate keys, NaN and infinities.
func parseYAML(file string, data []byte) (root *node, err error) {
	if len(data) > MaxFileBytes {
		return nil, &LoadError{File: file, Reason: fmt.Sprintf("file is larger than %d bytes", MaxFileBytes)}
	}
	if p, ok := tooDeep(data); !ok {
		return nil, fileError(file, p, "brackets nest more than %d deep", MaxFlowDepth)
	}
	defer func() {
		// The parser is fed untrusted bytes: a panic in it fails the
		// file, not the process.
		if r := recover(); r != nil {
			root, err = nil, &LoadError{File: file, Reason: fmt.Sprintf("YAML parser failed: %v", r)}
		}
	}()
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		return nil, syntaxError(file, err)
	}
	var body ast.Node
	for _, d := range f.Docs {
		if d == nil || d.Body == nil {
			continue
		}
		if _, ok := d.Body.(*ast.CommentGroupNode); ok {
			continue
		}
		if body != nil {
			return nil, fileError(file, posOf(d.Body, pos{}), "a file holds one YAML document; this is the second")
		}
		body = d.Body
	}
	if body == nil {
		return nil, &LoadError{File: file, Reason: "file is empty"}
	}
	return convert(file, body, posOf(body, pos{1, 1}))
}

// tooDeep reports where flow brackets first nest deeper than MaxFlowDepth,
// ignoring quotes.
func tooDeep(data []byte) (pos, bool) {
	depth, line, col := 0, 1, 0
	for _, c := range data {
		col++
		switch c {
		case '\n':
			line, col = line+1, 0
		case '[', '{':
			if depth++; depth > MaxFlowDepth {
				return pos{line, col}, false
			}
		case ']', '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return pos{}, true
}

func syntaxError(file string, err error) *LoadError {
	var ye interface {
		GetToken() *token.Token
		GetMessage() string
	}
	if errors.As(err, &ye) {
		p := pos{}
		if tk := ye.GetToken(); tk != nil && tk.Position != nil {
			p = pos{tk.Position.Line, tk.Position.Column}
		}
		return fileError(file, p, "invalid YAML: %s", ye.GetMessage())
	}
	return &LoadError{File: file, Reason: "invalid YAML: " + err.Error()}
}

// posOf returns where n is written, or def. A block map is where its first
// key is.
func posOf(n ast.Node, def pos) pos {
	switch m := n.(type) {
	case nil:
		return def
	case *ast.MappingValueNode:
		if m.Key != nil {
			return posOf(m.Key, def)
		}
	case *ast.MappingNode:
		if !m.IsFlowStyle && len(m.Values) > 0 && m.Values[0] != nil {
			return posOf(m.Values[0], def)
		}
	}
	tk := n.GetToken()
	if tk == nil || tk.Position == nil || tk.Position.Line <= 0 {
		return def
	}
	return pos{tk.Position.Line, tk.Position.Column}
}

// convert builds the node of n; at is where a collection is placed.
func convert(file string, n ast.Node, at pos) (*node, error) {
	p := posOf(n, at)
	scalar := func(v any) (*node, error) { return &node{pos: p, val: v}, nil }
	switch n := n.(type) {
	case nil, *ast.CommentGroupNode, *ast.CommentNode:
		return &node{pos: at}, nil
	case *ast.MappingNode:
		m := &node{kind: kindMap, pos: at}
		for _, mv := range n.Values {
			if err := addPair(file, m, mv); err != nil {
				return nil, err
			}
		}
		return m, nil
	case *ast.MappingValueNode:
		m := &node{kind: kindMap, pos: at}
		return m, addPair(file, m, n)
	case *ast.SequenceNode:
		l := &node{kind: kindList, pos: at, items: make([]*node, 0, len(n.Values))}
		for _, v := range n.Values {
			item, err := convert(file, v, posOf(v, at))
			if err != nil {
				return nil, err
			}
			l.items = append(l.items, item)
		}
		return l, nil
	case *ast.StringNode:
		return scalar(n.Value)
	case *ast.LiteralNode:
		if n.Value == nil {
			return scalar("")
		}
		return scalar(n.Value.Value)
	case *ast.IntegerNode:
		switch v := n.Value.(type) {
		case int64:
			return scalar(json.Number(strconv.FormatInt(v, 10)))
		case uint64:
			return scalar(json.Number(strconv.FormatUint(v, 10)))
		}
		return nil, fileError(file, p, "integer %q is out of range", n.GetToken().Value)
	case *ast.FloatNode:
		if math.IsNaN(n.Value) || math.IsInf(n.Value, 0) {
			return nil, fileError(file, p, "%q is not a finite number", n.GetToken().Value)
		}
		return scalar(json.Number(strconv.FormatFloat(n.Value, 'g', -1, 64)))
	case *ast.BoolNode:
		return scalar(n.Value)
	case *ast.NullNode:
		return scalar(nil)
	case *ast.InfinityNode, *ast.NanNode:
		return nil, fileError(file, p, "%q is not a finite number", n.GetToken().Value)
	case *ast.AnchorNode, *ast.AliasNode:
		return nil, fileError(file, p, "anchors and aliases are not allowed: write each value out")
	case *ast.TagNode:
		return nil, fileError(file, p, "tags are not allowed; quote the value if it must be a string")
	case *ast.MergeKeyNode:
		return nil, fileError(file, p, "merge keys (<<) are not allowed: write each value out")
	case *ast.MappingKeyNode:
		return nil, fileError(file, p, "explicit keys (?) are not allowed")
	}
	return nil, fileError(file, p, "unsupported YAML construct %s", n.Type())
}

// addPair adds one key and its value to the map m.
func addPair(file string, m *node, mv *ast.MappingValueNode) error {
	if mv == nil {
		return nil
	}
	kp := posOf(mv.Key, m.pos)
	k, ok := mv.Key.(*ast.StringNode)
	if !ok {
		return fileError(file, kp, "keys must be plain strings")
	}
	for i, key := range m.keys {
		if key == k.Value {
			return fileError(file, kp, "duplicate key %q (first at line %d)", key, m.kpos[i].line)
		}
	}
	v, err := convert(file, mv.Value, kp)
	if err != nil {
		return err
	}
	m.keys = append(m.keys, k.Value)
	m.kpos = append(m.kpos, kp)
	m.items = append(m.items, v)
	return nil
}

// fromValue builds the node of a decoded JSON value, with no positions. Map
// keys are sorted so that errors come out in a fixed order.
func fromValue(v any) *node {
	switch v := v.(type) {
	case map[string]any:
		m := &node{kind: kindMap}
		for k := range v {
			m.keys = append(m.keys, k)
		}
		sort.Strings(m.keys)
		m.kpos = make([]pos, len(m.keys))
		for _, k := range m.keys {
			m.items = append(m.items, fromValue(v[k]))
		}
		return m
	case []any:
		l := &node{kind: kindList}
		for _, item := range v {
			l.items = append(l.items, fromValue(item))
		}
		return l
	}
	return &node{val: v}
}

// value returns n as the JSON value a JSON Schema validates.
func (n *node) value() any {
	switch n.kind {
	case kindMap:
		m := make(map[string]any, len(n.keys))
		for i, k := range n.keys {
			m[k] = n.items[i].value()
		}
		return m
	case kindList:
		l := make([]any, len(n.items))
		for i, item := range n.items {
			l[i] = item.value()
		}
		return l
	}
	return n.val
}

// keyPos returns where key is written in the map n, or n's own position.
func (n *node) keyPos(key string) pos {
	for i, k := range n.keys {
		if k == key {
			return n.kpos[i]
		}
	}
	return n.pos
}

// locate follows a JSON Schema instance location from n. It returns the
// deepest node it reaches and its path as an author reads it
// ("core_abilities[1]").
func (n *node) locate(path []string) (*node, string) {
	var b strings.Builder
	cur := n
	for _, tok := range path {
		var next *node
		switch cur.kind {
		case kindMap:
			for i, k := range cur.keys {
				if k == tok {
					next = cur.items[i]
					if b.Len() > 0 {
						b.WriteByte('.')
					}
					b.WriteString(tok)
				}
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
