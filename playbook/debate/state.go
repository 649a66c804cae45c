// Package debate is the due-diligence debate of seed 000: five roles
// (advocate, sanad breaker, contradiction finder, risk officer, arbiter)
// argue over a deal's claim registry in rounds, every output carries a
// Muḥāsabah record (what it rests on, what would prove it wrong, what it is
// unsure of, how sure it is), and a fail-closed gate rejects any output
// whose record does not meet the four rules of §7.1.
//
// This file holds the schemas of §3: [State], [Output] and
// [MuhasabahRecord], with their JSON Schemas embedded (schema/).
package debate

import (
	"bytes"
	"embed"
	"encoding/json"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/schemafile"
)

// The roles of §2.2.
const (
	RoleAdvocate            = "advocate"
	RoleSanadBreaker        = "sanad_breaker"
	RoleContradictionFinder = "contradiction_finder"
	RoleRiskOfficer         = "risk_officer"
	RoleArbiter             = "arbiter"
)

// Roles are the five roles, in the order a round hears them.
var Roles = []string{RoleAdvocate, RoleSanadBreaker, RoleContradictionFinder, RoleRiskOfficer, RoleArbiter}

// Stop reasons (§3.1).
const (
	StopConsensus         = "CONSENSUS"
	StopStableDissent     = "STABLE_DISSENT"
	StopEvidenceExhausted = "EVIDENCE_EXHAUSTED"
	StopMaxRounds         = "MAX_ROUNDS"
	StopCriticalDefect    = "CRITICAL_DEFECT"
)

// DefaultMaxRounds is State.MaxRounds when it is zero.
const DefaultMaxRounds = 5

// State is the debate's state, the input of every role (§3.1 DebateState).
type State struct {
	DealID           string             `json:"deal_id"`
	DebateID         string             `json:"debate_id,omitempty"`
	RoundNumber      int                `json:"round_number"`
	MaxRounds        int                `json:"max_rounds,omitempty"`
	ClaimRegistryRef string             `json:"claim_registry_ref"`
	SanadGraphRef    string             `json:"sanad_graph_ref,omitempty"`
	Messages         []Message          `json:"messages"`
	OpenQuestions    []string           `json:"open_questions,omitempty"`
	UtilityScores    map[string]float64 `json:"utility_scores,omitempty"`
	ArbiterDecisions []ArbiterDecision  `json:"arbiter_decisions,omitempty"`
	ConsensusReached bool               `json:"consensus_reached"`
	// StopReason is empty while the debate goes on.
	StopReason       string    `json:"stop_reason,omitempty"`
	PreservedDissent []Dissent `json:"preserved_dissent,omitempty"`
}

// Message is one output heard in a round.
type Message struct {
	RoundNumber int    `json:"round_number"`
	Output      Output `json:"output"`
}

// ArbiterDecision is the arbiter's ruling on one challenge.
type ArbiterDecision struct {
	RoundNumber int    `json:"round_number"`
	ChallengeID string `json:"challenge_id"`
	// Ruling is UPHELD, DISMISSED, FRIVOLOUS or ESCALATED.
	Ruling string `json:"ruling"`
	Reason string `json:"reason"`
}

// Dissent is a position kept in the record when the debate stops without
// agreement on it.
type Dissent struct {
	AgentID     string   `json:"agent_id"`
	Role        string   `json:"role"`
	Position    string   `json:"position"`
	ClaimRefs   []string `json:"claim_refs"`
	RoundNumber int      `json:"round_number,omitempty"`
}

// Output is what a role produces (§3.2 AgentOutput).
type Output struct {
	AgentID           string          `json:"agent_id"`
	Role              string          `json:"role"`
	RoundNumber       int             `json:"round_number,omitempty"`
	Content           string          `json:"content"`
	StructuredContent json.RawMessage `json:"structured_content,omitempty"`
	ClaimRefs         []string        `json:"claim_refs"`
	CalcRefs          []string        `json:"calc_refs,omitempty"`
	ToolCalls         []ToolCall      `json:"tool_calls,omitempty"`
	Muhasabah         MuhasabahRecord `json:"muhasabah_record"`
	Timestamp         string          `json:"timestamp,omitempty"`
}

// ToolCall is a tool call an output made, as it was recorded.
type ToolCall struct {
	Tool       string          `json:"tool"`
	Args       json.RawMessage `json:"args,omitempty"`
	Status     string          `json:"status"`
	ResultHash string          `json:"result_hash,omitempty"`
}

// MuhasabahRecord is an output's self-accounting (§3.3).
type MuhasabahRecord struct {
	SupportedClaimIDs       []string             `json:"supported_claim_ids"`
	SupportedCalcIDs        []string             `json:"supported_calc_ids,omitempty"`
	EvidenceSummary         string               `json:"evidence_summary,omitempty"`
	CounterHypothesis       string               `json:"counter_hypothesis,omitempty"`
	FalsifiabilityTests     []FalsifiabilityTest `json:"falsifiability_tests,omitempty"`
	Uncertainties           []Uncertainty        `json:"uncertainties,omitempty"`
	FailureModes            []string             `json:"failure_modes,omitempty"`
	Confidence              float64              `json:"confidence"`
	ConfidenceJustification string               `json:"confidence_justification,omitempty"`
}

// FalsifiabilityTest says what evidence would prove an output wrong.
type FalsifiabilityTest struct {
	TestDescription  string `json:"test_description"`
	RequiredEvidence string `json:"required_evidence,omitempty"`
	PassFailRule     string `json:"pass_fail_rule,omitempty"`
}

// Uncertainty is something an output is unsure of.
type Uncertainty struct {
	Uncertainty string `json:"uncertainty"`
	Impact      string `json:"impact,omitempty"`
	Mitigation  string `json:"mitigation,omitempty"`
}

//go:embed schema/*.schema.json
var schemaFiles embed.FS

const schemaBase = "https://sanad.dev/schema/debate/"

var (
	schemasOnce sync.Once
	schemas     map[string]*jsonschema.Schema
	schemasErr  error
)

// Schema names.
const (
	SchemaState     = "debate_state"
	SchemaOutput    = "agent_output"
	SchemaMuhasabah = "muhasabah_record"
)

// ValidateJSON checks raw against the embedded JSON Schema called name
// (SchemaState, SchemaOutput or SchemaMuhasabah); the error is
// INVALID_INPUT and says where and what.
func ValidateJSON(name string, raw []byte) error {
	const op = "debate.validate"
	schemasOnce.Do(func() {
		schemas, schemasErr = schemafile.Compile(schemaFiles, schemaBase, SchemaMuhasabah, SchemaOutput, SchemaState)
	})
	if schemasErr != nil {
		return sanad.Wrap(schemasErr, sanad.CodeInternal, op, "the debate schemas")
	}
	s, ok := schemas[name]
	if !ok {
		return sanad.Errorf(sanad.CodeInvalidInput, op, "no debate schema %q", name)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return sanad.Wrap(err, sanad.CodeInvalidInput, op, name+" is not JSON")
	}
	if err := schemafile.ValidateValue(name, v, s, nil); err != nil {
		return sanad.Wrap(err, sanad.CodeInvalidInput, op, err.Error())
	}
	return nil
}
