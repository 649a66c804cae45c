package pdf

import (
	"bytes"
	"fmt"
	"strings"
)

// buildPDF writes a minimal PDF with one page per content stream, text set
// in Helvetica. With encrypt, the file carries a standard security handler
// whose user password is not empty, so it cannot be opened without one.
func buildPDF(contents []string, encrypt bool) []byte {
	var objs []string
	// 1: catalog, 2: pages, 3: font, then a page and its content per page.
	kids := make([]string, len(contents))
	for i := range contents {
		kids[i] = fmt.Sprintf("%d 0 R", 4+2*i)
	}
	objs = append(objs,
		"<< /Type /Catalog /Pages 2 0 R >>",
		fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(contents)),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
	)
	for i, c := range contents {
		objs = append(objs,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i),
			fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(c)+1, c))
	}
	trailer := ""
	if encrypt {
		objs = append(objs, "<< /Filter /Standard /V 1 /R 2 /O <"+strings.Repeat("4f", 32)+"> /U <"+strings.Repeat("55", 32)+"> /P -44 >>")
		trailer = fmt.Sprintf(" /Encrypt %d 0 R /ID [<%s> <%s>]", len(objs), strings.Repeat("ab", 16), strings.Repeat("ab", 16))
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R%s >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, trailer, xref)
	return b.Bytes()
}

// textStream is a content stream that sets each line in 12-point
// Helvetica, one below the other, from the top left.
func textStream(lines ...string) string {
	var b strings.Builder
	b.WriteString("BT /F1 12 Tf 72 720 Td 14 TL\n")
	for _, l := range lines {
		l = strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`).Replace(l)
		fmt.Fprintf(&b, "(%s) Tj T*\n", l)
	}
	b.WriteString("ET")
	return b.String()
}
