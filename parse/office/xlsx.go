package office

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/sanadhq/sanad/document"
	"github.com/sanadhq/sanad/parse/internal/grid"
)

// Bounds of a sheet: the non-empty cells kept, and the positions of the
// table made of them (rows times columns of their bounding box).
const (
	maxSheetCells     = 1 << 20
	maxSheetPositions = 1 << 21
	maxSharedStrings  = 1 << 21
	xlsxMaxRow        = 1 << 20 // 1,048,576 rows
	xlsxMaxCol        = 1 << 14 // 16,384 columns (XFD)
)

type xlsx struct {
	ctx      context.Context
	p        *pkg
	strings  []string
	formats  []int          // cellXfs index → numFmtId
	custom   map[int]string // numFmtId → format code
	date1904 bool
	notes    []document.Note
}

type sheetRef struct {
	name, rid string
	hidden    bool
}

func readXLSX(ctx context.Context, p *pkg, main string) (*document.Document, error) {
	r := &xlsx{ctx: ctx, p: p, custom: map[int]string{}}
	rels, err := p.rels(main)
	if err != nil {
		return nil, err
	}
	var sheets []sheetRef
	err = withRoot(ctx, p, main, func(x *xr) error {
		return x.children(func(se xml.StartElement) error {
			switch se.Name.Local {
			case "workbookPr":
				r.date1904 = onOffAttr(se, "date1904")
			case "sheets":
				return x.children(func(s xml.StartElement) error {
					if s.Name.Local == "sheet" {
						st := attr(s, "state")
						sheets = append(sheets, sheetRef{name: attr(s, "name"), rid: relAttr(s, "id"), hidden: st == "hidden" || st == "veryHidden"})
					}
					return x.skip()
				}, nil)
			}
			return x.skip()
		}, nil)
	})
	if err != nil {
		return nil, err
	}
	for _, id := range sortedKeys(rels) {
		rl := rels[id]
		if rl.External || !p.has(rl.Target) {
			continue
		}
		var err error
		switch {
		case relType(rl.Type, "sharedStrings"):
			err = r.readSharedStrings(rl.Target)
		case relType(rl.Type, "styles"):
			err = r.readStyles(rl.Target)
		}
		if err != nil && (errors.Is(err, errTooLarge) || ctx.Err() != nil) {
			return nil, err
		}
	}

	doc := &document.Document{Format: "xlsx", Metadata: coreMetadata(p)}
	if v, ok := doc.Metadata["title"].(string); ok {
		doc.Title = v
	}
	for _, sh := range sheets {
		rl, ok := rels[sh.rid]
		if !ok || rl.External || !p.has(rl.Target) {
			continue
		}
		doc.Pages++
		page := doc.Pages
		name := sh.name
		if sh.hidden {
			name += " (hidden)"
		}
		doc.Blocks = append(doc.Blocks, document.Block{Kind: document.Header, Level: 2, Text: name, Page: page})
		t, err := r.sheet(rl.Target, page)
		if err != nil {
			if errors.Is(err, errTooLarge) || ctx.Err() != nil {
				return nil, err
			}
			r.notes = append(r.notes, document.Note{Page: page, Code: "unreadable", Text: "sheet could not be read: " + err.Error()})
			continue
		}
		if t != nil {
			doc.Blocks = append(doc.Blocks, document.Block{Kind: document.Table, Table: t, Page: page})
		}
	}
	doc.Notes = r.notes
	return doc, nil
}

func withRoot(ctx context.Context, p *pkg, part string, fn func(*xr) error) error {
	d, c, err := p.decoder(part)
	if err != nil {
		return err
	}
	defer c.Close()
	x := newXR(ctx, d)
	for {
		tok, err := x.next()
		if err != nil {
			return err
		}
		if _, ok := tok.(xml.StartElement); ok {
			return fn(x)
		}
	}
}

// readSharedStrings reads the shared string table: each si is its t, or
// the concatenated t of its rich-text runs (phonetic runs left out).
func (r *xlsx) readSharedStrings(part string) error {
	return withRoot(r.ctx, r.p, part, func(x *xr) error {
		return x.children(func(se xml.StartElement) error {
			if se.Name.Local != "si" || len(r.strings) >= maxSharedStrings {
				return x.skip()
			}
			s, err := richText(x)
			r.strings = append(r.strings, s)
			return err
		}, nil)
	})
}

// richText reads an si or is element.
func richText(x *xr) (string, error) {
	var b strings.Builder
	var walk func() error
	walk = func() error {
		return x.children(func(se xml.StartElement) error {
			switch se.Name.Local {
			case "t":
				t, err := x.text()
				if b.Len() < maxTextBytes {
					b.WriteString(t)
				}
				return err
			case "r":
				return walk()
			}
			return x.skip() // rPh (phonetic), phoneticPr, rPr
		}, nil)
	}
	err := walk()
	return b.String(), err
}

func (r *xlsx) readStyles(part string) error {
	return withRoot(r.ctx, r.p, part, func(x *xr) error {
		return x.children(func(se xml.StartElement) error {
			switch se.Name.Local {
			case "numFmts":
				return x.children(func(f xml.StartElement) error {
					if f.Name.Local == "numFmt" {
						r.custom[attrInt(f, "numFmtId", -1)] = attr(f, "formatCode")
					}
					return x.skip()
				}, nil)
			case "cellXfs":
				return x.children(func(f xml.StartElement) error {
					if f.Name.Local == "xf" && len(r.formats) < 1<<16 {
						r.formats = append(r.formats, attrInt(f, "numFmtId", 0))
					}
					return x.skip()
				}, nil)
			}
			return x.skip()
		}, nil)
	})
}

type cellPos struct{ r, c int }

type merge struct{ r0, c0, r1, c1 int }

// sheet reads a worksheet into one table covering its non-empty cells,
// merged ranges as spans.
func (r *xlsx) sheet(part string, page int) (*document.TableData, error) {
	cells := map[cellPos]string{}
	var merges []merge
	truncated := false
	err := withRoot(r.ctx, r.p, part, func(x *xr) error {
		return x.children(func(se xml.StartElement) error {
			switch se.Name.Local {
			case "sheetData":
				row := 0
				return x.children(func(rw xml.StartElement) error {
					if rw.Name.Local != "row" {
						return x.skip()
					}
					if n := attrInt(rw, "r", 0); n > 0 {
						row = n
					} else {
						row++
					}
					col := 0
					return x.children(func(c xml.StartElement) error {
						if c.Name.Local != "c" {
							return x.skip()
						}
						rr, cc, ok := parseRef(attr(c, "r"))
						if !ok {
							rr, cc = row, col+1
						}
						col = cc
						v, err := r.cellValue(x, c)
						if err != nil {
							return err
						}
						if v == "" || rr < 1 || cc < 1 || rr > xlsxMaxRow || cc > xlsxMaxCol {
							return nil
						}
						if len(cells) >= maxSheetCells {
							truncated = true
							return nil
						}
						cells[cellPos{rr, cc}] = v
						return nil
					}, nil)
				}, nil)
			case "mergeCells":
				return x.children(func(m xml.StartElement) error {
					if m.Name.Local == "mergeCell" && len(merges) < 1<<16 {
						if mg, ok := parseRange(attr(m, "ref")); ok {
							merges = append(merges, mg)
						}
					}
					return x.skip()
				}, nil)
			}
			return x.skip()
		}, nil)
	})
	if err != nil {
		return nil, err
	}
	if len(cells) == 0 {
		return nil, nil
	}
	// The table covers the bounding box of the non-empty cells.
	minR, minC, maxR, maxC := math.MaxInt, math.MaxInt, 0, 0
	for p := range cells {
		minR, minC = min(minR, p.r), min(minC, p.c)
		maxR, maxC = max(maxR, p.r), max(maxC, p.c)
	}
	width := maxC - minC + 1
	if rows := maxR - minR + 1; rows > maxSheetPositions/width {
		maxR = minR + maxSheetPositions/width - 1
		truncated = true
	}
	g := grid.Builder{MaxCells: maxSheetPositions}
	for _, m := range merges {
		r0, c0 := max(m.r0, minR), max(m.c0, minC)
		r1, c1 := min(m.r1, maxR), min(m.c1, maxC)
		if r0 > r1 || c0 > c1 || r0 != m.r0 || c0 != m.c0 {
			continue
		}
		g.Add(r0-minR, c0-minC, r1-r0+1, c1-c0+1, cells[cellPos{r0, c0}])
	}
	for p, v := range cells {
		if p.r <= maxR {
			g.Add(p.r-minR, p.c-minC, 1, 1, v)
		}
	}
	g.EnsureRow(maxR - minR)
	if truncated || g.Truncated() {
		r.notes = append(r.notes, document.Note{Page: page, Code: "truncated", Text: fmt.Sprintf("the sheet is larger than %d cells; its table was cut", maxSheetCells)})
	}
	return g.Table(), nil
}

// cellValue reads a c element's shown value: a shared or inline string, a
// boolean, an error, or a number (a date when its format is one).
func (r *xlsx) cellValue(x *xr, c xml.StartElement) (string, error) {
	typ := attr(c, "t")
	style := attrInt(c, "s", 0)
	var v, inline string
	hasInline := false
	err := x.children(func(se xml.StartElement) error {
		switch se.Name.Local {
		case "v":
			t, err := x.text()
			v = t
			return err
		case "is":
			t, err := richText(x)
			inline, hasInline = t, true
			return err
		}
		return x.skip() // f: the cached value in v is what the sheet shows
	}, nil)
	if err != nil {
		return "", err
	}
	switch typ {
	case "s":
		i, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || i < 0 || i >= len(r.strings) {
			return "", nil
		}
		return strings.TrimSpace(r.strings[i]), nil
	case "inlineStr":
		return strings.TrimSpace(inline), nil
	case "str", "e":
		return strings.TrimSpace(v), nil
	case "b":
		if strings.TrimSpace(v) == "1" {
			return "TRUE", nil
		}
		return "FALSE", nil
	}
	if hasInline && v == "" {
		return strings.TrimSpace(inline), nil
	}
	return r.number(strings.TrimSpace(v), style), nil
}

// number renders a numeric cell through its format, as far as dates and
// percentages go; other numbers are written plainly.
func (r *xlsx) number(v string, style int) string {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return v
	}
	id := 0
	if style >= 0 && style < len(r.formats) {
		id = r.formats[style]
	}
	code := r.custom[id]
	switch {
	case id == 9 || id == 10 || (code != "" && strings.HasSuffix(strings.TrimSpace(code), "%")):
		return numberText(strconv.FormatFloat(f*100, 'f', -1, 64)) + "%"
	case isDateFormat(id, code):
		return r.date(f, id, code)
	}
	return numberText(v)
}

// isDateFormat reports whether a number format shows a date or time.
func isDateFormat(id int, code string) bool {
	switch {
	case id >= 14 && id <= 22, id >= 27 && id <= 36, id >= 45 && id <= 47, id >= 50 && id <= 58:
		return true
	case code == "":
		return false
	}
	// Drop quoted text, escapes and bracketed sections ([Red], [$-409]).
	var b strings.Builder
	inQuote, inBracket := false, false
	for i := 0; i < len(code); i++ {
		ch := code[i]
		switch {
		case inQuote:
			inQuote = ch != '"'
		case inBracket:
			if ch == ']' {
				inBracket = false
			}
		case ch == '"':
			inQuote = true
		case ch == '[':
			inBracket = true
			// Elapsed time [h], [mm], [ss] is a time.
			if i+1 < len(code) && strings.ContainsRune("hHmMsS", rune(code[i+1])) {
				return true
			}
		case ch == '\\' || ch == '_' || ch == '*':
			i++
		default:
			b.WriteByte(ch)
		}
	}
	s := strings.ToLower(b.String())
	return strings.ContainsAny(s, "ymdhs") && !strings.Contains(s, "general")
}

func (r *xlsx) date(f float64, id int, code string) string {
	if f < 0 || f > 2958465 { // past 9999-12-31
		return numberText(strconv.FormatFloat(f, 'f', -1, 64))
	}
	base := time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)
	if r.date1904 {
		base = time.Date(1904, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	days := math.Floor(f)
	secs := math.Round((f - days) * 86400)
	t := base.AddDate(0, 0, int(days)).Add(time.Duration(secs) * time.Second)
	lc := strings.ToLower(code)
	timeOnly := (id >= 18 && id <= 21) || id == 45 || id == 46 || id == 47 ||
		(code != "" && !strings.ContainsAny(stripBrackets(lc), "yd") && !strings.Contains(lc, "mmm"))
	switch {
	case timeOnly:
		return t.Format("15:04:05")
	case secs == 0:
		return t.Format("2006-01-02")
	}
	return t.Format("2006-01-02 15:04:05")
}

func stripBrackets(s string) string {
	var b strings.Builder
	depth := 0
	for _, c := range s {
		switch {
		case c == '[':
			depth++
		case c == ']' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// parseRef reads a cell reference such as "B3" (1-based row and column).
func parseRef(ref string) (row, col int, ok bool) {
	ref = strings.ReplaceAll(strings.TrimSpace(ref), "$", "")
	i := 0
	for i < len(ref) && ((ref[i] >= 'A' && ref[i] <= 'Z') || (ref[i] >= 'a' && ref[i] <= 'z')) {
		if i >= 3 {
			return 0, 0, false
		}
		c := ref[i]
		if c >= 'a' {
			c -= 'a' - 'A'
		}
		col = col*26 + int(c-'A'+1)
		i++
	}
	if i == 0 || i == len(ref) || len(ref)-i > 7 {
		return 0, 0, false
	}
	n, err := strconv.Atoi(ref[i:])
	if err != nil || n < 1 {
		return 0, 0, false
	}
	return n, col, true
}

// parseRange reads "A1:C2".
func parseRange(ref string) (merge, bool) {
	a, b, ok := strings.Cut(ref, ":")
	if !ok {
		return merge{}, false
	}
	r0, c0, ok0 := parseRef(a)
	r1, c1, ok1 := parseRef(b)
	if !ok0 || !ok1 || r1 < r0 || c1 < c0 {
		return merge{}, false
	}
	return merge{r0: r0, c0: c0, r1: min(r1, xlsxMaxRow), c1: min(c1, xlsxMaxCol)}, true
}
