package bench

import (
	"context"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/parse/pdf"
)

// IngestConfig configures Ingest.
type IngestConfig struct {
	// Files are the PDFs to read.
	Files []string
	// Rounds is how many times each tool reads every file (default 3).
	Rounds int
}

// IngestResult is what `sanad bench ingest` reports: pages per second of
// sanad's PDF reader and, when installed, of pdftotext -layout on the same
// files in the same run.
type IngestResult struct {
	Files           int     `json:"files"`
	Pages           int     `json:"pages"`
	PagesPerS       float64 `json:"pages_per_s"`
	PdftotextPerS   float64 `json:"pdftotext_pages_per_s,omitempty"`
	RatioPdftotext  float64 `json:"ratio_to_pdftotext,omitempty"`
	PdftotextAbsent bool    `json:"pdftotext_absent,omitempty"`
}

// Ingest reads cfg.Files with the PDF reader (no OCR), then with pdftotext,
// alternating rounds so that both see the same machine.
func Ingest(ctx context.Context, cfg IngestConfig) (IngestResult, error) {
	const op = "bench.ingest"
	if len(cfg.Files) == 0 {
		return IngestResult{}, sanad.Errorf(sanad.CodeInvalidInput, op, "no PDF files to read")
	}
	rounds := max(cfg.Rounds, 1)
	if cfg.Rounds == 0 {
		rounds = 3
	}
	datas := make([][]byte, len(cfg.Files))
	res := IngestResult{Files: len(cfg.Files)}
	noOCR := pdf.OCRFunc(func(context.Context, image.Image) ([]pdf.OCRWord, error) { return nil, pdf.ErrOCRUnavailable })
	for i, f := range cfg.Files {
		data, err := os.ReadFile(f)
		if err != nil {
			return res, sanad.Wrap(err, sanad.CodeInvalidInput, op, "reading "+f)
		}
		datas[i] = data
		doc, err := pdf.Parse(ctx, data, pdf.Options{OCR: noOCR}) // warms the pool
		if err != nil {
			return res, err
		}
		res.Pages += doc.Pages
	}
	bin, lookErr := exec.LookPath("pdftotext")
	res.PdftotextAbsent = lookErr != nil
	var ours, theirs time.Duration
	for range rounds {
		start := time.Now()
		for _, data := range datas {
			if _, err := pdf.Parse(ctx, data, pdf.Options{OCR: noOCR}); err != nil {
				return res, err
			}
		}
		ours += time.Since(start)
		if lookErr == nil {
			start = time.Now()
			for _, f := range cfg.Files {
				if out, err := exec.CommandContext(ctx, bin, "-layout", f, os.DevNull).CombinedOutput(); err != nil {
					return res, sanad.Errorf(sanad.CodeDependencyDown, op, "pdftotext %s: %v: %s", filepath.Base(f), err, out)
				}
			}
			theirs += time.Since(start)
		}
	}
	res.PagesPerS = float64(rounds*res.Pages) / ours.Seconds()
	if lookErr == nil {
		res.PdftotextPerS = float64(rounds*res.Pages) / theirs.Seconds()
		res.RatioPdftotext = res.PagesPerS / res.PdftotextPerS
	}
	return res, nil
}
