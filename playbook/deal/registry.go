package deal

import (
	"context"
	"encoding/json"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/calc"
	"github.com/sanadhq/sanad/diligence"
	"github.com/sanadhq/sanad/home"
	"github.com/sanadhq/sanad/playbook/debate"
	"github.com/sanadhq/sanad/tool"
)

// TableDeals is the table of the deal's record, next to its claims
// (diligence.Table) in the deal's case.
const TableDeals = "deals"

// DealRecord is what the debate's tools need of a deal beyond its claims:
// the calcs of its analysis (lookup_calc) and where its enrichment is read
// (query_enrichment). deal.analyze writes it once per deal.
type DealRecord struct {
	Deal    string        `json:"deal"`
	Company string        `json:"company"`
	Calcs   []calc.Result `json:"calcs"`
	// Enrichment is the enrichment file (an absolute path) or URL the
	// manifest names; empty for none.
	Enrichment string `json:"enrichment,omitempty"`
}

// registryTools returns the six tools of seed 000 §4 as debate.Registry
// implements them, each call made over the registry of the caller's case
// as it is stored: its claims records, chained again (diligence.Facts),
// and its deal record. A registry is built for each call, so a resumed
// debate in a new process reads what the first one wrote.
func registryTools(h *home.Home, j *debate.Journal) []tool.Spec {
	specs := debate.NewRegistry("", sanad.Scope{}, nil, nil).Tools(j)
	for i := range specs {
		name := specs[i].Name
		specs[i].Func = func(ctx context.Context, c tool.Call) (json.RawMessage, error) {
			reg, err := storedRegistry(ctx, h, c.Principal.Scope)
			if err != nil {
				return nil, err
			}
			for _, s := range reg.Tools(j) {
				if s.Name == name {
					return s.Func(ctx, c)
				}
			}
			return nil, sanad.Errorf(sanad.CodeToolNotFound, name, "the registry of case %s has no tool %s", c.Principal.Scope.Case, name)
		}
	}
	return specs
}

// storedRegistry returns the registry of the deal of scope's case, as
// deal.analyze stored it. A case with no stored registry has an empty one:
// its lookups find nothing.
func storedRegistry(ctx context.Context, h *home.Home, scope sanad.Scope) (*debate.Registry, error) {
	const op = "deal.registry"
	var recs []diligence.RegistryRecord
	if err := readRecords(ctx, h, scope, diligence.Table, op, func(data []byte) error {
		var r diligence.RegistryRecord
		err := json.Unmarshal(data, &r)
		recs = append(recs, r)
		return err
	}); err != nil {
		return nil, err
	}
	var d DealRecord
	if err := readRecords(ctx, h, scope, TableDeals, op, func(data []byte) error { return json.Unmarshal(data, &d) }); err != nil {
		return nil, err
	}
	if d.Deal == "" && len(recs) > 0 {
		d.Deal = recs[0].Deal
	}
	reg := debate.NewRegistry(d.Deal, scope, diligence.Facts(recs), d.Calcs)
	switch src := d.Enrichment; {
	case src == "":
	case diligence.IsURL(src):
		reg.Enrichment = debate.HTTPEnrichment{BaseURL: src}
	default:
		fe, err := debate.LoadFileEnrichment(src)
		if err != nil {
			return nil, err
		}
		reg.Enrichment = fe
	}
	return reg, nil
}

// readRecords calls fn with each record of table in scope's case.
func readRecords(ctx context.Context, h *home.Home, scope sanad.Scope, table, op string, fn func([]byte) error) error {
	rows, err := h.DB.Records(ctx, scope, table)
	if err != nil {
		return err
	}
	for _, row := range rows {
		data, err := h.Artifacts.Read(row.SHA256)
		if err != nil {
			return sanad.Wrap(err, sanad.CodeIntegrity, op, "the record of "+row.Key)
		}
		if err := fn(data); err != nil {
			return sanad.Wrap(err, sanad.CodeIntegrity, op, "the record of "+row.Key)
		}
	}
	return nil
}
