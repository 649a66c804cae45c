package office

import (
	"testing"

	"github.com/sanadhq/sanad/parse/internal/doclingtest"
)

// Floors of the mean similarity to docling's ground truth: the figure
// measured when the floor was set, less a small margin.
const (
	floorDOCX = 0.97 // measured 0.9860 over 32 files
	floorPPTX = 0.94 // measured 0.9561 over 8 files
)

func TestDoclingGroundTruth(t *testing.T) {
	t.Run("docx", func(t *testing.T) { doclingtest.Run(t, "docx", floorDOCX, Parse) })
	t.Run("pptx", func(t *testing.T) { doclingtest.Run(t, "pptx", floorPPTX, Parse) })
}
