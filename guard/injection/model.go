package injection

import (
	"bytes"
	_ "embed"
	"encoding/binary"
	"math"

	"github.com/sanadhq/sanad"
)

// Model is a logistic regression over hashed features of folded text (see
// [Train]). A Model is read-only once made and safe for concurrent use.
type Model struct {
	bits uint
	bias float64
	w    []float64
}

// modelMagic starts an encoded [Model].
const modelMagic = "sanad-injection-lr-v1\n"

//go:embed model.bin
var embedded []byte

// Embedded returns the model trained by `go generate ./guard/injection`
// (go run ./guard/injection/train) and built into the binary.
func Embedded() (*Model, error) {
	return DecodeModel(embedded)
}

// Score returns the model's probability that text is an injection.
func (m *Model) Score(text string) float64 {
	v, _ := fold(text)
	return m.score(v.s)
}

// score returns the probability for folded text s.
func (m *Model) score(s string) float64 {
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	chars, words := hashKeys(s, m.bits, sc)
	return sigmoid(m.bias + (dotSorted(chars, m.w)+dotSorted(words, m.w))*(math.Sqrt2/2))
}

func sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}

// Encode returns the model's compact form: the magic line, the number of
// hash bits (one byte), the bias and the weights' scale as float64, then
// every weight as a signed 16-bit multiple of the scale, little-endian.
// Weights are stored rounded; a model decoded from its encoding scores
// exactly as the decoded model does, on every machine.
func (m *Model) Encode() []byte {
	scale, w := m.quantize()
	var b bytes.Buffer
	b.WriteString(modelMagic)
	b.WriteByte(byte(m.bits))
	binary.Write(&b, binary.LittleEndian, m.bias)
	binary.Write(&b, binary.LittleEndian, scale)
	q := make([]byte, 2*len(w))
	for i, x := range w {
		binary.LittleEndian.PutUint16(q[2*i:], uint16(x))
	}
	b.Write(q)
	return b.Bytes()
}

// quantize returns the weights as 16-bit multiples of a scale.
func (m *Model) quantize() (float64, []int16) {
	maxAbs := 0.0
	for _, x := range m.w {
		maxAbs = max(maxAbs, math.Abs(x))
	}
	scale := maxAbs / math.MaxInt16
	if scale == 0 || math.IsNaN(scale) || math.IsInf(scale, 0) {
		scale = 1
	}
	q := make([]int16, len(m.w))
	for i, x := range m.w {
		q[i] = int16(max(-math.MaxInt16, min(math.MaxInt16, math.Round(x/scale))))
	}
	return scale, q
}

// DecodeModel reads a model written by [Model.Encode].
func DecodeModel(data []byte) (*Model, error) {
	const op = "injection.DecodeModel"
	rest, ok := bytes.CutPrefix(data, []byte(modelMagic))
	if !ok || len(rest) < 17 {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "not an injection model (no %q header)", modelMagic[:len(modelMagic)-1])
	}
	bits := uint(rest[0])
	if bits < 8 || bits > 24 {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "hash bits %d, want 8 to 24", bits)
	}
	bias := math.Float64frombits(binary.LittleEndian.Uint64(rest[1:]))
	scale := math.Float64frombits(binary.LittleEndian.Uint64(rest[9:]))
	rest = rest[17:]
	if len(rest) != 2<<bits {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "%d bytes of weights, want %d", len(rest), 2<<bits)
	}
	if math.IsNaN(bias) || math.IsInf(bias, 0) || math.IsNaN(scale) || math.IsInf(scale, 0) || scale <= 0 {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "bias or scale is not a finite number")
	}
	m := &Model{bits: bits, bias: bias, w: make([]float64, 1<<bits)}
	for i := range m.w {
		m.w[i] = float64(int16(binary.LittleEndian.Uint16(rest[2*i:]))) * scale
	}
	return m, nil
}
