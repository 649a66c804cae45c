package calc

import (
	"math"
	"strconv"
	"strings"

	"github.com/sanadhq/sanad"
)

// Bounds of the texts [ParseProgram] and [ParseExpr] accept.
const (
	MaxTextBytes = 4096 // longest program or derivation
	MaxSteps     = 64   // most steps in a program
	MaxDepth     = 64   // deepest nesting of brackets and signs in a derivation
)

// Program is a FinQA program: steps such as "subtract(206588, 181001)",
// separated by commas, where an argument "#n" is the result of step n. A
// program that is one number (ConvFinQA writes "60.94") has one step whose Op
// is "number".
type Program struct {
	Steps []Step
}

// Step is one operation of a [Program].
type Step struct {
	Op   string
	Args []Arg
}

// Arg is an argument of a [Step]: a number (Num), a reference to an earlier
// step (Ref >= 0) or, for table operations, a row name (Row).
type Arg struct {
	Num float64
	Ref int
	Row string
}

// Value is what a program computes: a number, or a yes/no answer for
// "greater".
type Value struct {
	Num    float64
	IsBool bool
	Bool   bool
}

// Table holds the rows a program's table operations read, by row name: each
// row is its numeric cells, in column order.
type Table map[string][]float64

var programOps = map[string]int{
	"add": 2, "subtract": 2, "multiply": 2, "divide": 2, "exp": 2, "greater": 2,
	"table_sum": 2, "table_average": 2, "table_max": 2, "table_min": 2,
}

func isTableOp(op string) bool { return strings.HasPrefix(op, "table_") }

// ParseProgram parses a FinQA program. It refuses, with INVALID_INPUT, text
// longer than [MaxTextBytes], more than [MaxSteps] steps, unknown operations,
// a wrong number of arguments and references to a step that does not come
// before.
func ParseProgram(s string) (*Program, error) {
	const op = "calc.ParseProgram"
	if len(s) > MaxTextBytes {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "program is %d bytes, longer than %d", len(s), MaxTextBytes)
	}
	t := strings.TrimSpace(s)
	if t == "" {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "empty program")
	}
	if !strings.Contains(t, "(") {
		n, ok := parseNumber(t)
		if !ok {
			return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "%q is neither a number nor a program", t)
		}
		return &Program{Steps: []Step{{Op: "number", Args: []Arg{{Num: n, Ref: -1}}}}}, nil
	}
	p := &Program{}
	for t != "" {
		if len(p.Steps) == MaxSteps {
			return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "program has more than %d steps", MaxSteps)
		}
		open := strings.IndexByte(t, '(')
		if open < 0 {
			return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "step %d: %q has no arguments", len(p.Steps), t)
		}
		name := strings.TrimSpace(t[:open])
		want, known := programOps[name]
		if !known {
			return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "step %d: unknown operation %q", len(p.Steps), name)
		}
		// Find the closing parenthesis; row names may hold balanced ones.
		depth, end := 0, -1
		for i := open; i < len(t) && end < 0; i++ {
			switch t[i] {
			case '(':
				depth++
			case ')':
				depth--
				if depth == 0 {
					end = i
				}
			}
		}
		if end < 0 {
			return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "step %d: unbalanced parentheses", len(p.Steps))
		}
		raw := splitArgs(t[open+1 : end])
		if isTableOp(name) && len(raw) > want {
			// A row name with commas in it: all but the last argument.
			raw = []string{strings.Join(raw[:len(raw)-1], ","), raw[len(raw)-1]}
		}
		if len(raw) != want {
			return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "step %d: %s takes %d arguments, got %d", len(p.Steps), name, want, len(raw))
		}
		st := Step{Op: name}
		for i, a := range raw {
			arg, err := parseArg(name, i, strings.TrimSpace(a), len(p.Steps))
			if err != nil {
				return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "step %d: %s", len(p.Steps), err.Error())
			}
			st.Args = append(st.Args, arg)
		}
		p.Steps = append(p.Steps, st)
		t = strings.TrimSpace(t[end+1:])
		if t == "" {
			break
		}
		if t[0] != ',' {
			return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "step %d: expected a comma before %q", len(p.Steps), t)
		}
		t = strings.TrimSpace(t[1:])
		if t == "" {
			return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "program ends with a comma")
		}
	}
	return p, nil
}

// splitArgs splits s at commas outside parentheses.
func splitArgs(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

type argError string

func (e argError) Error() string { return string(e) }

func parseArg(opName string, i int, a string, step int) (Arg, error) {
	if isTableOp(opName) {
		if i == 0 {
			if a == "" {
				return Arg{}, argError("empty row name")
			}
			return Arg{Row: a, Ref: -1}, nil
		}
		if a != "none" {
			return Arg{}, argError("the second argument of " + opName + " must be none, got " + strconv.Quote(a))
		}
		return Arg{Ref: -1}, nil
	}
	switch {
	case strings.HasPrefix(a, "#"):
		n, err := strconv.Atoi(a[1:])
		if err != nil || n < 0 || a[1] == '+' || a[1] == '-' {
			return Arg{}, argError("bad reference " + strconv.Quote(a))
		}
		if n >= step {
			return Arg{}, argError("reference " + a + " is not to an earlier step")
		}
		return Arg{Ref: n}, nil
	case strings.HasPrefix(a, "const_"):
		c := a[len("const_"):]
		neg := false
		if strings.HasPrefix(c, "m") {
			neg, c = true, c[1:]
		}
		n, ok := parseNumber(c)
		if !ok || strings.ContainsAny(c, "%-") {
			return Arg{}, argError("bad constant " + strconv.Quote(a))
		}
		if neg {
			n = -n
		}
		return Arg{Num: n, Ref: -1}, nil
	}
	n, ok := parseNumber(a)
	if !ok {
		return Arg{}, argError("argument " + strconv.Quote(a) + " is not a number, reference or constant")
	}
	return Arg{Num: n, Ref: -1}, nil
}

// parseNumber reads an optionally signed decimal number without exponent,
// with an optional "%" that divides it by 100.
func parseNumber(s string) (float64, bool) {
	pct := strings.HasSuffix(s, "%")
	if pct {
		s = strings.TrimSpace(s[:len(s)-1])
	}
	body := strings.TrimPrefix(s, "-")
	digits, dots := 0, 0
	for i := 0; i < len(body); i++ {
		switch c := body[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.':
			dots++
		default:
			return 0, false
		}
	}
	if digits == 0 || dots > 1 {
		return 0, false
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(n, 0) {
		return 0, false
	}
	if pct {
		n /= 100
	}
	return n, true
}

// Eval runs the program and returns the value of its last step. Table
// operations read rows of t (t may be nil when there are none). A division by
// zero, a result that is not finite, a yes/no result used as a number and a
// row t lacks are INVALID_INPUT.
func (p *Program) Eval(t Table) (Value, error) {
	const op = "calc.Program.Eval"
	if p == nil || len(p.Steps) == 0 {
		return Value{}, sanad.Errorf(sanad.CodeInvalidInput, op, "empty program")
	}
	res := make([]Value, 0, len(p.Steps))
	for i, st := range p.Steps {
		arg := func(j int) (float64, error) {
			if j >= len(st.Args) {
				return 0, sanad.Errorf(sanad.CodeInvalidInput, op, "step %d: %s lacks argument %d", i, st.Op, j)
			}
			a := st.Args[j]
			if a.Ref < 0 {
				return a.Num, nil
			}
			if a.Ref >= len(res) {
				return 0, sanad.Errorf(sanad.CodeInvalidInput, op, "step %d: #%d is not an earlier step", i, a.Ref)
			}
			if res[a.Ref].IsBool {
				return 0, sanad.Errorf(sanad.CodeInvalidInput, op, "step %d: #%d is a yes/no answer, not a number", i, a.Ref)
			}
			return res[a.Ref].Num, nil
		}
		var v Value
		if isTableOp(st.Op) {
			if len(st.Args) == 0 {
				return Value{}, sanad.Errorf(sanad.CodeInvalidInput, op, "step %d: %s lacks its row", i, st.Op)
			}
			row, ok := t.row(st.Args[0].Row)
			if !ok || len(row) == 0 {
				return Value{}, sanad.Errorf(sanad.CodeInvalidInput, op, "step %d: the table has no row %q with numbers", i, st.Args[0].Row)
			}
			v.Num = aggregate(st.Op, row)
		} else if st.Op == "number" {
			a, err := arg(0)
			if err != nil {
				return Value{}, err
			}
			v.Num = a
		} else {
			a, err := arg(0)
			if err != nil {
				return Value{}, err
			}
			b, err := arg(1)
			if err != nil {
				return Value{}, err
			}
			switch st.Op {
			case "add":
				v.Num = a + b
			case "subtract":
				v.Num = a - b
			case "multiply":
				v.Num = a * b
			case "divide":
				if b == 0 {
					return Value{}, sanad.Errorf(sanad.CodeInvalidInput, op, "step %d: division by zero", i)
				}
				v.Num = a / b
			case "exp":
				v.Num = math.Pow(a, b)
			case "greater":
				v = Value{IsBool: true, Bool: a > b}
			default:
				return Value{}, sanad.Errorf(sanad.CodeInvalidInput, op, "step %d: unknown operation %q", i, st.Op)
			}
		}
		if !v.IsBool && (math.IsNaN(v.Num) || math.IsInf(v.Num, 0)) {
			return Value{}, sanad.Errorf(sanad.CodeInvalidInput, op, "step %d: %s gives a number that is not finite", i, st.Op)
		}
		res = append(res, v)
	}
	return res[len(res)-1], nil
}

func (t Table) row(name string) ([]float64, bool) {
	if r, ok := t[name]; ok {
		return r, true
	}
	// Otherwise a match ignoring case and surrounding space, if it is the
	// only one.
	want := strings.ToLower(strings.TrimSpace(name))
	var found []float64
	n := 0
	for k, r := range t {
		if strings.ToLower(strings.TrimSpace(k)) == want {
			found, n = r, n+1
		}
	}
	return found, n == 1
}

func aggregate(op string, row []float64) float64 {
	switch op {
	case "table_sum", "table_average":
		s := 0.0
		for _, x := range row {
			s += x
		}
		if op == "table_average" {
			s /= float64(len(row))
		}
		return s
	case "table_max":
		m := row[0]
		for _, x := range row[1:] {
			m = math.Max(m, x)
		}
		return m
	default: // table_min
		m := row[0]
		for _, x := range row[1:] {
			m = math.Min(m, x)
		}
		return m
	}
}
