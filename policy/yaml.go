package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// Limits on a policy file, checked before it is parsed. Policy files are a
// few kilobytes; the limits keep a hostile or corrupted file from costing
// more than a moment at load time.
const (
	// MaxFileBytes is the largest policy file Load accepts.
	MaxFileBytes = 64 << 10
	// MaxFlowDepth is the deepest nesting of [ and { a policy file may hold.
	MaxFlowDepth = 32
)

// LoadError says where a policy file is wrong and why. File is the path as
// Load was given it (or the name inside the fs.FS for LoadFS); Line and Column
// are 1-based, or 0 when the error concerns the whole file.
type LoadError struct {
	File   string
	Line   int
	Column int
	Reason string
}

// Error returns "file:line:column: reason", the form editors and terminals
// turn into a link.
func (e *LoadError) Error() string {
	switch {
	case e.Line <= 0:
		return e.File + ": " + e.Reason
	case e.Column <= 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Reason)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Reason)
}

// pos is where something is written in a policy file.
type pos struct{ line, col int }

type nodeKind uint8

const (
	kindNull nodeKind = iota
	kindString
	kindNumber
	kindBool
	kindMap
	kindList
)

// node is one value of a policy file together with where it was written. For
// a map or a list that is the value of a key, pos is the key's position, so an
// error about the whole map points at the line that names it.
type node struct {
	kind  nodeKind
	pos   pos
	text  string // a string, or a number as written in canonical form
	b     bool
	keys  []string // map keys in file order
	kpos  []pos    // where each key is written
	items []*node  // map values, parallel to keys, or list items
}

// fileError builds the *LoadError of file at p.
func fileError(file string, p pos, format string, args ...any) *LoadError {
	return &LoadError{File: file, Line: p.line, Column: p.col, Reason: fmt.Sprintf(format, args...)}
}

// parseYAML reads one policy file into a node tree. It refuses what a policy
// file has no use for and what would make its meaning depend on more than the
// text in front of the reader: several documents, anchors and aliases, tags,
// merge keys, explicit keys, non-string keys, duplicate keys, NaN and
// infinities.
func parseYAML(file string, data []byte) (root *node, err error) {
	if len(data) > MaxFileBytes {
		return nil, &LoadError{File: file, Reason: fmt.Sprintf("file is larger than %d bytes, the most a policy file may hold", MaxFileBytes)}
	}
	if p, ok := tooDeep(data); !ok {
		return nil, fileError(file, p, "brackets nest more than %d deep", MaxFlowDepth)
	}
	defer func() {
		// The parser is a dependency fed untrusted bytes: a panic in it
		// must fail the load, not the process.
		if r := recover(); r != nil {
			root, err = nil, &LoadError{File: file, Reason: fmt.Sprintf("YAML parser failed: %v", r)}
		}
	}()
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		return nil, syntaxError(file, err)
	}
	var body ast.Node
	docs := 0
	for _, d := range f.Docs {
		if d == nil || d.Body == nil {
			continue
		}
		if _, ok := d.Body.(*ast.CommentGroupNode); ok {
			continue
		}
		docs++
		if docs > 1 {
			return nil, fileError(file, posOf(d.Body, pos{}), "a policy file holds one YAML document; this is the second")
		}
		body = d.Body
	}
	if body == nil {
		return nil, &LoadError{File: file, Reason: "file is empty"}
	}
	return convert(file, body, posOf(body, pos{1, 1}))
}

// tooDeep reports where flow brackets first nest deeper than MaxFlowDepth.
// It ignores quoting, so a string holding more than MaxFlowDepth unclosed
// brackets is refused too; no real policy has one.
func tooDeep(data []byte) (pos, bool) {
	depth, line, col := 0, 1, 0
	for _, c := range data {
		col++
		switch c {
		case '\n':
			line, col = line+1, 0
		case '[', '{':
			depth++
			if depth > MaxFlowDepth {
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

// syntaxError turns a parser error into a *LoadError with its position.
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

// posOf returns where n is written, or def when the parser did not say. A
// block map is where its first key is.
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

// convert builds the node of n. at is the position collections take: the key
// or list entry that holds them.
func convert(file string, n ast.Node, at pos) (*node, error) {
	p := posOf(n, at)
	switch n := n.(type) {
	case nil:
		return &node{kind: kindNull, pos: at}, nil
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
		if err := addPair(file, m, n); err != nil {
			return nil, err
		}
		return m, nil
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
		return &node{kind: kindString, pos: p, text: n.Value}, nil
	case *ast.LiteralNode:
		if n.Value == nil {
			return &node{kind: kindString, pos: p}, nil
		}
		return &node{kind: kindString, pos: p, text: n.Value.Value}, nil
	case *ast.IntegerNode:
		switch v := n.Value.(type) {
		case int64:
			return &node{kind: kindNumber, pos: p, text: strconv.FormatInt(v, 10)}, nil
		case uint64:
			return &node{kind: kindNumber, pos: p, text: strconv.FormatUint(v, 10)}, nil
		}
		return nil, fileError(file, p, "integer %q is out of range", n.GetToken().Value)
	case *ast.FloatNode:
		if math.IsNaN(n.Value) || math.IsInf(n.Value, 0) {
			return nil, fileError(file, p, "%q is not a finite number", n.GetToken().Value)
		}
		return &node{kind: kindNumber, pos: p, text: strconv.FormatFloat(n.Value, 'g', -1, 64)}, nil
	case *ast.BoolNode:
		return &node{kind: kindBool, pos: p, b: n.Value}, nil
	case *ast.NullNode:
		return &node{kind: kindNull, pos: p}, nil
	case *ast.InfinityNode, *ast.NanNode:
		return nil, fileError(file, p, "%q is not a finite number", n.GetToken().Value)
	case *ast.AnchorNode, *ast.AliasNode:
		return nil, fileError(file, p, "anchors and aliases are not allowed in policy files: write each rule out")
	case *ast.TagNode:
		return nil, fileError(file, p, "tags are not allowed in policy files; quote the value if it must be a string")
	case *ast.MergeKeyNode:
		return nil, fileError(file, p, "merge keys (<<) are not allowed in policy files: write each rule out")
	case *ast.MappingKeyNode:
		return nil, fileError(file, p, "explicit keys (?) are not allowed in policy files")
	case *ast.CommentGroupNode, *ast.CommentNode:
		return &node{kind: kindNull, pos: at}, nil
	}
	return nil, fileError(file, p, "unsupported YAML construct %s", n.Type())
}

// addPair adds one key and its value to the map m.
func addPair(file string, m *node, mv *ast.MappingValueNode) error {
	if mv == nil {
		return nil
	}
	kp := posOf(mv.Key, m.pos)
	var key string
	switch k := mv.Key.(type) {
	case *ast.StringNode:
		key = k.Value
	case *ast.MergeKeyNode:
		return fileError(file, kp, "merge keys (<<) are not allowed in policy files: write each rule out")
	case *ast.MappingKeyNode:
		return fileError(file, kp, "explicit keys (?) are not allowed in policy files")
	default:
		return fileError(file, kp, "keys must be strings; quote it")
	}
	for i, k := range m.keys {
		if k == key {
			return fileError(file, kp, "duplicate key %q (first at line %d)", key, m.kpos[i].line)
		}
	}
	v, err := convert(file, mv.Value, kp)
	if err != nil {
		return err
	}
	m.keys = append(m.keys, key)
	m.kpos = append(m.kpos, kp)
	m.items = append(m.items, v)
	return nil
}

// value returns n as the JSON value a JSON Schema validates: maps, slices,
// strings, json.Number, bools and nil.
func (n *node) value() any {
	switch n.kind {
	case kindString:
		return n.text
	case kindNumber:
		return json.Number(n.text)
	case kindBool:
		return n.b
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
	return nil
}

// get returns the value of key in the map n, or nil.
func (n *node) get(key string) *node {
	if n == nil || n.kind != kindMap {
		return nil
	}
	for i, k := range n.keys {
		if k == key {
			return n.items[i]
		}
	}
	return nil
}

// keyPos returns where key is written in the map n, or n's own position.
func (n *node) keyPos(key string) pos {
	if n != nil && n.kind == kindMap {
		for i, k := range n.keys {
			if k == key {
				return n.kpos[i]
			}
		}
	}
	if n == nil {
		return pos{}
	}
	return n.pos
}

// str returns the string n holds, or "".
func (n *node) str() string {
	if n == nil || n.kind != kindString {
		return ""
	}
	return n.text
}

// integer returns the integer n holds, or 0.
func (n *node) integer() int {
	if n == nil || n.kind != kindNumber {
		return 0
	}
	v, err := strconv.Atoi(n.text)
	if err != nil {
		return 0
	}
	return v
}

// boolean returns the bool n holds, or false.
func (n *node) boolean() bool { return n != nil && n.kind == kindBool && n.b }

// strs returns the strings of the list n with their positions.
func (n *node) strs() ([]string, []pos) {
	if n == nil || n.kind != kindList {
		return nil, nil
	}
	out := make([]string, 0, len(n.items))
	at := make([]pos, 0, len(n.items))
	for _, item := range n.items {
		out = append(out, item.str())
		at = append(at, item.pos)
	}
	return out, at
}

// locate follows a JSON Schema instance location from n. It returns the
// deepest node it reaches and the path in the dotted form an author reads
// ("tools.flag_defect.requires[0]").
func (n *node) locate(path []string) (*node, string) {
	var b strings.Builder
	cur := n
	for _, tok := range path {
		var next *node
		switch cur.kind {
		case kindMap:
			next = cur.get(tok)
			if next != nil {
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
func (n *node) findKey(key, path string) (*node, string) {
	switch n.kind {
	case kindMap:
		for _, k := range n.keys {
			if k == key {
				return n, path
			}
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
