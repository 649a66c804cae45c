package office

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/document"
	"github.com/sanadhq/sanad/internal/sharedtest"
)

// buildZip makes a package from name, content pairs.
func buildZip(tb testing.TB, parts ...string) []byte {
	tb.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for i := 0; i+1 < len(parts); i += 2 {
		f, err := w.Create(parts[i])
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := f.Write([]byte(parts[i+1])); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

const relsNS = `xmlns="http://schemas.openxmlformats.org/package/2006/relationships"`
const relBase = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"

// workbook is a small XLSX: merged header cells, shared and inline
// strings, a date, a percentage, a boolean, and a hidden second sheet.
func workbook(tb testing.TB) []byte {
	tb.Helper()
	return buildZip(tb,
		"[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">`+
			`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>`+
			`<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>`,
		"_rels/.rels", `<Relationships `+relsNS+`><Relationship Id="rId1" Type="`+relBase+`officeDocument" Target="xl/workbook.xml"/></Relationships>`,
		"docProps/core.xml", `<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/"><dc:title>Deal book</dc:title><dc:creator>A. Analyst</dc:creator><dcterms:created>2024-01-02T03:04:05Z</dcterms:created></cp:coreProperties>`,
		"xl/workbook.xml", `<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="`+strings.TrimSuffix(relBase, "/")+`"><workbookPr/><sheets>`+
			`<sheet name="Deals" sheetId="1" r:id="rId1"/><sheet name="Scratch" sheetId="2" state="hidden" r:id="rId2"/></sheets></workbook>`,
		"xl/_rels/workbook.xml.rels", `<Relationships `+relsNS+`>`+
			`<Relationship Id="rId1" Type="`+relBase+`worksheet" Target="worksheets/sheet1.xml"/>`+
			`<Relationship Id="rId2" Type="`+relBase+`worksheet" Target="/xl/worksheets/sheet2.xml"/>`+
			`<Relationship Id="rId3" Type="`+relBase+`sharedStrings" Target="sharedStrings.xml"/>`+
			`<Relationship Id="rId4" Type="`+relBase+`styles" Target="styles.xml"/></Relationships>`,
		"xl/sharedStrings.xml", `<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">`+
			`<si><t>Region</t></si><si><t>Revenue</t></si><si><r><t>E</t></r><r><t>U</t></r><rPh><t>x</t></rPh></si><si><t>note</t></si></sst>`,
		"xl/styles.xml", `<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><numFmts><numFmt numFmtId="164" formatCode="yyyy\-mm\-dd"/></numFmts>`+
			`<cellXfs><xf numFmtId="0"/><xf numFmtId="14"/><xf numFmtId="10"/><xf numFmtId="164"/></cellXfs></styleSheet>`,
		"xl/worksheets/sheet1.xml", `<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>`+
			`<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>`+
			`<row r="2"><c r="B2"><v>2023</v></c><c r="C2"><v>2024</v></c></row>`+
			`<row r="3"><c r="A3" t="s"><v>2</v></c><c r="B3"><v>10</v></c><c r="C3"><f>B3*1.25</f><v>12.5</v></c></row>`+
			`<row r="4"><c r="A4" s="1"><v>45292</v></c><c r="B4" t="inlineStr"><is><t>inline</t></is></c><c r="C4" t="b"><v>1</v></c><c r="D4" s="2"><v>0.125</v></c></row>`+
			`<row r="5"><c r="A5" s="3"><v>45293.5</v></c><c r="B5" t="e"><v>#DIV/0!</v></c></row>`+
			`</sheetData><mergeCells count="2"><mergeCell ref="A1:A2"/><mergeCell ref="B1:C1"/></mergeCells></worksheet>`,
		"xl/worksheets/sheet2.xml", `<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>`+
			`<row r="7"><c r="C7" t="s"><v>3</v></c></row></sheetData></worksheet>`,
	)
}

func TestXLSXMergedCells(t *testing.T) {
	doc, err := Parse(context.Background(), workbook(t))
	if err != nil {
		t.Fatal(err)
	}
	if doc.Format != "xlsx" || doc.Pages != 2 || doc.Title != "Deal book" {
		t.Errorf("got format %q, pages %d, title %q; want xlsx, 2, Deal book", doc.Format, doc.Pages, doc.Title)
	}
	if doc.Metadata["creator"] != "A. Analyst" || doc.Metadata["created"] != "2024-01-02T03:04:05Z" {
		t.Errorf("metadata: got %v", doc.Metadata)
	}
	tables := tablesOf(doc)
	if len(tables) != 2 {
		t.Fatalf("got %d tables, want 2", len(tables))
	}
	first := tables[0]
	if first.Page != 1 || tables[1].Page != 2 {
		t.Errorf("pages of tables: got %d, %d, want 1, 2", first.Page, tables[1].Page)
	}
	wantGrid := [][]string{
		{"Region", "Revenue", "", ""},
		{"", "2023", "2024", ""},
		{"EU", "10", "12.5", ""},
		{"2024-01-01", "inline", "TRUE", "12.5%"},
		{"2024-01-02 12:00:00", "#DIV/0!", "", ""},
	}
	checkGrid(t, first.Table, wantGrid)
	if c := first.Table.Rows[0][0]; c.RowSpan != 2 {
		t.Errorf("A1:A2: got row span %d, want 2", c.RowSpan)
	}
	if c := first.Table.Rows[0][1]; c.ColSpan != 2 {
		t.Errorf("B1:C1: got col span %d, want 2", c.ColSpan)
	}
	var headers []string
	for _, b := range doc.Blocks {
		if b.Kind == document.Header {
			headers = append(headers, b.Text)
		}
	}
	if strings.Join(headers, "|") != "Deals|Scratch (hidden)" {
		t.Errorf("sheet headings: got %q", headers)
	}
	checkGrid(t, tables[1].Table, [][]string{{"note"}})
}

func tablesOf(doc *document.Document) []document.Block {
	var out []document.Block
	for _, b := range doc.Blocks {
		if b.Kind == document.Table {
			out = append(out, b)
		}
	}
	return out
}

func checkGrid(t *testing.T, tbl *document.TableData, want [][]string) {
	t.Helper()
	got := tbl.Grid()
	if len(got) != len(want) {
		t.Fatalf("grid: got %d rows %q, want %d", len(got), got, len(want))
	}
	for r := range want {
		if strings.Join(got[r], "|") != strings.Join(want[r], "|") {
			t.Errorf("row %d: got %q, want %q", r, got[r], want[r])
		}
	}
}

func doclingSource(t *testing.T, format, name string) []byte {
	t.Helper()
	dir := sharedtest.Dir(t, "docparse", "docling", "tests", "data", format, "sources")
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestDOCXMergedCells(t *testing.T) {
	doc, err := Parse(context.Background(), doclingSource(t, "docx", "word_tables.docx"))
	if err != nil {
		t.Fatal(err)
	}
	tables := tablesOf(doc)
	if len(tables) != 7 {
		t.Fatalf("got %d tables, want 7", len(tables))
	}
	// gridSpan: a cell over two columns.
	h := tables[1].Table
	if c := h.Rows[1][1]; c.Text != "Merged Cell 1.1 1.2" || c.ColSpan != 2 {
		t.Errorf("horizontal merge: got %+v, want Merged Cell 1.1 1.2 over 2 columns", c)
	}
	checkGrid(t, h, [][]string{
		{"Header 0.0", "Header 0.1", "Header 0.2"},
		{"Cell 1.0", "Merged Cell 1.1 1.2", ""},
		{"Cell 2.0", "Merged Cell 2.1 2.2", ""},
	})
	// vMerge: a cell over two rows.
	v := tables[3].Table
	if c := v.Rows[1][1]; c.Text != "Merged Cell 1.1 2.1" || c.RowSpan != 2 {
		t.Errorf("vertical merge: got %+v, want Merged Cell 1.1 2.1 over 2 rows", c)
	}
	if g := v.Grid(); g[2][1] != "" || g[2][2] != "Cell 2.2" {
		t.Errorf("position under a vertical merge: got %q, want it empty and Cell 2.2 beside it", g[2])
	}
	// A row that starts late (gridBefore) keeps its cells in their columns.
	late := tables[5].Table
	checkGrid(t, late, [][]string{{"Header 0.0", "Header 0.1"}, {"", "Cell 1.1"}})
	last := tables[6].Table
	if c := last.Rows[0][2]; c.RowSpan != 2 {
		t.Errorf("vertical merge over a late row: got %+v, want row span 2", c)
	}
}

func TestPPTXMergedCells(t *testing.T) {
	doc, err := Parse(context.Background(), doclingSource(t, "pptx", "powerpoint_sample.pptx"))
	if err != nil {
		t.Fatal(err)
	}
	if doc.Pages != 3 {
		t.Errorf("pages: got %d, want 3", doc.Pages)
	}
	tables := tablesOf(doc)
	if len(tables) != 1 {
		t.Fatalf("got %d tables, want 1", len(tables))
	}
	tbl := tables[0].Table
	if c := tbl.Rows[0][1]; c.Text != "Class1" || c.ColSpan != 3 {
		t.Errorf("gridSpan: got %+v, want Class1 over 3 columns", c)
	}
	if c := tbl.Rows[1][1]; c.Text != "A merged with B" || c.ColSpan != 2 {
		t.Errorf("gridSpan: got %+v, want A merged with B over 2 columns", c)
	}
	if c := tbl.Rows[4][0]; c.Text != "R3" || c.RowSpan != 2 {
		t.Errorf("rowSpan: got %+v, want R3 over 2 rows", c)
	}
	g := tbl.Grid()
	if len(g) != 9 || len(g[0]) != 7 {
		t.Fatalf("grid: got %d×%d, want 9×7", len(g), len(g[0]))
	}
	if g[0][4] != "Class2" || g[5][0] != "" || g[5][1] != "" || g[5][2] != "True" {
		t.Errorf("grid positions: got %q / %q", g[0], g[5])
	}
	if tbl.HeaderRows != 1 {
		t.Errorf("header rows: got %d, want 1 (firstRow)", tbl.HeaderRows)
	}
}

func TestPPTXSlides(t *testing.T) {
	doc, err := Parse(context.Background(), doclingSource(t, "pptx", "powerpoint_sample.pptx"))
	if err != nil {
		t.Fatal(err)
	}
	var notes, titles []string
	for _, b := range doc.Blocks {
		switch {
		case b.Kind == document.Header:
			titles = append(titles, b.Text)
			if b.Page < 1 || len(b.BBox) != 4 {
				t.Errorf("title %q: got page %d, box %v", b.Text, b.Page, b.BBox)
			}
		case strings.HasPrefix(b.Text, "Notes: "):
			notes = append(notes, b.Text)
			if b.Page < 2 {
				t.Errorf("notes %q on page %d", b.Text, b.Page)
			}
		}
	}
	if strings.Join(titles, "|") != "Test Table Slide|Second slide title" {
		t.Errorf("slide titles: got %q", titles)
	}
	if len(notes) != 2 || notes[0] != "Notes: Some notes on the second slide." {
		t.Errorf("speaker notes: got %q", notes)
	}
}

func TestDOCXStructure(t *testing.T) {
	doc, err := Parse(context.Background(), doclingSource(t, "docx", "word_sample.docx"))
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, b := range doc.Blocks {
		kinds = append(kinds, string(b.Kind))
	}
	md := doc.Markdown()
	for _, want := range []string{"# Swimming in the lake", "## Let’s swim!", "- Paddle about", "2. Don’t forget to drink water", "<!-- image -->", "| Leaves | Ash, Elm, Maple | 50 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	if doc.Format != "docx" || doc.Metadata["creator"] == nil {
		t.Errorf("format %q, metadata %v", doc.Format, doc.Metadata)
	}
}

// TestErrors: what cannot be read is refused with a typed error and a
// reason, never a panic.
func TestErrors(t *testing.T) {
	real := doclingSource(t, "docx", "word_sample.docx")
	encrypted := append(append([]byte{}, oleMagic...), make([]byte, 512)...)
	for _, c := range "EncryptionInfo" {
		encrypted = append(encrypted, byte(c), 0)
	}
	bomb := buildZip(t,
		"_rels/.rels", `<Relationships `+relsNS+`><Relationship Id="rId1" Type="`+relBase+`officeDocument" Target="word/document.xml"/></Relationships>`,
		"word/document.xml", `<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>`+strings.Repeat("a", 3<<20)+`</w:t></w:r></w:p></w:body></w:document>`)
	tests := []struct {
		name string
		data []byte
		cfg  Config
		code sanad.Code
		msg  string
	}{
		{"zero bytes", nil, Config{}, sanad.CodeParserUnsupported, "empty"},
		{"garbage", []byte("this is not an office file at all"), Config{}, sanad.CodeParserUnsupported, "zip signature"},
		{"truncated", real[:len(real)/2], Config{}, sanad.CodeParserUnsupported, "truncated"},
		{"legacy binary", append(append([]byte{}, oleMagic...), make([]byte, 1024)...), Config{}, sanad.CodeParserUnsupported, "legacy"},
		{"encrypted", encrypted, Config{}, sanad.CodeParserEncrypted, "encrypted"},
		{"no main part", buildZip(t, "hello.txt", "hi"), Config{}, sanad.CodeParserUnsupported, "main document"},
		{"part too large", bomb, Config{MaxPartBytes: 1 << 20}, sanad.CodeParserUnsupported, "too large"},
		{"package too large", bomb, Config{MaxTotalBytes: 1 << 20}, sanad.CodeParserUnsupported, "too large"},
		{"malformed xml", buildZip(t,
			"_rels/.rels", `<Relationships `+relsNS+`><Relationship Id="rId1" Type="`+relBase+`officeDocument" Target="word/document.xml"/></Relationships>`,
			"word/document.xml", `<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p>`),
			Config{}, sanad.CodeParserUnsupported, "malformed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.cfg.Parse(context.Background(), tt.data)
			if got := sanad.ErrorCode(err); got != tt.code {
				t.Fatalf("got code %q (%v), want %q", got, err, tt.code)
			}
			if !strings.Contains(sanad.ErrorMessage(err), tt.msg) {
				t.Errorf("message %q does not say %q", sanad.ErrorMessage(err), tt.msg)
			}
		})
	}
}

func TestContextEnds(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-ctx.Done()
	_, err := Parse(ctx, doclingSource(t, "docx", "lorem_ipsum.docx"))
	if got := sanad.ErrorCode(err); got != sanad.CodeTimeout {
		t.Fatalf("got %q (%v), want %q", got, err, sanad.CodeTimeout)
	}
	var se *sanad.Error
	if !errors.As(err, &se) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the cause is not kept: %v", err)
	}
}

const wordNS = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math"`

// letter is a small DOCX: styles with basedOn, a numbered clause list, a
// hyperlink, a footnote, a header, a code paragraph, an equation and a
// table nested in a table.
func letter(tb testing.TB) []byte {
	tb.Helper()
	p := func(style, body string) string {
		pp := ""
		if style != "" {
			pp = `<w:pPr><w:pStyle w:val="` + style + `"/></w:pPr>`
		}
		return `<w:p>` + pp + body + `</w:p>`
	}
	r := func(t string) string { return `<w:r><w:t xml:space="preserve">` + t + `</w:t></w:r>` }
	clause := func(ilvl, text string) string {
		return `<w:p><w:pPr><w:numPr><w:ilvl w:val="` + ilvl + `"/><w:numId w:val="7"/></w:numPr></w:pPr>` + r(text) + `</w:p>`
	}
	body := p("Title", r("Engagement Letter")) +
		p("Clause", r("Scope")) +
		clause("0", "Services") + clause("1", "Advice on the merger") + clause("1", "Due diligence") + clause("0", "Fees") +
		p("", r("See ")+`<w:hyperlink r:id="rId9">`+r("our terms")+`</w:hyperlink>`+r(" and note")+`<w:r><w:footnoteReference w:id="2"/></w:r>`+r(".")) +
		p("SourceCode", r("fee := hours * rate")) + p("SourceCode", r("total += fee")) +
		p("", `<w:ins w:author="A">`+r("Accepted wording")+`</w:ins><w:del w:author="B"><w:r><w:delText>struck wording</w:delText></w:r></w:del>`) +
		p("", `<m:oMathPara><m:oMath><m:f><m:num><m:r><m:t>a</m:t></m:r></m:num><m:den><m:r><m:t>b</m:t></m:r></m:den></m:f></m:oMath></m:oMathPara>`) +
		`<w:tbl><w:tr><w:trPr><w:tblHeader/></w:trPr><w:tc>` + p("", r("Item")) + `</w:tc><w:tc>` + p("", r("Detail")) + `</w:tc></w:tr>` +
		`<w:tr><w:tc>` + p("", r("Rates")) + `</w:tc><w:tc><w:tbl><w:tr><w:tc>` + p("", r("Partner")) + `</w:tc><w:tc>` + p("", r("500")) + `</w:tc></w:tr></w:tbl></w:tc></w:tr></w:tbl>`
	return buildZip(tb,
		"[Content_Types].xml", `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>`,
		"_rels/.rels", `<Relationships `+relsNS+`><Relationship Id="rId1" Type="`+relBase+`officeDocument" Target="word/document.xml"/></Relationships>`,
		"word/_rels/document.xml.rels", `<Relationships `+relsNS+`>`+
			`<Relationship Id="rId1" Type="`+relBase+`styles" Target="styles.xml"/>`+
			`<Relationship Id="rId2" Type="`+relBase+`numbering" Target="numbering.xml"/>`+
			`<Relationship Id="rId3" Type="`+relBase+`footnotes" Target="footnotes.xml"/>`+
			`<Relationship Id="rId4" Type="`+relBase+`header" Target="header1.xml"/>`+
			`<Relationship Id="rId9" Type="`+relBase+`hyperlink" Target="https://example.com/terms" TargetMode="External"/></Relationships>`,
		"word/styles.xml", `<w:styles `+wordNS+`>`+
			`<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/><w:rPr><w:rFonts w:ascii="Courier New"/></w:rPr></w:style>`+
			`<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/><w:basedOn w:val="Normal"/></w:style>`+
			`<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style>`+
			`<w:style w:type="paragraph" w:styleId="Clause"><w:name w:val="Clause"/><w:basedOn w:val="Heading1"/></w:style>`+
			`<w:style w:type="paragraph" w:styleId="SourceCode"><w:name w:val="Source Code"/><w:basedOn w:val="Normal"/></w:style></w:styles>`,
		"word/numbering.xml", `<w:numbering `+wordNS+`><w:abstractNum w:abstractNumId="3">`+
			`<w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/></w:lvl>`+
			`<w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="lowerLetter"/><w:lvlText w:val="(%2)"/></w:lvl></w:abstractNum>`+
			`<w:num w:numId="7"><w:abstractNumId w:val="3"/></w:num></w:numbering>`,
		"word/footnotes.xml", `<w:footnotes `+wordNS+`><w:footnote w:type="separator" w:id="0">`+p("", r("---"))+`</w:footnote>`+
			`<w:footnote w:id="2">`+p("", r("Subject to the retainer."))+`</w:footnote></w:footnotes>`,
		"word/header1.xml", `<w:hdr `+wordNS+`>`+p("", r("PRIVILEGED AND CONFIDENTIAL"))+`</w:hdr>`,
		"word/document.xml", `<w:document `+wordNS+`><w:body>`+body+`<w:sectPr/></w:body></w:document>`,
	)
}

func TestDOCXLetter(t *testing.T) {
	doc, err := Parse(context.Background(), letter(t))
	if err != nil {
		t.Fatal(err)
	}
	want := "# Engagement Letter\n\n## Scope\n\n1. Services\n    - (a) Advice on the merger\n    - (b) Due diligence\n2. Fees\n\n" +
		"See [our terms](https://example.com/terms) and note[^1].\n\n```\nfee := hours * rate\ntotal += fee\n```\n\nAccepted wording\n\n$$\\frac{a}{b}$$\n\n" +
		"| Item | Detail |\n| - | - |\n| Rates | Partner 500 |\n\n[^1]: Subject to the retainer."
	if got := doc.Markdown(); got != want {
		t.Errorf("Markdown:\n%s\nwant:\n%s", got, want)
	}
	if doc.Title != "Engagement Letter" {
		t.Errorf("title: got %q", doc.Title)
	}
	codes := map[string]string{}
	for _, n := range doc.Notes {
		codes[n.Code] = n.Text
	}
	if !strings.Contains(codes["page_header"], "PRIVILEGED") {
		t.Errorf("header: got notes %+v, want the page header reported, not in the body", doc.Notes)
	}
	if !strings.Contains(codes["tracked_changes"], "1 insertions, 1 deletions") {
		t.Errorf("tracked changes: got notes %+v", doc.Notes)
	}
	var tbl *document.TableData
	for _, b := range doc.Blocks {
		if b.Table != nil {
			tbl = b.Table
		}
	}
	if tbl == nil || tbl.HeaderRows != 1 {
		t.Errorf("table header rows: got %+v", tbl)
	}
}

// embeddedWorkbooks returns the real XLSX files a chart in the docling
// PPTX sample carries as its data.
func embeddedWorkbooks(tb testing.TB) [][]byte {
	tb.Helper()
	dir := sharedtest.Dir(tb, "docparse", "docling", "tests", "data", "pptx", "sources")
	data, err := os.ReadFile(filepath.Join(dir, "pptx_chart.pptx"))
	if err != nil {
		tb.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		tb.Fatal(err)
	}
	var out [][]byte
	for _, f := range zr.File {
		if !strings.HasPrefix(f.Name, "ppt/embeddings/") || !strings.HasSuffix(f.Name, ".xlsx") {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			tb.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	if len(out) == 0 {
		tb.Fatal("no embedded workbooks in pptx_chart.pptx")
	}
	return out
}

// TestXLSXRealWorkbook reads the workbook behind a chart and finds the
// numbers the chart shows.
func TestXLSXRealWorkbook(t *testing.T) {
	found := false
	for _, wb := range embeddedWorkbooks(t) {
		doc, err := Parse(context.Background(), wb)
		if err != nil {
			t.Fatal(err)
		}
		md := doc.Markdown()
		if strings.Contains(md, "| 2022 | 175 | 130 |") && strings.Contains(md, "| Freshwater Ducks | Saltwater Ducks |") {
			found = true
		}
		if doc.Pages < 1 || doc.Blocks[0].Kind != document.Header {
			t.Errorf("sheet heading: got %+v", doc.Blocks)
		}
	}
	if !found {
		t.Error("no embedded workbook holds the chart's data table")
	}
}

func TestDOCXComments(t *testing.T) {
	doc, err := Parse(context.Background(), doclingSource(t, "docx", "docx_comments.docx"))
	if err != nil {
		t.Fatal(err)
	}
	var comments []string
	for _, n := range doc.Notes {
		if n.Code == "comment" {
			comments = append(comments, n.Text)
		}
	}
	if len(comments) != 3 || !strings.HasPrefix(comments[0], "[author: John Reviewer (JR), time: ") || !strings.HasSuffix(comments[0], "]: This is a sample reviewer comment on the first paragraph.") {
		t.Errorf("comments: got %q", comments)
	}
	if strings.Contains(doc.Markdown(), "reviewer comment") {
		t.Error("a comment was mixed into the body")
	}
}
