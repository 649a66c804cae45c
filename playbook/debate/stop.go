package debate

import "sort"

// Position is where a role stands at the end of a round: for the thesis
// or against it, and on which claims.
type Position struct {
	Role      string
	AgentID   string
	Stance    string // "for" or "against"
	Statement string
	ClaimRefs []string
}

// Round is what the stop conditions read of one round.
type Round struct {
	Number int
	// Open are the challenges the arbiter upheld that no later evidence
	// has cured.
	Open []Challenge
	// NewEvidence says some role cited a claim, calc or evidence item no
	// earlier round had cited.
	NewEvidence bool
	Positions   []Position
}

// Stop returns why the debate stops after the last of rounds, or "" when
// it goes on (§3.1 stop_reason). In order:
//   - CRITICAL_DEFECT: an upheld challenge is FATAL;
//   - CONSENSUS: no upheld challenge is open (risks alone do not block it);
//   - EVIDENCE_EXHAUSTED: challenges stay open and the round brought no
//     new evidence;
//   - STABLE_DISSENT: challenges stay open and roles have held opposing,
//     evidenced positions, unchanged, for two rounds;
//   - MAX_ROUNDS: the last round allowed is over.
func Stop(rounds []Round, maxRounds int) string {
	if len(rounds) == 0 {
		return ""
	}
	if maxRounds <= 0 {
		maxRounds = DefaultMaxRounds
	}
	last := rounds[len(rounds)-1]
	for _, c := range last.Open {
		if c.Severity == SeverityFatal {
			return StopCriticalDefect
		}
	}
	switch {
	case len(last.Open) == 0:
		return StopConsensus
	case !last.NewEvidence:
		return StopEvidenceExhausted
	case len(rounds) >= 2 && opposed(last.Positions) && sameStances(rounds[len(rounds)-2].Positions, last.Positions):
		return StopStableDissent
	case last.Number >= maxRounds || len(rounds) >= maxRounds:
		return StopMaxRounds
	}
	return ""
}

// Severities of a defect (§4.4).
const (
	SeverityFatal = "FATAL"
	SeverityMajor = "MAJOR"
	SeverityMinor = "MINOR"
)

// PreserveDissent returns the positions to preserve when a debate stops: those
// against the side more roles took (all opposing ones when the sides are
// even), each with its evidence.
func PreserveDissent(last Round) []Dissent {
	var forN, againstN int
	for _, p := range last.Positions {
		switch p.Stance {
		case "for":
			forN++
		case "against":
			againstN++
		}
	}
	var keep []string
	switch {
	case forN == 0 || againstN == 0:
		return nil
	case forN > againstN:
		keep = []string{"against"}
	case againstN > forN:
		keep = []string{"for"}
	default:
		keep = []string{"for", "against"}
	}
	var out []Dissent
	for _, p := range last.Positions {
		for _, k := range keep {
			if p.Stance == k && len(p.ClaimRefs) > 0 {
				out = append(out, Dissent{AgentID: p.AgentID, Role: p.Role, Position: p.Statement, ClaimRefs: p.ClaimRefs, RoundNumber: last.Number})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Role < out[j].Role })
	return out
}

// opposed says whether positions include an evidenced one for and one
// against.
func opposed(ps []Position) bool {
	var f, a bool
	for _, p := range ps {
		if len(p.ClaimRefs) == 0 {
			continue
		}
		f = f || p.Stance == "for"
		a = a || p.Stance == "against"
	}
	return f && a
}

// sameStances says whether every role stands where it stood.
func sameStances(before, now []Position) bool {
	was := map[string]string{}
	for _, p := range before {
		was[p.Role] = p.Stance
	}
	for _, p := range now {
		if was[p.Role] != p.Stance {
			return false
		}
	}
	return len(before) > 0
}
