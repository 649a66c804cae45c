// Package shape compiles the part of JSON Schema (draft 2020-12) that
// sanad's event vocabularies use into a validator that answers one
// question, valid or not, without allocating: the check every event body
// passes when it is appended and when it is verified.
//
// A schema using a keyword outside that part does not compile
// ([ErrUnsupported]); its users keep a general validator for it. Shape does
// not explain failures either: a caller that needs the reason asks the
// general validator, only for values shape rejected. Its answers are tested
// against github.com/santhosh-tekuri/jsonschema on every vocabulary's
// schemas and fuzzed values.
package shape

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sanadhq/sanad/canon"
)

// ErrUnsupported reports a schema that uses a keyword or form shape does not
// implement.
var ErrUnsupported = errors.New("shape: schema outside the supported subset")

// Validator checks values parsed by canon.Parse (or encoding/json with
// UseNumber) against one compiled schema. It is safe for concurrent use.
type Validator struct{ root *node }

// Compile compiles a JSON Schema document.
func Compile(schema []byte) (*Validator, error) {
	doc, err := canon.Parse(schema)
	if err != nil {
		return nil, err
	}
	n, err := compile(doc, "#")
	if err != nil {
		return nil, err
	}
	return &Validator{root: n}, nil
}

// Valid reports whether v satisfies the schema.
func (s *Validator) Valid(v any) bool { return s.root.valid(v) }

// JSON types as a bit set.
const (
	tNull = 1 << iota
	tBoolean
	tInteger // a number with no fractional part
	tNumber  // any number; includes tInteger when set
	tString
	tArray
	tObject
)

var typeNames = map[string]uint8{
	"null": tNull, "boolean": tBoolean, "integer": tInteger, "number": tNumber | tInteger,
	"string": tString, "array": tArray, "object": tObject,
}

// node is one compiled (sub)schema. Zero values mean "no constraint".
type node struct {
	never              bool  // the schema false
	types              uint8 // 0: any type
	props              map[string]*node
	required           []string       // distinct names, at most 64
	requiredAt         map[string]int // index in required
	additional         *node          // applies to members not in props; nil: any
	enum               []any
	enumForms          [][]byte // canonical JSON of each enum value
	hasConst           bool
	constant           any
	constForm          []byte // canonical JSON of constant
	items              *node
	minItems, maxItems int // -1: no bound
	minLen, maxLen     int // -1: no bound, in code points
	minimum, maximum   *bound
	pattern            matcher
	anyOf              []*node
	not                *node
	ifn, then, els     *node
}

// bound is a numeric limit, exact: an int64 when it is one, a rational
// otherwise.
type bound struct {
	isInt bool
	i     int64
	r     *big.Rat
}

// ignored keywords: annotations with no effect on validity.
var ignored = map[string]bool{
	"$schema": true, "$id": true, "$comment": true, "title": true, "description": true,
	"examples": true, "default": true, "deprecated": true, "readOnly": true, "writeOnly": true,
}

func compile(doc any, at string) (*node, error) {
	switch s := doc.(type) {
	case bool:
		return &node{never: !s, minItems: -1, maxItems: -1, minLen: -1, maxLen: -1}, nil
	case map[string]any:
		n := &node{minItems: -1, maxItems: -1, minLen: -1, maxLen: -1}
		for k, v := range s {
			if err := n.keyword(k, v, at+"/"+k); err != nil {
				return nil, err
			}
		}
		return n, nil
	}
	return nil, fmt.Errorf("%w: %s is not a schema", ErrUnsupported, at)
}

func unsupported(at string) error { return fmt.Errorf("%w: %s", ErrUnsupported, at) }

func (n *node) keyword(k string, v any, at string) (err error) {
	switch k {
	case "type":
		switch t := v.(type) {
		case string:
			err = n.addType(t, at)
		case []any:
			if len(t) == 0 {
				return unsupported(at)
			}
			for _, e := range t {
				s, ok := e.(string)
				if !ok {
					return unsupported(at)
				}
				if err = n.addType(s, at); err != nil {
					return err
				}
			}
		default:
			return unsupported(at)
		}
	case "properties":
		m, ok := v.(map[string]any)
		if !ok {
			return unsupported(at)
		}
		n.props = make(map[string]*node, len(m))
		for name, sub := range m {
			if n.props[name], err = compile(sub, at+"/"+name); err != nil {
				return err
			}
		}
	case "required":
		list, ok := v.([]any)
		if !ok {
			return unsupported(at)
		}
		for _, e := range list {
			s, ok := e.(string)
			if !ok {
				return unsupported(at)
			}
			if n.requiredAt == nil {
				n.requiredAt = map[string]int{}
			}
			if _, dup := n.requiredAt[s]; !dup {
				n.requiredAt[s] = len(n.required)
				n.required = append(n.required, s)
			}
		}
		if len(n.required) > 64 {
			return unsupported(at)
		}
	case "additionalProperties":
		n.additional, err = compile(v, at)
	case "items":
		n.items, err = compile(v, at)
	case "enum":
		list, ok := v.([]any)
		if !ok {
			return unsupported(at)
		}
		n.enum = list
		for _, e := range list {
			form, err := canon.AppendCanonical(nil, e)
			if err != nil {
				return unsupported(at)
			}
			n.enumForms = append(n.enumForms, form)
		}
	case "const":
		n.hasConst, n.constant = true, v
		if n.constForm, err = canon.AppendCanonical(nil, v); err != nil {
			return unsupported(at)
		}
	case "minItems":
		n.minItems, err = count(v, at)
	case "maxItems":
		n.maxItems, err = count(v, at)
	case "minLength":
		n.minLen, err = count(v, at)
	case "maxLength":
		n.maxLen, err = count(v, at)
	case "minimum":
		n.minimum, err = newBound(v, at)
	case "maximum":
		n.maximum, err = newBound(v, at)
	case "pattern":
		s, ok := v.(string)
		if !ok {
			return unsupported(at)
		}
		n.pattern, err = compilePattern(s)
	case "anyOf":
		list, ok := v.([]any)
		if !ok || len(list) == 0 {
			return unsupported(at)
		}
		for i, sub := range list {
			c, err := compile(sub, at+"/"+strconv.Itoa(i))
			if err != nil {
				return err
			}
			n.anyOf = append(n.anyOf, c)
		}
	case "not":
		n.not, err = compile(v, at)
	case "if":
		n.ifn, err = compile(v, at)
	case "then":
		n.then, err = compile(v, at)
	case "else":
		n.els, err = compile(v, at)
	default:
		if !ignored[k] {
			return unsupported(at)
		}
	}
	return err
}

func (n *node) addType(name, at string) error {
	t, ok := typeNames[name]
	if !ok {
		return unsupported(at)
	}
	n.types |= t
	return nil
}

// count reads a non-negative integer keyword value.
func count(v any, at string) (int, error) {
	num, ok := v.(json.Number)
	if !ok {
		return 0, unsupported(at)
	}
	i, err := strconv.ParseInt(string(num), 10, 32)
	if err != nil || i < 0 {
		return 0, unsupported(at)
	}
	return int(i), nil
}

func newBound(v any, at string) (*bound, error) {
	num, ok := v.(json.Number)
	if !ok {
		return nil, unsupported(at)
	}
	if i, err := strconv.ParseInt(string(num), 10, 64); err == nil {
		return &bound{isInt: true, i: i, r: new(big.Rat).SetInt64(i)}, nil
	}
	r, ok := new(big.Rat).SetString(string(num))
	if !ok {
		return nil, unsupported(at)
	}
	return &bound{r: r}, nil
}

func (n *node) valid(v any) bool {
	if n.never {
		return false
	}
	t := typeOf(v)
	if t == 0 || (n.types != 0 && n.types&t == 0) {
		return false // not a parsed JSON value, or of another type
	}
	switch x := v.(type) {
	case map[string]any:
		if !n.object(x) {
			return false
		}
	case []any:
		if (n.minItems >= 0 && len(x) < n.minItems) || (n.maxItems >= 0 && len(x) > n.maxItems) {
			return false
		}
		if n.items != nil {
			for _, e := range x {
				if !n.items.valid(e) {
					return false
				}
			}
		}
	case string:
		if n.minLen >= 0 || n.maxLen >= 0 {
			c := utf8.RuneCountInString(x)
			if (n.minLen >= 0 && c < n.minLen) || (n.maxLen >= 0 && c > n.maxLen) {
				return false
			}
		}
		if n.pattern != nil && !n.pattern.MatchString(x) {
			return false
		}
	case json.Number:
		if n.minimum != nil {
			if c, ok := compareNumber(x, n.minimum); !ok || c < 0 {
				return false
			}
		}
		if n.maximum != nil {
			if c, ok := compareNumber(x, n.maximum); !ok || c > 0 {
				return false
			}
		}
	}
	if n.enum != nil {
		found := false
		for _, e := range n.enum {
			if equal(v, e) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	if n.hasConst && !equal(v, n.constant) {
		return false
	}
	if n.anyOf != nil {
		found := false
		for _, s := range n.anyOf {
			if s.valid(v) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	if n.not != nil && n.not.valid(v) {
		return false
	}
	if n.ifn != nil {
		if n.ifn.valid(v) {
			if n.then != nil && !n.then.valid(v) {
				return false
			}
		} else if n.els != nil && !n.els.valid(v) {
			return false
		}
	}
	return true
}

func (n *node) object(m map[string]any) bool {
	for _, r := range n.required {
		if _, ok := m[r]; !ok {
			return false
		}
	}
	if n.props == nil && n.additional == nil {
		return true
	}
	for k, e := range m {
		if p, ok := n.props[k]; ok {
			if !p.valid(e) {
				return false
			}
		} else if n.additional != nil && !n.additional.valid(e) {
			return false
		}
	}
	return true
}

func typeOf(v any) uint8 {
	switch x := v.(type) {
	case nil:
		return tNull
	case bool:
		return tBoolean
	case string:
		return tString
	case []any:
		return tArray
	case map[string]any:
		return tObject
	case json.Number:
		if isInteger(x) {
			return tNumber | tInteger
		}
		return tNumber
	}
	return 0
}

// isInteger reports whether a JSON number has no fractional part (1.0 and
// 1e2 are integers, as JSON Schema counts them).
func isInteger(x json.Number) bool {
	s := string(x)
	if !strings.ContainsAny(s, ".eE") {
		return true
	}
	r, ok := new(big.Rat).SetString(s)
	return ok && r.IsInt()
}

// compareNumber compares a JSON number with a bound exactly. ok is false
// for a number that does not parse, which no bound admits.
func compareNumber(x json.Number, b *bound) (c int, ok bool) {
	if b.isInt {
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			switch {
			case i < b.i:
				return -1, true
			case i > b.i:
				return 1, true
			}
			return 0, true
		}
	}
	r, ok := new(big.Rat).SetString(string(x))
	if !ok {
		return 0, false
	}
	return r.Cmp(b.r), true
}

// equal is JSON equality: numbers by value, objects by members, arrays in
// order.
func equal(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !equal(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		if x == y {
			return true
		}
		rx, ok1 := new(big.Rat).SetString(string(x))
		ry, ok2 := new(big.Rat).SetString(string(y))
		return ok1 && ok2 && rx.Cmp(ry) == 0
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	}
	return false
}
