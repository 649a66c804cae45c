package debate

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/sanadhq/sanad"
)

// maxEnrichmentBytes bounds an enrichment file or answer.
const maxEnrichmentBytes = 8 << 20

// EnrichmentRecord is one row of an enrichment source: a data point about
// an entity.
type EnrichmentRecord struct {
	EntityType string  `json:"entity_type"`
	EntityName string  `json:"entity_name"`
	DataPoint  string  `json:"data_point"`
	Value      string  `json:"value"`
	Number     float64 `json:"number,omitempty"`
	Source     string  `json:"source"`
	Grade      string  `json:"source_grade,omitempty"`
	AsOf       string  `json:"as_of,omitempty"`
}

// FileEnrichment is an enrichment source read from a local file: a JSON
// array of EnrichmentRecord, or a CSV file with those field names as its
// header.
type FileEnrichment struct {
	records []EnrichmentRecord
}

// LoadFileEnrichment reads path (.json or .csv).
func LoadFileEnrichment(path string) (*FileEnrichment, error) {
	const op = "debate.enrichment_file"
	f, err := os.Open(path)
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, path)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxEnrichmentBytes+1))
	if err != nil || len(data) > maxEnrichmentBytes {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "%s: unreadable or over %d bytes", path, maxEnrichmentBytes)
	}
	var recs []EnrichmentRecord
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		if err := json.Unmarshal(data, &recs); err != nil {
			return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, path)
		}
	case ".csv":
		rows, err := csv.NewReader(strings.NewReader(string(data))).ReadAll()
		if err != nil || len(rows) == 0 {
			return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "%s: not a CSV file with a header", path)
		}
		col := map[string]int{}
		for i, h := range rows[0] {
			col[strings.TrimSpace(h)] = i
		}
		get := func(row []string, name string) string {
			if i, ok := col[name]; ok && i < len(row) {
				return strings.TrimSpace(row[i])
			}
			return ""
		}
		for _, row := range rows[1:] {
			r := EnrichmentRecord{EntityType: get(row, "entity_type"), EntityName: get(row, "entity_name"), DataPoint: get(row, "data_point"),
				Value: get(row, "value"), Source: get(row, "source"), Grade: get(row, "source_grade"), AsOf: get(row, "as_of")}
			r.Number, _ = strconv.ParseFloat(get(row, "number"), 64)
			recs = append(recs, r)
		}
	default:
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "%s: an enrichment file is .json or .csv", path)
	}
	return &FileEnrichment{records: recs}, nil
}

// Query returns the records about entityName of entityType with one of
// dataPoints (case-insensitive).
func (f *FileEnrichment) Query(_ context.Context, entityType, entityName string, dataPoints []string) ([]EnrichmentResult, error) {
	var out []EnrichmentResult
	for _, r := range f.records {
		if !strings.EqualFold(r.EntityType, entityType) || !strings.EqualFold(r.EntityName, entityName) {
			continue
		}
		for _, dp := range dataPoints {
			if strings.EqualFold(r.DataPoint, dp) {
				out = append(out, EnrichmentResult{DataPoint: r.DataPoint, Value: r.Value, Number: r.Number, Source: r.Source, Grade: r.Grade, AsOf: r.AsOf})
			}
		}
	}
	return out, nil
}

// HTTPEnrichment is an enrichment source behind an HTTP API:
// GET BaseURL?entity_type=…&entity_name=…&data_point=…(repeated) answers a
// JSON array of EnrichmentRecord.
type HTTPEnrichment struct {
	BaseURL string
	Client  *http.Client
}

// Query asks the API. A status other than 200 is an error naming it: a
// tool that cannot produce evidence fails loudly.
func (h HTTPEnrichment) Query(ctx context.Context, entityType, entityName string, dataPoints []string) ([]EnrichmentResult, error) {
	const op = "debate.enrichment_http"
	u, err := url.Parse(h.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, sanad.Errorf(sanad.CodeInvalidInput, op, "enrichment base URL %q is not http(s)", h.BaseURL)
	}
	q := u.Query()
	q.Set("entity_type", entityType)
	q.Set("entity_name", entityName)
	for _, dp := range dataPoints {
		q.Add("data_point", dp)
	}
	u.RawQuery = q.Encode()
	client := h.Client
	if client == nil {
		client = &http.Client{Timeout: 20 * time.Second}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, "request")
	}
	resp, err := client.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, sanad.Wrap(err, sanad.CodeTimeout, op, h.BaseURL)
		}
		return nil, sanad.Wrap(err, sanad.CodeDependencyDown, op, h.BaseURL)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, sanad.Errorf(sanad.CodeDependencyDown, op, "%s answered %s", h.BaseURL, resp.Status)
	}
	var recs []EnrichmentRecord
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxEnrichmentBytes)).Decode(&recs); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeDependencyDown, op, h.BaseURL+" answered something other than a JSON array of records")
	}
	out := make([]EnrichmentResult, 0, len(recs))
	for _, r := range recs {
		out = append(out, EnrichmentResult{DataPoint: r.DataPoint, Value: r.Value, Number: r.Number, Source: cmpOr(r.Source, h.BaseURL), Grade: r.Grade, AsOf: r.AsOf})
	}
	return out, nil
}
