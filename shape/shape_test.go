package shape_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/shape"
)

// reference compiles schema with the general validator shape stands in for.
func reference(t testing.TB, schema string) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("s.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("s.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func canonical(t testing.TB, s string) []byte {
	t.Helper()
	b, err := canon.Transform([]byte(s))
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return b
}

func parse(t testing.TB, s string) any {
	t.Helper()
	v, err := canon.Parse([]byte(s))
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return v
}

func TestKeywords(t *testing.T) {
	cases := []struct {
		schema string
		valid  []string
		bad    []string
	}{
		{`{"type":"integer"}`, []string{`1`, `-0`, `1.0`, `1e2`, `12345678901234567890`}, []string{`1.5`, `"1"`, `null`, `true`}},
		{`{"type":"number","minimum":0,"maximum":1.5}`, []string{`0`, `1.5`, `0.25`, `1e-3`}, []string{`-1`, `1.51`, `2e0`, `"x"`}},
		{`{"type":"integer","minimum":1,"maximum":9007199254740993}`, []string{`1`, `9007199254740993`}, []string{`0`, `9007199254740994`, `9.007199254740994e15`}},
		{`{"type":["string","null"],"minLength":2,"maxLength":3}`, []string{`null`, `"ab"`, `"abc"`, `"é€"`, `"😀😀😀"`}, []string{`"a"`, `"abcd"`, `"😀"`, `1`}},
		{`{"type":"string","pattern":"^C-[0-9]+$"}`, []string{`"C-1"`, `"C-007"`}, []string{`"C-"`, `"c-1"`, `"C-1\n"`}},
		{`{"enum":["a",1,null,{"k":[1]}]}`, []string{`"a"`, `1`, `1.0`, `null`, `{"k":[1.0]}`}, []string{`"b"`, `2`, `{"k":[]}`, `false`}},
		{`{"const":{"a":true}}`, []string{`{"a":true}`}, []string{`{"a":false}`, `{"a":true,"b":1}`, `[]`}},
		{`{"type":"array","minItems":1,"maxItems":2,"items":{"type":"string"}}`, []string{`["a"]`, `["a","b"]`}, []string{`[]`, `["a","b","c"]`, `[1]`, `{}`}},
		{`{"type":"object","required":["a"],"properties":{"a":{"type":"string"},"b":{"type":"integer"}},"additionalProperties":false}`,
			[]string{`{"a":"x"}`, `{"a":"x","b":2}`}, []string{`{}`, `{"a":1}`, `{"a":"x","c":1}`, `{"a":"x","b":"2"}`, `[]`}},
		{`{"type":"object","additionalProperties":{"type":"boolean"}}`, []string{`{}`, `{"x":true}`}, []string{`{"x":1}`}},
		{`{"anyOf":[{"type":"string"},{"type":"integer","minimum":5}]}`, []string{`"s"`, `5`}, []string{`4`, `null`}},
		{`{"not":{"type":"null"}}`, []string{`1`, `"x"`, `{}`}, []string{`null`}},
		{`{"if":{"properties":{"k":{"const":"a"}}},"then":{"required":["a"]},"else":{"required":["b"]}}`,
			[]string{`{"k":"a","a":1}`, `{"k":"z","b":1}`, `{"a":1}`}, []string{`{"k":"a","b":1}`, `{"k":"z","a":1}`, `{"b":1}`}},
		{`true`, []string{`1`, `{}`}, nil},
		{`false`, nil, []string{`1`, `{}`}},
		{`{"type":"object","properties":{"a":false}}`, []string{`{}`, `{"b":1}`}, []string{`{"a":1}`}},
		{`{"title":"t","description":"d","$comment":"c"}`, []string{`1`, `null`}, nil},
	}
	for _, c := range cases {
		v, err := shape.Compile([]byte(c.schema))
		if err != nil {
			t.Fatalf("%s: %v", c.schema, err)
		}
		ref := reference(t, c.schema)
		for _, want := range []bool{true, false} {
			list := c.valid
			if !want {
				list = c.bad
			}
			for _, s := range list {
				x := parse(t, s)
				if got := v.Valid(x); got != want {
					t.Errorf("%s: Valid(%s) = %v, want %v", c.schema, s, got, want)
				}
				if got := v.ValidCanonical(canonical(t, s)); got != want {
					t.Errorf("%s: ValidCanonical(%s) = %v, want %v", c.schema, s, got, want)
				}
				if refOK := ref.Validate(x) == nil; refOK != want {
					t.Errorf("%s: the reference validator says %v for %s; the case is wrong", c.schema, refOK, s)
				}
			}
		}
	}
}

func TestUnsupported(t *testing.T) {
	for _, s := range []string{
		`{"$ref":"#/$defs/a","$defs":{"a":true}}`, `{"format":"email"}`, `{"oneOf":[true]}`,
		`{"items":[{"type":"string"}]}`, `{"type":"thing"}`, `{"minLength":-1}`, `{"patternProperties":{}}`,
		`{"uniqueItems":true}`, `{"exclusiveMinimum":1}`, `{"multipleOf":2}`, `1`,
	} {
		if _, err := shape.Compile([]byte(s)); !errors.Is(err, shape.ErrUnsupported) {
			t.Errorf("Compile(%s) = %v, want ErrUnsupported", s, err)
		}
	}
	if _, err := shape.Compile([]byte(`{"pattern":"("}`)); err == nil {
		t.Error("a pattern that does not compile compiled")
	}
}

// vocabularySchemas returns every event type's schema sanad registers.
func vocabularySchemas() map[string]string {
	out := map[string]string{}
	for _, v := range home.Vocabularies() {
		for _, d := range v.Types {
			out[d.Name] = d.Schema
		}
	}
	return out
}

// TestVocabulariesCompile: every event schema sanad ships is within the
// subset, so no event body takes the general validator's slow path unless it
// is invalid.
func TestVocabulariesCompile(t *testing.T) {
	for name, s := range vocabularySchemas() {
		if _, err := shape.Compile([]byte(s)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestAgreesOnVocabularies generates bodies from every event schema, most
// of them valid and then mutated, and requires shape and the reference
// validator to agree on each.
func TestAgreesOnVocabularies(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	var valid, invalid int
	for name, s := range vocabularySchemas() {
		fast, err := shape.Compile([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		ref := reference(t, s)
		doc := parse(t, s)
		for i := range 400 {
			g := &generator{rnd: rnd}
			v := g.value(doc, 0)
			if i%2 == 1 {
				v = g.mutate(v)
			}
			b, err := canon.AppendCanonical(nil, v)
			if err != nil {
				t.Fatal(err)
			}
			x := parse(t, string(b))
			want := ref.Validate(x) == nil
			if got := fast.Valid(x); got != want {
				t.Fatalf("%s: shape says %v, reference %v, for %s", name, got, want, b)
			}
			if got := fast.ValidCanonical(b); got != want {
				t.Fatalf("%s: shape says %v from canonical bytes, reference %v, for %s", name, got, want, b)
			}
			if want {
				valid++
			} else {
				invalid++
			}
		}
	}
	t.Logf("%d valid and %d invalid bodies", valid, invalid)
	if valid < (valid+invalid)/5 || invalid < (valid+invalid)/5 {
		t.Fatalf("the generator is lopsided: %d valid, %d invalid", valid, invalid)
	}
}

// FuzzAgrees checks arbitrary JSON against every event schema.
func FuzzAgrees(f *testing.F) {
	schemas := vocabularySchemas()
	names := make([]string, 0, len(schemas))
	for n := range schemas {
		names = append(names, n)
	}
	fast := make([]*shape.Validator, len(names))
	refs := make([]*jsonschema.Schema, len(names))
	for i, n := range names {
		fast[i], _ = shape.Compile([]byte(schemas[n]))
		refs[i] = reference(f, schemas[n])
	}
	f.Add(`{"a":1}`)
	f.Add(`{"run_id":"r1","status":"completed","outputs":[],"error":null}`)
	f.Add(`{"step_id":"n1","step_index":0,"checkpoint":{"stepIndex":0}}`)
	f.Fuzz(func(t *testing.T, body string) {
		b, err := canon.Transform([]byte(body))
		if err != nil {
			return
		}
		x, err := canon.Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		for i := range names {
			want := refs[i].Validate(x) == nil
			if got := fast[i].Valid(x); got != want {
				t.Fatalf("%s: shape says %v, reference %v, for %s", names[i], got, want, body)
			}
			if got := fast[i].ValidCanonical(b); got != want {
				t.Fatalf("%s: shape says %v from canonical bytes, reference %v, for %s", names[i], got, want, b)
			}
		}
	})
}

// generator makes JSON values from a schema: mostly valid, sometimes off by
// one bound or one member, so that both answers are exercised.
type generator struct{ rnd *rand.Rand }

func (g *generator) chance(n int) bool { return g.rnd.IntN(n) == 0 }

func (g *generator) value(schema any, depth int) any {
	s, ok := schema.(map[string]any)
	if !ok || depth > 6 {
		return g.scalar()
	}
	if e, ok := s["enum"].([]any); ok && !g.chance(10) {
		return e[g.rnd.IntN(len(e))]
	}
	if c, ok := s["const"]; ok && !g.chance(10) {
		return c
	}
	if a, ok := s["anyOf"].([]any); ok {
		return g.value(a[g.rnd.IntN(len(a))], depth+1)
	}
	typ := "object"
	switch t := s["type"].(type) {
	case string:
		typ = t
	case []any:
		typ = t[g.rnd.IntN(len(t))].(string)
	default:
		if _, ok := s["properties"]; !ok {
			return g.scalar()
		}
	}
	switch typ {
	case "null":
		return nil
	case "boolean":
		return g.chance(2)
	case "integer", "number":
		lo, hi := int64(-5), int64(1000)
		if m, ok := s["minimum"].(json.Number); ok {
			lo, _ = m.Int64()
		}
		if m, ok := s["maximum"].(json.Number); ok {
			hi, _ = m.Int64()
		}
		n := lo + g.rnd.Int64N(max(hi-lo, 0)+1)
		switch {
		case g.chance(8):
			n = lo - 1
		case g.chance(8):
			n = hi + 1
		}
		if typ == "number" && g.chance(3) {
			return json.Number(fmt.Sprintf("%d.5", n))
		}
		return json.Number(fmt.Sprint(n))
	case "string":
		return g.str(s)
	case "array":
		lo, hi := 0, 3
		if m, ok := s["minItems"].(json.Number); ok {
			v, _ := m.Int64()
			lo = int(v)
		}
		if m, ok := s["maxItems"].(json.Number); ok {
			v, _ := m.Int64()
			hi = min(int(v), lo+3)
		}
		n := lo + g.rnd.IntN(max(hi-lo, 0)+1)
		if g.chance(10) {
			n = hi + 1
		}
		out := make([]any, n)
		for i := range out {
			out[i] = g.value(s["items"], depth+1)
		}
		return out
	}
	out := map[string]any{}
	props, _ := s["properties"].(map[string]any)
	required := map[string]bool{}
	if r, ok := s["required"].([]any); ok {
		for _, k := range r {
			required[k.(string)] = true
		}
	}
	for k, p := range props {
		if required[k] || g.chance(2) {
			out[k] = g.value(p, depth+1)
		}
	}
	for k := range required {
		if _, ok := out[k]; !ok && !g.chance(20) {
			out[k] = g.scalar()
		}
	}
	if g.chance(12) {
		out["unexpected"] = g.scalar()
	}
	return out
}

func (g *generator) scalar() any {
	switch g.rnd.IntN(6) {
	case 0:
		return nil
	case 1:
		return g.chance(2)
	case 2:
		return json.Number(fmt.Sprint(g.rnd.IntN(100) - 10))
	case 3:
		return []any{}
	case 4:
		return map[string]any{}
	}
	return "x"
}

// str makes a string matching the schema's pattern when it has one, within
// its length bounds most of the time.
func (g *generator) str(s map[string]any) string {
	if p, ok := s["pattern"].(string); ok && !g.chance(10) {
		re, err := syntax.Parse(p, syntax.Perl)
		if err == nil {
			var b strings.Builder
			g.regexp(&b, re.Simplify())
			return b.String()
		}
	}
	lo, hi := 0, 12
	if m, ok := s["minLength"].(json.Number); ok {
		v, _ := m.Int64()
		lo = int(v)
	}
	if m, ok := s["maxLength"].(json.Number); ok {
		v, _ := m.Int64()
		hi = min(int(v), lo+12)
	}
	n := lo + g.rnd.IntN(max(hi-lo, 0)+1)
	if g.chance(8) {
		n = hi + 1
	}
	runes := []rune("abcXYZ09-_.é€😀 ")
	var b strings.Builder
	for range n {
		b.WriteRune(runes[g.rnd.IntN(len(runes))])
	}
	return b.String()
}

// regexp writes a string the regular expression matches.
func (g *generator) regexp(b *strings.Builder, re *syntax.Regexp) {
	switch re.Op {
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		if len(re.Rune) >= 2 {
			i := g.rnd.IntN(len(re.Rune)/2) * 2
			lo, hi := re.Rune[i], min(re.Rune[i+1], re.Rune[i]+60)
			b.WriteRune(lo + rune(g.rnd.IntN(int(hi-lo)+1)))
		}
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('a')
	case syntax.OpConcat:
		for _, s := range re.Sub {
			g.regexp(b, s)
		}
	case syntax.OpAlternate:
		g.regexp(b, re.Sub[g.rnd.IntN(len(re.Sub))])
	case syntax.OpCapture:
		g.regexp(b, re.Sub[0])
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := 0, 3
		switch re.Op {
		case syntax.OpPlus:
			lo = 1
		case syntax.OpQuest:
			hi = 1
		case syntax.OpRepeat:
			lo, hi = re.Min, re.Max
			if hi < 0 {
				hi = lo + 3
			}
		}
		for range lo + g.rnd.IntN(hi-lo+1) {
			g.regexp(b, re.Sub[0])
		}
	}
}

// mutate replaces one value somewhere in v with a scalar.
func (g *generator) mutate(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if len(x) > 0 && !g.chance(4) {
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			k := keys[g.rnd.IntN(len(keys))]
			x[k] = g.mutate(x[k])
			return x
		}
	case []any:
		if len(x) > 0 && !g.chance(4) {
			i := g.rnd.IntN(len(x))
			x[i] = g.mutate(x[i])
			return x
		}
	}
	return g.scalar()
}

// stepBody is a step.completed body as the workflow benchmark records it.
const stepBody = `{"agent":"bench-agent","checkpoint":{"completedStepId":"n9","phase":"run","state":"sha256:0f5c4a6e93b1b2d8a1a3bd5e1c1f5b6a7d9e0c2b4a6f8e0d2c4b6a8f0e2d4c6b","stepIndex":9},"output":{},"output_hash":"sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","step_id":"n9","step_index":9}`

// BenchmarkStepCompleted compares shape with the reference validator on a
// real body.
func BenchmarkStepCompleted(b *testing.B) {
	schema := vocabularySchemas()["step.completed"]
	fast, err := shape.Compile([]byte(schema))
	if err != nil {
		b.Fatal(err)
	}
	ref := reference(b, schema)
	v := parse(b, stepBody)
	b.Run("shape", func(b *testing.B) {
		for b.Loop() {
			if !fast.Valid(v) {
				b.Fatal("invalid")
			}
		}
	})
	b.Run("reference", func(b *testing.B) {
		for b.Loop() {
			if err := ref.Validate(v); err != nil {
				b.Fatal(err)
			}
		}
	})
	c := canonical(b, stepBody)
	b.Run("canonical", func(b *testing.B) {
		for b.Loop() {
			if !fast.ValidCanonical(c) {
				b.Fatal("invalid")
			}
		}
	})
	b.Run("parse", func(b *testing.B) {
		for b.Loop() {
			parse(b, stepBody)
		}
	})
}

func BenchmarkCanonicalize(b *testing.B) {
	raw := []byte(stepBody)
	b.Run("tree", func(b *testing.B) {
		for b.Loop() {
			v, _ := canon.Parse(raw)
			canon.AppendCanonical(nil, v)
		}
	})
	b.Run("transform", func(b *testing.B) {
		buf := make([]byte, 0, 2048)
		for b.Loop() {
			canon.AppendTransform(buf[:0], raw)
		}
	})
}

// TestSchema: a Schema accepts what the general validator accepts, with or
// without a fast form, and explains every rejection with its error.
func TestSchema(t *testing.T) {
	for _, raw := range []string{
		`{"type":"object","required":["id"],"properties":{"id":{"type":"string","pattern":"^C-[0-9]+$"}}}`,
		`{"type":"object","required":["id"],"properties":{"id":{"$ref":"#/$defs/id"}},"$defs":{"id":{"type":"string","pattern":"^C-[0-9]+$"}}}`,
	} {
		s, err := shape.NewSchema([]byte(raw), reference(t, raw))
		if err != nil {
			t.Fatal(err)
		}
		for body, valid := range map[string]bool{`{"id":"C-1"}`: true, `{"id":"D-1"}`: false, `{}`: false, `{"id":"C-1","x":[1,{}]}`: true} {
			err := s.Validate(parse(t, body))
			errC := s.ValidateCanonical(canonical(t, body))
			if (err == nil) != valid || (errC == nil) != valid {
				t.Errorf("%s: %s: Validate %v, ValidateCanonical %v, want valid %v", raw, body, err, errC, valid)
			}
			if !valid && !strings.HasPrefix(shape.Explain(err), "at /") {
				t.Errorf("%s: %s: Explain = %q", raw, body, shape.Explain(err))
			}
		}
	}
}

// FuzzValidCanonicalAnyInput: ValidCanonical answers any bytes without
// panicking, and on canonical JSON answers as Valid does on its tree.
func FuzzValidCanonicalAnyInput(f *testing.F) {
	schemas := vocabularySchemas()
	fast := make([]*shape.Validator, 0, len(schemas))
	for _, s := range schemas {
		v, err := shape.Compile([]byte(s))
		if err != nil {
			f.Fatal(err)
		}
		fast = append(fast, v)
	}
	f.Add([]byte(stepBody))
	f.Add([]byte(`{"a":[1,{"b":"\u00e9"}],"c":-1.5e3}`))
	f.Add([]byte(`{"a":1,`))
	f.Add([]byte(`{"a""b"}`))
	f.Add([]byte(`[[[[[[`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := canon.Transform(b)
		isCanonical := err == nil && bytes.Equal(c, b)
		var tree any
		if isCanonical {
			tree, _ = canon.Parse(b)
		}
		for _, v := range fast {
			got := v.ValidCanonical(b)
			if isCanonical && got != v.Valid(tree) {
				t.Fatalf("ValidCanonical(%q) = %v, Valid on its tree %v", b, got, !got)
			}
		}
	})
}
