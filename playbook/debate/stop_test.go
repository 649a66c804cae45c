package debate

import "testing"

func TestD17_StopConditions(t *testing.T) {
	upheld := Challenge{ChallengeID: "ch-1", ClaimRefs: []string{"c1"}, DefectType: "SINGLE_SOURCE", Severity: SeverityMajor, EvidenceRefs: []string{"c2"}}
	fatal := upheld
	fatal.Severity = SeverityFatal
	split := []Position{
		{Role: RoleAdvocate, AgentID: "a", Stance: "for", Statement: "revenue is sound", ClaimRefs: []string{"c1"}},
		{Role: RoleSanadBreaker, AgentID: "s", Stance: "against", Statement: "revenue rests on the deck alone", ClaimRefs: []string{"c2"}},
		{Role: RoleRiskOfficer, AgentID: "r", Stance: "for", Statement: "risks are priced", ClaimRefs: []string{"c3"}},
	}
	cases := []struct {
		name   string
		rounds []Round
		max    int
		want   string
	}{
		{"no round yet", nil, 5, ""},
		{"a fatal defect upheld", []Round{{Number: 1, Open: []Challenge{fatal}, NewEvidence: true}}, 5, StopCriticalDefect},
		{"nothing open", []Round{{Number: 1, NewEvidence: true}}, 5, StopConsensus},
		{"open, no new evidence", []Round{{Number: 1, Open: []Challenge{upheld}, NewEvidence: true}, {Number: 2, Open: []Challenge{upheld}}}, 5, StopEvidenceExhausted},
		{"open, opposed twice", []Round{{Number: 1, Open: []Challenge{upheld}, NewEvidence: true, Positions: split}, {Number: 2, Open: []Challenge{upheld}, NewEvidence: true, Positions: split}}, 5, StopStableDissent},
		{"open, opposed once", []Round{{Number: 1, Open: []Challenge{upheld}, NewEvidence: true, Positions: split}}, 5, ""},
		{"open at the last round", []Round{{Number: 1, Open: []Challenge{upheld}, NewEvidence: true}, {Number: 2, Open: []Challenge{upheld}, NewEvidence: true}}, 2, StopMaxRounds},
	}
	for _, c := range cases {
		if got := Stop(c.rounds, c.max); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	d := PreserveDissent(Round{Number: 2, Positions: split})
	if len(d) != 1 || d[0].Role != RoleSanadBreaker || d[0].ClaimRefs[0] != "c2" {
		t.Fatalf("dissent preserved: %+v", d)
	}
}
