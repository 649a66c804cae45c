package office

import (
	"context"
	"encoding/xml"
	"errors"
	"strconv"
	"strings"
)

// maxDepth bounds element nesting, so a hostile file cannot drive the
// recursive readers arbitrarily deep.
const maxDepth = 256

var errTooDeep = errors.New("office: elements nested too deeply")

// xr is a streaming reader over one XML part. Readers of an element take
// its start tag and consume tokens up to and including its end tag.
type xr struct {
	d     *xml.Decoder
	ctx   context.Context
	depth int
	n     int // tokens read, for periodic context checks
}

func newXR(ctx context.Context, d *xml.Decoder) *xr { return &xr{d: d, ctx: ctx} }

// next returns the next token, with character data copied.
func (x *xr) next() (xml.Token, error) {
	tok, err := x.d.Token()
	if err != nil {
		return nil, err
	}
	x.n++
	if x.n&0x3ff == 0 {
		if err := x.ctx.Err(); err != nil {
			return nil, err
		}
	}
	switch t := tok.(type) {
	case xml.StartElement:
		x.depth++
		if x.depth > maxDepth {
			return nil, errTooDeep
		}
	case xml.EndElement:
		x.depth--
	case xml.CharData:
		return xml.CharData(string(t)), nil
	}
	return tok, nil
}

// skip consumes the rest of the element whose start tag was just read.
func (x *xr) skip() error {
	for n := 1; n > 0; {
		tok, err := x.next()
		if err != nil {
			return err
		}
		switch tok.(type) {
		case xml.StartElement:
			n++
		case xml.EndElement:
			n--
		}
	}
	return nil
}

// children calls fn for each child element of the element whose start tag
// was just read; fn must consume the child (or call skip). Character data
// between children is passed to text when it is not nil.
func (x *xr) children(fn func(xml.StartElement) error, text func(string)) error {
	for {
		tok, err := x.next()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if err := fn(t); err != nil {
				return err
			}
		case xml.EndElement:
			return nil
		case xml.CharData:
			if text != nil {
				text(string(t))
			}
		}
	}
}

// text returns the character data of the element whose start tag was just
// read, including that of its descendants.
func (x *xr) text() (string, error) {
	var b strings.Builder
	for n := 1; n > 0; {
		tok, err := x.next()
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			n++
		case xml.EndElement:
			n--
		case xml.CharData:
			if b.Len() < maxTextBytes {
				b.WriteString(string(t))
			}
		}
	}
	return b.String(), nil
}

// maxTextBytes bounds one element's collected text.
const maxTextBytes = 8 << 20

// attr returns the value of the attribute with the given local name, in
// any namespace.
func attr(se xml.StartElement, local string) string {
	for _, a := range se.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// hasAttr reports whether the attribute is present.
func hasAttr(se xml.StartElement, local string) bool {
	for _, a := range se.Attr {
		if a.Name.Local == local {
			return true
		}
	}
	return false
}

// attrInt returns an integer attribute, or def when absent or malformed.
func attrInt(se xml.StartElement, local string, def int) int {
	v := attr(se, local)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return def
	}
	return n
}

// attrInt64 is attrInt for EMU coordinates.
func attrInt64(se xml.StartElement, local string) int64 {
	n, _ := strconv.ParseInt(strings.TrimSpace(attr(se, local)), 10, 64)
	return n
}

// onOff reads an OOXML boolean property (<w:b/>, <w:b w:val="0"/>).
func onOff(se xml.StartElement) bool {
	switch strings.ToLower(attr(se, "val")) {
	case "0", "false", "off", "none":
		return false
	}
	return true
}

// Namespaces, by a short name. Transitional and strict OOXML spell the
// URIs differently; space maps both (and Microsoft's extensions) to one
// name.
const (
	nsW   = "w"   // wordprocessingml
	nsW14 = "w14" // Word 2010+ extensions
	nsM   = "m"   // math
	nsA   = "a"   // drawingml
	nsPic = "pic"
	nsWP  = "wp"
	nsWPS = "wps"
	nsC   = "c" // charts
	nsP   = "p" // presentationml
	nsX   = "x" // spreadsheetml
	nsMC  = "mc"
	nsV   = "v" // VML
	nsR   = "r"
	nsP14 = "p188" // PowerPoint modern comments
)

func space(n xml.Name) string {
	s := n.Space
	switch {
	case s == "":
		return ""
	case strings.Contains(s, "wordprocessingml"):
		return nsW
	case strings.Contains(s, "office/word/") && strings.HasSuffix(s, "wordml"):
		return nsW14
	case strings.Contains(s, "/math"):
		return nsM
	case strings.Contains(s, "wordprocessingDrawing"):
		return nsWP
	case strings.Contains(s, "wordprocessingShape"):
		return nsWPS
	case strings.HasSuffix(s, "drawingml/2006/main") || strings.HasSuffix(s, "drawingml/main"):
		return nsA
	case strings.HasSuffix(s, "/picture"):
		return nsPic
	case strings.HasSuffix(s, "/chart"):
		return nsC
	case strings.Contains(s, "presentationml") || strings.Contains(s, "powerpoint/2013/main/command"):
		return nsP
	case strings.Contains(s, "office/powerpoint/2018/8/main"):
		return nsP14
	case strings.Contains(s, "spreadsheetml"):
		return nsX
	case strings.Contains(s, "markup-compatibility"):
		return nsMC
	case s == "urn:schemas-microsoft-com:vml":
		return nsV
	case strings.HasSuffix(s, "relationships"):
		return nsR
	}
	return s
}

// is reports whether an element has the given namespace and local name.
func is(se xml.StartElement, ns, local string) bool {
	return se.Name.Local == local && space(se.Name) == ns
}

// relAttr returns an r:id-like attribute (r:id, r:embed, r:link).
func relAttr(se xml.StartElement, local string) string {
	for _, a := range se.Attr {
		if a.Name.Local == local && space(a.Name) == nsR {
			return a.Value
		}
	}
	return ""
}

func hasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix)
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
