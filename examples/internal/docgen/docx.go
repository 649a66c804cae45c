package docgen

import (
	"archive/zip"
	"bytes"
	"fmt"
	"strings"
	"time"
)

// A DOCX builds a WordprocessingML document of styled paragraphs,
// numbered and bulleted lists and tables.
type DOCX struct {
	// Modified is the date of every entry of the zip container.
	Modified time.Time

	title   string
	creator string
	body    strings.Builder
	lists   int // numbering instances made so far
}

// NewDOCX starts a document with a title and an author (its metadata).
func NewDOCX(title, creator string) *DOCX {
	return &DOCX{title: title, creator: creator, Modified: time.Date(2025, 3, 20, 9, 0, 0, 0, time.UTC)}
}

func (d *DOCX) para(style, text string) {
	d.body.WriteString("<w:p>")
	if style != "" {
		fmt.Fprintf(&d.body, `<w:pPr><w:pStyle w:val="%s"/></w:pPr>`, style)
	}
	d.runs(text)
	d.body.WriteString("</w:p>\n")
}

// runs writes text as runs; a part between ** is bold.
func (d *DOCX) runs(text string) {
	for i, part := range strings.Split(text, "**") {
		if part == "" {
			continue
		}
		d.body.WriteString("<w:r>")
		if i%2 == 1 {
			d.body.WriteString("<w:rPr><w:b/></w:rPr>")
		}
		fmt.Fprintf(&d.body, `<w:t xml:space="preserve">%s</w:t></w:r>`, xmlEscape(part))
	}
}

func (d *DOCX) Title(s string) { d.para("Title", s) }
func (d *DOCX) H1(s string)    { d.para("Heading1", s) }
func (d *DOCX) H2(s string)    { d.para("Heading2", s) }
func (d *DOCX) P(s string)     { d.para("", s) }

// List writes items as one list: numbered (decimal) or bulleted. Each
// list is its own numbering instance, so that numbers start again at 1.
func (d *DOCX) List(numbered bool, items ...string) {
	d.lists++
	id := d.lists*2 - 1
	if !numbered {
		id++
	}
	for _, it := range items {
		fmt.Fprintf(&d.body, `<w:p><w:pPr><w:pStyle w:val="ListParagraph"/><w:numPr><w:ilvl w:val="0"/><w:numId w:val="%d"/></w:numPr></w:pPr>`, id)
		d.runs(it)
		d.body.WriteString("</w:p>\n")
	}
}

// Table writes a table with borders on every cell; its first row is a
// header row, repeated on each page, in bold.
func (d *DOCX) Table(widths []int, rows [][]string) {
	total := 0
	for _, w := range widths {
		total += w
	}
	fmt.Fprintf(&d.body, `<w:tbl><w:tblPr><w:tblStyle w:val="TableGrid"/><w:tblW w:w="%d" w:type="dxa"/><w:tblLook w:val="04A0" w:firstRow="1" w:lastRow="0" w:firstColumn="1" w:lastColumn="0" w:noHBand="0" w:noVBand="1"/></w:tblPr><w:tblGrid>`, total)
	for _, w := range widths {
		fmt.Fprintf(&d.body, `<w:gridCol w:w="%d"/>`, w)
	}
	d.body.WriteString("</w:tblGrid>\n")
	for r, row := range rows {
		d.body.WriteString("<w:tr>")
		if r == 0 {
			d.body.WriteString(`<w:trPr><w:tblHeader/></w:trPr>`)
		}
		for c, cell := range row {
			fmt.Fprintf(&d.body, `<w:tc><w:tcPr><w:tcW w:w="%d" w:type="dxa"/></w:tcPr><w:p>`, widths[c])
			if c > 0 {
				d.body.WriteString(`<w:pPr><w:jc w:val="right"/></w:pPr>`)
			}
			if r == 0 {
				cell = "**" + cell + "**"
			}
			d.runs(cell)
			d.body.WriteString("</w:p></w:tc>")
		}
		d.body.WriteString("</w:tr>\n")
	}
	d.body.WriteString("</w:tbl>\n")
}

// Bytes writes the package. Entries are stored, not compressed, and dated
// to a fixed time, so that the same content always gives the same bytes.
func (d *DOCX) Bytes(created string) []byte {
	parts := []struct{ name, data string }{
		{"[Content_Types].xml", contentTypes},
		{"_rels/.rels", packageRels},
		{"docProps/core.xml", fmt.Sprintf(coreXML, xmlEscape(d.title), xmlEscape(d.creator), created, created)},
		{"docProps/app.xml", appXML},
		{"word/_rels/document.xml.rels", documentRels},
		{"word/styles.xml", stylesXML},
		{"word/numbering.xml", d.numbering()},
		{"word/document.xml", xmlHeader + `<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><w:body>
` + d.body.String() + `<w:sectPr><w:pgSz w:w="11906" w:h="16838"/><w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440" w:header="708" w:footer="708" w:gutter="0"/></w:sectPr></w:body></w:document>`},
	}
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	for _, p := range parts {
		f, err := z.CreateHeader(&zip.FileHeader{Name: p.name, Method: zip.Store, Modified: d.Modified})
		if err != nil {
			panic(err)
		}
		if _, err := f.Write([]byte(p.data)); err != nil {
			panic(err)
		}
	}
	if err := z.Close(); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// numbering defines two abstract lists, decimal and bullet, and one
// instance per list written, each starting at 1.
func (d *DOCX) numbering() string {
	var b strings.Builder
	b.WriteString(xmlHeader + `<w:numbering xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">`)
	b.WriteString(`<w:abstractNum w:abstractNumId="0"><w:multiLevelType w:val="singleLevel"/><w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/><w:lvlJc w:val="left"/><w:pPr><w:ind w:left="720" w:hanging="360"/></w:pPr></w:lvl></w:abstractNum>`)
	b.WriteString(`<w:abstractNum w:abstractNumId="1"><w:multiLevelType w:val="singleLevel"/><w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="bullet"/><w:lvlText w:val="•"/><w:lvlJc w:val="left"/><w:pPr><w:ind w:left="720" w:hanging="360"/></w:pPr></w:lvl></w:abstractNum>`)
	for i := 1; i <= d.lists*2; i++ {
		fmt.Fprintf(&b, `<w:num w:numId="%d"><w:abstractNumId w:val="%d"/><w:lvlOverride w:ilvl="0"><w:startOverride w:val="1"/></w:lvlOverride></w:num>`, i, 1-i%2)
	}
	b.WriteString(`</w:numbering>`)
	return b.String()
}

func xmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

const xmlHeader = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n"

const contentTypes = xmlHeader + `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/><Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/><Override PartName="/word/numbering.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml"/><Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/><Override PartName="/docProps/app.xml" ContentType="application/vnd.openxmlformats-officedocument.extended-properties+xml"/></Types>`

const packageRels = xmlHeader + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/><Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/extended-properties" Target="docProps/app.xml"/></Relationships>`

const documentRels = xmlHeader + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering" Target="numbering.xml"/></Relationships>`

const coreXML = xmlHeader + `<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><dc:title>%s</dc:title><dc:creator>%s</dc:creator><dcterms:created xsi:type="dcterms:W3CDTF">%s</dcterms:created><dcterms:modified xsi:type="dcterms:W3CDTF">%s</dcterms:modified></cp:coreProperties>`

const appXML = xmlHeader + `<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties"><Application>Microsoft Office Word</Application></Properties>`

const stylesXML = xmlHeader + `<w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">` +
	`<w:docDefaults><w:rPrDefault><w:rPr><w:rFonts w:ascii="Calibri" w:hAnsi="Calibri" w:cs="Calibri"/><w:sz w:val="22"/><w:lang w:val="en-GB"/></w:rPr></w:rPrDefault><w:pPrDefault><w:pPr><w:spacing w:after="160" w:line="259" w:lineRule="auto"/></w:pPr></w:pPrDefault></w:docDefaults>` +
	`<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/><w:qFormat/></w:style>` +
	`<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/><w:basedOn w:val="Normal"/><w:next w:val="Normal"/><w:qFormat/><w:pPr><w:spacing w:after="240"/></w:pPr><w:rPr><w:b/><w:sz w:val="40"/></w:rPr></w:style>` +
	`<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/><w:next w:val="Normal"/><w:qFormat/><w:pPr><w:keepNext/><w:spacing w:before="240" w:after="80"/><w:outlineLvl w:val="0"/></w:pPr><w:rPr><w:b/><w:sz w:val="28"/></w:rPr></w:style>` +
	`<w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/><w:basedOn w:val="Normal"/><w:next w:val="Normal"/><w:qFormat/><w:pPr><w:keepNext/><w:spacing w:before="160" w:after="60"/><w:outlineLvl w:val="1"/></w:pPr><w:rPr><w:b/><w:sz w:val="24"/></w:rPr></w:style>` +
	`<w:style w:type="paragraph" w:styleId="ListParagraph"><w:name w:val="List Paragraph"/><w:basedOn w:val="Normal"/><w:qFormat/><w:pPr><w:ind w:left="720"/><w:contextualSpacing/></w:pPr></w:style>` +
	`<w:style w:type="table" w:default="1" w:styleId="TableNormal"><w:name w:val="Normal Table"/><w:tblPr><w:tblInd w:w="0" w:type="dxa"/><w:tblCellMar><w:top w:w="0" w:type="dxa"/><w:left w:w="108" w:type="dxa"/><w:bottom w:w="0" w:type="dxa"/><w:right w:w="108" w:type="dxa"/></w:tblCellMar></w:tblPr></w:style>` +
	`<w:style w:type="table" w:styleId="TableGrid"><w:name w:val="Table Grid"/><w:basedOn w:val="TableNormal"/><w:pPr><w:spacing w:after="0" w:line="240" w:lineRule="auto"/></w:pPr><w:tblPr><w:tblBorders><w:top w:val="single" w:sz="4" w:space="0" w:color="auto"/><w:left w:val="single" w:sz="4" w:space="0" w:color="auto"/><w:bottom w:val="single" w:sz="4" w:space="0" w:color="auto"/><w:right w:val="single" w:sz="4" w:space="0" w:color="auto"/><w:insideH w:val="single" w:sz="4" w:space="0" w:color="auto"/><w:insideV w:val="single" w:sz="4" w:space="0" w:color="auto"/></w:tblBorders></w:tblPr></w:style>` +
	`</w:styles>`
