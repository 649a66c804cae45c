package debate

import "strings"

// Challenge is one role's challenge of a claim: what it says is wrong,
// with which claims, and on what evidence.
type Challenge struct {
	ChallengeID  string   `json:"challenge_id"`
	By           string   `json:"by"`
	ClaimRefs    []string `json:"claim_refs"`
	DefectType   string   `json:"defect_type"`
	Severity     string   `json:"severity,omitempty"` // FATAL, MAJOR or MINOR
	Description  string   `json:"description"`
	EvidenceRefs []string `json:"evidence_refs"`
}

// Frivolous says why the arbiter must not hear a challenge (§6.3): it names
// no claim, no defect type, or cites no evidence. It returns "" for a
// challenge that may be heard.
func Frivolous(c Challenge) string {
	switch {
	case len(nonEmpty(c.ClaimRefs)) == 0:
		return "a challenge must reference specific claim ids"
	case strings.TrimSpace(c.DefectType) == "":
		return "a challenge must specify a defect type"
	case len(nonEmpty(c.EvidenceRefs)) == 0:
		return "a challenge must cite evidence for the defect it claims"
	}
	return ""
}

func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}
