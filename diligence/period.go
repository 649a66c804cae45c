package diligence

import (
	"strconv"
	"strings"
	"time"
)

// periodBounds returns the first day and the last day of a normal period
// (claim.NormalizePeriod): FY2024, Q3-2025, H1-2025, 2025-06,
// LTM-2025-06. A financial year is taken as the calendar year: the
// documents name a period by its end, and a year that ends elsewhere is
// written as LTM.
func periodBounds(p string) (start, end time.Time, ok bool) {
	month := func(y, m int) time.Time { return time.Date(y, time.Month(m), 1, 0, 0, 0, 0, time.UTC) }
	last := func(t time.Time) time.Time { return t.AddDate(0, 1, -1) }
	switch {
	case strings.HasPrefix(p, "FY"):
		y, err := strconv.Atoi(p[2:])
		if err != nil {
			return
		}
		return month(y, 1), last(month(y, 12)), true
	case strings.HasPrefix(p, "LTM-"):
		t, err := time.Parse("2006-01", p[4:])
		if err != nil {
			return
		}
		return t.AddDate(0, -11, 0), last(t), true
	case len(p) == 7 && (p[0] == 'Q' || p[0] == 'H') && p[2] == '-':
		n, err1 := strconv.Atoi(p[1:2])
		y, err2 := strconv.Atoi(p[3:])
		if err1 != nil || err2 != nil {
			return
		}
		size := 3
		if p[0] == 'H' {
			size = 6
		}
		s := month(y, (n-1)*size+1)
		return s, last(s.AddDate(0, size-1, 0)), true
	}
	t, err := time.Parse("2006-01", p)
	if err != nil {
		return
	}
	return t, last(t), true
}

func periodStart(p string) (time.Time, bool) {
	s, _, ok := periodBounds(p)
	return s, ok
}

func periodEnd(p string) (time.Time, bool) {
	_, e, ok := periodBounds(p)
	return e, ok
}
