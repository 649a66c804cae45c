package office_test

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/parse/office"
)

func ExampleParse() {
	// A minimal DOCX: a paragraph and a table whose header cell spans two
	// columns.
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for name, body := range map[string]string{
		"_rels/.rels": `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
			`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`,
		"word/document.xml": `<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` +
			`<w:p><w:r><w:t>Fees</w:t></w:r></w:p><w:tbl>` +
			`<w:tr><w:tc><w:tcPr><w:gridSpan w:val="2"/></w:tcPr><w:p><w:r><w:t>Partner</w:t></w:r></w:p></w:tc></w:tr>` +
			`<w:tr><w:tc><w:p><w:r><w:t>hourly</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>500</w:t></w:r></w:p></w:tc></w:tr>` +
			`</w:tbl></w:body></w:document>`,
	} {
		w, _ := z.Create(name)
		w.Write([]byte(body))
	}
	z.Close()

	doc, err := office.Parse(context.Background(), buf.Bytes())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(doc.Format, doc.Blocks[1].Table.Rows[0][0].ColSpan)
	fmt.Println(doc.Markdown())
	// Output:
	// docx 2
	// Fees
	//
	// | Partner | Partner |
	// | - | - |
	// | hourly | 500 |
}

func ExampleParse_encrypted() {
	// A password-protected DOCX is an OLE container holding EncryptionInfo.
	data := []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}
	for _, c := range "EncryptionInfo" {
		data = append(data, byte(c), 0)
	}
	_, err := office.Parse(context.Background(), data)
	fmt.Println(sanad.ErrorCode(err))
	// Output: ERR_PARSER_ENCRYPTED
}
