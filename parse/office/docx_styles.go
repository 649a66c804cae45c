package office

import (
	"encoding/xml"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// wstyle is one style of styles.xml, as far as reading needs it.
type wstyle struct {
	id, name, basedOn, typ string
	outline                int // w:outlineLvl + 1 (1..9 heading, 10 body); 0 unset
	numID, ilvl            int
	hasNum, hasIlvl        bool
	font                   string // w:rFonts ascii (or hAnsi), lower case
}

type styles struct {
	byID         map[string]*wstyle
	defaultPara  string // id of the default paragraph style
	defaultFont  string // docDefaults font (not evidence of code)
	maxChainHops int
}

func readStyles(x *xr) (*styles, error) {
	st := &styles{byID: map[string]*wstyle{}, maxChainHops: 10}
	return st, x.children(func(se xml.StartElement) error {
		if se.Name.Local != "style" {
			return x.skip()
		}
		s := &wstyle{id: attr(se, "styleId"), typ: attr(se, "type")}
		if onOffAttr(se, "default") && s.typ == "paragraph" {
			st.defaultPara = s.id
		}
		err := x.children(func(c xml.StartElement) error {
			switch c.Name.Local {
			case "name":
				s.name = attr(c, "val")
			case "basedOn":
				s.basedOn = attr(c, "val")
			case "pPr":
				return x.children(func(pp xml.StartElement) error {
					switch pp.Name.Local {
					case "outlineLvl":
						s.outline = attrInt(pp, "val", -1) + 1
					case "numPr":
						return readNumPr(x, &s.numID, &s.ilvl, &s.hasNum, &s.hasIlvl)
					}
					return x.skip()
				}, nil)
			case "rPr":
				return x.children(func(rp xml.StartElement) error {
					if rp.Name.Local == "rFonts" {
						s.font = runFont(rp)
					}
					return x.skip()
				}, nil)
			}
			return x.skip()
		}, nil)
		if s.id != "" {
			if _, dup := st.byID[s.id]; !dup {
				st.byID[s.id] = s
			}
		}
		return err
	}, nil)
}

func onOffAttr(se xml.StartElement, local string) bool {
	switch strings.ToLower(attr(se, local)) {
	case "1", "true", "on":
		return true
	}
	return false
}

// runFont returns the font an rFonts element names for Latin text.
func runFont(se xml.StartElement) string {
	f := attr(se, "ascii")
	if f == "" {
		f = attr(se, "hAnsi")
	}
	return strings.ToLower(strings.TrimSpace(f))
}

func readNumPr(x *xr, numID, ilvl *int, hasNum, hasIlvl *bool) error {
	return x.children(func(se xml.StartElement) error {
		switch se.Name.Local {
		case "numId":
			*numID = attrInt(se, "val", 0)
			*hasNum = true
		case "ilvl":
			*ilvl = attrInt(se, "val", 0)
			*hasIlvl = true
		}
		return x.skip()
	}, nil)
}

// chain returns the style and its basedOn ancestors, nearest first,
// bounded against cycles.
func (st *styles) chain(id string) []*wstyle {
	if st == nil {
		return nil
	}
	var out []*wstyle
	for i := 0; id != "" && i < st.maxChainHops; i++ {
		s, ok := st.byID[id]
		if !ok {
			break
		}
		out = append(out, s)
		id = s.basedOn
	}
	return out
}

var styleLevel = regexp.MustCompile(`(?i)^\D*?(\d+)\D*$`)

// heading classifies a paragraph style: a title (level 1), a heading
// (levels 2.. for Heading 1..), or neither. The rules follow Word: a style
// whose id or name (or its parent's) says "heading" takes its level from
// its outline level, else from the number in its name; a style with an
// outline level is a heading whatever its name (localised styles), unless
// it is a title.
func (st *styles) heading(id string) (level int, title bool) {
	ch := st.chain(id)
	if len(ch) == 0 {
		return 0, false
	}
	s := ch[0]
	if strings.EqualFold(s.id, "title") || strings.EqualFold(s.name, "title") {
		return 1, true
	}
	outline := 0
	for _, c := range ch {
		if c.outline != 0 {
			outline = c.outline
			break
		}
	}
	if outline < 1 || outline > 9 {
		outline = 0
	}
	labels := []string{s.id, s.name}
	if len(ch) > 1 {
		labels = append(labels, ch[1].id, ch[1].name)
	}
	for _, l := range labels {
		if !strings.Contains(strings.ToLower(l), "heading") {
			continue
		}
		if outline > 0 {
			return outline + 1, false
		}
		if m := styleLevel.FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[1])
			return max(n, 1) + 1, false
		}
		return 2, false
	}
	if outline > 0 && !st.isCode(id) {
		for _, l := range labels {
			if strings.Contains(strings.ToLower(l), "title") {
				return 0, false
			}
		}
		return outline + 1, false
	}
	return 0, false
}

var codeStyleNames = map[string]bool{
	"source code": true, "code": true, "code block": true, "code listing": true,
	"html preformatted": true, "preformatted text": true, "preformatted": true, "verbatim": true,
	"sourcecode": true, "source_code": true, "codeblock": true, "codelisting": true,
	"htmlpreformatted": true, "preformattedtext": true,
}

// isCode reports whether a paragraph style (or an ancestor) is a code
// style, matched by exact name, never by substring ("Unicode").
func (st *styles) isCode(id string) bool {
	for _, s := range st.chain(id) {
		if codeStyleNames[strings.ToLower(strings.TrimSpace(s.name))] || codeStyleNames[strings.ToLower(s.id)] {
			return true
		}
	}
	return false
}

// font returns the font a style chain sets, stopping at the default
// paragraph style (a document's default font is no evidence of code).
func (st *styles) font(id string) string {
	for _, s := range st.chain(id) {
		if s.id == st.defaultPara {
			return ""
		}
		if s.font != "" {
			return s.font
		}
	}
	return ""
}

// numPr returns the numbering a style chain gives its paragraphs.
func (st *styles) numPr(id string) (numID, ilvl int, ok bool) {
	for _, s := range st.chain(id) {
		if s.hasNum {
			return s.numID, s.ilvl, true
		}
	}
	return 0, 0, false
}

// name returns a style's name, or its id.
func (st *styles) name(id string) string {
	if s, ok := st.byID[id]; ok && s.name != "" {
		return s.name
	}
	return id
}

// numbering holds numbering.xml: list instances (w:num) pointing at
// abstract definitions of up to nine levels.
type numbering struct {
	nums      map[int]*numInst
	abstracts map[int]*abstractNum
}

type numInst struct {
	abstract  int
	overrides map[int]lvlOverride
}

type lvlOverride struct {
	start    int
	hasStart bool
	lvl      *numLevel
}

type abstractNum struct {
	levels    map[int]*numLevel
	styleLink string // numStyleLink: the definition lives in a numbering style
}

type numLevel struct {
	start    int
	fmt      string
	text     string
	hasText  bool
	isLgl    bool
	restart  int // lvlRestart; -1 unset
	startSet bool
}

func readNumbering(x *xr) (*numbering, error) {
	n := &numbering{nums: map[int]*numInst{}, abstracts: map[int]*abstractNum{}}
	err := x.children(func(se xml.StartElement) error {
		switch se.Name.Local {
		case "abstractNum":
			a := &abstractNum{levels: map[int]*numLevel{}}
			id := attrInt(se, "abstractNumId", -1)
			err := x.children(func(c xml.StartElement) error {
				switch c.Name.Local {
				case "lvl":
					l, err := readNumLevel(x)
					if err == nil && l != nil {
						a.levels[attrInt(c, "ilvl", 0)] = l
					}
					return err
				case "numStyleLink":
					a.styleLink = attr(c, "val")
				}
				return x.skip()
			}, nil)
			if _, dup := n.abstracts[id]; !dup {
				n.abstracts[id] = a
			}
			return err
		case "num":
			inst := &numInst{abstract: -1, overrides: map[int]lvlOverride{}}
			id := attrInt(se, "numId", -1)
			err := x.children(func(c xml.StartElement) error {
				switch c.Name.Local {
				case "abstractNumId":
					inst.abstract = attrInt(c, "val", -1)
				case "lvlOverride":
					ilvl := attrInt(c, "ilvl", 0)
					var o lvlOverride
					err := x.children(func(oc xml.StartElement) error {
						switch oc.Name.Local {
						case "startOverride":
							o.start, o.hasStart = attrInt(oc, "val", 1), true
						case "lvl":
							l, err := readNumLevel(x)
							o.lvl = l
							return err
						}
						return x.skip()
					}, nil)
					inst.overrides[ilvl] = o
					return err
				}
				return x.skip()
			}, nil)
			if _, dup := n.nums[id]; !dup {
				n.nums[id] = inst
			}
			return err
		}
		return x.skip()
	}, nil)
	return n, err
}

func readNumLevel(x *xr) (*numLevel, error) {
	l := &numLevel{start: 1, restart: -1}
	return l, x.children(func(se xml.StartElement) error {
		switch se.Name.Local {
		case "start":
			l.start, l.startSet = attrInt(se, "val", 1), true
		case "numFmt":
			l.fmt = attr(se, "val")
		case "lvlText":
			l.text, l.hasText = attr(se, "val"), true
		case "isLgl":
			l.isLgl = onOff(se)
		case "lvlRestart":
			l.restart = attrInt(se, "val", -1)
		}
		return x.skip()
	}, nil)
}

// level returns the definition of one level of a list instance.
func (n *numbering) level(st *styles, numID, ilvl int) *numLevel {
	if n == nil {
		return nil
	}
	inst, ok := n.nums[numID]
	if !ok {
		return nil
	}
	if o, ok := inst.overrides[ilvl]; ok && o.lvl != nil {
		return o.lvl
	}
	a := n.abstracts[inst.abstract]
	// One hop through a numbering style link.
	if a != nil && len(a.levels) == 0 && a.styleLink != "" && st != nil {
		if id, _, ok := st.numPr(a.styleLink); ok && id != numID {
			if inst2, ok := n.nums[id]; ok {
				a = n.abstracts[inst2.abstract]
			}
		}
	}
	if a == nil {
		return nil
	}
	return a.levels[ilvl]
}

// start returns where a level's counting starts in a list instance.
func (n *numbering) start(st *styles, numID, ilvl int) int {
	if inst, ok := n.nums[numID]; ok {
		if o, ok := inst.overrides[ilvl]; ok && o.hasStart {
			return o.start
		}
	}
	if l := n.level(st, numID, ilvl); l != nil {
		return l.start
	}
	return 1
}

// visibleFormats are the number formats that show a number (a bullet or
// "none" does not).
func visibleFormat(f string) bool {
	switch f {
	case "", "bullet", "none":
		return false
	}
	return true
}

// formatNumber renders a counter in a Word number format.
func formatNumber(n int, format string) string {
	switch format {
	case "lowerLetter":
		return letters(n, false)
	case "upperLetter":
		return letters(n, true)
	case "lowerRoman":
		return strings.ToLower(roman(n))
	case "upperRoman":
		return roman(n)
	case "decimalZero":
		if n >= 0 && n < 10 {
			return "0" + strconv.Itoa(n)
		}
	case "ordinal":
		return strconv.Itoa(n) + ordinalSuffix(n)
	}
	return strconv.Itoa(n)
}

// letters renders 1→a, 26→z, 27→aa (Word repeats the letter).
func letters(n int, upper bool) string {
	if n <= 0 {
		return strconv.Itoa(n)
	}
	base := 'a'
	if upper {
		base = 'A'
	}
	r := rune(base + rune((n-1)%26))
	return strings.Repeat(string(r), min((n-1)/26+1, 50))
}

func roman(n int) string {
	if n <= 0 || n >= 4000 {
		return strconv.Itoa(n)
	}
	vals := []int{1000, 900, 500, 400, 100, 90, 50, 40, 10, 9, 5, 4, 1}
	syms := []string{"M", "CM", "D", "CD", "C", "XC", "L", "XL", "X", "IX", "V", "IV", "I"}
	var b strings.Builder
	for i, v := range vals {
		for n >= v {
			b.WriteString(syms[i])
			n -= v
		}
	}
	return b.String()
}

func ordinalSuffix(n int) string {
	if n%100 >= 11 && n%100 <= 13 {
		return "th"
	}
	switch n % 10 {
	case 1:
		return "st"
	case 2:
		return "nd"
	case 3:
		return "rd"
	}
	return "th"
}

// listCounters numbers list items the way Word shows them: a counter per
// list instance and level, deeper levels restarting when a shallower one
// advances.
type listCounters struct {
	n     *numbering
	st    *styles
	count map[[2]int]int
}

// next advances the counter of numID at ilvl and returns the item's marker
// ("3.", "1.2.", "(a)") and whether the level shows a number at all.
func (lc *listCounters) next(numID, ilvl int) (marker string, ordered bool) {
	lvl := lc.n.level(lc.st, numID, ilvl)
	if lvl == nil || !visibleFormat(lvl.fmt) {
		return "", false
	}
	if lc.count == nil {
		lc.count = map[[2]int]int{}
	}
	key := [2]int{numID, ilvl}
	if c, ok := lc.count[key]; ok {
		lc.count[key] = c + 1
	} else {
		lc.count[key] = lc.n.start(lc.st, numID, ilvl)
	}
	for k := range lc.count {
		if k[0] == numID && k[1] > ilvl {
			delete(lc.count, k)
		}
	}
	text := lvl.text
	if !lvl.hasText {
		text = "%" + strconv.Itoa(ilvl+1) + "."
	}
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		if text[i] == '%' && i+1 < len(text) && text[i+1] >= '1' && text[i+1] <= '9' {
			l := int(text[i+1] - '1')
			i++
			c, ok := lc.count[[2]int{numID, l}]
			if !ok {
				c = lc.n.start(lc.st, numID, l)
			}
			f := "decimal"
			if ll := lc.n.level(lc.st, numID, l); ll != nil && !lvl.isLgl {
				f = ll.fmt
			}
			if !visibleFormat(f) {
				f = "decimal"
			}
			b.WriteString(formatNumber(c, f))
			continue
		}
		b.WriteByte(text[i])
	}
	m := strings.TrimFunc(b.String(), unicode.IsSpace)
	return m, m != ""
}
