package canon

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
)

// AppendMarshal appends the canonical JSON encoding of v to dst: the bytes
// [Marshal] returns, written in one pass from v without an intermediate
// encoding/json document. Values of the types encoding/json handles in ways
// this encoder does not reproduce (embedded struct fields, ",string" tags,
// non-string map keys, float32, Marshal methods on pointer receivers) go
// through encoding/json and [AppendTransform], so the result never differs.
// On error dst is returned as it was given.
func AppendMarshal(dst []byte, v any) ([]byte, error) {
	if raw, ok := v.(json.RawMessage); ok && raw != nil {
		return AppendTransform(dst, raw)
	}
	if v != nil {
		if enc := encoderFor(reflect.TypeOf(v)); enc != nil {
			out, err := enc(dst, reflect.ValueOf(v), 0)
			if err == nil {
				return out, nil
			}
			if !errors.Is(err, errFallback) {
				return dst, err
			}
		}
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return dst, fmt.Errorf("canon: %w", err)
	}
	return AppendTransform(dst, raw)
}

// errFallback says a value holds a type the one-pass encoder leaves to
// encoding/json (found only at run time, behind an interface).
var errFallback = errors.New("canon: encoded through encoding/json")

// maxEncodeDepth bounds nesting: deeper values, cycles among them, go
// through encoding/json, which tells the two apart.
const maxEncodeDepth = 1000

// encoder appends the canonical form of v, a value of the type it was
// built for, at nesting depth.
type encoder func(dst []byte, v reflect.Value, depth int) ([]byte, error)

// encoders caches one encoder per type; a nil encoder means the type goes
// through encoding/json.
var encoders sync.Map // reflect.Type → encoder

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	timeType          = reflect.TypeFor[time.Time]()
	rawMessageType    = reflect.TypeFor[json.RawMessage]()
	numberType        = reflect.TypeFor[json.Number]()
)

// encoderFor returns t's encoder, building it once; a recursive type gets
// an encoder that looks itself up when first used.
func encoderFor(t reflect.Type) encoder {
	if e, ok := encoders.Load(t); ok {
		return e.(encoder)
	}
	var (
		wg    sync.WaitGroup
		built encoder
	)
	wg.Add(1)
	e, loaded := encoders.LoadOrStore(t, encoder(func(dst []byte, v reflect.Value, depth int) ([]byte, error) {
		wg.Wait()
		if built == nil {
			return dst, errFallback
		}
		return built(dst, v, depth)
	}))
	if loaded {
		return e.(encoder)
	}
	built = newEncoder(t)
	wg.Done()
	encoders.Store(t, built)
	return built
}

func newEncoder(t reflect.Type) encoder {
	switch t {
	case rawMessageType:
		return encodeRaw
	case numberType:
		return encodeNumber
	case timeType:
		return encodeTime
	}
	mj, mt := t.Implements(marshalerType), t.Implements(textMarshalerType)
	if t.Kind() != reflect.Pointer && (reflect.PointerTo(t).Implements(marshalerType) != mj || reflect.PointerTo(t).Implements(textMarshalerType) != mt) {
		return nil // a pointer-receiver method encoding/json uses only on addressable values
	}
	if mj || mt {
		return marshalerEncoder(t, mj)
	}
	switch t.Kind() {
	case reflect.Bool:
		return encodeBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return encodeInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return encodeUint
	case reflect.Float64:
		return encodeFloat
	case reflect.String:
		return encodeString
	case reflect.Interface:
		return encodeInterface
	case reflect.Pointer:
		return pointerEncoder(t)
	case reflect.Struct:
		return structEncoder(t)
	case reflect.Map:
		return mapEncoder(t)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && !reflect.PointerTo(t.Elem()).Implements(marshalerType) && !reflect.PointerTo(t.Elem()).Implements(textMarshalerType) {
			return encodeBytes
		}
		return listEncoder(t)
	case reflect.Array:
		return listEncoder(t)
	}
	return nil // float32, complex, chan, func, unsafe pointers: encoding/json decides
}

func encodeRaw(dst []byte, v reflect.Value, _ int) ([]byte, error) {
	raw := v.Bytes()
	if raw == nil {
		return append(dst, "null"...), nil
	}
	return AppendTransform(dst, raw)
}

func encodeNumber(dst []byte, v reflect.Value, _ int) ([]byte, error) {
	s := v.String()
	if s == "" {
		s = "0" // encoding/json writes an empty Number as 0
	}
	if !validNumber(s) {
		return dst, fmt.Errorf("canon: json: invalid number literal %q", truncate(s))
	}
	return appendNumber(dst, s)
}

func encodeTime(dst []byte, v reflect.Value, depth int) ([]byte, error) {
	t := v.Interface().(time.Time)
	if _, off := t.Zone(); t.Year() < 0 || t.Year() > 9999 || off%60 != 0 || off <= -24*3600 || off >= 24*3600 {
		return marshalerEncoder(timeType, true)(dst, v, depth) // encoding/json's checks and errors
	}
	dst = append(dst, '"')
	dst = t.AppendFormat(dst, time.RFC3339Nano)
	return append(dst, '"'), nil
}

// marshalerEncoder encodes through t's MarshalJSON (canonicalized) or
// MarshalText (as a string), as encoding/json prefers them.
func marshalerEncoder(t reflect.Type, isJSON bool) encoder {
	return func(dst []byte, v reflect.Value, _ int) ([]byte, error) {
		if v.Kind() == reflect.Pointer && v.IsNil() {
			return append(dst, "null"...), nil
		}
		if isJSON {
			m, ok := v.Interface().(json.Marshaler)
			if !ok {
				return append(dst, "null"...), nil
			}
			raw, err := m.MarshalJSON()
			if err != nil {
				return dst, fmt.Errorf("canon: json: error calling MarshalJSON for type %s: %w", t, err)
			}
			out, err := AppendTransform(dst, raw)
			if err != nil {
				return dst, fmt.Errorf("canon: json: error calling MarshalJSON for type %s: %w", t, err)
			}
			return out, nil
		}
		m, ok := v.Interface().(encoding.TextMarshaler)
		if !ok {
			return append(dst, "null"...), nil
		}
		text, err := m.MarshalText()
		if err != nil {
			return dst, fmt.Errorf("canon: json: error calling MarshalText for type %s: %w", t, err)
		}
		return AppendString(dst, string(text)), nil
	}
}

func encodeBool(dst []byte, v reflect.Value, _ int) ([]byte, error) {
	return strconv.AppendBool(dst, v.Bool()), nil
}

// exactInt is 2^53: integers of smaller magnitude are their own ES6 form.
const exactInt = 1 << 53

func encodeInt(dst []byte, v reflect.Value, _ int) ([]byte, error) {
	n := v.Int()
	if -exactInt < n && n < exactInt {
		return strconv.AppendInt(dst, n, 10), nil
	}
	return appendFloat(dst, float64(n))
}

func encodeUint(dst []byte, v reflect.Value, _ int) ([]byte, error) {
	n := v.Uint()
	if n < exactInt {
		return strconv.AppendUint(dst, n, 10), nil
	}
	return appendFloat(dst, float64(n))
}

func encodeFloat(dst []byte, v reflect.Value, _ int) ([]byte, error) {
	f := v.Float()
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return dst, fmt.Errorf("canon: json: unsupported value: %s", strconv.FormatFloat(f, 'g', -1, 64))
	}
	return appendFloat(dst, f)
}

func encodeString(dst []byte, v reflect.Value, _ int) ([]byte, error) {
	return AppendString(dst, v.String()), nil
}

func encodeBytes(dst []byte, v reflect.Value, _ int) ([]byte, error) {
	if v.IsNil() {
		return append(dst, "null"...), nil
	}
	b := v.Bytes()
	dst = append(dst, '"')
	dst = base64.StdEncoding.AppendEncode(dst, b)
	return append(dst, '"'), nil
}

func encodeInterface(dst []byte, v reflect.Value, depth int) ([]byte, error) {
	if v.IsNil() {
		return append(dst, "null"...), nil
	}
	e := v.Elem()
	enc := encoderFor(e.Type())
	if enc == nil {
		return dst, errFallback
	}
	return enc(dst, e, depth)
}

// nested wraps enc, the encoder of a pointer's, slice's, array's or map's
// contents: a nil value (when nilable) is null, and a value nested deeper
// than maxEncodeDepth goes through encoding/json.
func nested(enc encoder, nilable bool) encoder {
	return func(dst []byte, v reflect.Value, depth int) ([]byte, error) {
		if nilable && v.IsNil() {
			return append(dst, "null"...), nil
		}
		if depth++; depth > maxEncodeDepth {
			return dst, errFallback // encoding/json tells a cycle from deep nesting
		}
		return enc(dst, v, depth)
	}
}

func pointerEncoder(t reflect.Type) encoder {
	elem := encoderFor(t.Elem())
	if elem == nil {
		return nil
	}
	return nested(func(dst []byte, v reflect.Value, depth int) ([]byte, error) {
		return elem(dst, v.Elem(), depth)
	}, true)
}

// listEncoder encodes a slice (nil is null) or an array as a JSON array.
func listEncoder(t reflect.Type) encoder {
	elem := encoderFor(t.Elem())
	if elem == nil {
		return nil
	}
	return nested(func(dst []byte, v reflect.Value, depth int) ([]byte, error) {
		dst = append(dst, '[')
		var err error
		for i := range v.Len() {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = elem(dst, v.Index(i), depth); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	}, t.Kind() == reflect.Slice)
}

func mapEncoder(t reflect.Type) encoder {
	if t.Key().Kind() != reflect.String {
		return nil
	}
	elem := encoderFor(t.Elem())
	if elem == nil {
		return nil
	}
	return nested(func(dst []byte, v reflect.Value, depth int) ([]byte, error) {
		members := make([]mapEntry, 0, v.Len())
		it := v.MapRange()
		for it.Next() {
			members = append(members, mapEntry{it.Key().String(), it.Value()})
		}
		slices.SortFunc(members, func(a, b mapEntry) int { return compareUTF16(a.name, b.name) })
		dst = append(dst, '{')
		var err error
		for i, m := range members {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendString(dst, m.name)
			dst = append(dst, ':')
			if dst, err = elem(dst, m.value, depth); err != nil {
				return dst, err
			}
		}
		return append(dst, '}'), nil
	}, true)
}

// mapEntry is one entry of a map being encoded.
type mapEntry struct {
	name  string
	value reflect.Value
}

// field is one encoded struct field.
type field struct {
	index     int
	name      []byte // the quoted name and a colon
	omitEmpty bool
	omitZero  func(reflect.Value) bool
	enc       encoder
}

// structEncoder encodes the exported fields of t in the order of their JSON
// names' UTF-16 code units, applying the tags encoding/json reads.
func structEncoder(t reflect.Type) encoder {
	var fields []field
	names := map[string]bool{}
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous {
			return nil // embedding promotes fields by encoding/json's rules
		}
		if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = sf.Name
		} else if !plainName(name) {
			return nil
		}
		f := field{index: i}
		for opts != "" {
			var opt string
			opt, opts, _ = strings.Cut(opts, ",")
			switch opt {
			case "omitempty":
				f.omitEmpty = true
			case "omitzero":
				f.omitZero = zeroTest(sf.Type)
			case "string":
				return nil
			}
		}
		if names[name] {
			return nil
		}
		names[name] = true
		if f.enc = encoderFor(sf.Type); f.enc == nil {
			return nil
		}
		f.name = append(AppendString(nil, name), ':')
		fields = append(fields, f)
	}
	slices.SortFunc(fields, func(a, b field) int {
		return compareUTF16(string(a.name[1:len(a.name)-2]), string(b.name[1:len(b.name)-2]))
	})
	return func(dst []byte, v reflect.Value, depth int) ([]byte, error) {
		dst = append(dst, '{')
		first := true
		var err error
		for i := range fields {
			f := &fields[i]
			fv := v.Field(f.index)
			if f.omitEmpty && isEmpty(fv) || f.omitZero != nil && f.omitZero(fv) {
				continue
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = append(dst, f.name...)
			if dst, err = f.enc(dst, fv, depth); err != nil {
				return dst, err
			}
		}
		return append(dst, '}'), nil
	}
}

// plainName is encoding/json's test of a tag name it takes as given (others
// are ignored in favour of the field's name; those go through it).
func plainName(s string) bool {
	for _, c := range s {
		if !strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c) && !unicode.IsLetter(c) && !unicode.IsDigit(c) {
			return false
		}
	}
	return true
}

// isEmpty is encoding/json's omitempty test.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

// zeroTest is encoding/json's omitzero test for fields of type t: its
// IsZero method if it has one, else the zero value.
func zeroTest(t reflect.Type) func(reflect.Value) bool {
	type isZeroer interface{ IsZero() bool }
	zeroer := reflect.TypeFor[isZeroer]()
	switch {
	case t.Kind() == reflect.Interface && t.Implements(zeroer):
		return func(v reflect.Value) bool {
			return v.IsNil() || v.Elem().Kind() == reflect.Pointer && v.Elem().IsNil() || v.Interface().(isZeroer).IsZero()
		}
	case t.Kind() == reflect.Pointer && t.Implements(zeroer):
		return func(v reflect.Value) bool { return v.IsNil() || v.Interface().(isZeroer).IsZero() }
	case t.Implements(zeroer):
		return func(v reflect.Value) bool { return v.Interface().(isZeroer).IsZero() }
	case reflect.PointerTo(t).Implements(zeroer):
		return func(v reflect.Value) bool {
			if !v.CanAddr() {
				c := reflect.New(v.Type()).Elem()
				c.Set(v)
				v = c
			}
			return v.Addr().Interface().(isZeroer).IsZero()
		}
	}
	return reflect.Value.IsZero
}

// validNumber reports whether s, not empty, is a JSON number literal (the
// parser's grammar).
func validNumber(s string) bool {
	p := parser{data: []byte(s)}
	_, err := p.number()
	return err == nil && p.i == len(s)
}
