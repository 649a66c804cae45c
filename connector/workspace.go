package connector

import (
	"bytes"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/sanadhq/sanad"
)

// SniffLen is how many leading bytes a Stored file keeps for content-type
// sniffing (as net/http.DetectContentType reads).
const SniffLen = 512

// Stored is a file written complete into the workspace.
type Stored struct {
	// Path is the absolute path: the workspace, then the SHA-256 in hex and
	// the extension given to Store.
	Path string
	// Size is the number of bytes written.
	Size int64
	// Checksum is "sha256:<hex>".
	Checksum string
	// MD5 is the MD5 in hex, for comparing with sources that publish one.
	MD5 string
	// Head holds the first SniffLen bytes.
	Head []byte
}

// Store copies r into the workspace dir: to a temporary file first, hashed
// while written and synced, then renamed to its checksum and the extension
// ext returns given the first SniffLen bytes (none when ext is nil), so a
// file under a final name is always complete and its name says its content.
// An extension is kept only if it is '.' and 1 to 10 lowercase letters or
// digits.
//
// Reading more than maxBytes fails with an error wrapping ErrTooLarge
// (CodePolicyDenied) after reading maxBytes+1 bytes at most. A read error of
// r is returned as it is, not as a *sanad.Error, so that a caller may retry
// it; a write error is CodeInternal. On any error nothing is left behind.
func Store(dir string, r io.Reader, maxBytes int64, source string, ext func(head []byte) string) (Stored, error) {
	const op = "connector.store"
	f, err := os.CreateTemp(dir, ".part-*")
	if err != nil {
		return Stored{}, sanad.Wrap(err, sanad.CodeInternal, op, "cannot create a file in the workspace for "+source)
	}
	tmp := f.Name()
	done := false
	defer func() {
		if !done {
			f.Close()
			os.Remove(tmp)
		}
	}()
	sum, sum5 := sha256.New(), md5.New()
	head := &prefix{max: SniffLen}
	cw := &countWriter{w: io.MultiWriter(f, sum, sum5, head)}
	_, err = io.Copy(cw, &readSide{r: io.LimitReader(r, maxBytes+1)})
	var re readErr
	switch {
	case errors.As(err, &re):
		return Stored{}, re.err
	case err != nil:
		return Stored{}, sanad.Wrap(err, sanad.CodeInternal, op, "cannot write the workspace file for "+source)
	}
	if cw.n > maxBytes {
		return Stored{}, sanad.Wrap(ErrTooLarge, sanad.CodePolicyDenied, op, fmt.Sprintf("%s is larger than the cap of %d bytes", source, maxBytes))
	}
	if err := f.Sync(); err != nil {
		return Stored{}, sanad.Wrap(err, sanad.CodeInternal, op, "cannot sync the workspace file for "+source)
	}
	if err := f.Close(); err != nil {
		return Stored{}, sanad.Wrap(err, sanad.CodeInternal, op, "cannot close the workspace file for "+source)
	}
	hexSum := hex.EncodeToString(sum.Sum(nil))
	suffix := ""
	if ext != nil {
		suffix = SafeExt(ext(head.b.Bytes()))
	}
	final := filepath.Join(dir, hexSum+suffix)
	if err := os.Rename(tmp, final); err != nil {
		return Stored{}, sanad.Wrap(err, sanad.CodeInternal, op, "cannot name the workspace file for "+source)
	}
	done = true
	return Stored{
		Path:     final,
		Size:     cw.n,
		Checksum: "sha256:" + hexSum,
		MD5:      hex.EncodeToString(sum5.Sum(nil)),
		Head:     head.b.Bytes(),
	}, nil
}

// SafeExt returns ext if it is '.' followed by 1 to 10 lowercase ASCII
// letters or digits, and "" otherwise.
func SafeExt(ext string) string {
	if len(ext) < 2 || len(ext) > 11 || ext[0] != '.' {
		return ""
	}
	for i := 1; i < len(ext); i++ {
		c := ext[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9') {
			return ""
		}
	}
	return ext
}

// readErr marks an error of the source reader, as opposed to the writer.
type readErr struct{ err error }

func (e readErr) Error() string { return e.err.Error() }

type readSide struct{ r io.Reader }

func (s *readSide) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF {
		err = readErr{err}
	}
	return n, err
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// prefix keeps the first max bytes written to it.
type prefix struct {
	b   bytes.Buffer
	max int
}

func (p *prefix) Write(b []byte) (int, error) {
	if room := p.max - p.b.Len(); room > 0 {
		p.b.Write(b[:min(room, len(b))])
	}
	return len(b), nil
}

// readAllMax reads r to its end, failing past max bytes.
func readAllMax(r io.Reader, max int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("more than %d bytes: %w", max, ErrTooLarge)
	}
	return b, nil
}
