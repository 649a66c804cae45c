package office

import (
	"encoding/xml"
	"strings"
)

// coreMetadata reads docProps/core.xml (Dublin Core properties): title,
// creator, dates and the like. A missing or malformed part gives what
// could be read.
func coreMetadata(x *pkg) map[string]any {
	md := map[string]any{}
	d, c, err := x.decoder("docProps/core.xml")
	if err != nil {
		return md
	}
	defer c.Close()
	keys := map[string]string{
		"title": "title", "subject": "subject", "creator": "creator",
		"keywords": "keywords", "description": "description",
		"lastModifiedBy": "last_modified_by", "revision": "revision",
		"created": "created", "modified": "modified", "category": "category",
		"language": "language", "identifier": "identifier",
	}
	for {
		tok, err := d.Token()
		if err != nil {
			return md
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		key, ok := keys[se.Name.Local]
		if !ok {
			continue
		}
		var v string
		if err := d.DecodeElement(&v, &se); err != nil {
			return md
		}
		if v = strings.TrimSpace(v); v != "" && len(v) < 4096 {
			md[key] = v
		}
	}
}
