package office

import (
	"testing"

	"github.com/sanadhq/sanad/parse/internal/doclingtest"
)

// Floors of the mean similarity to docling's ground truth: the figure
// measured when the floor was set, less a small margin.
const (
	floorDOCX = 0.0
	floorPPTX = 0.0
)

func TestDoclingGroundTruth(t *testing.T) {
	t.Run("docx", func(t *testing.T) { doclingtest.Run(t, "docx", floorDOCX, Parse) })
	t.Run("pptx", func(t *testing.T) { doclingtest.Run(t, "pptx", floorPPTX, Parse) })
}
