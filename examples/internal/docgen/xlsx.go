package docgen

import (
	"archive/zip"
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Pct is a cell value shown as a percentage: Pct(0.253) shows as 25.3%.
type Pct float64

// An XLSX builds a SpreadsheetML workbook of sheets whose cells are text
// (a string), numbers (an int or float64) or percentages (a Pct). Text is
// written inline, so the workbook has no shared string table.
type XLSX struct {
	// Modified is the date of every entry of the zip container.
	Modified time.Time

	title, creator, created string
	sheets                  []xlsxSheet
}

type xlsxSheet struct {
	name string
	rows [][]any
}

// NewXLSX starts a workbook with a title, an author and a creation date
// (its metadata; created is as 2025-07-14T09:00:00Z).
func NewXLSX(title, creator, created string) *XLSX {
	return &XLSX{title: title, creator: creator, created: created, Modified: time.Date(2025, 7, 14, 9, 0, 0, 0, time.UTC)}
}

// Sheet adds a sheet of rows; a nil cell is left empty.
func (x *XLSX) Sheet(name string, rows [][]any) {
	x.sheets = append(x.sheets, xlsxSheet{name, rows})
}

// Styles: 0 general, 1 a number with thousands separators, 2 a
// percentage with one decimal, 3 bold text.
const xlsxStyles = xmlHeader + `<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><numFmts count="1"><numFmt numFmtId="164" formatCode="0.0%"/></numFmts><fonts count="2"><font><sz val="11"/><name val="Calibri"/></font><font><b/><sz val="11"/><name val="Calibri"/></font></fonts><fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills><borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellXfs count="4"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/><xf numFmtId="4" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/><xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/><xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/></cellXfs></styleSheet>`

func colName(c int) string {
	s := ""
	for c++; c > 0; c = (c - 1) / 26 {
		s = string(rune('A'+(c-1)%26)) + s
	}
	return s
}

func (s xlsxSheet) xml() string {
	var b strings.Builder
	b.WriteString(xmlHeader + `<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>`)
	for r, row := range s.rows {
		fmt.Fprintf(&b, `<row r="%d">`, r+1)
		for c, v := range row {
			ref := colName(c) + strconv.Itoa(r+1)
			switch v := v.(type) {
			case nil:
			case string:
				style := 0
				if r == 0 {
					style = 3
				}
				fmt.Fprintf(&b, `<c r="%s" s="%d" t="inlineStr"><is><t xml:space="preserve">%s</t></is></c>`, ref, style, xmlEscape(v))
			case int:
				fmt.Fprintf(&b, `<c r="%s" s="1"><v>%d</v></c>`, ref, v)
			case float64:
				fmt.Fprintf(&b, `<c r="%s" s="1"><v>%s</v></c>`, ref, strconv.FormatFloat(v, 'f', -1, 64))
			case Pct:
				fmt.Fprintf(&b, `<c r="%s" s="2"><v>%s</v></c>`, ref, strconv.FormatFloat(float64(v), 'f', -1, 64))
			default:
				panic(fmt.Sprintf("xlsx: cell of type %T", v))
			}
		}
		b.WriteString("</row>")
	}
	b.WriteString(`</sheetData></worksheet>`)
	return b.String()
}

// Bytes writes the package, entries stored and dated to Modified.
func (x *XLSX) Bytes() []byte {
	var types, rels, sheets strings.Builder
	for i, s := range x.sheets {
		fmt.Fprintf(&types, `<Override PartName="/xl/worksheets/sheet%d.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`, i+1)
		fmt.Fprintf(&rels, `<Relationship Id="rId%d" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet%d.xml"/>`, i+1, i+1)
		fmt.Fprintf(&sheets, `<sheet name="%s" sheetId="%d" r:id="rId%d"/>`, xmlEscape(s.name), i+1, i+1)
	}
	n := len(x.sheets)
	parts := []struct{ name, data string }{
		{"[Content_Types].xml", xmlHeader + `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>` + types.String() + `<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/><Override PartName="/docProps/app.xml" ContentType="application/vnd.openxmlformats-officedocument.extended-properties+xml"/></Types>`},
		{"_rels/.rels", xmlHeader + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/><Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/extended-properties" Target="docProps/app.xml"/></Relationships>`},
		{"docProps/core.xml", fmt.Sprintf(coreXML, xmlEscape(x.title), xmlEscape(x.creator), x.created, x.created)},
		{"docProps/app.xml", xmlHeader + `<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties"><Application>Microsoft Excel</Application></Properties>`},
		{"xl/workbook.xml", xmlHeader + `<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>` + sheets.String() + `</sheets></workbook>`},
		{"xl/_rels/workbook.xml.rels", xmlHeader + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` + rels.String() + fmt.Sprintf(`<Relationship Id="rId%d" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>`, n+1) + `</Relationships>`},
		{"xl/styles.xml", xlsxStyles},
	}
	for i, s := range x.sheets {
		parts = append(parts, struct{ name, data string }{fmt.Sprintf("xl/worksheets/sheet%d.xml", i+1), s.xml()})
	}
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	for _, p := range parts {
		f, err := z.CreateHeader(&zip.FileHeader{Name: p.name, Method: zip.Store, Modified: x.Modified})
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
