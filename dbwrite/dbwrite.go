// Package dbwrite is the one door to sanad's domain tables (transcripts,
// interview notes, entities, facts, evidence and COA maps, shared playbooks
// and heuristics, export bundles, claims, defects, and the document versions
// of a case's memory). A write is a db_write
// child run under a lane: policy decides whether the caller may append to or
// upsert into the table in that lane, the record is stored as an artifact, and
// a db.write event records it. The tables a store lists are a projection of
// those events, so every row has its audit trail by construction.
package dbwrite

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/artifact"
	"github.com/sanadhq/sanad/canon"
	"github.com/sanadhq/sanad/ledger"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/runs"
)

// TypeWrite is the event type of a domain write.
const TypeWrite = "db.write"

// Tables are the domain tables, as the contract and the debate name them.
var Tables = []string{
	"transcripts", "interview_notes", "entities", "facts", "evidence_map", "coa_map",
	"shared_playbooks", "shared_heuristics", "export_bundles", "claims", "defects",
	"documents", "conversations", "deals",
}

// Op is how a write changes its table.
type Op string

// Write operations.
const (
	Append Op = "append" // add a record
	Upsert Op = "upsert" // add or replace the record with the same key
)

// Request is one write.
type Request struct {
	Lane   string
	Table  string
	Op     Op
	Key    string          // required for upsert
	Record json.RawMessage // a JSON object
	// Fields are scope fields the lane may require (client_session_id,
	// coa_version, promotion_ticket_id, …); run_id and case_id are filled in.
	Fields map[string]string
	// Tags mark what the record contains (raw_case_text, client_identity, …)
	// for the lane's prohibitions.
	Tags []string
}

// Result is a completed write.
type Result struct {
	Run    string            `json:"run"`
	Record sanad.ArtifactRef `json:"record"`
}

// Body is the body of a db.write event.
type Body struct {
	Lane   string `json:"lane"`
	Table  string `json:"table"`
	Op     Op     `json:"op"`
	Key    string `json:"key,omitempty"`
	SHA256 string `json:"record_sha256"`
}

// Writer performs governed writes. It is safe for concurrent use.
type Writer struct {
	Policy    *policy.Set
	Runs      *runs.Recorder
	Artifacts *artifact.Store
}

// Write performs req as a db_write child run of parent, acting as p. A
// refused write is recorded (a denied db_write run) and returns
// POLICY_DENIED; a malformed one returns INVALID_INPUT before anything is
// recorded.
func (w *Writer) Write(ctx context.Context, parent *runs.Run, p policy.Principal, req Request) (Result, error) {
	const op = "dbwrite.write"
	if !slices.Contains(Tables, req.Table) {
		return Result{}, sanad.Errorf(sanad.CodeInvalidInput, op, "%q is not a domain table", req.Table)
	}
	if req.Op != Append && req.Op != Upsert {
		return Result{}, sanad.Errorf(sanad.CodeInvalidInput, op, "op must be append or upsert, not %q", req.Op)
	}
	if (req.Op == Upsert) != (req.Key != "") {
		return Result{}, sanad.Errorf(sanad.CodeInvalidInput, op, "an upsert needs a key and an append has none")
	}
	record, err := canon.Transform(req.Record)
	if err != nil || len(record) == 0 || record[0] != '{' {
		return Result{}, sanad.Errorf(sanad.CodeInvalidInput, op, "the record must be a JSON object")
	}
	scope := parent.Record.Scope
	fields := map[string]string{"run_id": parent.Record.ID}
	if scope.Case != "" {
		fields["case_id"] = scope.Case
	}
	for k, v := range req.Fields {
		fields[k] = v
	}
	action := string(req.Op) + ":" + req.Table
	d := w.Policy.Decide(p, policy.LaneAction(req.Lane, action), policy.Resource{Scope: scope, Fields: fields, Tags: req.Tags})
	run, err := w.Runs.Start(ctx, runs.Spec{
		Kind: sanad.KindDBWrite, Parent: parent, Scope: scope, Agent: parent.Record.Agent, Role: p.Role,
		PolicyVersions: w.Policy.Versions(), Request: map[string]any{"lane": req.Lane, "action": action, "key": req.Key, "record": json.RawMessage(record)},
		Decision: runs.Decision{Allow: d.Allow, Reason: d.Reason, Rule: string(d.Rule), Action: action, Resource: req.Lane + "/" + req.Table},
	})
	if err != nil {
		return Result{}, err
	}
	ref, err := w.Artifacts.Put(ctx, scope, run.Record.ID, "application/json", record)
	if err != nil {
		_ = run.Fail(ctx, err)
		return Result{}, err
	}
	body := Body{Lane: req.Lane, Table: req.Table, Op: req.Op, Key: req.Key, SHA256: ref.SHA256}
	if _, err := run.Append(ctx, TypeWrite, "", body, []sanad.ArtifactRef{ref}); err != nil {
		_ = run.Fail(ctx, err)
		return Result{}, err
	}
	if err := run.Complete(ctx, []sanad.ArtifactRef{ref}, body); err != nil {
		return Result{}, err
	}
	return Result{Run: run.Record.ID, Record: ref}, nil
}

// Row is a current record of a domain table, as a store projects it.
type Row struct {
	Table  string      `json:"table"`
	Key    string      `json:"key"`
	Scope  sanad.Scope `json:"scope"`
	SHA256 string      `json:"record_sha256"`
	Run    string      `json:"run"`
	Index  uint64      `json:"event_index"`
}

// Vocabulary declares db.write. Its rule: a db.write belongs to a db_write
// run (checked through the run's kind in its run.started event).
func Vocabulary() ledger.Vocabulary {
	schema := fmt.Sprintf(`{"type":"object","required":["lane","table","op","record_sha256"],"additionalProperties":false,"properties":{
  "lane":{"type":"string","minLength":1},"table":{"enum":%s},"op":{"enum":["append","upsert"]},
  "key":{"type":"string","minLength":1,"maxLength":256},"record_sha256":{"type":"string","pattern":"^[0-9a-f]{64}$"}}}`, mustJSON(Tables))
	return ledger.Vocabulary{
		Types: []ledger.TypeDef{{Name: TypeWrite, Schema: schema, Signer: ledger.SignedByRuntime, Doc: "a record written to a domain table under a lane"}},
		Rules: []ledger.RuleFunc{func() ledger.Rule { return &kindRule{} }},
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // static data
	}
	return string(b)
}

// kindRule remembers which runs are db_write runs, reading only the kind of
// each run.started body.
type kindRule struct{ dbWriteRuns map[string]bool }

func (r *kindRule) Check(e *ledger.Event) error {
	switch e.Type {
	case runs.TypeStarted:
		if kind, _ := e.BodyPath("run", "kind"); kind == string(sanad.KindDBWrite) {
			if r.dbWriteRuns == nil {
				r.dbWriteRuns = make(map[string]bool)
			}
			r.dbWriteRuns[e.Run] = true
		}
	case TypeWrite:
		if !r.dbWriteRuns[e.Run] {
			return fmt.Errorf("db.write outside a db_write run (run %s)", e.Run)
		}
		if len(e.Refs) != 1 {
			return fmt.Errorf("db.write must refer to exactly its record")
		}
	}
	return nil
}

func (r *kindRule) Finish() error { return nil }
