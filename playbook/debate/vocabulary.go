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

// Vocabulary declares the debate's events.
func Vocabulary() ledger.Vocabulary {
	return ledger.Vocabulary{Types: []ledger.TypeDef{
		{Name: TypeMuhasabahRejected, Schema: rejectedSchema, Signer: ledger.SignedByRuntime, Doc: "the Muḥāsabah gate rejected an output: the agent, the round and the rules it broke"},
	}}
}
