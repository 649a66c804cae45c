// Package local is the connector for the local file system: one file, a
// folder (its files, or with Recursive all files below it), or a glob.
//
// Policy:
//
//   - The output's FilePath is the original file, checksummed while read;
//     with Options.CopyLocal the file is copied into the workspace instead,
//     so the file a parser reads later cannot change under its checksum.
//   - A file that changes while it is read (its size or modification time
//     moves, it is replaced, or fewer bytes than its size could be read)
//     fails with connector.ErrChanged (CodeUnavailable, worth a retry).
//     Changes within the file system's timestamp granularity that keep the
//     size are not seen.
//   - Symbolic links found in a folder or glob are followed only to regular
//     files inside the root (the folder, or the glob's literal leading
//     folders). A link leading outside yields an error wrapping
//     connector.ErrOutsideRoot (CodePolicyDenied) and nothing is read; a
//     dangling link yields CodeConnectorNotFound; a link to a folder is not
//     descended (noted in the log). A path named explicitly (not a glob) is
//     followed wherever it leads: the caller chose it.
//   - A file reached twice (by its path and through a link) is yielded once.
//   - In folder and glob listings, names starting with '.' and the system
//     files Thumbs.db, desktop.ini, ehthumbs.db, Icon\r and Office lock
//     files (~$*) are skipped, as are the folders $RECYCLE.BIN,
//     System Volume Information and lost+found, unless
//     Options.IncludeHidden is set or a glob segment itself starts with
//     '.'. Devices, pipes and sockets are always skipped, never opened.
//   - Globs use path.Match per path segment, plus '**' for any number of
//     segments. With Recursive, a glob without '**' matches its last
//     segments at any depth below its literal folder ("/d/*.pdf" is
//     "/d/**/*.pdf").
//   - Listings are in lexical order.
package local

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/connector"
)

const op = "connector.local"

// Connector fetches local files. It is safe for concurrent use.
type Connector struct {
	opt connector.Options
	// afterRead, when set (by tests), runs after a file's bytes are read and
	// before it is checked for changes.
	afterRead func(path string)
}

var _ connector.Fetcher = (*Connector)(nil)

// New returns a local connector. The workspace is needed only with
// opt.CopyLocal.
func New(opt connector.Options) (*Connector, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if opt.CopyLocal && opt.Workspace == "" {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "copying local files needs a workspace directory")
	}
	return &Connector{opt: opt.WithDefaults()}, nil
}

// Fetch yields the files in.SourceIdentifier names (see the package
// documentation). A missing path is CodeConnectorNotFound, an unreadable one
// CodeConnectorAuth.
func (c *Connector) Fetch(ctx context.Context, in connector.Input) iter.Seq2[connector.Output, error] {
	return func(yield func(connector.Output, error) bool) {
		if in.SourceIdentifier == "" {
			yield(connector.Output{}, connector.ItemErr("", sanad.Errorf(sanad.CodeInvalidInput, op, "no path given")))
			return
		}
		abs, err := filepath.Abs(in.SourceIdentifier)
		if err != nil {
			yield(connector.Output{}, connector.ItemErr(in.SourceIdentifier, sanad.Wrap(err, sanad.CodeInvalidInput, op, "cannot make "+in.SourceIdentifier+" absolute")))
			return
		}
		ws := ""
		if c.opt.CopyLocal {
			if ws, err = c.opt.OpenWorkspace(); err != nil {
				yield(connector.Output{}, connector.ItemErr(abs, err))
				return
			}
		}
		f := &fetch{c: c, ctx: ctx, yield: yield, ws: ws, seen: map[string]bool{}}
		if _, err := os.Lstat(abs); err != nil && hasMeta(abs) {
			f.glob(abs, in.Recursive)
			return
		}
		f.path(abs, in.Recursive)
	}
}

// fetch is the state of one Fetch.
type fetch struct {
	c     *Connector
	ctx   context.Context
	yield func(connector.Output, error) bool
	ws    string
	n     int             // items yielded
	seen  map[string]bool // real paths yielded
	stop  bool
}

// emit yields one item, counting it against MaxItems; it reports whether
// to go on.
func (f *fetch) emit(out connector.Output, err error) bool {
	if f.stop {
		return false
	}
	if f.n >= f.c.opt.MaxItems {
		f.yield(connector.Output{}, connector.ItemErr(out.SourceID, sanad.Errorf(sanad.CodePolicyDenied, op, "stopped after %d items, the most one fetch may yield", f.c.opt.MaxItems)))
		f.stop = true
		return false
	}
	f.n++
	if !f.yield(out, err) {
		f.stop = true
	}
	return !f.stop
}

func (f *fetch) fail(source string, err error) bool {
	return f.emit(connector.Output{SourceID: source}, connector.ItemErr(source, err))
}

// path fetches an explicitly named file or folder.
func (f *fetch) path(abs string, recursive bool) {
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		f.fail(abs, statError(err, abs))
		return
	}
	fi, err := os.Stat(real)
	if err != nil {
		f.fail(abs, statError(err, abs))
		return
	}
	switch {
	case fi.Mode().IsRegular():
		root, err := os.OpenRoot(filepath.Dir(real))
		if err != nil {
			f.fail(abs, statError(err, abs))
			return
		}
		defer root.Close()
		f.file(root, filepath.Base(real), abs, "")
	case fi.IsDir():
		f.walk(abs, real, nil, recursive)
	default:
		f.fail(abs, sanad.Errorf(sanad.CodeInvalidInput, op, "%s is not a regular file or a folder (%s)", abs, fi.Mode().Type()))
	}
}

// glob fetches the files matching a pattern.
func (f *fetch) glob(abs string, recursive bool) {
	base, pat := splitGlob(abs)
	if len(pat) > maxPatternSegments {
		f.fail(abs, sanad.Errorf(sanad.CodeInvalidInput, op, "glob %s has more than %d segments", abs, maxPatternSegments))
		return
	}
	for _, s := range pat {
		if _, err := path.Match(s, ""); err != nil {
			f.fail(abs, sanad.Errorf(sanad.CodeInvalidInput, op, "glob %s is malformed: %q", abs, s))
			return
		}
	}
	if recursive && !containsDoubleStar(pat) {
		pat = append([]string{"**"}, pat...)
	}
	real, err := filepath.EvalSymlinks(base)
	if err != nil {
		f.fail(abs, statError(err, base))
		return
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		f.fail(abs, sanad.Errorf(sanad.CodeConnectorNotFound, op, "the folder %s of glob %s does not exist", base, abs))
		return
	}
	f.walk(base, real, pat, true)
}

// walk yields the files below the folder shown as base (real once links
// are resolved): all of them when recursive, the top level otherwise, or
// those matching pat when it is not nil.
func (f *fetch) walk(base, real string, pat []string, recursive bool) {
	root, err := os.OpenRoot(real)
	if err != nil {
		f.fail(base, statError(err, base))
		return
	}
	defer root.Close()
	hidden := f.c.opt.IncludeHidden || mentionsHidden(pat)
	err = fs.WalkDir(root.FS(), ".", func(rel string, d fs.DirEntry, err error) error {
		if f.stop {
			return fs.SkipAll
		}
		if cerr := f.ctx.Err(); cerr != nil {
			f.fail(base, ctxError(cerr, base))
			return fs.SkipAll
		}
		abs := filepath.Join(base, filepath.FromSlash(rel))
		if err != nil {
			if rel == "." {
				f.fail(base, statError(err, base))
				return fs.SkipAll
			}
			if !f.fail(abs, statError(err, abs)) {
				return fs.SkipAll
			}
			return nil
		}
		if rel == "." {
			return nil
		}
		if !hidden && skipped(d.Name(), d.IsDir()) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		segs := strings.Split(rel, "/")
		if d.IsDir() {
			if pat == nil && !recursive || pat != nil && !canContainMatch(pat, segs) {
				return fs.SkipDir
			}
			return nil
		}
		if pat != nil && !matchGlob(pat, segs) {
			return nil
		}
		switch t := d.Type(); {
		case t&fs.ModeSymlink != 0:
			f.link(root, real, base, rel, abs)
		case t.IsRegular():
			f.file(root, filepath.FromSlash(rel), abs, "")
		default:
			f.c.opt.Logger.Info("skipping a file that is not regular", "path", abs, "type", t.String())
		}
		if f.stop {
			return fs.SkipAll
		}
		return nil
	})
	if err != nil && !f.stop {
		f.fail(base, statError(err, base))
	}
}

// link fetches the target of the symbolic link rel if it is a regular file
// inside the root.
func (f *fetch) link(root *os.Root, real, base, rel, abs string) {
	target, err := filepath.EvalSymlinks(filepath.Join(real, filepath.FromSlash(rel)))
	if err != nil {
		f.fail(abs, sanad.Wrap(err, sanad.CodeConnectorNotFound, op, "the symbolic link "+abs+" leads nowhere"))
		return
	}
	in, err := filepath.Rel(real, target)
	if err != nil || in == ".." || strings.HasPrefix(in, ".."+string(filepath.Separator)) || filepath.IsAbs(in) {
		f.fail(abs, sanad.Wrap(connector.ErrOutsideRoot, sanad.CodePolicyDenied, op,
			fmt.Sprintf("the symbolic link %s leads outside %s: skipped", abs, base)))
		return
	}
	fi, err := root.Stat(in)
	if err != nil {
		f.fail(abs, statError(err, abs))
		return
	}
	if fi.IsDir() {
		f.c.opt.Logger.Info("not descending a symbolic link to a folder", "path", abs)
		return
	}
	if !fi.Mode().IsRegular() {
		f.c.opt.Logger.Info("skipping a link to a file that is not regular", "path", abs)
		return
	}
	f.file(root, in, filepath.Join(base, in), abs)
}

// file reads the regular file rel of root, shown as abs, and yields it.
// via is the link it was reached through, if any.
func (f *fetch) file(root *os.Root, rel, abs, via string) {
	if f.seen[abs] {
		return
	}
	out, err := f.c.read(root, rel, abs, f.ws)
	if err != nil {
		f.fail(abs, err)
		return
	}
	f.seen[abs] = true
	if via != "" {
		out.SourceMetadata["link"] = via
	}
	f.emit(out, nil)
}

// read checksums (or copies) one file and checks it did not change meanwhile.
func (c *Connector) read(root *os.Root, rel, abs, ws string) (connector.Output, error) {
	fh, err := root.Open(rel)
	if err != nil {
		return connector.Output{}, statError(err, abs)
	}
	defer fh.Close()
	before, err := fh.Stat()
	if err != nil {
		return connector.Output{}, statError(err, abs)
	}
	if !before.Mode().IsRegular() {
		return connector.Output{}, sanad.Errorf(sanad.CodeInvalidInput, op, "%s is not a regular file", abs)
	}
	if before.Size() > c.opt.MaxBytes {
		return connector.Output{}, tooLarge(abs, c.opt.MaxBytes)
	}
	var (
		size     int64
		checksum string
		head     []byte
		path     = abs
	)
	if ws != "" {
		st, err := connector.Store(ws, fh, c.opt.MaxBytes, abs, func([]byte) string { return strings.ToLower(filepath.Ext(abs)) })
		if err != nil {
			var se *sanad.Error
			if errors.As(err, &se) {
				return connector.Output{}, err
			}
			return connector.Output{}, sanad.Wrap(err, sanad.CodeInternal, op, "cannot read "+abs)
		}
		size, checksum, head, path = st.Size, st.Checksum, st.Head, st.Path
	} else {
		h := sha256.New()
		hd := make([]byte, 0, connector.SniffLen)
		buf := make([]byte, 64<<10)
		for {
			n, err := fh.Read(buf)
			if n > 0 {
				h.Write(buf[:n])
				if room := connector.SniffLen - len(hd); room > 0 {
					hd = append(hd, buf[:min(n, room)]...)
				}
				size += int64(n)
				if size > c.opt.MaxBytes {
					return connector.Output{}, tooLarge(abs, c.opt.MaxBytes)
				}
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				return connector.Output{}, sanad.Wrap(err, sanad.CodeInternal, op, "cannot read "+abs)
			}
		}
		checksum, head = "sha256:"+hex.EncodeToString(h.Sum(nil)), hd
	}
	if c.afterRead != nil {
		c.afterRead(abs)
	}
	after, err := fh.Stat()
	if err != nil {
		return connector.Output{}, statError(err, abs)
	}
	now, err := root.Stat(rel)
	if err != nil || size != before.Size() || after.Size() != before.Size() ||
		!after.ModTime().Equal(before.ModTime()) || !os.SameFile(before, now) {
		if ws != "" {
			os.Remove(path)
		}
		return connector.Output{}, sanad.Wrap(connector.ErrChanged, sanad.CodeUnavailable, op,
			abs+" changed while it was read: fetch it again when it is no longer being written")
	}
	ct := connector.DetectType("", abs, head)
	mod := before.ModTime().UTC()
	return connector.Output{
		FilePath:      path,
		FileSizeBytes: size,
		Checksum:      checksum,
		SourceID:      abs,
		ModifiedTime:  mod,
		MimeType:      ct.Chosen,
		SourceMetadata: map[string]any{
			"path":          abs,
			"name":          filepath.Base(abs),
			"size":          size,
			"mode":          before.Mode().String(),
			"modified_time": mod,
			"sniffed_type":  ct.Sniffed,
		},
	}, nil
}

func tooLarge(abs string, max int64) error {
	return sanad.Wrap(connector.ErrTooLarge, sanad.CodePolicyDenied, op, fmt.Sprintf("%s is larger than the cap of %d bytes", abs, max))
}

// statError classifies a file system error on name.
func statError(err error, name string) error {
	var se *sanad.Error
	switch {
	case errors.As(err, &se):
		return err
	case errors.Is(err, fs.ErrNotExist):
		return sanad.Wrap(err, sanad.CodeConnectorNotFound, op, name+" does not exist")
	case errors.Is(err, fs.ErrPermission):
		return sanad.Wrap(err, sanad.CodeConnectorAuth, op, "no permission to read "+name)
	case strings.Contains(err.Error(), "path escapes from parent"):
		// os.Root refused a link that leads out of it.
		return sanad.Wrap(connector.ErrOutsideRoot, sanad.CodePolicyDenied, op, name+" leads outside its folder: skipped")
	}
	return sanad.Wrap(err, sanad.CodeInternal, op, "cannot read "+name)
}

func ctxError(err error, name string) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return sanad.Wrap(err, sanad.CodeTimeout, op, "the deadline passed while listing "+name)
	}
	return sanad.Wrap(err, sanad.CodeCancelled, op, "listing "+name+" was cancelled")
}

// skipped reports whether a listing leaves name out as hidden or a system
// file.
func skipped(name string, dir bool) bool {
	if strings.HasPrefix(name, ".") {
		return true
	}
	if dir {
		switch name {
		case "$RECYCLE.BIN", "System Volume Information", "lost+found":
			return true
		}
		return false
	}
	switch strings.ToLower(name) {
	case "thumbs.db", "desktop.ini", "ehthumbs.db", "icon\r":
		return true
	}
	return strings.HasPrefix(name, "~$")
}
