package pdf

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"unicode/utf16"

	"github.com/klippa-app/go-pdfium"
	"github.com/tetratelabs/wazero/api"
)

// native calls pdfium's C functions in an instance's WebAssembly module
// directly. go-pdfium's request API looks each function up again on every
// call, and wazero then allocates a fresh 10 KiB stack for it: reading a
// page one character at a time spent most of its time there. native looks
// each function up once and reuses one scratch buffer for out-parameters.
//
// The caller's context is checked before every call, so a deadline takes
// effect at the next call (pdfium's calls are short: one page at most).
// In an interruptible pool (PoolConfig.Interruptible) the context is also
// passed to the call, and the runtime stops a call in progress when it
// ends.
//
// The module comes from the instance's GetImplementation, which go-pdfium
// documents as the runtime's own implementation; for WebAssembly that is a
// struct with the module in its exported field Module. nativeOf fails
// cleanly if a later go-pdfium version changes that.
//
// A native is used by one goroutine at a time, like its instance.
type native struct {
	ctx     context.Context // passed to calls
	done    context.Context // the caller's
	mod     api.Module
	mem     api.Memory
	fns     map[string]api.Function
	scratch uint32 // scratchSize bytes for out-parameters
}

const scratchSize = 256

var errNoModule = errors.New("pdf: pdfium instance does not expose its WebAssembly module")

func nativeOf(ctx context.Context, inst pdfium.Pdfium, interruptible bool) (*native, error) {
	impl := reflect.ValueOf(inst.GetImplementation())
	for impl.Kind() == reflect.Pointer || impl.Kind() == reflect.Interface {
		if impl.IsNil() {
			return nil, errNoModule
		}
		impl = impl.Elem()
	}
	if impl.Kind() != reflect.Struct {
		return nil, errNoModule
	}
	f := impl.FieldByName("Module")
	if !f.IsValid() || !f.CanInterface() {
		return nil, errNoModule
	}
	mod, ok := f.Interface().(api.Module)
	if !ok || mod == nil {
		return nil, errNoModule
	}
	n := &native{ctx: context.WithoutCancel(ctx), done: ctx, mod: mod, mem: mod.Memory(), fns: map[string]api.Function{}}
	if interruptible {
		n.ctx = ctx
	}
	p, err := n.malloc(scratchSize)
	if err != nil {
		return nil, err
	}
	n.scratch = p
	return n, nil
}

// call calls an exported function and returns its first result.
func (n *native) call(name string, args ...uint64) (uint64, error) {
	fn, ok := n.fns[name]
	if !ok {
		fn = n.mod.ExportedFunction(name)
		if fn == nil {
			return 0, fmt.Errorf("pdf: pdfium has no function %s", name)
		}
		n.fns[name] = fn
	}
	if err := n.done.Err(); err != nil {
		return 0, err
	}
	res, err := fn.Call(n.ctx, args...)
	if err != nil {
		if n.done.Err() != nil {
			return 0, n.done.Err()
		}
		return 0, fmt.Errorf("pdf: %s: %w", name, err)
	}
	if len(res) == 0 {
		return 0, nil
	}
	return res[0], nil
}

// callInt calls a function returning a C int.
func (n *native) callInt(name string, args ...uint64) (int, error) {
	r, err := n.call(name, args...)
	return int(int32(uint32(r))), err
}

// callBool calls a function returning FPDF_BOOL.
func (n *native) callBool(name string, args ...uint64) (bool, error) {
	r, err := n.call(name, args...)
	return err == nil && uint32(r) != 0, err
}

func (n *native) malloc(size int) (uint32, error) {
	r, err := n.call("malloc", uint64(size))
	if err != nil {
		return 0, err
	}
	if r == 0 {
		return 0, errors.New("pdf: pdfium is out of memory")
	}
	return uint32(r), nil
}

func (n *native) free(p uint32) {
	if p != 0 {
		n.call("free", uint64(p))
	}
}

// out returns the address of the i-th 4-byte slot of the scratch buffer.
func (n *native) out(i int) uint64 { return uint64(n.scratch + uint32(4*i)) }

func (n *native) f32(i int) float64 {
	v, _ := n.mem.ReadFloat32Le(n.scratch + uint32(4*i))
	return float64(v)
}

func (n *native) u32(i int) uint32 {
	v, _ := n.mem.ReadUint32Le(n.scratch + uint32(4*i))
	return v
}

func f32arg(v float64) uint64 { return api.EncodeF32(float32(v)) }

// pdfDoc is a document open in a native instance.
type pdfDoc struct {
	n    *native
	doc  uint64
	data uint32 // the file's bytes in the module's memory
}

// pdfium's error codes (FPDF_GetLastError).
const (
	errUnknown  = 1
	errFile     = 2
	errFormat   = 3
	errPassword = 4
	errSecurity = 5
	errPage     = 6
)

// openDocument copies data into the module and opens it. The error is
// pdfium's last error code, as openError expects it.
func (n *native) openDocument(data []byte) (*pdfDoc, error) {
	p, err := n.malloc(len(data))
	if err != nil {
		return nil, err
	}
	if !n.mem.Write(p, data) {
		n.free(p)
		return nil, errors.New("pdf: could not copy the file into pdfium's memory")
	}
	doc, err := n.call("FPDF_LoadMemDocument", uint64(p), uint64(len(data)), 0)
	if err != nil {
		n.free(p)
		return nil, err
	}
	if uint32(doc) == 0 {
		code, _ := n.call("FPDF_GetLastError")
		n.free(p)
		return nil, pdfiumError(int(code))
	}
	return &pdfDoc{n: n, doc: doc, data: p}, nil
}

// pdfiumError is an error for one of pdfium's error codes.
type pdfiumError int

func (e pdfiumError) Error() string {
	switch int(e) {
	case errFile:
		return "the file could not be read"
	case errFormat:
		return "the file is not a PDF or is damaged"
	case errPassword:
		return "a password is needed"
	case errSecurity:
		return "unsupported security handler"
	case errPage:
		return "page not found or damaged"
	}
	return fmt.Sprintf("pdfium error %d", int(e))
}

func (d *pdfDoc) close() {
	d.n.call("FPDF_CloseDocument", d.doc)
	d.n.free(d.data)
}

func (d *pdfDoc) pageCount() (int, error) {
	return d.n.callInt("FPDF_GetPageCount", d.doc)
}

// metaText reads one entry of the document information dictionary.
func (d *pdfDoc) metaText(tag string) string {
	n := d.n
	tp, err := n.malloc(len(tag) + 1)
	if err != nil {
		return ""
	}
	defer n.free(tp)
	n.mem.Write(tp, append([]byte(tag), 0))
	size, err := n.call("FPDF_GetMetaText", d.doc, uint64(tp), 0, 0)
	if err != nil || uint32(size) <= 2 || uint32(size) > 1<<16 {
		return ""
	}
	buf, err := n.malloc(int(uint32(size)))
	if err != nil {
		return ""
	}
	defer n.free(buf)
	if _, err := n.call("FPDF_GetMetaText", d.doc, uint64(tp), uint64(buf), size); err != nil {
		return ""
	}
	b, _ := n.mem.Read(buf, uint32(size))
	return utf16le(b)
}

func (d *pdfDoc) fileVersion() int {
	if ok, _ := d.n.callBool("FPDF_GetFileVersion", d.doc, d.n.out(0)); ok {
		return int(d.n.u32(0))
	}
	return 0
}

// utf16le decodes UTF-16LE up to its terminating zero.
func utf16le(b []byte) string {
	u := make([]uint16, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		c := uint16(b[i]) | uint16(b[i+1])<<8
		if c == 0 {
			break
		}
		u = append(u, c)
	}
	return string(utf16.Decode(u))
}
