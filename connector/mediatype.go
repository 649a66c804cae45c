package connector

import (
	"mime"
	"net/http"
	"path"
	"strings"
)

// The table of media types and extensions is fixed here rather than read
// from the system's mime.types, so a file gets the same name and type on
// every machine.
var extByType = map[string]string{
	"application/pdf":       ".pdf",
	"text/html":             ".html",
	"application/xhtml+xml": ".html",
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document":   ".docx",
	"application/vnd.openxmlformats-officedocument.presentationml.presentation": ".pptx",
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet":         ".xlsx",
	"application/msword":                      ".doc",
	"application/vnd.ms-powerpoint":           ".ppt",
	"application/vnd.ms-excel":                ".xls",
	"application/vnd.oasis.opendocument.text": ".odt",
	"application/rtf":                         ".rtf",
	"application/epub+zip":                    ".epub",
	"application/zip":                         ".zip",
	"application/json":                        ".json",
	"application/xml":                         ".xml",
	"text/xml":                                ".xml",
	"text/plain":                              ".txt",
	"text/markdown":                           ".md",
	"text/csv":                                ".csv",
	"image/png":                               ".png",
	"image/jpeg":                              ".jpg",
	"image/gif":                               ".gif",
	"image/webp":                              ".webp",
	"image/tiff":                              ".tif",
}

var typeByExt = func() map[string]string {
	m := map[string]string{".htm": "text/html", ".jpeg": "image/jpeg", ".tiff": "image/tiff", ".markdown": "text/markdown", ".xhtml": "application/xhtml+xml"}
	for t, e := range extByType {
		if _, ok := m[e]; !ok && t != "application/xhtml+xml" && t != "text/xml" {
			m[e] = t
		}
	}
	return m
}()

// ExtForType returns the file extension for a media type, "" for a type
// not in the table.
func ExtForType(mediaType string) string { return extByType[baseType(mediaType)] }

// TypeForName returns the media type its extension gives a file name or URL
// path, "" for an extension not in the table.
func TypeForName(name string) string {
	return typeByExt[strings.ToLower(path.Ext(name))]
}

// ContentType is what is known of an item's media type.
type ContentType struct {
	Declared string // by the source (a Content-Type header), without parameters
	Sniffed  string // by http.DetectContentType on the leading bytes
	ByName   string // by the extension of the name
	Chosen   string // the one the item is given
}

// DetectType decides the media type of an item from what its source
// declared, its name and its leading bytes. A specific declared type wins,
// except text/plain over bytes that sniff as something more specific (a PDF
// served as text); a missing or generic one (application/octet-stream and
// the like) gives way to the name's extension, then to the sniffed type.
func DetectType(declared, name string, head []byte) ContentType {
	ct := ContentType{Declared: baseType(declared), ByName: TypeForName(name)}
	if len(head) > 0 {
		ct.Sniffed = baseType(http.DetectContentType(head))
	}
	switch {
	case !generic(ct.Declared) && ct.Declared == "text/plain" && !generic(ct.Sniffed) && ct.Sniffed != "text/plain":
		ct.Chosen = ct.Sniffed
	case !generic(ct.Declared):
		ct.Chosen = ct.Declared
	case ct.ByName != "":
		ct.Chosen = ct.ByName
	case ct.Sniffed != "":
		ct.Chosen = ct.Sniffed
	default:
		ct.Chosen = "application/octet-stream"
	}
	return ct
}

func generic(t string) bool {
	switch t {
	case "", "application/octet-stream", "binary/octet-stream", "application/x-download",
		"application/force-download", "application/unknown", "application/binary":
		return true
	}
	return false
}

// baseType returns a media type without parameters, lowercased; "" if it
// does not parse.
func baseType(v string) string {
	if v == "" {
		return ""
	}
	t, _, err := mime.ParseMediaType(v)
	if err != nil {
		// A malformed parameter still leaves a usable type before the ';'.
		t, _, _ = strings.Cut(v, ";")
		t = strings.ToLower(strings.TrimSpace(t))
		if strings.Count(t, "/") != 1 || strings.ContainsAny(t, " \t\"") {
			return ""
		}
	}
	return t
}
