package debate

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/calc"
	"github.com/sanadhq/sanad/claim"
	"github.com/sanadhq/sanad/gate"
	"github.com/sanadhq/sanad/runs"
	"github.com/sanadhq/sanad/tool"
)

// The six tools of seed 000 §4.
const (
	ToolLookupClaim        = "lookup_claim"
	ToolLookupCalc         = "lookup_calc"
	ToolSearchEvidence     = "search_evidence"
	ToolFlagDefect         = "flag_defect"
	ToolRequestHumanReview = "request_human_review"
	ToolQueryEnrichment    = "query_enrichment"
)

// TypeDefectFlagged is the event a flagged defect leaves (§4.4).
const TypeDefectFlagged = "defect.flagged"

// Registry is a deal's evidence as the debate's tools read it: its claims
// with their chains, its calcs, and the defects flagged so far. It is safe
// for concurrent use.
type Registry struct {
	DealID string
	// Scope is the tenant and case the deal belongs to; a lookup from
	// another tenant is TENANT_ACCESS.
	Scope sanad.Scope

	claims map[string]claim.Claim
	facts  map[string]*claim.Fact // by claim id
	calcs  map[string]calc.Result
	// Enrichment answers query_enrichment; nil refuses it.
	Enrichment Enrichment

	mu      sync.Mutex
	defects []Defect
}

// NewRegistry returns the registry of a deal's facts (claim.Chain) and calcs.
func NewRegistry(dealID string, scope sanad.Scope, facts []claim.Fact, calcs []calc.Result) *Registry {
	r := &Registry{DealID: dealID, Scope: scope, claims: map[string]claim.Claim{}, facts: map[string]*claim.Fact{}, calcs: map[string]calc.Result{}}
	for i := range facts {
		for _, c := range facts[i].Claims {
			r.claims[c.ID] = c
			r.facts[c.ID] = &facts[i]
		}
	}
	for _, c := range calcs {
		r.calcs[c.CalcID] = c
	}
	return r
}

// Evidence returns what the Muḥāsabah enforcer needs to know of the
// registry: each claim's grade and whether one source alone carries it.
func (r *Registry) Evidence() Evidence {
	ev := Evidence{Claims: map[string]ClaimInfo{}, Calcs: map[string]bool{}}
	for id, c := range r.claims {
		ev.Claims[id] = ClaimInfo{Grade: string(c.Grade), Ahad: r.facts[id].Ahad}
	}
	for id := range r.calcs {
		ev.Calcs[id] = true
	}
	return ev
}

// Defects returns the defects flagged so far.
func (r *Registry) Defects() []Defect {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.defects)
}

// Defect is a flagged defect of an evidence chain (§4.4).
type Defect struct {
	DefectID     string   `json:"defect_id"`
	DebateID     string   `json:"debate_id,omitempty"`
	Round        int      `json:"round_number,omitempty"`
	ClaimID      string   `json:"claim_id"`
	DefectType   string   `json:"defect_type"`
	Severity     string   `json:"severity"`
	Description  string   `json:"description"`
	EvidenceRefs []string `json:"evidence_refs"`
	CureProtocol string   `json:"cure_protocol"`
	FlaggedBy    string   `json:"flagged_by"`
}

// DefectTypes are the defect types a chain can have.
var DefectTypes = []string{"SINGLE_SOURCE", "WEAK_GRADE", "MISSING_SOURCE", "STALE_PERIOD", "INCONSISTENT_ARITHMETIC", "CONTRADICTION", "OVERSTATEMENT", "GOING_CONCERN"}

// Enrichment answers query_enrichment: data points about a company, a
// person or a market from outside the data room.
type Enrichment interface {
	Query(ctx context.Context, entityType, entityName string, dataPoints []string) ([]EnrichmentResult, error)
}

// EnrichmentResult is one data point from an enrichment source: a claim of
// grade C or D that needs corroboration by the data room.
type EnrichmentResult struct {
	DataPoint string  `json:"data_point"`
	Value     string  `json:"value"`
	Number    float64 `json:"number,omitempty"`
	Source    string  `json:"source"`
	Grade     string  `json:"source_grade"`
	AsOf      string  `json:"as_of,omitempty"`
}

// RunReader reads a run's record (*sqlite.DB does).
type RunReader interface {
	Run(ctx context.Context, id string) (sanad.Run, error)
}

// Journal is where flag_defect records its defect.flagged event: in the
// gateway run that called it. A nil Journal records nothing (a test of
// the tool alone).
type Journal struct {
	Runs     RunReader
	Recorder *runs.Recorder
	// Gates opens request_human_review's gates; nil leaves the tool out.
	Gates *gate.Service
}

// Reject records a Muḥāsabah rejection in the run that asked for the check.
func (j *Journal) Reject(ctx context.Context, run string, r Rejection) error {
	h, err := j.attach(ctx, run, false)
	if err != nil {
		return err
	}
	_, err = h.Append(ctx, TypeMuhasabahRejected, "", r, nil)
	return err
}

// attach returns a handle on the run id, or on the run it runs under when
// parent is set: where a gate must wait, since a tool's own run ends with
// the call.
func (j *Journal) attach(ctx context.Context, id string, parent bool) (*runs.Run, error) {
	rec, err := j.Runs.Run(ctx, id)
	if err != nil {
		return nil, err
	}
	if parent && rec.ParentID != "" {
		if rec, err = j.Runs.Run(ctx, rec.ParentID); err != nil {
			return nil, err
		}
	}
	return j.Recorder.Attach(rec, "")
}

// Tools returns the six tools of §4 over r. Defects flagged are recorded
// as defect.flagged events of the calling gateway run through j, and a
// review is a gate opened on the run that called the tool (the arbiter's),
// which waits for a person of the required role; without j.Gates there is
// no request_human_review.
func (r *Registry) Tools(j *Journal) []tool.Spec {
	obj := json.RawMessage(`{"type":"object"}`)
	read := func(name, desc, schema string, fn func(ctx context.Context, c tool.Call) (any, error)) tool.Spec {
		return tool.Spec{Name: name, Description: desc, InputSchema: json.RawMessage(schema), OutputSchema: obj,
			Risk: "read", SideEffect: tool.SideEffectNone, Idempotent: true,
			Func: func(ctx context.Context, c tool.Call) (json.RawMessage, error) {
				if c.Principal.Scope.Tenant != r.Scope.Tenant {
					return nil, sanad.Errorf(sanad.CodeTenantAccess, name, "deal %s belongs to another tenant", r.DealID)
				}
				out, err := fn(ctx, c)
				if err != nil {
					return nil, err
				}
				return json.Marshal(out)
			}}
	}
	specs := []tool.Spec{
		read(ToolLookupClaim, "Retrieve a claim by id, with its sanad chain and evidence (§4.1).",
			`{"type":"object","required":["claim_id"],"additionalProperties":false,"properties":{"claim_id":{"type":"string","minLength":1,"maxLength":128},"include_sanad":{"type":"boolean"},"include_evidence":{"type":"boolean"}}}`,
			r.lookupClaim),
		read(ToolLookupCalc, "Retrieve a deterministic calculation by id, with its inputs and calc sanad (§4.2).",
			`{"type":"object","required":["calc_id"],"additionalProperties":false,"properties":{"calc_id":{"type":"string","minLength":1,"maxLength":128},"include_inputs":{"type":"boolean"}}}`,
			r.lookupCalc),
		read(ToolSearchEvidence, "Search the deal's evidence for a query (§4.3).",
			`{"type":"object","required":["query","deal_id"],"additionalProperties":false,"properties":{"query":{"type":"string","minLength":1,"maxLength":1000},"deal_id":{"type":"string"},"claim_class":{"type":"string"},"min_grade":{"enum":["A","B","C","D"]},"limit":{"type":"integer","minimum":1,"maximum":100}}}`,
			r.searchEvidence),
		{
			Name: ToolFlagDefect, Description: "Flag a defect in a claim's evidence chain (§4.4).",
			InputSchema: json.RawMessage(`{"type":"object","required":["claim_id","defect_type","severity","description","evidence_refs","cure_protocol"],"additionalProperties":false,"properties":{
				"claim_id":{"type":"string","minLength":1},"defect_type":{"type":"string","minLength":1},"severity":{"enum":["FATAL","MAJOR","MINOR"]},
				"description":{"type":"string"},"evidence_refs":{"type":"array","items":{"type":"string"}},"cure_protocol":{"type":"string"}}}`),
			OutputSchema: obj, Risk: "write", SideEffect: tool.SideEffectInternal, Idempotent: true,
			Func: func(ctx context.Context, c tool.Call) (json.RawMessage, error) { return r.flagDefect(ctx, j, c) },
		},
		{
			Name: ToolQueryEnrichment, Description: "Query enrichment sources about a company, person or market (§4.6); results are grade C or D.",
			InputSchema: json.RawMessage(`{"type":"object","required":["entity_type","entity_name","data_points"],"additionalProperties":false,"properties":{
				"entity_type":{"enum":["COMPANY","PERSON","MARKET"]},"entity_name":{"type":"string","minLength":1,"maxLength":256},
				"data_points":{"type":"array","minItems":1,"maxItems":20,"items":{"type":"string","minLength":1}}}}`),
			OutputSchema: obj, Risk: "external", SideEffect: tool.SideEffectNone, Idempotent: true,
			Func: func(ctx context.Context, c tool.Call) (json.RawMessage, error) { return r.queryEnrichment(ctx, c) },
		},
	}
	if j != nil && j.Gates != nil {
		specs = append(specs, tool.Spec{
			Name: ToolRequestHumanReview, Description: "Escalate claims to a person's review: a gate the debate waits on (§4.5).",
			InputSchema: json.RawMessage(`{"type":"object","required":["claim_ids","reason"],"additionalProperties":false,"properties":{
				"claim_ids":{"type":"array","minItems":1,"maxItems":100,"items":{"type":"string","minLength":1}},"reason":{"type":"string","minLength":10,"maxLength":2000},
				"priority":{"enum":["LOW","NORMAL","HIGH","CRITICAL"]},"required_role":{"type":"string","minLength":1,"maxLength":64}}}`),
			OutputSchema: obj, Risk: "write", SideEffect: tool.SideEffectInternal, Idempotent: true,
			Func: func(ctx context.Context, c tool.Call) (json.RawMessage, error) { return r.requestReview(ctx, j, c) },
		})
	}
	return specs
}

// gatePriority maps the seed's priorities to a gate's.
var gatePriority = map[string]string{"LOW": "low", "NORMAL": "normal", "HIGH": "high", "CRITICAL": "urgent"}

func (r *Registry) requestReview(ctx context.Context, j *Journal, c tool.Call) (json.RawMessage, error) {
	const op = ToolRequestHumanReview
	var in struct {
		ClaimIDs     []string `json:"claim_ids"`
		Reason       string   `json:"reason"`
		Priority     string   `json:"priority"`
		RequiredRole string   `json:"required_role"`
	}
	if err := json.Unmarshal(c.Input, &in); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, "input")
	}
	for _, id := range in.ClaimIDs {
		if _, ok := r.claims[id]; !ok {
			return nil, sanad.Errorf(sanad.CodeClaimNotFound, op, "no claim %s in deal %s", id, r.DealID)
		}
	}
	run, err := j.attach(ctx, c.Run, true)
	if err != nil {
		return nil, err
	}
	// The seed's default reviewer is an ANALYST; the policy's role names
	// are lower case.
	role := strings.ToLower(cmpOr(in.RequiredRole, "ANALYST"))
	id, err := j.Gates.Open(ctx, run, gate.Spec{Kind: gate.KindHumanReview, Reason: in.Reason, RequiredRole: role,
		Priority: gatePriority[cmpOr(in.Priority, "NORMAL")], ClaimIDs: in.ClaimIDs})
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]any{"gate_id": id, "status": gate.StatusOpen, "required_role": role, "run": run.Record.ID})
}

// ClaimLookup is lookup_claim's output (§4.1).
type ClaimLookup struct {
	Claim    claim.Claim      `json:"claim"`
	Sanad    *Sanad           `json:"sanad,omitempty"`
	Evidence []claim.Evidence `json:"evidence,omitempty"`
}

// Sanad is a claim's chain of transmission: the fact it states, its grade
// and verdict, whether one source alone carries it, the sources, and the
// contradictions.
type Sanad struct {
	Metric         string                `json:"metric"`
	Period         string                `json:"period,omitempty"`
	Grade          claim.Grade           `json:"grade"`
	Verdict        claim.Verdict         `json:"verdict"`
	Ahad           bool                  `json:"ahad"`
	CitedSource    string                `json:"cited_source,omitempty"`
	Sources        []string              `json:"sources"`
	Contradictions []claim.Contradiction `json:"contradictions,omitempty"`
}

func (r *Registry) lookupClaim(_ context.Context, c tool.Call) (any, error) {
	var in struct {
		ClaimID         string `json:"claim_id"`
		IncludeSanad    bool   `json:"include_sanad"`
		IncludeEvidence bool   `json:"include_evidence"`
	}
	if err := json.Unmarshal(c.Input, &in); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, ToolLookupClaim, "input")
	}
	cl, ok := r.claims[in.ClaimID]
	if !ok {
		return nil, sanad.Errorf(sanad.CodeClaimNotFound, ToolLookupClaim, "no claim %s in deal %s", in.ClaimID, r.DealID)
	}
	out := ClaimLookup{Claim: cl}
	f := r.facts[in.ClaimID]
	if in.IncludeSanad {
		s := &Sanad{Metric: f.Metric, Period: f.Period, Grade: cl.Grade, Verdict: cl.Verdict, Ahad: f.Ahad, CitedSource: cl.CitedSource, Contradictions: f.Contradictions}
		for _, e := range f.Sources {
			s.Sources = append(s.Sources, fmt.Sprintf("%s (%s, grade %s)", e.Document, e.Kind, e.Grade))
		}
		out.Sanad = s
	}
	if in.IncludeEvidence {
		out.Evidence = f.Sources
	}
	return out, nil
}

func (r *Registry) lookupCalc(_ context.Context, c tool.Call) (any, error) {
	var in struct {
		CalcID        string `json:"calc_id"`
		IncludeInputs *bool  `json:"include_inputs"`
	}
	if err := json.Unmarshal(c.Input, &in); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, ToolLookupCalc, "input")
	}
	res, ok := r.calcs[in.CalcID]
	if !ok {
		return nil, sanad.Errorf(sanad.CodeNotFound, ToolLookupCalc, "no calc %s in deal %s", in.CalcID, r.DealID)
	}
	out := map[string]any{"calc": res, "calc_sanad": map[string]any{"grade": res.CalcSanad}}
	if in.IncludeInputs == nil || *in.IncludeInputs {
		var inputs []claim.Claim
		for _, i := range res.Inputs {
			if cl, ok := r.claims[i.ClaimID]; ok {
				inputs = append(inputs, cl)
			}
		}
		out["inputs"] = inputs
	}
	return out, nil
}

// EvidenceItem is one search_evidence result (§4.3).
type EvidenceItem struct {
	EvidenceID     string      `json:"evidence_id"`
	SourceSpan     claim.Span  `json:"source_span"`
	SourceGrade    claim.Grade `json:"source_grade"`
	RelevanceScore float64     `json:"relevance_score"`
	TextExcerpt    string      `json:"text_excerpt"`
}

// searchEvidence ranks the deal's claims by the share of the query's
// words their text, metric and period hold.
func (r *Registry) searchEvidence(_ context.Context, c tool.Call) (any, error) {
	var in struct {
		Query      string `json:"query"`
		DealID     string `json:"deal_id"`
		ClaimClass string `json:"claim_class"`
		MinGrade   string `json:"min_grade"`
		Limit      int    `json:"limit"`
	}
	if err := json.Unmarshal(c.Input, &in); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, ToolSearchEvidence, "input")
	}
	if in.DealID != r.DealID {
		return nil, sanad.Errorf(sanad.CodeNotFound, ToolSearchEvidence, "no deal %s here", in.DealID)
	}
	if in.Limit == 0 {
		in.Limit = 10
	}
	min := claim.Grade(cmpOr(in.MinGrade, "D"))
	words := strings.Fields(strings.ToLower(in.Query))
	var items []EvidenceItem
	for id, cl := range r.claims {
		if in.ClaimClass != "" && string(cl.Class) != in.ClaimClass || cl.Grade > min {
			continue
		}
		hay := strings.ToLower(cl.Text + " " + cl.Value.Metric + " " + strings.ReplaceAll(cl.Value.Metric, "_", " ") + " " + cl.Value.Period)
		hit := 0
		for _, w := range words {
			if strings.Contains(hay, w) {
				hit++
			}
		}
		if hit == 0 {
			continue
		}
		items = append(items, EvidenceItem{EvidenceID: id, SourceSpan: cl.Span, SourceGrade: cl.Grade,
			RelevanceScore: float64(hit) / float64(len(words)), TextExcerpt: cl.Text})
	}
	sort.Slice(items, func(i, j int) bool {
		if items[i].RelevanceScore != items[j].RelevanceScore {
			return items[i].RelevanceScore > items[j].RelevanceScore
		}
		return items[i].EvidenceID < items[j].EvidenceID
	})
	total := len(items)
	if len(items) > in.Limit {
		items = items[:in.Limit]
	}
	return map[string]any{"results": items, "total_count": total}, nil
}

func (r *Registry) flagDefect(ctx context.Context, j *Journal, c tool.Call) (json.RawMessage, error) {
	const op = ToolFlagDefect
	var d Defect
	if err := json.Unmarshal(c.Input, &d); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, op, "input")
	}
	if _, ok := r.claims[d.ClaimID]; !ok {
		return nil, sanad.Errorf(sanad.CodeClaimNotFound, op, "no claim %s in deal %s", d.ClaimID, r.DealID)
	}
	// §6.2, also in the policy: a defect cites evidence and says what it is.
	if len(nonEmpty(d.EvidenceRefs)) == 0 || len([]rune(strings.TrimSpace(d.Description))) < 50 {
		return nil, sanad.Errorf(sanad.CodeToolAbuse, op, "a defect needs at least one evidence ref and a description of at least 50 characters")
	}
	for _, ref := range d.EvidenceRefs {
		if _, ok := r.claims[ref]; !ok {
			if _, ok := r.calcs[ref]; !ok {
				return nil, sanad.Errorf(sanad.CodeClaimNotFound, op, "evidence ref %s is neither a claim nor a calc of deal %s", ref, r.DealID)
			}
		}
	}
	d.DebateID, d.Round, d.FlaggedBy = c.DebateID, c.Round, c.Principal.Agent
	d.DefectID = "def-" + strings.ReplaceAll(c.Key, "/", "-")
	if j != nil {
		run, err := j.attach(ctx, c.Run, false)
		if err != nil {
			return nil, err
		}
		if _, err := run.Append(ctx, TypeDefectFlagged, "", d, nil); err != nil {
			return nil, err
		}
	}
	r.mu.Lock()
	r.defects = append(r.defects, d)
	r.mu.Unlock()
	return json.Marshal(d)
}

func (r *Registry) queryEnrichment(ctx context.Context, c tool.Call) (json.RawMessage, error) {
	var in struct {
		EntityType string   `json:"entity_type"`
		EntityName string   `json:"entity_name"`
		DataPoints []string `json:"data_points"`
	}
	if err := json.Unmarshal(c.Input, &in); err != nil {
		return nil, sanad.Wrap(err, sanad.CodeInvalidInput, ToolQueryEnrichment, "input")
	}
	// A tool that cannot produce evidence fails loudly.
	if r.Enrichment == nil {
		return nil, sanad.Errorf(sanad.CodeDependencyDown, ToolQueryEnrichment, "no enrichment source is configured for deal %s", r.DealID)
	}
	res, err := r.Enrichment.Query(ctx, in.EntityType, in.EntityName, in.DataPoints)
	if err != nil {
		return nil, err
	}
	for i := range res {
		if res[i].Grade != "C" {
			res[i].Grade = "D"
		}
	}
	return json.Marshal(map[string]any{"results": res, "needs_corroboration": true})
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
