package canon_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/sanadhq/sanad/canon"
)

// reference is what AppendMarshal must always produce: encoding/json's
// encoding, then RFC 8785.
func reference(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return canon.Transform(raw)
}

func sameAsReference(t *testing.T, v any) {
	t.Helper()
	want, werr := reference(v)
	got, gerr := canon.AppendMarshal([]byte("prefix"), v)
	if (werr != nil) != (gerr != nil) {
		t.Fatalf("%#v: AppendMarshal error %v, reference error %v", v, gerr, werr)
	}
	if werr != nil {
		return
	}
	if !bytes.HasPrefix(got, []byte("prefix")) || !bytes.Equal(got[len("prefix"):], want) {
		t.Fatalf("%#v:\n got %s\nwant %s", v, got, want)
	}
}

type textKey string

func (k textKey) MarshalText() ([]byte, error) { return []byte("text:" + string(k)), nil }

type jsonValue struct{ n int }

func (v jsonValue) MarshalJSON() ([]byte, error) {
	return []byte(`{ "n" : ` + string(rune('0'+v.n%10)) + ` , "a":[1.50, "\u0041"] }`), nil
}

type ptrJSON struct{ s string }

func (p *ptrJSON) MarshalJSON() ([]byte, error) { return json.Marshal("ptr:" + p.s) }

type failing struct{}

func (failing) MarshalJSON() ([]byte, error) { return nil, errors.New("refused") }

type zeroer struct{ v int }

func (z zeroer) IsZero() bool { return z.v < 0 }

type inner struct {
	B string `json:"b,omitempty"`
	A []int  `json:"a"`
}

type Embedded struct{ E string }

type tagged struct {
	Zeta      string            `json:"zeta"`
	Alpha     int               `json:"alpha,omitempty"`
	Unicode   string            `json:"ünï,omitempty"`
	Skip      string            `json:"-"`
	Dash      string            `json:"-,"`
	unexp     string            //nolint:unused
	NoTag     bool              //
	Float     float64           `json:"float"`
	Ptr       *inner            `json:"ptr,omitempty"`
	Inner     inner             `json:"inner"`
	Map       map[string]any    `json:"map,omitempty"`
	Keys      map[textKey]int   `json:"keys"`
	Bytes     []byte            `json:"bytes"`
	Array     [3]byte           `json:"array"`
	When      time.Time         `json:"when"`
	WhenZero  time.Time         `json:"when_zero,omitzero"`
	Zeroer    zeroer            `json:"zeroer,omitzero"`
	Raw       json.RawMessage   `json:"raw,omitempty"`
	Number    json.Number       `json:"number,omitempty"`
	Digest    canon.Digest      `json:"digest"`
	Custom    jsonValue         `json:"custom"`
	PtrCustom *ptrJSON          `json:"ptr_custom"`
	Iface     any               `json:"iface"`
	Text      textKey           `json:"text"`
	Strings   map[string]string `json:"strings"`
	Big       int64             `json:"big"`
	UBig      uint64            `json:"ubig"`
}

type withEmbedded struct {
	Embedded
	X int `json:"x"`
}

type list struct {
	V    int   `json:"v"`
	Next *list `json:"next,omitempty"`
}

func TestAppendMarshalMatchesReference(t *testing.T) {
	when := time.Date(2026, 11, 25, 16, 40, 44, 123456700, time.FixedZone("x", 5*3600+30*60))
	full := tagged{
		Zeta: "z\u2028<&>\x01", Alpha: 7, Unicode: "ü", Skip: "s", Dash: "d", unexp: "u", NoTag: true,
		Float: 1e21, Ptr: &inner{B: "b", A: []int{1, 2}}, Inner: inner{A: nil},
		Map:  map[string]any{"é": 1.5, "e": []any{nil, true, "x", json.Number("1.0e2")}, "\U0001F600": map[string]any{}},
		Keys: map[textKey]int{"b": 1, "a": 2}, Bytes: []byte("bytes\xff"), Array: [3]byte{1, 2, 3},
		When: when, Zeroer: zeroer{-1}, Raw: json.RawMessage(` {"b":1, "a": 2.50} `), Number: "-0",
		Digest: canon.Sum([]byte("x")), Custom: jsonValue{3}, PtrCustom: &ptrJSON{"p"},
		Iface: []any{map[string]any{"k": &inner{B: "i"}}, int8(-3), uint16(9)}, Text: "t",
		Strings: map[string]string{"b": "2", "a": "1"}, Big: 1<<60 + 1, UBig: 1<<64 - 1,
	}
	rv := reflect.ValueOf(full)
	for i := range rv.NumField() {
		if rv.Type().Field(i).IsExported() && !canon.OnePass(rv.Field(i).Interface()) {
			t.Errorf("field %s", rv.Type().Field(i).Name)
		}
	}
	for _, v := range []any{full, &full, []any{full, 1}, when, json.Number("1")} {
		if !canon.OnePass(v) {
			t.Errorf("%T is encoded through encoding/json", v)
		}
	}
	cases := []any{
		nil, true, 0, -0.0, 1.5, math.MaxFloat64, 5e-324, "s\x00\"\\", []int(nil), []string{}, map[string]int(nil),
		json.RawMessage(nil), json.RawMessage(`[1, 2.0]`), json.Number("12"), when, time.Time{},
		full, &full, tagged{}, inner{}, &inner{}, []any{full}, map[string]tagged{"x": full},
		withEmbedded{Embedded{"e"}, 1}, map[int]string{2: "b", 1: "a"}, &list{1, &list{2, nil}},
		struct {
			A int `json:"a,string"`
		}{5},
		struct {
			F float32 `json:"f"`
		}{0.1},
		struct {
			A int `json:"a b"`
		}{5},
		[]float64{math.NaN()}, map[string]any{"f": math.Inf(1)}, failing{}, []any{failing{}},
		json.RawMessage(`{bad`), json.Number("1x"), make(chan int), []any{func() {}},
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("s", 61)),
		ptrJSON{"not addressable"}, []ptrJSON{{"addressable"}},
	}
	for _, v := range cases {
		sameAsReference(t, v)
	}
}

// A pointer cycle fails as it does in encoding/json; deep nesting that is
// no cycle is encoded.
func TestAppendMarshalDepth(t *testing.T) {
	c := &list{V: 1}
	c.Next = c
	if _, err := canon.AppendMarshal(nil, c); err == nil {
		t.Fatal("a cyclic value encoded without error")
	}
	deep := &list{}
	for i := range 1500 {
		deep = &list{V: i, Next: deep}
	}
	sameAsReference(t, deep)
}

// tree is a recursive type no other test encodes, so that its encoder is
// built while the goroutines below race to use it.
type tree struct {
	Name     string           `json:"name"`
	Children []tree           `json:"children,omitempty"`
	Links    map[string]*tree `json:"links,omitempty"`
}

// Goroutines that use a type's encoder while it is first built all get the
// right bytes (run with -race to check the hand-over).
func TestAppendMarshalConcurrentFirstUse(t *testing.T) {
	v := tree{Name: "root", Children: []tree{{Name: "a"}, {Name: "b", Links: map[string]*tree{"up": {Name: "root"}}}}}
	want, err := reference(v)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := canon.AppendMarshal(nil, v)
			if err != nil || !bytes.Equal(got, want) {
				errs <- fmt.Errorf("got %s (%v), want %s", got, err, want)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if !canon.OnePass(v) {
		t.Error("a recursive type is encoded through encoding/json")
	}
}

func TestAppendMarshalMatchesReferenceOnTrees(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := jsonTree(t, 0)
		want, werr := reference(v)
		got, gerr := canon.AppendMarshal(nil, v)
		if werr != nil || gerr != nil {
			if (werr != nil) != (gerr != nil) {
				t.Fatalf("%#v: AppendMarshal error %v, reference error %v", v, gerr, werr)
			}
			return
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%#v:\n got %s\nwant %s", v, got, want)
		}
	})
}

// Struct fields, zero or not, with and without omitempty and omitzero.
func TestAppendMarshalMatchesReferenceOnStructs(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		str := func(name string) string {
			return rapid.SampledFrom([]string{"", "a", "é\n\x00", "\xff"}).Draw(t, name)
		}
		v := tagged{
			Zeta: str("zeta"), Alpha: rapid.IntRange(-2, 2).Draw(t, "alpha"), Unicode: str("unicode"),
			NoTag: rapid.Bool().Draw(t, "notag"), Float: rapid.Float64().Draw(t, "float"),
			Zeroer: zeroer{rapid.IntRange(-1, 1).Draw(t, "zeroer")}, Big: rapid.Int64().Draw(t, "big"),
			UBig: rapid.Uint64().Draw(t, "ubig"), Text: textKey(str("text")),
			When: time.Unix(rapid.Int64Range(-1e11, 1e11).Draw(t, "unix"), rapid.Int64Range(0, 1e9-1).Draw(t, "nanos")).
				In(time.FixedZone("z", rapid.IntRange(-86399, 86399).Draw(t, "offset"))),
		}
		if rapid.Bool().Draw(t, "ptr") {
			v.Ptr = &inner{B: str("b")}
		}
		if rapid.Bool().Draw(t, "bytes") {
			v.Bytes = []byte(str("bytes"))
		}
		if rapid.Bool().Draw(t, "map") {
			v.Map = map[string]any{}
			v.Strings = map[string]string{str("k"): str("v")}
		}
		if rapid.Bool().Draw(t, "iface") {
			v.Iface = jsonTree(t, 0)
		}
		want, werr := reference(v)
		got, gerr := canon.AppendMarshal(nil, v)
		if (werr != nil) != (gerr != nil) || werr == nil && !bytes.Equal(got, want) {
			t.Fatalf("%#v:\n got %s (%v)\nwant %s (%v)", v, got, gerr, want, werr)
		}
	})
}

// jsonTree draws values of the types bodies are built from.
func jsonTree(t *rapid.T, depth int) any {
	kinds := 9
	if depth > 3 {
		kinds = 6
	}
	switch rapid.IntRange(0, kinds-1).Draw(t, "kind") {
	case 0:
		return nil
	case 1:
		return rapid.Bool().Draw(t, "bool")
	case 2:
		return rapid.Float64().Draw(t, "float")
	case 3:
		return rapid.Int64().Draw(t, "int")
	case 4:
		return rapid.String().Draw(t, "string")
	case 5:
		return json.Number(rapid.SampledFrom([]string{"0", "-0", "1e400", "12345678901234567890", "0.1", "-1.5E-7"}).Draw(t, "number"))
	case 6:
		n := rapid.IntRange(0, 4).Draw(t, "len")
		a := make([]any, n)
		for i := range a {
			a[i] = jsonTree(t, depth+1)
		}
		return a
	case 7:
		n := rapid.IntRange(0, 4).Draw(t, "len")
		m := map[string]any{}
		for range n {
			m[rapid.StringN(0, 4, -1).Draw(t, "key")] = jsonTree(t, depth+1)
		}
		return m
	default:
		return &inner{B: rapid.String().Draw(t, "b"), A: rapid.SliceOfN(rapid.Int(), 0, 3).Draw(t, "a")}
	}
}

func FuzzAppendMarshalMatchesReference(f *testing.F) {
	addJCSInputs(f)
	f.Add([]byte(`{"a":[1,"x",{"b":null}],"\u00e9":1e300,"n":-0}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var tree any
		if json.Unmarshal(raw, &tree) != nil {
			return
		}
		sameAsReference(t, tree)
		var num any
		d := json.NewDecoder(strings.NewReader(string(raw)))
		d.UseNumber()
		if d.Decode(&num) == nil {
			sameAsReference(t, num)
		}
	})
}

func BenchmarkAppendMarshal(b *testing.B) {
	v := tagged{
		Zeta: "zeta", Alpha: 7, Float: 1.25, Inner: inner{B: "b", A: []int{1, 2, 3}},
		Map: map[string]any{"k": "v", "n": 2.0}, When: time.Now(), Digest: canon.Sum(nil),
		Strings: map[string]string{"b": "2", "a": "1"},
	}
	b.Run("one-pass", func(b *testing.B) {
		buf := make([]byte, 0, 1024)
		for b.Loop() {
			var err error
			if buf, err = canon.AppendMarshal(buf[:0], v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json+transform", func(b *testing.B) {
		for b.Loop() {
			if _, err := reference(v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestRequestHashOfValueMatchesTransform: hashing a Go value, which skips
// the member-dropping transform when no volatile name appears in its
// encoding, gives the hash of its JSON text run through the transform,
// for trees whose names and string values may be volatile names.
func TestRequestHashOfValueMatchesTransform(t *testing.T) {
	names := append([]string{"a", "time\"", "x:"}, canon.VolatileFields...)
	var tree func(t *rapid.T, depth int) any
	tree = func(t *rapid.T, depth int) any {
		switch rapid.IntRange(0, 3).Draw(t, "kind") {
		case 0:
			return rapid.SampledFrom([]string{"v", `"time":`, `{"run_id":1}`}).Draw(t, "string")
		case 1:
			return rapid.Int64().Draw(t, "int")
		case 2:
			if depth < 3 {
				n := rapid.IntRange(0, 3).Draw(t, "len")
				a := make([]any, n)
				for i := range a {
					a[i] = tree(t, depth+1)
				}
				return a
			}
			return nil
		default:
			m := map[string]any{}
			if depth < 3 {
				for range rapid.IntRange(0, 4).Draw(t, "members") {
					m[rapid.SampledFrom(names).Draw(t, "name")] = tree(t, depth+1)
				}
			}
			return m
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		v := tree(t, 0)
		text, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		want, err := canon.RequestHash(json.RawMessage(text))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := canon.RequestHash(v); err != nil || got != want {
			t.Fatalf("RequestHash(%s) = %s, %v; via the transform %s", text, got, err, want)
		}
	})
}
