package issues

import (
	"io/fs"
	"path"
	"slices"

	"github.com/sanadhq/sanad"
)

// Counts are the confusion counts of one area's yes/no decisions and the
// figures drawn from them.
type Counts struct {
	N         int     `json:"n"`
	TP        int     `json:"tp"`
	FP        int     `json:"fp"`
	TN        int     `json:"tn"`
	FN        int     `json:"fn"`
	Accuracy  float64 `json:"accuracy"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
}

func (c *Counts) add(got, want bool) {
	c.N++
	switch {
	case got && want:
		c.TP++
	case got:
		c.FP++
	case want:
		c.FN++
	default:
		c.TN++
	}
}

func (c *Counts) finish() {
	c.Accuracy = ratio(c.TP+c.TN, c.N)
	c.Precision = ratio(c.TP, c.TP+c.FP)
	c.Recall = ratio(c.TP, c.TP+c.FN)
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// AreaResult is how Classify did on one area's test.tsv.
type AreaResult struct {
	ID string `json:"id"`
	Counts
}

// Skipped is a folder Evaluate did not score, and why.
type Skipped struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// Report is the result of Evaluate. Overall pools every decision;
// MeanAccuracy averages the areas' accuracies.
type Report struct {
	Version      int          `json:"taxonomy_version"`
	Areas        []AreaResult `json:"areas"`
	Overall      Counts       `json:"overall"`
	MeanAccuracy float64      `json:"mean_accuracy"`
	Skipped      []Skipped    `json:"skipped,omitempty"`
}

// Evaluate runs Classify over a folder laid out like learned_hands: one
// folder per area id holding test.tsv (see ReadTSV). Folders without
// test.tsv, or whose name is not an area of t, are listed in Skipped. A
// folder with no scorable area is CodeNotFound; an unreadable test.tsv is
// CodeInvalidInput.
func Evaluate(fsys fs.FS, t *Taxonomy) (Report, error) {
	const op = "issues.Evaluate"
	rep := Report{Version: t.Version}
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return rep, sanad.Wrap(err, sanad.CodeNotFound, op, "cannot list the folder")
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		id := e.Name()
		f, err := fsys.Open(path.Join(id, "test.tsv"))
		if err != nil {
			rep.Skipped = append(rep.Skipped, Skipped{ID: id, Reason: "no test.tsv"})
			continue
		}
		ex, err := ReadTSV(f)
		f.Close()
		if err != nil {
			return rep, sanad.Wrap(err, sanad.CodeInvalidInput, op, id+"/test.tsv cannot be read")
		}
		if _, ok := t.byID[id]; !ok {
			rep.Skipped = append(rep.Skipped, Skipped{ID: id, Reason: "not an area of the taxonomy"})
			continue
		}
		r := AreaResult{ID: id}
		for _, x := range ex {
			got, _ := t.Classify(x.Text, id)
			r.add(got, x.Label)
			rep.Overall.add(got, x.Label)
		}
		r.finish()
		rep.Areas = append(rep.Areas, r)
		rep.MeanAccuracy += r.Accuracy
	}
	if len(rep.Areas) == 0 {
		return rep, sanad.Errorf(sanad.CodeNotFound, op, "no folder holds a test.tsv for an area of the taxonomy")
	}
	rep.Overall.finish()
	rep.MeanAccuracy /= float64(len(rep.Areas))
	slices.SortFunc(rep.Areas, func(a, b AreaResult) int {
		if a.ID < b.ID {
			return -1
		}
		if a.ID > b.ID {
			return 1
		}
		return 0
	})
	return rep, nil
}

// FitThreshold returns the threshold that classifies the scored examples
// best: the midpoint of the widest gap between consecutive scores among
// the cut points of highest accuracy. It is how the taxonomy's threshold
// is chosen on training rows.
func FitThreshold(scores []float64, labels []bool) (threshold, accuracy float64) {
	type pt struct {
		s float64
		y bool
	}
	pts := make([]pt, len(scores))
	for i := range scores {
		pts[i] = pt{scores[i], labels[i]}
	}
	slices.SortFunc(pts, func(a, b pt) int {
		switch {
		case a.s < b.s:
			return -1
		case a.s > b.s:
			return 1
		}
		return 0
	})
	pos := 0
	for _, p := range pts {
		if p.y {
			pos++
		}
	}
	// Cut k puts pts[:k] below the threshold.
	best, bestGap := -1, -1.0
	correct, bestCorrect := pos, -1
	for k := 0; k <= len(pts); k++ {
		if k > 0 {
			if pts[k-1].y {
				correct--
			} else {
				correct++
			}
		}
		if k > 0 && k < len(pts) && pts[k-1].s == pts[k].s {
			continue
		}
		lo, hi := 0.0, 1.0
		if k > 0 {
			lo = pts[k-1].s
		}
		if k < len(pts) {
			hi = pts[k].s
		}
		if gap := hi - lo; correct > bestCorrect || correct == bestCorrect && gap > bestGap {
			best, bestGap, bestCorrect = k, gap, correct
		}
	}
	lo, hi := 0.0, 1.0
	if best > 0 {
		lo = pts[best-1].s
	}
	if best < len(pts) {
		hi = pts[best].s
	}
	return (lo + hi) / 2, ratio(bestCorrect, len(pts))
}
