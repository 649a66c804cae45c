package pdf

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"unicode"
)

// OCR recognises the words on an image of a page. Implementations must be
// safe for concurrent use.
type OCR interface {
	// Recognize returns the words of img with their boxes in img's pixels.
	// An engine that is not installed returns an error wrapping
	// [ErrOCRUnavailable] (or exec.ErrNotFound).
	Recognize(ctx context.Context, img image.Image) ([]OCRWord, error)
}

// OCRFunc adapts a function to [OCR].
type OCRFunc func(ctx context.Context, img image.Image) ([]OCRWord, error)

// Recognize calls f.
func (f OCRFunc) Recognize(ctx context.Context, img image.Image) ([]OCRWord, error) {
	return f(ctx, img)
}

// OCRWord is one recognised word.
type OCRWord struct {
	Text string
	// Box is the word's box in the image's pixels.
	Box image.Rectangle
	// Line groups the words of one text line: words with the same non-zero
	// Line were recognised as one line. Zero means unknown.
	Line int
	// Confidence is the engine's confidence, 0 to 100, or -1 when unknown.
	Confidence float64
}

// ErrOCRUnavailable reports that no OCR engine is installed.
var ErrOCRUnavailable = errors.New("pdf: OCR engine not installed")

// Availability is an optional capability of an [OCR]: whether it can run at
// all, checked before pages are rendered for it.
type Availability interface {
	Available() error
}

// Tesseract runs the tesseract command. The zero value uses "tesseract" from
// PATH and English.
type Tesseract struct {
	// Command is the program to run; default "tesseract".
	Command string
	// Languages is tesseract's -l argument; default "eng".
	Languages string
}

var (
	_ OCR          = Tesseract{}
	_ Availability = Tesseract{}
)

func (t Tesseract) command() string {
	if t.Command != "" {
		return t.Command
	}
	return "tesseract"
}

// Available reports whether the command can be found.
func (t Tesseract) Available() error {
	if _, err := exec.LookPath(t.command()); err != nil {
		return fmt.Errorf("%w: %w", ErrOCRUnavailable, err)
	}
	return nil
}

// Recognize runs tesseract on img and reads its TSV output.
func (t Tesseract) Recognize(ctx context.Context, img image.Image) ([]OCRWord, error) {
	path, err := exec.LookPath(t.command())
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOCRUnavailable, err)
	}
	var in bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&in, img); err != nil {
		return nil, err
	}
	lang := t.Languages
	if lang == "" {
		lang = "eng"
	}
	cmd := exec.CommandContext(ctx, path, "stdin", "stdout", "-l", lang, "--psm", "3", "tsv")
	cmd.Stdin = &in
	// One thread per page: pages are recognised side by side already.
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 200 {
			msg = msg[:200]
		}
		return nil, fmt.Errorf("pdf: tesseract: %w: %s", err, msg)
	}
	return parseTSV(out.Bytes()), nil
}

// parseTSV reads tesseract's TSV: level, page, block, paragraph, line, word,
// left, top, width, height, confidence, text.
func parseTSV(b []byte) []OCRWord {
	var words []OCRWord
	lines := map[[3]int]int{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) < 12 || f[0] != "5" {
			continue
		}
		text := strings.TrimSpace(f[11])
		if text == "" {
			continue
		}
		n := make([]int, 10)
		for i := range n {
			n[i], _ = strconv.Atoi(f[i])
		}
		key := [3]int{n[2], n[3], n[4]}
		id, ok := lines[key]
		if !ok {
			id = len(lines) + 1
			lines[key] = id
		}
		conf, err := strconv.ParseFloat(f[10], 64)
		if err != nil {
			conf = -1
		}
		words = append(words, OCRWord{
			Text:       text,
			Box:        image.Rect(n[6], n[7], n[6]+n[8], n[7]+n[9]),
			Line:       id,
			Confidence: conf,
		})
	}
	return words
}

// ocrUnavailable reports whether err says the engine is not installed.
func ocrUnavailable(err error) bool {
	return errors.Is(err, ErrOCRUnavailable) || errors.Is(err, exec.ErrNotFound)
}

// ocrWords turns recognised words into page words: pixels to points, and
// every word of a line given the line's height so that the line reads as
// one.
func ocrWords(ws []OCRWord, scale float64) []word {
	type span struct{ y0, y1 int }
	lineBox := map[int]span{}
	for _, w := range ws {
		if w.Line == 0 {
			continue
		}
		s, ok := lineBox[w.Line]
		if !ok {
			s = span{w.Box.Min.Y, w.Box.Max.Y}
		}
		s.y0, s.y1 = min(s.y0, w.Box.Min.Y), max(s.y1, w.Box.Max.Y)
		lineBox[w.Line] = s
	}
	out := make([]word, 0, len(ws))
	for _, w := range ws {
		if w.Confidence >= 0 && w.Confidence < 20 && !hasLetterOrDigit(w.Text) {
			continue // specks read as punctuation
		}
		y0, y1 := w.Box.Min.Y, w.Box.Max.Y
		if s, ok := lineBox[w.Line]; ok && w.Line != 0 {
			y0, y1 = s.y0, s.y1
		}
		r := rect{float64(w.Box.Min.X) * scale, float64(y0) * scale, float64(w.Box.Max.X) * scale, float64(y1) * scale}
		out = append(out, word{text: w.Text, rect: r, size: r.h(), rtl: rtlText(w.Text), pitch: -1})
	}
	return out
}

func hasLetterOrDigit(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return true
		}
	}
	return false
}

func rtlText(s string) bool {
	n, rtl := 0, 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			n++
			if isRTL(r) {
				rtl++
			}
		}
	}
	return rtl*2 > n
}

// charStats counts what a page's text layer is made of, to judge whether
// it can be trusted.
type charStats struct {
	total    int // characters other than white space
	unmapped int // no Unicode value, U+FFFD, or private use
	control  int // non-printing characters other than white space
	letters  int
	digits   int
	latin    int // Latin letters
	vowels   int // Latin vowels
}

func (s *charStats) add(r rune) {
	if unicode.IsSpace(r) {
		return
	}
	s.total++
	switch {
	case r == 0 || r == unicode.ReplacementChar || unicode.Is(unicode.Co, r):
		s.unmapped++
	case unicode.IsControl(r) || unicode.Is(unicode.Cf, r) && r != 0x200C && r != 0x200D && r != 0xAD:
		s.control++
	case unicode.IsLetter(r):
		s.letters++
		if unicode.Is(unicode.Latin, r) {
			s.latin++
			if isVowel(r) {
				s.vowels++
			}
		}
	case unicode.IsDigit(r):
		s.digits++
	}
}

func isVowel(r rune) bool {
	switch unicode.ToLower(r) {
	case 'a', 'e', 'i', 'o', 'u', 'y', 'à', 'á', 'â', 'ä', 'ã', 'å', 'è', 'é', 'ê', 'ë', 'ì', 'í', 'î', 'ï', 'ò', 'ó', 'ô', 'ö', 'õ', 'ù', 'ú', 'û', 'ü', 'ý', 'ÿ', 'æ', 'ø', 'œ':
		return true
	}
	return false
}

// Thresholds of [garbled]: a text layer is not trusted when more than
// maxUnmapped of its characters have no Unicode value, more than maxControl
// are non-printing (a symbol font's bullets and boxes come out as control
// codes, so a few are normal), fewer than minAlnum are letters or digits, or its Latin
// letters have fewer vowels than minVowels or more than maxVowels (natural
// languages written in Latin script lie between about 0.25 and 0.55).
const (
	maxUnmapped      = 0.10
	maxControl       = 0.15
	minAlnum         = 0.40
	minVowels        = 0.12
	maxVowels        = 0.70
	minCharsToJudge  = 40
	minLatinToJudge  = 80
	minTextLayerRune = 3
)

// garbled reports whether a page's text layer is missing or unusable, and
// why. A short text layer is judged only on unmapped and non-printing
// characters: a few words say little about letter statistics.
func garbled(s charStats) (bool, string) {
	if s.total < minTextLayerRune {
		return true, "no text layer"
	}
	share := func(n int) float64 { return float64(n) / float64(s.total) }
	if share(s.unmapped) > maxUnmapped {
		return true, fmt.Sprintf("%.0f%% of its characters have no Unicode mapping", 100*share(s.unmapped))
	}
	if share(s.control) > maxControl {
		return true, fmt.Sprintf("%.0f%% of its characters are non-printing", 100*share(s.control))
	}
	if s.total < minCharsToJudge {
		return false, ""
	}
	if share(s.letters+s.digits) < minAlnum {
		return true, fmt.Sprintf("only %.0f%% of its characters are letters or digits", 100*share(s.letters+s.digits))
	}
	if s.latin >= minLatinToJudge {
		v := float64(s.vowels) / float64(s.latin)
		if v < minVowels || v > maxVowels {
			return true, fmt.Sprintf("its Latin letters are %.0f%% vowels", 100*v)
		}
	}
	return false, ""
}
