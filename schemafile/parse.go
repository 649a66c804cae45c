// Package schemafile reads YAML and JSON files checked against JSON Schemas,
// and reports what is wrong at the line it is written on.
//
// [Parse] reads a file into a tree of [Node] values that remember where each
// was written, refusing what a configuration file has no use for. [Validate]
// checks the tree against a schema and returns the violation written first
// in the file as an [*Error], worded for the author who has to fix it:
//
//	roles.yaml:4:5: roles.a: unknown key "include"; did you mean "includes"?
//
// A JSON file is read as YAML in flow style, so the same errors apply.
package schemafile

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"

	"github.com/sanadhq/sanad"
)

// Error says where a file is wrong and why. Line and Column are 1-based, or
// 0 when the error concerns the whole file (or a value that was not read
// from a file, see [ValidateValue]). Err is the condition a caller may
// branch on with errors.Is, when there is one: [ErrEmpty].
type Error struct {
	File   string
	Line   int
	Column int
	Reason string
	// Err is the cause, when the error comes from another: the YAML
	// parser's, the schema validator's, or the panic of a parser that
	// failed (a *sanad.PanicError). It is not part of Error's text.
	Err error
}

// ErrEmpty is the cause of the [*Error] of a file that holds no document:
// nothing, or only blank lines and comments. A file that may be left empty
// tests for it with errors.Is.
var ErrEmpty = errors.New("file is empty")

// Error returns "file:line:column: reason", the form editors and terminals
// turn into a link.
func (e *Error) Error() string {
	switch {
	case e.Line <= 0:
		return e.File + ": " + e.Reason
	case e.Column <= 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Reason)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Reason)
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// Pos is where something is written in a file. Line and Column are 1-based;
// the zero Pos is nowhere.
type Pos struct{ Line, Column int }

func (p Pos) before(q Pos) bool {
	if p.Line != q.Line {
		return p.Line < q.Line
	}
	return p.Column < q.Column
}

// Errorf returns the *Error of file at p, its reason formatted as by
// [fmt.Sprintf].
func Errorf(file string, p Pos, format string, args ...any) *Error {
	return &Error{File: file, Line: p.Line, Column: p.Column, Reason: fmt.Sprintf(format, args...)}
}

// The limits a zero [Limits] field stands for.
const (
	DefaultMaxBytes = 64 << 10
	DefaultMaxDepth = 32
)

// Limits bound a file before it is parsed, so that a hostile or corrupted
// file costs no more than a moment. A field zero or less takes its default.
type Limits struct {
	// MaxBytes is the largest file accepted.
	MaxBytes int
	// MaxDepth is the deepest nesting of [ and { a file may hold.
	MaxDepth int
}

func (l Limits) orDefault() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	return l
}

// Parse reads one YAML file into a tree of nodes; file is the name errors
// use. It refuses what would make a file's meaning depend on more than the
// text in front of the reader: several documents, anchors and aliases, tags,
// merge keys, explicit keys, non-string keys, duplicate keys, NaN and
// infinities. Every failure is an [*Error], with a position when the file
// has one to give.
//
// Parse never panics, whatever data holds.
func Parse(file string, data []byte, lim Limits) (root *Node, err error) {
	lim = lim.orDefault()
	if len(data) > lim.MaxBytes {
		return nil, &Error{File: file, Reason: fmt.Sprintf("file is larger than %d bytes, the most such a file may hold", lim.MaxBytes)}
	}
	if p, ok := tooDeep(data, lim.MaxDepth); !ok {
		return nil, Errorf(file, p, "brackets nest more than %d deep", lim.MaxDepth)
	}
	defer func() {
		// The parser is a dependency fed untrusted bytes: a panic in it
		// fails the file, not the process.
		if r := recover(); r != nil {
			pe := sanad.NewPanicError(r)
			root, err = nil, &Error{File: file, Reason: "YAML parser failed: " + pe.Value, Err: pe}
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
			return nil, Errorf(file, posOf(d.Body, Pos{}), "a file holds one YAML document; this is the second")
		}
		body = d.Body
	}
	if body == nil {
		return nil, &Error{File: file, Reason: ErrEmpty.Error(), Err: ErrEmpty}
	}
	return convert(file, body, posOf(body, Pos{1, 1}))
}

// tooDeep reports where flow brackets first nest deeper than limit. It
// ignores quoting, so a string holding more than limit unclosed brackets is
// refused too; no real file has one.
func tooDeep(data []byte, limit int) (Pos, bool) {
	depth, line, col := 0, 1, 0
	for _, c := range data {
		col++
		switch c {
		case '\n':
			line, col = line+1, 0
		case '[', '{':
			if depth++; depth > limit {
				return Pos{line, col}, false
			}
		case ']', '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return Pos{}, true
}

// syntaxError turns a parser error into an *Error with its position.
func syntaxError(file string, err error) *Error {
	var ye interface {
		GetToken() *token.Token
		GetMessage() string
	}
	if errors.As(err, &ye) {
		p := Pos{}
		if tk := ye.GetToken(); tk != nil && tk.Position != nil {
			p = Pos{tk.Position.Line, tk.Position.Column}
		}
		e := Errorf(file, p, "invalid YAML: %s", ye.GetMessage())
		e.Err = err
		return e
	}
	return &Error{File: file, Reason: "invalid YAML: " + err.Error(), Err: err}
}

// posOf returns where n is written, or def when the parser did not say. A
// block map is where its first key is.
func posOf(n ast.Node, def Pos) Pos {
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
	return Pos{tk.Position.Line, tk.Position.Column}
}

// convert builds the node of n. at is the position collections take: the key
// or list entry that holds them.
func convert(file string, n ast.Node, at Pos) (*Node, error) {
	p := posOf(n, at)
	scalar := func(v any) (*Node, error) { return &Node{pos: p, val: v}, nil }
	switch n := n.(type) {
	case nil, *ast.CommentGroupNode, *ast.CommentNode:
		return &Node{pos: at}, nil
	case *ast.MappingNode:
		m := &Node{kind: kindMap, pos: at}
		for _, mv := range n.Values {
			if err := addPair(file, m, mv); err != nil {
				return nil, err
			}
		}
		return m, nil
	case *ast.MappingValueNode:
		m := &Node{kind: kindMap, pos: at}
		if err := addPair(file, m, n); err != nil {
			return nil, err
		}
		return m, nil
	case *ast.SequenceNode:
		l := &Node{kind: kindList, pos: at, items: make([]*Node, 0, len(n.Values))}
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
		return nil, Errorf(file, p, "integer %q is out of range", n.GetToken().Value)
	case *ast.FloatNode:
		if math.IsNaN(n.Value) || math.IsInf(n.Value, 0) {
			return nil, Errorf(file, p, "%q is not a finite number", n.GetToken().Value)
		}
		return scalar(json.Number(strconv.FormatFloat(n.Value, 'g', -1, 64)))
	case *ast.BoolNode:
		return scalar(n.Value)
	case *ast.NullNode:
		return scalar(nil)
	case *ast.InfinityNode, *ast.NanNode:
		return nil, Errorf(file, p, "%q is not a finite number", n.GetToken().Value)
	case *ast.AnchorNode, *ast.AliasNode:
		return nil, Errorf(file, p, "anchors and aliases are not allowed: write each value out")
	case *ast.TagNode:
		return nil, Errorf(file, p, "tags are not allowed; quote the value if it must be a string")
	case *ast.MergeKeyNode:
		return nil, Errorf(file, p, "merge keys (<<) are not allowed: write each value out")
	case *ast.MappingKeyNode:
		return nil, Errorf(file, p, "explicit keys (?) are not allowed")
	}
	return nil, Errorf(file, p, "unsupported YAML construct %s", n.Type())
}

// addPair adds one key and its value to the map m.
func addPair(file string, m *Node, mv *ast.MappingValueNode) error {
	if mv == nil {
		return nil
	}
	kp := posOf(mv.Key, m.pos)
	var key string
	switch k := mv.Key.(type) {
	case *ast.StringNode:
		key = k.Value
	case *ast.MergeKeyNode:
		return Errorf(file, kp, "merge keys (<<) are not allowed: write each value out")
	case *ast.MappingKeyNode:
		return Errorf(file, kp, "explicit keys (?) are not allowed")
	default:
		return Errorf(file, kp, "keys must be strings; quote it")
	}
	for i, k := range m.keys {
		if k == key {
			return Errorf(file, kp, "duplicate key %q (first at line %d)", key, m.kpos[i].Line)
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
