package pii_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/sanadhq/sanad/guard/pii"
	"github.com/sanadhq/sanad/internal/sharedtest"
)

// presidioCase is one case of Presidio's recognizer tests. Offsets are
// Python string offsets: code points, not bytes.
type presidioCase struct {
	Source      string  `json:"source_file"`
	Type        string  `json:"entity_type"`
	Text        string  `json:"text"`
	Len         int     `json:"expected_len"`
	Positions   [][]int `json:"expected_positions"`
	Res         [][]int `json:"expected_res"`
	Position    []int   `json:"expected_position"`
	Leniency    *int    `json:"leniency"`
	spans       [][2]int
	byCountOnly bool
}

func loadPresidioCases(tb testing.TB) []presidioCase {
	tb.Helper()
	p := filepath.Join(sharedtest.Dir(tb, "pii", "presidio-recognizers"), "recognizer_cases.jsonl")
	f, err := os.Open(p)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []presidioCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var c presidioCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			tb.Fatalf("%s: %v", p, err)
		}
		pos := c.Positions
		if pos == nil {
			pos = c.Res
		}
		if pos == nil && len(c.Position) == 2 {
			pos = [][]int{c.Position}
		}
		if c.Len > 0 {
			if len(pos) != c.Len {
				c.byCountOnly = true
			} else {
				for _, sp := range pos {
					c.spans = append(c.spans, [2]int{byteOffset(c.Text, sp[0]), byteOffset(c.Text, sp[1])})
				}
			}
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	if len(out) != 775 {
		tb.Fatalf("got %d cases, want 775", len(out))
	}
	return out
}

// byteOffset converts a code point offset in s to a byte offset.
func byteOffset(s string, cp int) int {
	n := 0
	for i := range s {
		if n == cp {
			return i
		}
		n++
	}
	return len(s)
}

// typeScore is what one type scored on the cases.
type typeScore struct {
	cases, negatives, rejected int
	tp, fp, fn                 int
	misses                     []string
}

func (s typeScore) precision() float64 { return ratio(s.tp, s.tp+s.fp) }
func (s typeScore) recall() float64    { return ratio(s.tp, s.tp+s.fn) }
func (s typeScore) rejection() float64 { return ratio(s.rejected, s.negatives) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

// scorePresidio runs d over every case of a supported type. A predicted
// span of the case's type is a true positive when an expected span has the
// same [start, end); the few positive cases that give a count and no
// offsets are matched by count. A negative case is rejected when nothing
// of its type is found in it.
func scorePresidio(d *pii.Detector, cases []presidioCase, supported map[string]bool) map[string]*typeScore {
	out := map[string]*typeScore{}
	for _, c := range cases {
		if !supported[c.Type] {
			continue
		}
		s := out[c.Type]
		if s == nil {
			s = &typeScore{}
			out[c.Type] = s
		}
		s.cases++
		var got [][2]int
		for _, e := range d.Find(c.Text) {
			if e.Type == c.Type {
				got = append(got, [2]int{e.Start, e.End})
			}
		}
		if c.Len == 0 {
			s.negatives++
			if len(got) == 0 {
				s.rejected++
			}
		}
		tp := 0
		if c.byCountOnly {
			tp = min(len(got), c.Len)
		} else {
			for _, g := range got {
				if slices.Contains(c.spans, g) {
					tp++
				}
			}
		}
		fp, fn := len(got)-tp, c.Len-tp
		s.tp, s.fp, s.fn = s.tp+tp, s.fp+fp, s.fn+fn
		if fp > 0 || fn > 0 {
			lenient := ""
			if c.Leniency != nil {
				lenient = fmt.Sprintf(" (leniency %d)", *c.Leniency)
			}
			s.misses = append(s.misses, fmt.Sprintf("%q%s: want %v, got %v", c.Text, lenient, c.spans, got))
		}
	}
	return out
}

// presidioFloors are the figures measured on the cases with every built-in
// type enabled; the test fails when one drops below. The misses, logged by
// go test -run TestR01 -v, are all of one of these kinds:
//
//   - PHONE_NUMBER: a Chinese mobile number, and China is not among the
//     default regions (Presidio's); and three cases that run Presidio at a
//     leniency other than its default, each the twin of a case with the
//     same text and the opposite expectation (the detector follows the
//     default, VALID).
//   - URL: Presidio's span takes in the quotes around a quoted URL.
//   - US_SSN, US_ITIN: the 3-6 and 5-4 groupings (078-051121, 07805-1121),
//     which Presidio scores 0.05; 5-4 is how ZIP+4 codes are written, so
//     they are not recognised.
var presidioFloors = map[string]struct{ precision, recall, rejection float64 }{
	pii.TypeCreditCard: {1, 1, 1},
	pii.TypeCrypto:     {1, 1, 1},
	pii.TypeEmail:      {1, 1, 1},
	pii.TypeIBAN:       {1, 1, 1},
	pii.TypeIP:         {1, 1, 1},
	pii.TypeMAC:        {1, 1, 1},
	pii.TypePhone:      {0.944, 0.944, 1},
	pii.TypeNHS:        {1, 1, 1},
	pii.TypeURL:        {0.857, 0.857, 1},
	pii.TypeITIN:       {1, 0.666, 1},
	pii.TypeSSN:        {1, 0.714, 1},
}

// TestR01_PIIPrecisionRecallPerType measures every supported type on
// Presidio's recognizer cases and holds each to its floor; the types the
// package does not find are listed, not counted.
func TestR01_PIIPrecisionRecallPerType(t *testing.T) {
	cases := loadPresidioCases(t)
	supported := map[string]bool{}
	for _, typ := range pii.BuiltinTypes() {
		supported[typ] = true
	}
	d, err := pii.New(pii.Config{})
	if err != nil {
		t.Fatal(err)
	}
	scores := scorePresidio(d, cases, supported)

	unsupported := map[string]int{}
	for _, c := range cases {
		if !supported[c.Type] {
			unsupported[c.Type]++
		}
	}
	var names []string
	for typ := range scores {
		names = append(names, typ)
	}
	sort.Strings(names)
	var tb strings.Builder
	fmt.Fprintf(&tb, "%-14s %5s %5s %4s %4s %4s %9s %7s %9s\n", "type", "cases", "neg", "tp", "fp", "fn", "precision", "recall", "rejection")
	for _, typ := range names {
		s := scores[typ]
		fmt.Fprintf(&tb, "%-14s %5d %5d %4d %4d %4d %9.3f %7.3f %5d/%-3d\n", typ, s.cases, s.negatives, s.tp, s.fp, s.fn, s.precision(), s.recall(), s.rejected, s.negatives)
	}
	t.Logf("Presidio recognizer cases, all built-in types enabled, exact spans:\n%s", tb.String())
	var un []string
	total := 0
	for typ, n := range unsupported {
		un = append(un, fmt.Sprintf("%s %d", typ, n))
		total += n
	}
	sort.Strings(un)
	t.Logf("unsupported: %d cases of %d types: %s", total, len(un), strings.Join(un, ", "))

	for _, typ := range names {
		s := scores[typ]
		for _, m := range s.misses {
			t.Logf("%s miss: %s", typ, m)
		}
		f, ok := presidioFloors[typ]
		if !ok {
			t.Errorf("%s: measured but has no floor", typ)
			continue
		}
		if s.precision() < f.precision {
			t.Errorf("%s precision: got %.3f, want >= %.3f", typ, s.precision(), f.precision)
		}
		if s.recall() < f.recall {
			t.Errorf("%s recall: got %.3f, want >= %.3f", typ, s.recall(), f.recall)
		}
		if s.rejection() < f.rejection {
			t.Errorf("%s rejection of negative cases: got %.3f, want >= %.3f", typ, s.rejection(), f.rejection)
		}
	}
	for typ := range presidioFloors {
		if scores[typ] == nil {
			t.Errorf("%s has a floor but no case was measured", typ)
		}
	}
}
