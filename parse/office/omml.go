package office

import (
	"encoding/xml"
	"strings"
)

// node is a small element tree, built for an equation (m:oMath), which is
// converted as a whole.
type node struct {
	local string
	attrs []xml.Attr
	kids  []*node
	text  string // character data of m:t / w:t
}

// maxMathNodes bounds one equation's tree.
const maxMathNodes = 20000

// readTree reads the element whose start tag was just read into a tree.
func readTree(x *xr, se xml.StartElement, budget *int) (*node, error) {
	n := &node{local: se.Name.Local, attrs: se.Attr}
	err := x.children(func(c xml.StartElement) error {
		if *budget <= 0 {
			return x.skip()
		}
		*budget--
		k, err := readTree(x, c, budget)
		if err == nil {
			n.kids = append(n.kids, k)
		}
		return err
	}, func(s string) {
		if (n.local == "t") && len(n.text) < 1<<16 {
			n.text += s
		}
	})
	return n, err
}

func (n *node) attr(local string) string {
	for _, a := range n.attrs {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// child returns the first child with the local name.
func (n *node) child(local string) *node {
	for _, k := range n.kids {
		if k.local == local {
			return k
		}
	}
	return nil
}

// prop returns the val of a property element (m:chr, m:begChr) inside the
// node's properties element.
func (n *node) prop(pr, local string) (string, bool) {
	if p := n.child(pr); p != nil {
		if c := p.child(local); c != nil {
			return c.attr("val"), true
		}
	}
	return "", false
}

// latex renders an OMML equation (an m:oMath tree) as LaTeX, the way
// docling writes equations: a\sum_{n=1}^{\infty}, \frac{a}{b}, \sqrt{x}.
func latex(n *node) string {
	var b strings.Builder
	writeMath(&b, n, 0)
	return strings.TrimSpace(collapseSpaces(b.String()))
}

func collapseSpaces(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func group(n *node, depth int) string {
	var b strings.Builder
	if n != nil {
		writeMath(&b, n, depth+1)
	}
	return strings.TrimSpace(b.String())
}

func writeMath(b *strings.Builder, n *node, depth int) {
	if depth > 200 {
		return
	}
	switch n.local {
	case "t":
		b.WriteString(mathText(n.text))
		return
	case "r":
		for _, k := range n.kids {
			if k.local == "t" {
				writeMath(b, k, depth+1)
			}
		}
		return
	case "f":
		num, den := group(n.child("num"), depth), group(n.child("den"), depth)
		if t, _ := n.prop("fPr", "type"); t == "lin" {
			b.WriteString(num + "/" + den)
			return
		}
		b.WriteString(`\frac{` + num + "}{" + den + "}")
		return
	case "sSup":
		b.WriteString(base(n.child("e"), depth) + "^{" + group(n.child("sup"), depth) + "}")
		return
	case "sSub":
		b.WriteString(base(n.child("e"), depth) + "_{" + group(n.child("sub"), depth) + "}")
		return
	case "sSubSup":
		b.WriteString(base(n.child("e"), depth) + "_{" + group(n.child("sub"), depth) + "}^{" + group(n.child("sup"), depth) + "}")
		return
	case "sPre":
		b.WriteString("{}_{" + group(n.child("sub"), depth) + "}^{" + group(n.child("sup"), depth) + "}" + group(n.child("e"), depth))
		return
	case "rad":
		e := group(n.child("e"), depth)
		deg := group(n.child("deg"), depth)
		if hide, _ := n.prop("radPr", "degHide"); deg == "" || hide == "1" || hide == "on" || hide == "true" {
			b.WriteString(`\sqrt{` + e + "}")
		} else {
			b.WriteString(`\sqrt[` + deg + "]{" + e + "}")
		}
		return
	case "nary":
		chr, ok := n.prop("naryPr", "chr")
		if !ok {
			chr = "∫"
		}
		op := naryOps[chr]
		if op == "" {
			op = mathText(chr)
		}
		b.WriteString(op + "_{" + group(n.child("sub"), depth) + "}^{" + group(n.child("sup"), depth) + "}" + group(n.child("e"), depth))
		return
	case "d":
		beg, ok := n.prop("dPr", "begChr")
		if !ok {
			beg = "("
		}
		end, ok := n.prop("dPr", "endChr")
		if !ok {
			end = ")"
		}
		sep, ok := n.prop("dPr", "sepChr")
		if !ok {
			sep = "|"
		}
		var parts []string
		for _, k := range n.kids {
			if k.local == "e" {
				parts = append(parts, group(k, depth))
			}
		}
		b.WriteString(`\left` + delim(beg) + strings.Join(parts, delim(sep)) + `\right` + delim(end))
		return
	case "func":
		fName := n.child("fName")
		name := strings.TrimSpace(group(fName, depth))
		if fn, ok := mathFuncs[name]; ok {
			name = fn
		} else if isWord(name) && len(name) > 1 {
			name = `\operatorname{` + name + "}"
		}
		if fName != nil && fName.child("limLow") != nil {
			// \lim_{n}{…}: the limit's argument is a group, not a call.
			b.WriteString(name + "{" + group(n.child("e"), depth) + "}")
			return
		}
		b.WriteString(name + "(" + group(n.child("e"), depth) + ")")
		return
	case "limLow":
		e := group(n.child("e"), depth)
		if fn, ok := mathFuncs[e]; ok {
			e = fn
		} else if isWord(e) && len(e) > 1 {
			e = `\operatorname{` + e + "}"
		}
		b.WriteString(e + "_{" + group(n.child("lim"), depth) + "}")
		return
	case "limUpp":
		b.WriteString(group(n.child("e"), depth) + "^{" + group(n.child("lim"), depth) + "}")
		return
	case "groupChr":
		chr, _ := n.prop("groupChrPr", "chr")
		pos, _ := n.prop("groupChrPr", "pos")
		cmd := `\underbrace`
		if chr == "⏞" || pos == "top" {
			cmd = `\overbrace`
		}
		b.WriteString(cmd + "{" + group(n.child("e"), depth) + "}")
		return
	case "acc":
		chr, ok := n.prop("accPr", "chr")
		if !ok {
			chr = "\u0302"
		}
		cmd := accents[chr]
		if cmd == "" {
			cmd = `\hat`
		}
		b.WriteString(cmd + "{" + group(n.child("e"), depth) + "}")
		return
	case "bar":
		cmd := `\underline`
		if pos, _ := n.prop("barPr", "pos"); pos == "top" {
			cmd = `\overline`
		}
		b.WriteString(cmd + "{" + group(n.child("e"), depth) + "}")
		return
	case "eqArr":
		var rows []string
		for _, k := range n.kids {
			if k.local == "e" {
				rows = append(rows, group(k, depth))
			}
		}
		if len(rows) == 1 {
			b.WriteString(rows[0])
			return
		}
		b.WriteString(`\begin{array}{c}` + strings.Join(rows, `\\`) + `\end{array}`)
		return
	case "m":
		var rows []string
		for _, mr := range n.kids {
			if mr.local != "mr" {
				continue
			}
			var cells []string
			for _, k := range mr.kids {
				if k.local == "e" {
					cells = append(cells, group(k, depth))
				}
			}
			rows = append(rows, strings.Join(cells, "&"))
		}
		b.WriteString(`\begin{matrix}` + strings.Join(rows, `\\`) + `\end{matrix}`)
		return
	}
	if strings.HasSuffix(n.local, "Pr") {
		return // properties: m:rPr, m:ctrlPr, w:rPr
	}
	for _, k := range n.kids {
		writeMath(b, k, depth+1)
	}
}

// base renders the base of a script, braced when it is more than a
// symbol so that ^2 applies to all of it.
func base(n *node, depth int) string {
	s := group(n, depth)
	if n != nil && len(n.kids) == 1 && n.kids[0].local == "f" {
		return "{" + s + "}"
	}
	return s
}

func delim(s string) string {
	switch s {
	case "":
		return "."
	case "{":
		return `\{`
	case "}":
		return `\}`
	case "〈", "⟨":
		return `\langle`
	case "〉", "⟩":
		return `\rangle`
	case "‖":
		return `\|`
	case "⌊":
		return `\lfloor`
	case "⌋":
		return `\rfloor`
	case "⌈":
		return `\lceil`
	case "⌉":
		return `\rceil`
	}
	return s
}

var naryOps = map[string]string{
	"∑": `\sum`, "∏": `\prod`, "∐": `\coprod`, "∫": `\int`, "∬": `\iint`, "∭": `\iiint`,
	"∮": `\oint`, "∯": `\oiint`, "∰": `\oiiint`, "⋃": `\bigcup`, "⋂": `\bigcap`,
	"⋀": `\bigwedge`, "⋁": `\bigvee`, "⨁": `\bigoplus`, "⨂": `\bigotimes`,
}

var mathFuncs = map[string]string{
	"sin": `\sin`, "cos": `\cos`, "tan": `\tan`, "cot": `\cot`, "sec": `\sec`, "csc": `\csc`,
	"arcsin": `\arcsin`, "arccos": `\arccos`, "arctan": `\arctan`, "sinh": `\sinh`, "cosh": `\cosh`,
	"tanh": `\tanh`, "log": `\log`, "ln": `\ln`, "lg": `\lg`, "exp": `\exp`, "lim": `\lim`,
	"max": `\max`, "min": `\min`, "sup": `\sup`, "inf": `\inf`, "det": `\det`, "deg": `\deg`,
	"gcd": `\gcd`, "arg": `\arg`, "dim": `\dim`, "ker": `\ker`,
}

var accents = map[string]string{
	"\u0302": `\hat`, "\u0303": `\tilde`, "\u0304": `\bar`, "\u0305": `\overline`, "\u0307": `\dot`,
	"\u0308": `\ddot`, "\u20D7": `\vec`, "\u0301": `\acute`, "\u0300": `\grave`, "\u030C": `\check`,
	"\u0306": `\breve`,
}

// mathSymbols maps characters of math runs to LaTeX commands.
var mathSymbols = map[rune]string{
	'α': `\alpha`, 'β': `\beta`, 'γ': `\gamma`, 'δ': `\delta`, 'ε': `\epsilon`, 'ϵ': `\epsilon`, 'ζ': `\zeta`,
	'η': `\eta`, 'θ': `\theta`, 'ι': `\iota`, 'κ': `\kappa`, 'λ': `\lambda`, 'μ': `\mu`, 'ν': `\nu`,
	'ξ': `\xi`, 'π': `\pi`, 'ρ': `\rho`, 'σ': `\sigma`, 'τ': `\tau`, 'υ': `\upsilon`, 'φ': `\phi`,
	'χ': `\chi`, 'ψ': `\psi`, 'ω': `\omega`, 'Γ': `\Gamma`, 'Δ': `\Delta`, 'Θ': `\Theta`, 'Λ': `\Lambda`,
	'Ξ': `\Xi`, 'Π': `\Pi`, 'Σ': `\Sigma`, 'Φ': `\Phi`, 'Ψ': `\Psi`, 'Ω': `\Omega`,
	'∞': `\infty`, '±': `\pm`, '∓': `\mp`, '×': `\times`, '÷': `\div`, '·': `\cdot`, '⋅': `\cdot`,
	'≤': `\leq`, '≥': `\geq`, '≠': `\neq`, '≈': `\approx`, '≡': `\equiv`, '∝': `\propto`,
	'∈': `\in`, '∉': `\notin`, '⊂': `\subset`, '⊆': `\subseteq`, '⊃': `\supset`, '∪': `\cup`, '∩': `\cap`,
	'∀': `\forall`, '∃': `\exists`, '∂': `\partial`, '∇': `\nabla`, '→': `\rightarrow`, '←': `\leftarrow`,
	'⇒': `\Rightarrow`, '⇔': `\Leftrightarrow`, '…': `\ldots`, '⋯': `\cdots`, '°': `^{\circ}`,
	'−': "-", '–': "-", '∗': "*", '√': `\sqrt`, '∑': `\sum`, '∏': `\prod`, '∫': `\int`,
}

func mathText(s string) string {
	var b strings.Builder
	for _, r := range s {
		if c, ok := mathSymbols[r]; ok {
			b.WriteString(" " + c + " ")
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isWord(s string) bool {
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') {
			return false
		}
	}
	return s != ""
}
