package bundle

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"path"
	"strings"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/ledger"
)

// Limits on what a bundle may hold, so that a hostile file cannot exhaust
// memory (see [Verify] for how the reader keeps to them).
const (
	// MaxFiles is the most files a manifest may list.
	MaxFiles = 1 << 18
	// MaxFileBytes is the largest events.jsonl, proofs.json or artifact.
	MaxFileBytes = 1 << 30
	// MaxTotal is the most bytes all files of a bundle may hold together.
	MaxTotal = 4 << 30
	// MaxManifestBytes is the largest manifest.json.
	MaxManifestBytes = 64 << 20
	// MaxKeysBytes is the largest keys.json.
	MaxKeysBytes = 16 << 20
	// MaxNoteBytes is the largest checkpoint or head.
	MaxNoteBytes = 64 << 10
	// MaxEventBytes is the longest line of events.jsonl.
	MaxEventBytes = 8 << 20
	// MaxHeldBeforeManifest is the most bytes of events.jsonl, proofs.json
	// and keys.json together that a bundle whose manifest.json is not its
	// first file may hold before it: until the manifest declares their sizes
	// nothing else bounds them.
	MaxHeldBeforeManifest = 24 << 20
	// MaxPadding is the most zero bytes allowed after the tar's
	// end-of-archive blocks (tar pads an archive to a whole record).
	MaxPadding = 1 << 20
)

// headerAllowance is what the reader allows for each member's tar headers
// (the header block, and PAX or GNU long-name records) when it bounds a
// bundle's size by its manifest.
const headerAllowance = 8 << 10

// Directory entries a tar of a bundle's folder holds; they carry nothing.
var bundleDirs = map[string]bool{"": true, ".": true, "artifacts": true, "artifacts/sha256": true}

// content is what the reader kept of a bundle: the parsed files, and the
// size and SHA-256 of every file.
type content struct {
	manifest    *Manifest
	manifestSum string // "sha256:<hex>" of manifest.json
	head        []byte
	checkpoint  []byte
	keys        *Keys
	proofs      *Proofs
	events      []*ledger.Event
	files       map[string]fileInfo // every file but the manifest and the head
	artifacts   int
}

type fileInfo struct {
	sum  string // "sha256:<hex>"
	size int64
}

// errOverBudget ends a read that goes past what the bundle may hold.
var errOverBudget = errors.New("over budget")

// counter counts the bytes read through it and refuses to read past limit.
type counter struct {
	r     io.Reader
	n     int64
	limit int64
}

func (c *counter) Read(p []byte) (int, error) {
	if c.n >= c.limit {
		return 0, errOverBudget
	}
	if int64(len(p)) > c.limit-c.n {
		p = p[:c.limit-c.n]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// member reads one tar member, hashing what it reads.
type member struct {
	r io.Reader
	h hash.Hash
	n int64
}

func (m *member) Read(p []byte) (int, error) {
	n, err := m.r.Read(p)
	m.h.Write(p[:n])
	m.n += int64(n)
	return n, err
}

func (m *member) sum() string { return "sha256:" + hex.EncodeToString(m.h.Sum(nil)) }

// readBundle reads a bundle, gzip-compressed or a plain tar, in one pass
// with bounded memory (see [Verify]).
func readBundle(r io.Reader) (*content, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var src io.Reader = br
	var gz *gzip.Reader
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		var err error
		if gz, err = gzip.NewReader(br); err != nil {
			return nil, &VerifyError{Reason: fmt.Sprintf("not a readable gzip file: %v", err), Err: err}
		}
		gz.Multistream(false)
		src = gz
	}
	cr := &counter{r: src, limit: MaxTotal}
	tr := tar.NewReader(cr)
	c := &content{files: make(map[string]fileInfo)}
	seen := make(map[string]bool)
	var held int64 // bytes of parsed files read before the manifest
	var end int64  // where the last member's data ended in the tar stream
	members := 0
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, readError("", cr, err)
		}
		members++
		name, err := memberName(hdr)
		if err != nil {
			return nil, err
		}
		if hdr.Typeflag == tar.TypeDir {
			end = cr.n
			continue
		}
		if seen[name] {
			return nil, fail(name, "appears twice")
		}
		seen[name] = true
		if err := c.checkSize(name, hdr.Size, &held); err != nil {
			return nil, err
		}
		m := &member{r: tr, h: sha256.New()}
		if err := c.readMember(name, m); err != nil {
			var ve *VerifyError
			if errors.As(err, &ve) {
				return nil, err
			}
			return nil, readError(name, cr, err)
		}
		if m.n != hdr.Size {
			return nil, &VerifyError{File: name, Reason: "truncated"}
		}
		end = cr.n
		switch name {
		case ManifestFile:
			c.manifestSum = m.sum()
			cr.limit = min(cr.limit, c.streamBound(cr.n, seen))
		case HeadFile:
		default:
			c.files[name] = fileInfo{sum: m.sum(), size: m.n}
		}
	}
	if members == 0 {
		return nil, &VerifyError{Reason: "empty or not a bundle"}
	}
	// The archive ends with two zero blocks after the last member's padded
	// data; a tar reader that stops short of them may be reading a cut file.
	if want := (end+511)/512*512 + 1024; cr.n != want {
		return nil, &VerifyError{Reason: "truncated: the tar file has no end-of-archive marker"}
	}
	// Nothing may follow but zero padding: bytes after the end of the
	// archive would be read by `tar -i` and by any reader that skips the
	// end marker, but not verified here.
	if err := readPadding(cr); err != nil {
		return nil, err
	}
	if gz != nil {
		if _, err := br.Peek(1); err != io.EOF {
			return nil, &VerifyError{Reason: "data after the end of the gzip stream (another gzip member or garbage): a bundle is one gzip stream"}
		}
	}
	return c, nil
}

// readError describes an error reading the tar stream.
func readError(name string, cr *counter, err error) error {
	if errors.Is(err, errOverBudget) {
		return &VerifyError{File: name, Reason: fmt.Sprintf("the bundle holds more than its manifest's files need (more than %d bytes of tar)", cr.limit), Err: err}
	}
	if name != "" {
		return &VerifyError{File: name, Reason: fmt.Sprintf("truncated or damaged: %v", err), Err: err}
	}
	return &VerifyError{Reason: fmt.Sprintf("not a readable tar file (truncated or damaged): %v", err), Err: err}
}

// readPadding reads what follows the end-of-archive blocks: only zero bytes,
// at most MaxPadding, then the end of the (decompressed) stream.
func readPadding(r io.Reader) error {
	buf := make([]byte, 32<<10)
	var n int64
	for {
		k, err := r.Read(buf)
		if bytes.ContainsFunc(buf[:k], func(r rune) bool { return r != 0 }) {
			return &VerifyError{Reason: "data after the end of the tar archive: a bundle ends with its archive"}
		}
		if n += int64(k); n > MaxPadding {
			return &VerifyError{Reason: fmt.Sprintf("more than %d bytes of padding after the end of the tar archive", MaxPadding)}
		}
		if err == io.EOF {
			return nil
		}
		if errors.Is(err, errOverBudget) {
			return &VerifyError{Reason: "the bundle holds more than its manifest's files need", Err: err}
		}
		if err != nil {
			return &VerifyError{Reason: fmt.Sprintf("damaged compressed stream: %v", err), Err: err}
		}
	}
}

// memberName checks a tar header: a regular file with one of a bundle's
// names, or one of the directories a tar of a bundle's folder holds. It
// returns the name without a leading "./".
func memberName(hdr *tar.Header) (string, error) {
	raw := hdr.Name
	bad := func(format string, args ...any) error {
		return &VerifyError{File: raw, Reason: fmt.Sprintf(format, args...)}
	}
	if strings.HasPrefix(raw, "/") || strings.Contains(raw, "\\") || len(raw) > 1 && raw[1] == ':' {
		return "", bad("absolute name: a bundle's files are named relative to it")
	}
	for _, part := range strings.Split(raw, "/") {
		if part == ".." {
			return "", bad(`name with a ".." component`)
		}
	}
	switch hdr.Typeflag {
	case tar.TypeReg:
	case tar.TypeDir:
		if hdr.Size != 0 {
			return "", bad("directory entry with content")
		}
		if d := strings.TrimSuffix(strings.TrimPrefix(path.Clean(raw), "./"), "/"); !bundleDirs[d] {
			return "", bad("unknown directory: a bundle has only artifacts/sha256/")
		}
		return "", nil
	case tar.TypeSymlink:
		return "", bad("symbolic link (to %q): a bundle holds only regular files", hdr.Linkname)
	case tar.TypeLink:
		return "", bad("hard link (to %q): a bundle holds only regular files", hdr.Linkname)
	case tar.TypeChar, tar.TypeBlock:
		return "", bad("device entry: a bundle holds only regular files")
	case tar.TypeFifo:
		return "", bad("named pipe: a bundle holds only regular files")
	default:
		return "", bad("tar entry of type %q: a bundle holds only regular files", hdr.Typeflag)
	}
	name := strings.TrimPrefix(raw, "./")
	if !validName(name) {
		return "", bad("not a file of a bundle (%s, %s, %s, %s, %s, %s or %s<sha256>)", ManifestFile, HeadFile, EventsFile, CheckpointFile, ProofsFile, KeysFile, ArtifactsDir)
	}
	return name, nil
}

// checkSize refuses, from its header alone, a file larger than it may be:
// than its kind's limit, than its manifest declares, or, before the manifest,
// than what may be held unchecked.
func (c *content) checkSize(name string, size int64, held *int64) error {
	limit := fileLimit(name)
	if size < 0 || size > limit {
		return fail(name, "%d bytes, more than a bundle's %s may hold (%d)", size, name, limit)
	}
	if name == ManifestFile || name == HeadFile {
		return nil
	}
	if m := c.manifest; m != nil {
		if _, listed := m.Files[name]; !listed {
			return fail(name, "not listed in the manifest")
		}
		if want, ok := m.Sizes[name]; ok && size != want {
			return fail(name, "%d bytes, the manifest says %d", size, want)
		}
		return nil
	}
	if name == EventsFile || name == ProofsFile || name == KeysFile {
		if *held += size; *held > MaxHeldBeforeManifest {
			return fail(name, "%d bytes before the manifest: a bundle whose %s, %s and %s hold more than %d bytes together must have %s first (repack it with %s as the first file)",
				size, EventsFile, ProofsFile, KeysFile, MaxHeldBeforeManifest, ManifestFile, ManifestFile)
		}
	}
	return nil
}

// fileLimit returns the most bytes the file name may hold.
func fileLimit(name string) int64 {
	switch name {
	case ManifestFile:
		return MaxManifestBytes
	case HeadFile, CheckpointFile:
		return MaxNoteBytes
	case KeysFile:
		return MaxKeysBytes
	}
	return MaxFileBytes
}

// readMember reads one file: the parsed ones into c, the artifacts through
// the hash only.
func (c *content) readMember(name string, m *member) error {
	switch name {
	case ManifestFile:
		var man Manifest
		if err := decodeJSON(m, &man); err != nil {
			return fail(name, "malformed: %v", err)
		}
		if err := man.check(); err != nil {
			return fail(name, "%v", err)
		}
		c.manifest = &man
	case HeadFile, CheckpointFile:
		b, err := io.ReadAll(m)
		if err != nil {
			return err
		}
		if name == HeadFile {
			c.head = b
		} else {
			c.checkpoint = b
		}
	case KeysFile:
		var k Keys
		if err := decodeJSON(m, &k); err != nil {
			return fail(name, "malformed: %v", err)
		}
		c.keys = &k
	case ProofsFile:
		var p Proofs
		if err := decodeJSON(m, &p); err != nil {
			return fail(name, "malformed: %v", err)
		}
		c.proofs = &p
	case EventsFile:
		evs, err := readEvents(m)
		if err != nil {
			return err
		}
		c.events = evs
	default:
		if _, err := io.Copy(io.Discard, m); err != nil {
			return err
		}
		if sum := strings.TrimPrefix(m.sum(), "sha256:"); sum != strings.TrimPrefix(name, ArtifactsDir) {
			return fail(name, "content does not match its name")
		}
		c.artifacts++
	}
	return nil
}

// readEvents reads events.jsonl a line at a time, decoding each line as it
// comes: a file that is not events fails at its first line, having cost at
// most one line (MaxEventBytes) of memory.
func readEvents(r io.Reader) ([]*ledger.Event, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var evs []*ledger.Event
	var line []byte
	for n := 1; ; n++ {
		line = line[:0]
		var err error
		for {
			var chunk []byte
			chunk, err = br.ReadSlice('\n')
			if len(line)+len(chunk) > MaxEventBytes+1 {
				return nil, fail(fmt.Sprintf("%s line %d", EventsFile, n), "longer than %d bytes", MaxEventBytes)
			}
			if len(line)+len(chunk) > cap(line) {
				// Grow fourfold, rather than by append's smaller steps, so
				// that a long line costs at most 4/3 of its length in all.
				grown := make([]byte, len(line), min(max(4*cap(line), len(line)+len(chunk)), MaxEventBytes+1))
				copy(grown, line)
				line = grown
			}
			line = append(line, chunk...)
			if err != bufio.ErrBufferFull {
				break
			}
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		if err == io.EOF && len(line) == 0 {
			return evs, nil
		}
		pos := fmt.Sprintf("%s line %d", EventsFile, n)
		ev, derr := ledger.Decode(bytes.TrimSuffix(line, []byte("\n")))
		if derr != nil {
			return nil, &VerifyError{File: pos, Reason: derr.Error(), Err: derr}
		}
		if ev.Seq != uint64(n) {
			return nil, fail(pos, "seq %d, want %d: a bundle holds a trace's events in order from seq 1", ev.Seq, n)
		}
		evs = append(evs, ev)
		if err == io.EOF {
			return evs, nil
		}
	}
}

// decodeJSON decodes one JSON value strictly from r as it reads (a file
// that is not JSON fails at its first bytes) and refuses anything after it.
func decodeJSON(r io.Reader, v any) error {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data")
	}
	return nil
}

// check validates a manifest on its own: its format, its file names and, from
// v2, their sizes.
func (m *Manifest) check() error {
	switch m.Format {
	case Format:
		if len(m.Sizes) != len(m.Files) {
			return fmt.Errorf("%d files but %d sizes", len(m.Files), len(m.Sizes))
		}
	case FormatV1:
		if m.Sizes != nil {
			return fmt.Errorf("sizes in a %s manifest", FormatV1)
		}
	default:
		return fmt.Errorf("format %q, want %q (or %q)", m.Format, Format, FormatV1)
	}
	if len(m.Files) > MaxFiles {
		return fmt.Errorf("%d files, more than a bundle may hold (%d)", len(m.Files), MaxFiles)
	}
	var total int64
	for name := range m.Files {
		if !validName(name) || name == ManifestFile || name == HeadFile {
			return fmt.Errorf("lists %q, not a file a manifest lists", name)
		}
		if m.Format == FormatV1 {
			continue
		}
		size, ok := m.Sizes[name]
		if !ok {
			return fmt.Errorf("no size for %s", name)
		}
		if size < 0 || size > fileLimit(name) {
			return fmt.Errorf("size %d of %s is out of range", size, name)
		}
		if total += size; total > MaxTotal {
			return fmt.Errorf("its files hold more than %d bytes", int64(MaxTotal))
		}
	}
	return nil
}

// streamBound returns the most bytes the tar stream may hold, read from its
// start, once the manifest has been read at position pos: what the files not
// yet read need, their headers, the head's, the directories', the
// end-of-archive blocks and the padding. A v1 manifest declares no sizes: the
// bound stays MaxTotal.
func (c *content) streamBound(pos int64, seen map[string]bool) int64 {
	m := c.manifest
	if m.Sizes == nil {
		return MaxTotal
	}
	need := pos + 511 + int64(len(bundleDirs))*headerAllowance + 1024 + MaxPadding
	for name, size := range m.Sizes {
		if !seen[name] {
			need += (size+511)/512*512 + headerAllowance
		}
	}
	if !seen[HeadFile] {
		need += MaxNoteBytes + headerAllowance
	}
	return need
}

func validName(name string) bool {
	switch name {
	case ManifestFile, EventsFile, CheckpointFile, ProofsFile, KeysFile, HeadFile:
		return true
	}
	sum, ok := strings.CutPrefix(name, ArtifactsDir)
	return ok && sanad.ValidSHA256Hex(sum)
}
