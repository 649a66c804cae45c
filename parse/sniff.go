package parse

import (
	"archive/zip"
	"bytes"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// The formats a file can be parsed as.
const (
	PDF   = "pdf"
	HTML  = "html"
	DOCX  = "docx"
	PPTX  = "pptx"
	XLSX  = "xlsx"
	TXT   = "txt"
	MD    = "md"
	CSV   = "csv"
	JSON  = "json"
	JSONL = "jsonl"
	VTT   = "vtt"
	SRT   = "srt"
)

// Formats lists every format, in the order sanad parse --help shows them.
var Formats = []string{PDF, DOCX, PPTX, XLSX, HTML, MD, TXT, CSV, JSON, JSONL, VTT, SRT}

// oleMagic starts a Compound File (OLE2) container: a legacy Office file,
// or an encrypted OOXML one.
var oleMagic = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}

// Sniff decides the format of data, named name, from its first bytes and,
// for text, its extension. It returns "" and a reason for what no parser
// reads; encrypted is set for an encrypted Office file.
func Sniff(name string, data []byte) (format string, encrypted bool, reason string) {
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(name), "."))
	head := data[:min(len(data), 1024)]
	switch {
	case len(data) == 0:
		return "", false, "the file is empty"
	case bytes.Contains(head, []byte("%PDF-")):
		return PDF, false, ""
	case bytes.HasPrefix(data, []byte("PK\x03\x04")):
		return sniffZip(data)
	case bytes.HasPrefix(data, oleMagic):
		if bytes.Contains(data, utf16("EncryptionInfo")) || bytes.Contains(data, utf16("EncryptedPackage")) {
			return "", true, "the Office file is encrypted (password protected)"
		}
		return "", false, "a legacy binary Office file (.doc, .xls, .ppt): save it as .docx, .xlsx or .pptx"
	case isImage(data):
		return "", false, "an image file: put it in a PDF to have it read by OCR"
	}
	text := data
	if bytes.HasPrefix(text, []byte{0xEF, 0xBB, 0xBF}) {
		text = text[3:]
	}
	if !looksText(data) {
		return "", false, "binary content of no known document format"
	}
	trimmed := bytes.TrimSpace(text[:min(len(text), 1024)])
	lower := bytes.ToLower(trimmed)
	switch {
	case ext == "html" || ext == "htm" || ext == "xhtml" || bytes.HasPrefix(lower, []byte("<!doctype html")) || bytes.HasPrefix(lower, []byte("<html")):
		return HTML, false, ""
	case ext == "vtt" || bytes.HasPrefix(trimmed, []byte("WEBVTT")):
		return VTT, false, ""
	case ext == "srt":
		return SRT, false, ""
	case ext == "md" || ext == "markdown":
		return MD, false, ""
	case ext == "csv" || ext == "tsv":
		return CSV, false, ""
	case ext == "jsonl" || ext == "ndjson":
		return JSONL, false, ""
	case ext == "json":
		return JSON, false, ""
	}
	return TXT, false, ""
}

// sniffZip tells the OOXML formats apart by the part at their heart.
func sniffZip(data []byte) (string, bool, string) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", false, "a damaged ZIP archive: " + err.Error()
	}
	for _, f := range zr.File {
		switch f.Name {
		case "word/document.xml":
			return DOCX, false, ""
		case "ppt/presentation.xml":
			return PPTX, false, ""
		case "xl/workbook.xml":
			return XLSX, false, ""
		}
	}
	return "", false, "a ZIP archive that is not a Word, PowerPoint or Excel document"
}

func utf16(s string) []byte {
	b := make([]byte, 0, 2*len(s))
	for _, r := range s {
		b = append(b, byte(r), 0)
	}
	return b
}

func isImage(data []byte) bool {
	for _, magic := range [][]byte{{0x89, 'P', 'N', 'G'}, {0xFF, 0xD8, 0xFF}, []byte("GIF8"), []byte("II*\x00"), []byte("MM\x00*")} {
		if bytes.HasPrefix(data, magic) {
			return true
		}
	}
	return false
}

// looksText reports whether data reads as text: no NUL in its first
// kilobytes (UTF-16 with a byte-order mark excepted), and mostly valid UTF-8
// or single-byte text.
func looksText(data []byte) bool {
	if bytes.HasPrefix(data, []byte{0xFF, 0xFE}) || bytes.HasPrefix(data, []byte{0xFE, 0xFF}) {
		return true
	}
	head := data[:min(len(data), 8192)]
	if bytes.IndexByte(head, 0) >= 0 {
		return false
	}
	if utf8.Valid(head) {
		return true
	}
	control := 0
	for _, c := range head {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' {
			control++
		}
	}
	return control*100 < len(head)
}
