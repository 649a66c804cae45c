package canon

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/gowebpki/jcs"
)

// maxDepth bounds nesting, so hostile input cannot exhaust the stack.
const maxDepth = 1000

// SyntaxError reports JSON that [Parse] refuses, with the byte offset.
type SyntaxError struct {
	Offset int
	Reason string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("canon: at byte %d: %s", e.Offset, e.Reason) }

// Parse decodes one JSON document into the values encoding/json produces
// with UseNumber: map[string]any, []any, string, json.Number, bool and nil.
// It is strict in the ways RFC 8785 (I-JSON) requires: valid UTF-8, no lone
// surrogates, no duplicate member names, numbers that fit a float64, and
// nothing after the value but white space.
func Parse(raw []byte) (any, error) {
	p := parser{data: raw}
	p.space()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(p.data) {
		return nil, p.fail("data after the JSON value")
	}
	return v, nil
}

type parser struct {
	data []byte
	i    int
}

func (p *parser) fail(reason string) error { return &SyntaxError{Offset: p.i, Reason: reason} }

func (p *parser) space() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (any, error) {
	if depth > maxDepth {
		return nil, p.fail("nested too deeply")
	}
	if p.i >= len(p.data) {
		return nil, p.fail("unexpected end of input")
	}
	switch c := p.data[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		return p.str()
	case c == '-' || '0' <= c && c <= '9':
		return p.number()
	case c == 't':
		return true, p.literal("true")
	case c == 'f':
		return false, p.literal("false")
	case c == 'n':
		return nil, p.literal("null")
	}
	return nil, p.fail(fmt.Sprintf("unexpected character %q", p.data[p.i]))
}

func (p *parser) literal(word string) error {
	if len(p.data)-p.i < len(word) || string(p.data[p.i:p.i+len(word)]) != word {
		return p.fail("invalid literal")
	}
	p.i += len(word)
	return nil
}

func (p *parser) object(depth int) (any, error) {
	p.i++ // {
	m := make(map[string]any)
	p.space()
	if p.i < len(p.data) && p.data[p.i] == '}' {
		p.i++
		return m, nil
	}
	for {
		p.space()
		if p.i >= len(p.data) || p.data[p.i] != '"' {
			return nil, p.fail("expected a member name")
		}
		at := p.i
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		if _, dup := m[k]; dup {
			return nil, &SyntaxError{Offset: at, Reason: fmt.Sprintf("duplicate member name %q", k)}
		}
		p.space()
		if p.i >= len(p.data) || p.data[p.i] != ':' {
			return nil, p.fail("expected ':'")
		}
		p.i++
		p.space()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		m[k] = v
		p.space()
		if p.i >= len(p.data) {
			return nil, p.fail("unexpected end of input in an object")
		}
		switch p.data[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return m, nil
		default:
			return nil, p.fail("expected ',' or '}'")
		}
	}
}

func (p *parser) array(depth int) (any, error) {
	p.i++ // [
	a := []any{}
	p.space()
	if p.i < len(p.data) && p.data[p.i] == ']' {
		p.i++
		return a, nil
	}
	for {
		p.space()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		p.space()
		if p.i >= len(p.data) {
			return nil, p.fail("unexpected end of input in an array")
		}
		switch p.data[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return a, nil
		default:
			return nil, p.fail("expected ',' or ']'")
		}
	}
}

func (p *parser) str() (string, error) {
	s, isView, err := p.quoted()
	if isView {
		s = strings.Clone(s)
	}
	return s, err
}

// quoted reads a string. One without escapes (the common case) is returned
// as a view of the input, isView true: valid only while the input is.
func (p *parser) quoted() (s string, isView bool, err error) {
	p.i++ // opening quote
	start := p.i
	for p.i < len(p.data) {
		c := p.data[p.i]
		if c == '"' {
			b := p.data[start:p.i]
			p.i++
			if !utf8.Valid(b) {
				return "", false, &SyntaxError{Offset: start, Reason: "invalid UTF-8 in a string"}
			}
			return view(b), true, nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
		p.i++
	}
	s, err = p.unescape(start)
	return s, false, err
}

// unescape decodes the rest of a string with escapes, from start (just
// after its opening quote) and p.i (where the first escape or control
// character is).
func (p *parser) unescape(start int) (string, error) {
	buf := append([]byte(nil), p.data[start:p.i]...)
	for p.i < len(p.data) {
		c := p.data[p.i]
		switch {
		case c == '"':
			p.i++
			if !utf8.Valid(buf) {
				return "", &SyntaxError{Offset: start, Reason: "invalid UTF-8 in a string"}
			}
			return string(buf), nil
		case c < 0x20:
			return "", p.fail("control character in a string")
		case c != '\\':
			buf = append(buf, c)
			p.i++
			continue
		}
		p.i++ // backslash
		if p.i >= len(p.data) {
			break
		}
		e := p.data[p.i]
		p.i++
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, err := p.hex4()
			if err != nil {
				return "", err
			}
			if utf16.IsSurrogate(r) {
				if r >= 0xDC00 || p.i+1 >= len(p.data) || p.data[p.i] != '\\' || p.data[p.i+1] != 'u' {
					return "", p.fail("lone UTF-16 surrogate")
				}
				p.i += 2
				r2, err := p.hex4()
				if err != nil {
					return "", err
				}
				if r2 < 0xDC00 || r2 > 0xDFFF {
					return "", p.fail("invalid UTF-16 surrogate pair")
				}
				r = utf16.DecodeRune(r, r2)
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return "", p.fail(fmt.Sprintf("invalid escape \\%c", e))
		}
	}
	return "", p.fail("unterminated string")
}

func (p *parser) hex4() (rune, error) {
	if len(p.data)-p.i < 4 {
		return 0, p.fail("short \\u escape")
	}
	var r rune
	for _, c := range p.data[p.i : p.i+4] {
		r <<= 4
		switch {
		case '0' <= c && c <= '9':
			r |= rune(c - '0')
		case 'a' <= c && c <= 'f':
			r |= rune(c - 'a' + 10)
		case 'A' <= c && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, p.fail("invalid \\u escape")
		}
	}
	p.i += 4
	return r, nil
}

func (p *parser) number() (any, error) {
	start := p.i
	digits := func() int {
		n := 0
		for p.i < len(p.data) && '0' <= p.data[p.i] && p.data[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.data[p.i] == '-' {
		p.i++
	}
	if p.i < len(p.data) && p.data[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		return nil, p.fail("invalid number")
	}
	if p.i < len(p.data) && p.data[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return nil, p.fail("invalid number")
		}
	}
	if p.i < len(p.data) && (p.data[p.i] == 'e' || p.data[p.i] == 'E') {
		p.i++
		if p.i < len(p.data) && (p.data[p.i] == '+' || p.data[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return nil, p.fail("invalid number")
		}
	}
	return json.Number(p.data[start:p.i]), nil
}

// AppendCanonical appends the RFC 8785 form of v, a tree of the types
// [Parse] returns (float64 and the Go integer types are accepted too).
func AppendCanonical(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		if x {
			return append(dst, "true"...), nil
		}
		return append(dst, "false"...), nil
	case string:
		return AppendString(dst, x), nil
	case json.Number:
		return appendNumber(dst, string(x))
	case float64:
		return appendFloat(dst, x)
	case int:
		return appendFloat(dst, float64(x))
	case int64:
		return appendFloat(dst, float64(x))
	case []any:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = AppendCanonical(dst, e); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, compareUTF16)
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendString(dst, k)
			dst = append(dst, ':')
			var err error
			if dst, err = AppendCanonical(dst, x[k]); err != nil {
				return nil, err
			}
		}
		return append(dst, '}'), nil
	}
	return nil, fmt.Errorf("canon: cannot encode %T", v)
}

// appendNumber writes a JSON number in its ES6 form. Integers of up to 15
// digits are already in that form (but for "-0"); others go through float64.
func appendNumber(dst []byte, s string) ([]byte, error) {
	if n := len(s); n > 0 && n <= 15 {
		plain := true
		for i := 0; i < n; i++ {
			if c := s[i]; !('0' <= c && c <= '9' || c == '-' && i == 0) {
				plain = false
				break
			}
		}
		if plain {
			if s == "-0" {
				return append(dst, '0'), nil
			}
			return append(dst, s...), nil
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, fmt.Errorf("canon: number %s does not fit a float64", truncate(s))
	}
	return appendFloat(dst, f)
}

var errNumber = errors.New("canon: NaN and infinities have no JSON form")

func appendFloat(dst []byte, f float64) ([]byte, error) {
	s, err := jcs.NumberToJSON(f)
	if err != nil {
		return nil, errNumber
	}
	return append(dst, s...), nil
}

// compareUTF16 orders member names by their UTF-16 code units (RFC 8785
// §3.2.3). For names without supplementary-plane characters that is the
// byte order of their UTF-8 form.
func compareUTF16(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		ca, cb := a[i], b[i]
		if ca == cb {
			continue
		}
		if ca < 0xF0 && cb < 0xF0 {
			// Neither starts a 4-byte sequence here; but an earlier multi-byte
			// sequence may differ in a way UTF-16 orders differently only if
			// one side is supplementary, which starts with 0xF0..0xF4.
			return int(ca) - int(cb)
		}
		return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
	}
	return len(a) - len(b)
}
