package debate

import "github.com/sanadhq/sanad/ledger"

// TypeMuhasabahRejected is the event of an output the Muḥāsabah gate
// rejected (§7.2): which agent, in which round, and the rules it broke.
const TypeMuhasabahRejected = "muhasabah.rejected"

const rejectedSchema = `{"type":"object","required":["agent_id","role","violations"],"additionalProperties":false,"properties":{
  "debate_id":{"type":"string"},"agent_id":{"type":"string","minLength":1},"role":{"type":"string","minLength":1},
  "round_number":{"type":"integer","minimum":1},
  "violations":{"type":"array","minItems":1,"items":{"type":"object","required":["rule","detail"],"additionalProperties":false,
    "properties":{"rule":{"enum":["NO_FREE_FACTS","FALSIFIABILITY_MISSING","UNCERTAINTIES_MISSING","OVERCONFIDENCE","SCHEMA"]},"detail":{"type":"string"}}}}}}`

const defectSchema = `{"type":"object","required":["defect_id","claim_id","defect_type","severity","description","evidence_refs","cure_protocol","flagged_by"],"additionalProperties":false,"properties":{
  "defect_id":{"type":"string","minLength":1},"debate_id":{"type":"string"},"round_number":{"type":"integer","minimum":0},
  "claim_id":{"type":"string","minLength":1},"defect_type":{"type":"string","minLength":1},"severity":{"enum":["FATAL","MAJOR","MINOR"]},
  "description":{"type":"string","minLength":50},"evidence_refs":{"type":"array","minItems":1,"items":{"type":"string","minLength":1}},
  "cure_protocol":{"type":"string"},"flagged_by":{"type":"string"}}}`

// Vocabulary declares the debate's events.
func Vocabulary() ledger.Vocabulary {
	return ledger.Vocabulary{Types: []ledger.TypeDef{
		{Name: TypeDefectFlagged, Schema: defectSchema, Signer: ledger.SignedByRuntime, Doc: "a defect flagged in a claim's evidence chain: its type, severity, evidence and cure (seed 000 §4.4)"},
		{Name: TypeMuhasabahRejected, Schema: rejectedSchema, Signer: ledger.SignedByRuntime, Doc: "the Muḥāsabah gate rejected an output: the agent, the round and the rules it broke"},
	}}
}
