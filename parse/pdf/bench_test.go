package pdf

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"
)

// benchFiles are the docling and tabula PDFs with their page counts.
func benchFiles(b *testing.B) (files [][]byte, pages int) {
	b.Helper()
	for _, path := range fuzzSeeds(b) {
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		doc, err := Parse(context.Background(), data, Options{Pool: testPool, OCR: noOCR})
		if err != nil {
			b.Fatal(err)
		}
		files = append(files, data)
		pages += doc.Pages
	}
	return files, pages
}

// BenchmarkParsePages parses the docling and tabula PDFs one after the
// other (pages of one document in parallel where it pays) and reports
// pages per second.
func BenchmarkParsePages(b *testing.B) {
	files, pages := benchFiles(b)
	b.ResetTimer()
	start := time.Now()
	n := 0
	for b.Loop() {
		for _, data := range files {
			if _, err := Parse(context.Background(), data, Options{Pool: testPool, OCR: noOCR}); err != nil {
				b.Fatal(err)
			}
		}
		n++
	}
	b.ReportMetric(float64(n*pages)/time.Since(start).Seconds(), "pages/s")
}

// BenchmarkPdftotextPages runs pdftotext -layout (poppler, native code) on
// the same files, for comparison.
func BenchmarkPdftotextPages(b *testing.B) {
	bin, err := exec.LookPath("pdftotext")
	if err != nil {
		b.Skip("pdftotext is not installed")
	}
	paths := fuzzSeeds(b)
	_, pages := benchFiles(b)
	b.ResetTimer()
	start := time.Now()
	n := 0
	for b.Loop() {
		for _, p := range paths {
			if out, err := exec.Command(bin, "-layout", p, os.DevNull).CombinedOutput(); err != nil {
				b.Fatalf("pdftotext %s: %v: %s", p, err, out)
			}
		}
		n++
	}
	b.ReportMetric(float64(n*pages)/time.Since(start).Seconds(), "pages/s")
}
