package pdf

import (
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/document"
	"github.com/sanadhq/sanad/internal/sharedtest"
)

func TestParseSimple(t *testing.T) {
	data := buildPDF([]string{textStream("Quarterly report", "", "Revenue grew in every region.")}, false)
	doc, err := Parse(context.Background(), data, Options{Pool: testPool, OCR: noOCR})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Format != "pdf" || doc.Pages != 1 {
		t.Errorf("got format %q, %d pages, want pdf, 1", doc.Format, doc.Pages)
	}
	md := doc.Markdown()
	for _, want := range []string{"Quarterly report", "Revenue grew in every region."} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown %q lacks %q", md, want)
		}
	}
	for _, b := range doc.Blocks {
		if b.Page != 1 || len(b.BBox) != 4 || b.BBox[0] < 71 || b.BBox[1] < 60 || b.BBox[1] > 120 && b.Text == "Quarterly report" {
			t.Errorf("block %+v: want page 1 and a box near the top left", b)
		}
	}
}

// sanadCode returns err's code, failing when err is not a *sanad.Error.
func sanadCode(tb testing.TB, err error) sanad.Code {
	tb.Helper()
	var se *sanad.Error
	if !errors.As(err, &se) {
		tb.Fatalf("error %v (%T) is not a *sanad.Error", err, err)
	}
	return se.Code
}

func TestParseRejects(t *testing.T) {
	good := buildPDF([]string{textStream("Hello")}, false)
	tests := []struct {
		name string
		data []byte
		opts Options
		want sanad.Code
	}{
		{"empty", nil, Options{}, sanad.CodeParserUnsupported},
		{"zero bytes", []byte{}, Options{}, sanad.CodeParserUnsupported},
		{"garbage", []byte("this is not a PDF at all, just some text\n"), Options{}, sanad.CodeParserUnsupported},
		{"header then garbage", append([]byte("%PDF-1.7\n"), junk(4096)...), Options{}, sanad.CodeParserUnsupported},
		{"truncated to the header", good[:20], Options{}, sanad.CodeParserUnsupported},
		{"truncated mid-object", good[:len(good)/3], Options{}, sanad.CodeParserUnsupported},
		{"too large", good, Options{MaxBytes: 100}, sanad.CodeParserUnsupported},
		{"encrypted", buildPDF([]string{textStream("Secret")}, true), Options{}, sanad.CodeParserEncrypted},
		{"deadline", good, Options{Timeout: time.Nanosecond}, sanad.CodeTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Pool = testPool
			tt.opts.OCR = noOCR
			doc, err := Parse(context.Background(), tt.data, tt.opts)
			if err == nil {
				t.Fatalf("Parse succeeded with %d blocks, want %s", len(doc.Blocks), tt.want)
			}
			if got := sanadCode(t, err); got != tt.want {
				t.Errorf("got code %s (%v), want %s", got, err, tt.want)
			}
		})
	}
}

func junk(n int) []byte {
	out := make([]byte, n)
	for i := range out {
		out[i] = 0x9c + byte(i%7)
	}
	return out
}

func TestParseCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Parse(ctx, buildPDF([]string{textStream("Hello")}, false), Options{Pool: testPool, OCR: noOCR})
	if got := sanadCode(t, err); got != sanad.CodeCancelled {
		t.Errorf("got %s, want %s", got, sanad.CodeCancelled)
	}
}

func TestParseMaxPages(t *testing.T) {
	var pages []string
	for i := range 5 {
		pages = append(pages, textStream(fmt.Sprintf("Body text of page number %d.", i+1)))
	}
	doc, err := Parse(context.Background(), buildPDF(pages, false), Options{Pool: testPool, OCR: noOCR, MaxPages: 2})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Pages != 5 {
		t.Errorf("Pages = %d, want 5 (the file's count)", doc.Pages)
	}
	for _, b := range doc.Blocks {
		if b.Page > 2 {
			t.Errorf("block from page %d, want only pages 1 and 2", b.Page)
		}
	}
	if !hasNote(doc, 0, "truncated") {
		t.Errorf("notes %v, want a truncated note", doc.Notes)
	}
}

func hasNote(doc *document.Document, page int, code string) bool {
	for _, n := range doc.Notes {
		if n.Page == page && n.Code == code {
			return true
		}
	}
	return false
}

func TestOCRUnavailableNote(t *testing.T) {
	// Page 1 has text; page 2 has none (a scan would look like this).
	data := buildPDF([]string{textStream("A page with a text layer."), "q Q"}, false)
	notInstalled := OCRFunc(func(context.Context, image.Image) ([]OCRWord, error) {
		return nil, fmt.Errorf("running tesseract: %w", exec.ErrNotFound)
	})
	doc, err := Parse(context.Background(), data, Options{Pool: testPool, OCR: notInstalled})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Pages != 2 {
		t.Errorf("Pages = %d, want 2", doc.Pages)
	}
	want := document.Note{Page: 2, Code: "ocr_unavailable", Text: "page 2 has no usable text layer and tesseract is not installed"}
	found := false
	for _, n := range doc.Notes {
		if n == want {
			found = true
		}
		if n.Page == 1 {
			t.Errorf("note %+v on page 1, which has a text layer", n)
		}
	}
	if !found {
		t.Errorf("notes %+v, want %+v", doc.Notes, want)
	}
	if !strings.Contains(doc.Markdown(), "A page with a text layer.") {
		t.Errorf("Markdown %q lost page 1's text", doc.Markdown())
	}
}

func TestOCRUsedOnPagesWithoutText(t *testing.T) {
	data := buildPDF([]string{textStream("A page with a text layer."), "q Q"}, false)
	calls := 0
	fake := OCRFunc(func(_ context.Context, img image.Image) ([]OCRWord, error) {
		calls++
		b := img.Bounds()
		if b.Dx() < 2000 || b.Dy() < 3000 {
			t.Errorf("page rendered at %v, want about 2550x3300 (300 dpi)", b)
		}
		return []OCRWord{
			{Text: "Recognised", Box: image.Rect(300, 300, 700, 350), Line: 1, Confidence: 95},
			{Text: "words.", Box: image.Rect(720, 300, 900, 350), Line: 1, Confidence: 95},
		}, nil
	})
	doc, err := Parse(context.Background(), data, Options{Pool: testPool, OCR: fake})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 1 {
		t.Errorf("OCR ran %d times, want once (page 2 only)", calls)
	}
	if !hasNote(doc, 2, "ocr_used") {
		t.Errorf("notes %+v, want ocr_used on page 2", doc.Notes)
	}
	var ocr *document.Block
	for i, b := range doc.Blocks {
		if b.Page == 2 {
			ocr = &doc.Blocks[i]
		}
	}
	if ocr == nil || ocr.Text != "Recognised words." || ocr.Source != "ocr" {
		t.Fatalf("page 2 block %+v, want the recognised text marked ocr", ocr)
	}
	// 300 px at 300 dpi is 72 points.
	if ocr.BBox[0] < 71 || ocr.BBox[0] > 73 {
		t.Errorf("bbox %v, want x1 = 72 points", ocr.BBox)
	}
}

func TestForceOCRWithTesseract(t *testing.T) {
	if _, err := exec.LookPath("tesseract"); err != nil {
		t.Skip("tesseract is not installed")
	}
	data := buildPDF([]string{textStream("The quick brown fox jumps over the lazy dog.", "Invoice number 4711 is due in March.")}, false)
	doc, err := Parse(context.Background(), data, Options{Pool: testPool, ForceOCR: true})
	if err != nil {
		t.Fatal(err)
	}
	if !hasNote(doc, 1, "ocr_used") {
		t.Errorf("notes %+v, want ocr_used on page 1", doc.Notes)
	}
	md := doc.Markdown()
	for _, want := range []string{"quick brown fox", "4711"} {
		if !strings.Contains(md, want) {
			t.Errorf("OCR text %q lacks %q", md, want)
		}
	}
	for _, b := range doc.Blocks {
		if b.Source != "ocr" {
			t.Errorf("block %+v not marked ocr", b)
		}
	}
}

func TestGarbled(t *testing.T) {
	stats := func(s string) charStats {
		var cs charStats
		for _, r := range s {
			cs.add(r)
		}
		return cs
	}
	english := strings.Repeat("The committee reviewed the contract and found no material breach. ", 4)
	tests := []struct {
		name string
		text string
		want bool
	}{
		{"no text", "", true},
		{"two characters", "ab", true},
		{"english prose", english, false},
		{"a short heading", "Annex B", false},
		{"a table of numbers", strings.Repeat("2014 3.2 4.5 -1.7 12,345 (35,8) ", 6), false},
		{"arabic", strings.Repeat("وعليه، فإن الحكومة المصرية تضع ", 5), false},
		{"chinese", strings.Repeat("株主資本等変動計算書連結会計年度", 5), false},
		{"unmapped glyphs", strings.Repeat("ab\x00\x00 ", 20), true},
		{"replacement characters", english + strings.Repeat("\uFFFD", 40), true},
		{"private use", english[:100] + strings.Repeat("\uE001\uE002 ", 10), true},
		{"control codes", english[:100] + strings.Repeat("\x01\x02\x03", 12), true},
		{"a few symbol-font bullets", english + strings.Repeat("\x84 ", 4), false},
		{"symbols", strings.Repeat("#$%&*+<=>@[]^_{|}~ ", 5), true},
		{"consonant soup", strings.Repeat("Xkcd bbrt ztkl mnvw qrst ", 6), true},
	}
	for _, tt := range tests {
		got, why := garbled(stats(tt.text))
		if got != tt.want {
			t.Errorf("%s: garbled = %v (%s), want %v", tt.name, got, why, tt.want)
		}
		if got && why == "" {
			t.Errorf("%s: garbled with no reason", tt.name)
		}
	}
}

// fuzzSeeds are the real PDFs of the shared test data.
func fuzzSeeds(tb testing.TB) []string {
	var files []string
	for _, dir := range [][]string{{"docparse", "docling", "tests", "data", "pdf", "sources"}, {"docparse", "tabula"}} {
		d := sharedtest.Dir(tb, dir...)
		fs, _ := filepath.Glob(filepath.Join(d, "*.pdf"))
		files = append(files, fs...)
	}
	return files
}

func FuzzParse(f *testing.F) {
	f.Add(buildPDF([]string{textStream("Hello")}, false))
	f.Add(buildPDF([]string{textStream("Secret")}, true))
	f.Add([]byte("%PDF-1.4\n"))
	for _, path := range fuzzSeeds(f) {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		// Seeds are kept small so that running them as tests stays quick.
		if len(data) < 200<<10 {
			f.Add(data)
		}
		f.Add(data[:len(data)/2])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		doc, err := Parse(ctx, data, Options{Pool: testPool, OCR: noOCR, MaxPages: 20})
		if err != nil {
			switch code := sanadCode(t, err); code {
			case sanad.CodeParserUnsupported, sanad.CodeParserEncrypted, sanad.CodeTimeout:
			default:
				t.Fatalf("unexpected code %s: %v", code, err)
			}
			return
		}
		_ = doc.Markdown()
		for _, b := range doc.Blocks {
			if b.Page < 1 || b.Page > doc.Pages {
				t.Fatalf("block on page %d of %d", b.Page, doc.Pages)
			}
			if b.Kind == document.Table && (b.Table == nil || len(b.Table.Rows) == 0) {
				t.Fatalf("table block without rows")
			}
		}
	})
}

func TestParseDeadlineMidDocument(t *testing.T) {
	dir := sharedtest.Dir(t, "docparse", "docling", "tests", "data", "pdf", "sources")
	data, err := os.ReadFile(filepath.Join(dir, "redp5110_sampled.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = Parse(context.Background(), data, Options{Pool: testPool, OCR: noOCR, Timeout: 50 * time.Millisecond})
	if got := sanadCode(t, err); got != sanad.CodeTimeout {
		t.Errorf("got %s (%v), want %s", got, err, sanad.CodeTimeout)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Parse returned after %v, want soon after its 50ms limit", d)
	}
	// The pool still works afterwards.
	if _, err := Parse(context.Background(), buildPDF([]string{textStream("Hello")}, false), Options{Pool: testPool, OCR: noOCR}); err != nil {
		t.Errorf("Parse after a timeout: %v", err)
	}
}

func TestInterruptiblePool(t *testing.T) {
	dir := sharedtest.Dir(t, "docparse", "docling", "tests", "data", "pdf", "sources")
	data, err := os.ReadFile(filepath.Join(dir, "redp5110_sampled.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	pool, err := NewPool(PoolConfig{Instances: 1, Interruptible: true, CacheDir: filepath.Join(os.TempDir(), "sanad-pdfium-wazero-cache")})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	// Start the pool first, so that the deadline falls inside pdfium.
	if _, err := Parse(context.Background(), buildPDF([]string{textStream("Hello")}, false), Options{Pool: pool, OCR: noOCR}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = Parse(context.Background(), data, Options{Pool: pool, OCR: noOCR, Timeout: 30 * time.Millisecond})
	if got := sanadCode(t, err); got != sanad.CodeTimeout {
		t.Errorf("got %s (%v), want %s", got, err, sanad.CodeTimeout)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Parse returned after %v, want soon after its 30ms limit", d)
	}
	doc, err := Parse(context.Background(), data, Options{Pool: pool, OCR: noOCR})
	if err != nil {
		t.Fatalf("Parse after a timeout: %v", err)
	}
	if doc.Pages != 18 {
		t.Errorf("got %d pages, want 18", doc.Pages)
	}
}
