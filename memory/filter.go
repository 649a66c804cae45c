package memory

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/sanadhq/sanad"
)

// Filter keys of [Query.Filters] with a meaning of their own; any other key
// is matched against the document's metadata.
const (
	FilterSourceType     = "source_type"
	FilterDocumentID     = "document_id"
	FilterFormat         = "format"
	FilterSource         = "source"
	FilterIngestedAfter  = "ingested_after"  // Ingested >= this time
	FilterIngestedBefore = "ingested_before" // Ingested < this time
)

// Filter restricts a search to some documents. Each non-empty part must
// hold (AND); within a part, any of the values may match (OR). The zero
// Filter matches every document.
type Filter struct {
	SourceTypes []string
	DocumentIDs []string
	Formats     []string
	Sources     []string
	// IngestedAfter and IngestedBefore bound Ingested to [after, before);
	// zero is no bound.
	IngestedAfter, IngestedBefore time.Time
	// Metadata maps a metadata key to the values it may have: a document
	// matches when its value for the key, or one element of it when it is
	// an array, equals one of them. Values are strings, float64 numbers or
	// bools. A key holding ["a", "b"] (tags, say) matches a filter on any
	// of "a" or "b".
	Metadata map[string][]any
}

// Empty reports whether f matches every document.
func (f Filter) Empty() bool {
	return len(f.SourceTypes) == 0 && len(f.DocumentIDs) == 0 && len(f.Formats) == 0 && len(f.Sources) == 0 &&
		f.IngestedAfter.IsZero() && f.IngestedBefore.IsZero() && len(f.Metadata) == 0
}

// MetadataKeys returns the keys of f.Metadata, sorted.
func (f Filter) MetadataKeys() []string {
	keys := make([]string, 0, len(f.Metadata))
	for k := range f.Metadata {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ParseFilters reads seed 004's MemoryQuery.filters: a value is one string,
// number or bool, or a list of them (any of which may match); the ingested_*
// keys take an RFC 3339 time or a date (YYYY-MM-DD, midnight UTC). Anything
// else is INVALID_INPUT.
func ParseFilters(m map[string]any) (Filter, error) {
	const op = "memory.filter"
	var f Filter
	for k, v := range m {
		switch k {
		case FilterIngestedAfter, FilterIngestedBefore:
			t, err := parseTime(v)
			if err != nil {
				return Filter{}, sanad.Errorf(sanad.CodeInvalidInput, op, "filter %s: %s", k, err)
			}
			if k == FilterIngestedAfter {
				f.IngestedAfter = t
			} else {
				f.IngestedBefore = t
			}
			continue
		}
		vals, err := filterValues(v)
		if err != nil {
			return Filter{}, sanad.Errorf(sanad.CodeInvalidInput, op, "filter %q: %s", k, err)
		}
		switch k {
		case FilterSourceType, FilterDocumentID, FilterFormat, FilterSource:
			strs := make([]string, len(vals))
			for i, v := range vals {
				s, ok := v.(string)
				if !ok {
					return Filter{}, sanad.Errorf(sanad.CodeInvalidInput, op, "filter %s takes strings, not %v", k, v)
				}
				strs[i] = s
			}
			switch k {
			case FilterSourceType:
				f.SourceTypes = strs
			case FilterDocumentID:
				f.DocumentIDs = strs
			case FilterFormat:
				f.Formats = strs
			default:
				f.Sources = strs
			}
		default:
			if k == "" {
				return Filter{}, sanad.Errorf(sanad.CodeInvalidInput, op, "a filter key is empty")
			}
			if f.Metadata == nil {
				f.Metadata = map[string][]any{}
			}
			f.Metadata[k] = vals
		}
	}
	return f, nil
}

func parseTime(v any) (time.Time, error) {
	switch v := v.(type) {
	case time.Time:
		return v.UTC(), nil
	case string:
		if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
			return t.UTC(), nil
		}
		if t, err := time.Parse(time.DateOnly, v); err == nil {
			return t, nil
		}
		return time.Time{}, fmt.Errorf("%q is neither an RFC 3339 time nor a date (YYYY-MM-DD)", v)
	}
	return time.Time{}, fmt.Errorf("want a time or a date, not %T", v)
}

// filterValues normalizes a filter value to a non-empty list of strings,
// float64 numbers and bools, the types JSON decoding gives.
func filterValues(v any) ([]any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("not a JSON value: %s", err)
	}
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		return nil, fmt.Errorf("not a JSON value: %s", err)
	}
	list, ok := x.([]any)
	if !ok {
		list = []any{x}
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("an empty list matches nothing")
	}
	for _, e := range list {
		switch e.(type) {
		case string, float64, bool:
		default:
			return nil, fmt.Errorf("values are strings, numbers or booleans, not %s", compact(e))
		}
	}
	return list, nil
}

func compact(v any) string {
	b, _ := json.Marshal(v)
	return boundString(string(b), 64)
}

func boundString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// Match reports whether d passes f. It is the definition every store's own
// filtering follows.
func (f Filter) Match(d *Document) bool {
	if len(f.SourceTypes) > 0 && !slices.Contains(f.SourceTypes, d.SourceType) ||
		len(f.DocumentIDs) > 0 && !slices.Contains(f.DocumentIDs, d.ID) ||
		len(f.Formats) > 0 && !slices.Contains(f.Formats, d.Format) ||
		len(f.Sources) > 0 && !slices.Contains(f.Sources, d.Source) {
		return false
	}
	if !f.IngestedAfter.IsZero() && d.Ingested.Before(f.IngestedAfter) {
		return false
	}
	if !f.IngestedBefore.IsZero() && !d.Ingested.Before(f.IngestedBefore) {
		return false
	}
	for k, want := range f.Metadata {
		if !metaMatch(d.Metadata[k], want) {
			return false
		}
	}
	return true
}

func metaMatch(have any, want []any) bool {
	if list, ok := have.([]any); ok {
		for _, e := range list {
			if slices.Contains(want, scalar(e)) {
				return true
			}
		}
		return false
	}
	return slices.Contains(want, scalar(have))
}

// scalar returns v if it is a string, float64 or bool, and nil otherwise
// (nil is never a filter value).
func scalar(v any) any {
	switch v.(type) {
	case string, float64, bool:
		return v
	}
	return nil
}

// normalizeMetadata returns m as JSON decoding gives it back (numbers
// float64, lists []any), so that what Match sees of a document just added
// is what it sees of one read from a store.
func normalizeMetadata(m map[string]any) (map[string]any, error) {
	if len(m) == 0 {
		return map[string]any{}, nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	return out, nil
}
