package runs

import (
	"fmt"

	"github.com/sanadhq/sanad/ledger"
)

const refSchema = `{"type":"object","required":["artifact_id","sha256","media_type","size_bytes","scope"],
 "properties":{"artifact_id":{"type":"string"},"sha256":{"type":"string","pattern":"^[0-9a-f]{64}$"},
  "media_type":{"type":"string","minLength":1},"size_bytes":{"type":"integer","minimum":0},
  "uri":{"type":"string"},"created_by_run":{"type":"string"},
  "scope":{"type":"object","required":["tenant"],"properties":{"tenant":{"type":"string"},"case":{"type":"string"}},"additionalProperties":false}},
 "additionalProperties":false}`

var startedSchema = `{"type":"object","required":["run"],"additionalProperties":false,"properties":{"run":{
 "type":"object","required":["run_id","root_run_id","trace","kind","scope","agent","contract_version","status","started_at"],
 "properties":{
  "run_id":{"type":"string","minLength":1},"parent_run_id":{"type":"string"},"root_run_id":{"type":"string","minLength":1},
  "correlation_id":{"type":"string"},"trace":{"type":"string","minLength":1},
  "kind":{"enum":["agent","workflow","session","tool_gateway","db_write","promotion","export","model_call"]},
  "scope":{"type":"object","required":["tenant"]},"agent":{"type":"string","minLength":1},
  "contract_version":{"const":"v1"},
  "policy_versions":{"type":"object","additionalProperties":{"type":"object","required":["version","sha256"],"properties":{"version":{"type":"string"},"sha256":{"type":"string"}},"additionalProperties":false}},
  "taxonomy_versions":{"type":"object","additionalProperties":{"type":"string"}},
  "inputs":{"type":"array","items":` + refSchema + `},
  "outputs":{"type":"array","maxItems":0},
  "request_hash":{"type":"string","pattern":"^sha256:[0-9a-f]{64}$"},
  "status":{"const":"running"},"started_at":{"type":"string"}},
 "additionalProperties":false}}}`

const decisionSchema = `{"type":"object","required":["allow","reason","principal","action"],"additionalProperties":false,
 "properties":{"allow":{"type":"boolean"},"reason":{"type":"string","minLength":1,"maxLength":1024},"rule":{"type":"string"},
  "principal":{"type":"object","required":["agent"],"properties":{"agent":{"type":"string"},"role":{"type":"string"}},"additionalProperties":false},
  "action":{"type":"string","minLength":1},"resource":{"type":"string"},
  "policy_versions":{"type":"object","additionalProperties":{"type":"object","required":["version","sha256"]}}}}`

func endedSchema(status string) string {
	return `{"type":"object","required":["status","outcome"],"additionalProperties":false,
 "properties":{"status":{"const":"` + status + `"},"outcome":{"enum":["success","deny","failure"]},
  "outputs":{"type":"array","items":` + refSchema + `},
  "response_hash":{"type":"string","pattern":"^sha256:[0-9a-f]{64}$"},
  "error":{"type":"object","required":["code","message","retryable"],"additionalProperties":false,
   "properties":{"code":{"type":"string","minLength":1},"message":{"type":"string","maxLength":512},"retryable":{"type":"boolean"},
    "stack":{"type":"string","maxLength":8192}}}}}`
}

// Vocabulary declares the run lifecycle events and the rules that order them.
func Vocabulary() ledger.Vocabulary {
	return ledger.Vocabulary{
		Types: []ledger.TypeDef{
			{Name: TypeStarted, Schema: startedSchema, Signer: ledger.SignedByRuntime, Doc: "a run starts; the body is its record"},
			{Name: TypeAuthz, Schema: decisionSchema, Signer: ledger.SignedByRuntime, Doc: "the authorization decision for a run or an action within it"},
			{Name: TypeCompleted, Schema: endedSchema("completed"), Signer: ledger.SignedByEither, Doc: "a run completed; its outputs, asserted by the acting agent"},
			{Name: TypeFailed, Schema: endedSchema("failed"), Signer: ledger.SignedByRuntime, Doc: "a run failed"},
			{Name: TypeDenied, Schema: endedSchema("denied"), Signer: ledger.SignedByRuntime, Doc: "a run was denied"},
			{Name: TypeCancelled, Schema: endedSchema("cancelled"), Signer: ledger.SignedByRuntime, Doc: "a run was cancelled"},
		},
		Rules: []ledger.RuleFunc{func() ledger.Rule { return &lifecycle{runs: make(map[string]*runState)} }},
	}
}

type runState struct {
	authorized bool
	ended      bool
	open       int // children started and not ended
	parent     string
}

// lifecycle enforces the run lifecycle within a trace: a run's first event is
// run.started, naming a parent that is running in the same trace (or none for
// the root, whose id is the trace id); the next event of that run is its
// authz.decision; exactly one terminal event ends it, after its children have
// ended; nothing of a run follows its end.
type lifecycle struct {
	runs map[string]*runState
}

func (l *lifecycle) Check(e *ledger.Event) error {
	if e.Run == "" {
		return nil
	}
	st, known := l.runs[e.Run]
	if e.Type == TypeStarted {
		if known {
			return fmt.Errorf("run %s started twice", e.Run)
		}
		if e.Root != e.Trace {
			return fmt.Errorf("run %s names root %q, not its trace", e.Run, e.Root)
		}
		if e.Parent == "" {
			if e.Run != e.Trace {
				return fmt.Errorf("run %s has no parent but is not the trace's root run", e.Run)
			}
		} else {
			p, ok := l.runs[e.Parent]
			if !ok || p.ended {
				return fmt.Errorf("run %s starts under parent %s, which is not running", e.Run, e.Parent)
			}
			p.open++
		}
		l.runs[e.Run] = &runState{parent: e.Parent}
		return nil
	}
	if !known {
		return fmt.Errorf("%s for run %s before its run.started", e.Type, e.Run)
	}
	if st.ended {
		return fmt.Errorf("%s for run %s after it ended", e.Type, e.Run)
	}
	if !st.authorized {
		if e.Type != TypeAuthz {
			return fmt.Errorf("%s for run %s before its authz.decision", e.Type, e.Run)
		}
		st.authorized = true
		return nil
	}
	if _, terminal := terminalTypes[e.Type]; terminal {
		if st.open > 0 {
			return fmt.Errorf("run %s ended with %d child runs still open", e.Run, st.open)
		}
		st.ended = true
		if p, ok := l.runs[st.parent]; ok {
			p.open--
		}
	}
	return nil
}

var terminalTypes = map[string]bool{TypeCompleted: true, TypeFailed: true, TypeDenied: true, TypeCancelled: true}

func (l *lifecycle) Finish() error { return nil }
