package calc

import (
	"math"
	"strconv"
	"strings"

	"github.com/sanadhq/sanad"
)

// Expr is a parsed arithmetic derivation as TAT-QA writes them:
// "(206588-181001)/181001", "[(4,411+4,044)/2] - [(4,044+3,316)/2]",
// "($1,750-$1,250)/$1,250", "(1-15%)*($2.2/15%)", "60.3 million + 32,137
// thousand". Numbers may have thousands separators, a "$" before them, a "%"
// after them (divides by 100) and a scale word (thousand, million, billion).
// Brackets and parentheses group; + - * / have their usual precedence.
type Expr struct {
	root   *node
	scaled bool // some number carries a scale word
}

type node struct {
	op   byte // 'n' number, '~' negation, or one of + - * /
	num  float64
	pct  bool // a number written with "%"
	l, r *node
}

var scaleWords = map[string]float64{"thousand": 1e3, "million": 1e6, "billion": 1e9}

// ParseExpr parses a derivation. Text longer than [MaxTextBytes], nesting
// deeper than [MaxDepth] and anything that is not arithmetic are
// INVALID_INPUT.
func ParseExpr(s string) (*Expr, error) {
	const op = "calc.ParseExpr"
	if len(s) > MaxTextBytes {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "derivation is %d bytes, longer than %d", len(s), MaxTextBytes)
	}
	p := &exprParser{s: s}
	root, err := p.sum(0)
	if err == nil {
		p.space()
		if p.i < len(p.s) {
			err = p.fail("unexpected " + strconv.Quote(p.s[p.i:p.i+1]))
		}
	}
	if err != nil {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "%s", err.Error())
	}
	return &Expr{root: root, scaled: p.scaled}, nil
}

type exprParser struct {
	s      string
	i      int
	scaled bool
}

func (p *exprParser) fail(msg string) error {
	return argError("at byte " + strconv.Itoa(p.i) + ": " + msg)
}

// space skips white space and "$", which only marks a currency.
func (p *exprParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '$') {
		p.i++
	}
}

func (p *exprParser) peek() byte {
	p.space()
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *exprParser) sum(depth int) (*node, error) {
	l, err := p.product(depth)
	if err != nil {
		return nil, err
	}
	for c := p.peek(); c == '+' || c == '-'; c = p.peek() {
		p.i++
		r, err := p.product(depth)
		if err != nil {
			return nil, err
		}
		l = &node{op: c, l: l, r: r}
	}
	return l, nil
}

func (p *exprParser) product(depth int) (*node, error) {
	l, err := p.unary(depth)
	if err != nil {
		return nil, err
	}
	for c := p.peek(); c == '*' || c == '/'; c = p.peek() {
		p.i++
		r, err := p.unary(depth)
		if err != nil {
			return nil, err
		}
		l = &node{op: c, l: l, r: r}
	}
	return l, nil
}

func (p *exprParser) unary(depth int) (*node, error) {
	if depth >= MaxDepth {
		return nil, p.fail("nested deeper than " + strconv.Itoa(MaxDepth))
	}
	switch c := p.peek(); c {
	case '-', '+':
		p.i++
		x, err := p.unary(depth + 1)
		if err != nil || c == '+' {
			return x, err
		}
		return &node{op: '~', l: x}, nil
	case '(', '[':
		p.i++
		x, err := p.sum(depth + 1)
		if err != nil {
			return nil, err
		}
		want := byte(')')
		if c == '[' {
			want = ']'
		}
		if p.peek() != want {
			return nil, p.fail("expected " + string(want))
		}
		p.i++
		return x, nil
	case 0:
		return nil, p.fail("unexpected end")
	}
	return p.number()
}

// number reads digits with optional thousands separators (a comma followed
// by exactly three digits), a decimal part, "%" and a scale word.
func (p *exprParser) number() (*node, error) {
	start := p.i
	var b strings.Builder
	digits := 0
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c >= '0' && c <= '9':
			b.WriteByte(c)
			digits++
			p.i++
			continue
		case c == ',' && digits > 0 && threeDigits(p.s[p.i+1:]) && !strings.Contains(b.String(), "."):
			p.i++
			continue
		case c == '.' && !strings.Contains(b.String(), "."):
			b.WriteByte(c)
			p.i++
			continue
		}
		break
	}
	if digits == 0 {
		p.i = start
		return nil, p.fail("expected a number")
	}
	v, err := strconv.ParseFloat(b.String(), 64)
	if err != nil || math.IsInf(v, 0) {
		p.i = start
		return nil, p.fail("bad number")
	}
	n := &node{op: 'n', num: v}
	if p.peek() == '%' {
		p.i++
		n.pct = true
		n.num /= 100
	}
	p.space()
	if w := p.word(); w != "" {
		f, ok := scaleWords[strings.ToLower(w)]
		if !ok {
			return nil, p.fail("word " + strconv.Quote(w) + " is not arithmetic")
		}
		p.i += len(w)
		n.num *= f
		p.scaled = true
	}
	return n, nil
}

// threeDigits reports whether s starts with exactly three digits.
func threeDigits(s string) bool {
	if len(s) < 3 {
		return false
	}
	for i := range 3 {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return len(s) == 3 || s[3] < '0' || s[3] > '9'
}

func (p *exprParser) word() string {
	j := p.i
	for j < len(p.s) && (p.s[j]|0x20 >= 'a' && p.s[j]|0x20 <= 'z') {
		j++
	}
	return p.s[p.i:j]
}

// Eval returns the value of the derivation as written. A division by zero
// or a result that is not finite is INVALID_INPUT.
func (e *Expr) Eval() (float64, error) {
	const op = "calc.Expr.Eval"
	if e == nil || e.root == nil {
		return 0, sanad.Errorf(sanad.CodeInvalidInput, op, "empty derivation")
	}
	v, err := eval(e.root)
	if err != nil {
		return 0, sanad.Errorf(sanad.CodeInvalidInput, op, "%s", err.Error())
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, sanad.Errorf(sanad.CodeInvalidInput, op, "the derivation gives a number that is not finite")
	}
	return v, nil
}

func eval(n *node) (float64, error) {
	switch n.op {
	case 'n':
		return n.num, nil
	case '~':
		v, err := eval(n.l)
		return -v, err
	}
	a, err := eval(n.l)
	if err != nil {
		return 0, err
	}
	b, err := eval(n.r)
	if err != nil {
		return 0, err
	}
	switch n.op {
	case '+':
		return a + b, nil
	case '-':
		return a - b, nil
	case '*':
		return a * b, nil
	}
	if b == 0 {
		return 0, argError("division by zero")
	}
	return a / b, nil
}

// ValueIn returns the derivation's value in the scale of its answer, as
// TAT-QA's scale field names it: "", "thousand", "million", "billion" or
// "percent".
//
// When numbers carry scale words, the value is in units and is divided by
// the answer's scale. For "percent", a derivation that yields a fraction is
// multiplied by 100; one already in percent is not. A derivation yields a
// fraction when [Expr.Fraction] says so.
func (e *Expr) ValueIn(scale string) (float64, error) {
	const op = "calc.Expr.ValueIn"
	v, err := e.Eval()
	if err != nil {
		return 0, err
	}
	switch scale {
	case "", "percent":
	default:
		f, ok := scaleWords[scale]
		if !ok {
			return 0, sanad.Errorf(sanad.CodeInvalidInput, op, "unknown scale %q", scale)
		}
		if e.scaled {
			v /= f
		}
		return v, nil
	}
	if scale == "percent" && e.Fraction() {
		v *= 100
	}
	if math.IsInf(v, 0) {
		return 0, sanad.Errorf(sanad.CodeInvalidInput, op, "the derivation in percent is not a finite number")
	}
	return v, nil
}

// Fraction reports whether the derivation yields a fraction (0.25 for 25%)
// rather than a quantity in the units of its numbers. Dimensions follow the
// operations: a number written with "%" is a fraction; a quotient is a
// fraction unless its divisor is a small whole count written without "%"
// that does not appear in the numerator (dividing by 2 or 3 averages and
// keeps the units of the numerator, but (17-8)/8 is a relative change); a
// product with 100 turns a fraction into percent; sums and differences are
// fractions if either side is.
func (e *Expr) Fraction() bool {
	if e == nil || e.root == nil {
		return false
	}
	return fraction(e.root)
}

func fraction(n *node) bool {
	switch n.op {
	case 'n':
		return n.pct
	case '~':
		return fraction(n.l)
	case '/':
		if count(n.r) && !mentions(n.l, n.r) {
			return fraction(n.l)
		}
		return true
	case '*':
		if hundred(n.l) || hundred(n.r) {
			return false
		}
		return fraction(n.l) != fraction(n.r)
	}
	return fraction(n.l) || fraction(n.r)
}

// count reports whether n is a whole number from 1 to 12 written without
// "%", or a sum or difference of whole numbers that comes to one (2019 -
// 2017 + 1).
func count(n *node) bool {
	v, err := eval(n)
	if err != nil || v != math.Trunc(v) || v < 1 || v > 12 {
		return false
	}
	return !anyPct(n)
}

// mentions reports whether a number in n has the value of d.
func mentions(n, d *node) bool {
	v, err := eval(d)
	if err != nil {
		return false
	}
	var walk func(*node) bool
	walk = func(x *node) bool {
		if x == nil {
			return false
		}
		return (x.op == 'n' && x.num == v) || walk(x.l) || walk(x.r)
	}
	return walk(n)
}

func anyPct(n *node) bool {
	if n == nil {
		return false
	}
	return n.pct || anyPct(n.l) || anyPct(n.r)
}

func hundred(n *node) bool { return n.op == 'n' && !n.pct && n.num == 100 }
