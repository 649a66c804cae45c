package office

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"path"
	"strings"

	"github.com/sanadhq/sanad"
)

// errTooLarge is the cause of a refusal for size: a part or the package
// expands past the configured bound (a zip bomb, or simply too big).
var errTooLarge = errors.New("office: package expands past the size bound")

// pkg is an OPC package (the zip container of DOCX, PPTX and XLSX) read
// with bounds on what it may expand to.
type pkg struct {
	files map[string]*zip.File // by part name, without a leading slash
	cfg   Config
	read  int64 // uncompressed bytes read so far
	types contentTypes
	op    string
}

type contentTypes struct {
	defaults  map[string]string // extension (lower case) → type
	overrides map[string]string // part name → type
}

func openPackage(data []byte, cfg Config, op string) (*pkg, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeParserUnsupported, op, "not a readable Office file: the zip container is truncated or corrupt")
	}
	if len(zr.File) > cfg.MaxParts {
		return nil, sanad.Errorf(sanad.CodeParserUnsupported, op, "too large: the package has %d parts, more than %d", len(zr.File), cfg.MaxParts)
	}
	p := &pkg{files: make(map[string]*zip.File, len(zr.File)), cfg: cfg, op: op}
	for _, f := range zr.File {
		name := strings.TrimPrefix(path.Clean("/"+strings.ReplaceAll(f.Name, `\`, "/")), "/")
		if _, dup := p.files[name]; !dup {
			p.files[name] = f
		}
	}
	p.types = p.readContentTypes()
	return p, nil
}

// has reports whether the package holds a part of that name.
func (p *pkg) has(name string) bool {
	_, ok := p.files[name]
	return ok
}

// open returns a reader of a part's bytes that fails with errTooLarge past
// the per-part or total bound.
func (p *pkg) open(name string) (io.ReadCloser, error) {
	f, ok := p.files[name]
	if !ok {
		return nil, errMissingPart
	}
	if f.UncompressedSize64 > uint64(p.cfg.MaxPartBytes) {
		return nil, errTooLarge
	}
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	return &boundedReader{rc: rc, p: p, left: p.cfg.MaxPartBytes}, nil
}

var errMissingPart = errors.New("office: part missing")

type boundedReader struct {
	rc   io.ReadCloser
	p    *pkg
	left int64
}

func (b *boundedReader) Read(buf []byte) (int, error) {
	if b.left <= 0 || b.p.read >= b.p.cfg.MaxTotalBytes {
		// Probe for one more byte: a part of exactly the bound is fine.
		var one [1]byte
		n, err := b.rc.Read(one[:])
		if n > 0 {
			return 0, errTooLarge
		}
		if err == nil {
			err = io.EOF
		}
		return 0, err
	}
	if int64(len(buf)) > b.left {
		buf = buf[:b.left]
	}
	if rest := b.p.cfg.MaxTotalBytes - b.p.read; int64(len(buf)) > rest {
		buf = buf[:rest]
	}
	n, err := b.rc.Read(buf)
	b.left -= int64(n)
	b.p.read += int64(n)
	return n, err
}

func (b *boundedReader) Close() error { return b.rc.Close() }

// readAll returns a whole part (used for small parts such as rels).
func (p *pkg) readAll(name string) ([]byte, error) {
	rc, err := p.open(name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// decoder returns a streaming XML decoder over a part.
func (p *pkg) decoder(name string) (*xml.Decoder, io.Closer, error) {
	rc, err := p.open(name)
	if err != nil {
		return nil, nil, err
	}
	d := xml.NewDecoder(rc)
	d.CharsetReader = charsetReader
	return d, rc, nil
}

// charsetReader accepts the encodings a conforming package may declare
// (UTF-8 and, rarely, UTF-16) and refuses others.
func charsetReader(label string, input io.Reader) (io.Reader, error) {
	switch strings.ToLower(label) {
	case "utf-8", "utf8", "us-ascii", "ascii":
		return input, nil
	}
	return nil, errors.New("office: unsupported XML encoding " + label)
}

// rel is one relationship of a part.
type rel struct {
	Type     string
	Target   string // resolved part name, or the raw target when External
	External bool
}

// rels reads the relationships of a part ("word/document.xml" →
// "word/_rels/document.xml.rels"), with targets resolved against the
// part's folder. A missing or unreadable rels part gives no relationships;
// only a size refusal is an error.
func (p *pkg) rels(part string) (map[string]rel, error) {
	dir, file := path.Split(part)
	name := dir + "_rels/" + file + ".rels"
	out := map[string]rel{}
	d, c, err := p.decoder(name)
	if err != nil {
		if errors.Is(err, errTooLarge) {
			return nil, err
		}
		return out, nil
	}
	defer c.Close()
	for {
		tok, err := d.Token()
		if err != nil {
			if errors.Is(err, errTooLarge) {
				return nil, err
			}
			return out, nil
		}
		se, ok := tok.(xml.StartElement)
		if !ok || se.Name.Local != "Relationship" {
			continue
		}
		id, typ, target, mode := attr(se, "Id"), attr(se, "Type"), attr(se, "Target"), attr(se, "TargetMode")
		r := rel{Type: typ, Target: target, External: strings.EqualFold(mode, "External")}
		if !r.External {
			r.Target = resolve(dir, target)
		}
		out[id] = r
	}
}

// resolve turns a relationship target into a part name.
func resolve(dir, target string) string {
	target = strings.ReplaceAll(target, `\`, "/")
	if strings.HasPrefix(target, "/") {
		return strings.TrimPrefix(path.Clean(target), "/")
	}
	return strings.TrimPrefix(path.Clean("/"+dir+target), "/")
}

// relType reports whether a relationship type URI ends with the given
// name ("officeDocument", "image"): transitional and strict OOXML differ
// only in the prefix.
func relType(uri, name string) bool {
	return strings.HasSuffix(uri, "/"+name)
}

func (p *pkg) readContentTypes() contentTypes {
	ct := contentTypes{defaults: map[string]string{}, overrides: map[string]string{}}
	d, c, err := p.decoder("[Content_Types].xml")
	if err != nil {
		return ct
	}
	defer c.Close()
	for {
		tok, err := d.Token()
		if err != nil {
			return ct
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch se.Name.Local {
		case "Default":
			ct.defaults[strings.ToLower(attr(se, "Extension"))] = attr(se, "ContentType")
		case "Override":
			ct.overrides[strings.TrimPrefix(attr(se, "PartName"), "/")] = attr(se, "ContentType")
		}
	}
}

// contentType returns a part's declared content type.
func (p *pkg) contentType(name string) string {
	if t, ok := p.types.overrides[name]; ok {
		return t
	}
	ext := strings.ToLower(strings.TrimPrefix(path.Ext(name), "."))
	return p.types.defaults[ext]
}

// isImage reports whether a part exists and is declared as an image.
func (p *pkg) isImage(name string) bool {
	return p.has(name) && strings.HasPrefix(p.contentType(name), "image/")
}

// mainPart finds the package's main document through its root
// relationships, falling back to the conventional names.
func (p *pkg) mainPart() string {
	rs, _ := p.rels("")
	for _, r := range rs {
		if relType(r.Type, "officeDocument") && !r.External && p.has(r.Target) {
			return r.Target
		}
	}
	for _, name := range []string{"word/document.xml", "ppt/presentation.xml", "xl/workbook.xml"} {
		if p.has(name) {
			return name
		}
	}
	return ""
}
