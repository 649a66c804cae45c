package diligence

import (
	"fmt"
	"slices"

	"github.com/sanadhq/sanad/claim"
	"github.com/sanadhq/sanad/playbook/debate"
)

// MaxRounds bounds the simulated debate.
const MaxRounds = 3

// arbitrate turns every contradiction and defect, and a going-concern
// uncertainty, into a challenge; upholds each one that is not frivolous;
// and runs the rounds:
//
//   - Round 1 hears the findings. A FATAL upheld challenge stops the
//     debate (CRITICAL_DEFECT); none upheld is CONSENSUS. Risks are
//     reported but do not block.
//   - Round 2 looks for evidence not yet cited that bears on each open
//     challenge. An arithmetic defect whose two figures another document
//     states too is cured: the figures stand, the stated rate is wrong,
//     and the calc replaces it. A contradiction whose two figures a third
//     document states side by side (minutes that reconcile them) is new
//     evidence but does not cure it: the arithmetic is explained, the
//     choice between the figures is a judgement, and the advocate and
//     the contradiction finder keep their positions (STABLE_DISSENT).
//     With nothing new, the open challenges stay open
//     (EVIDENCE_EXHAUSTED).
func (a *analysis) arbitrate() {
	items := append(append([]*Item{}, ptrs(a.f.Contradictions)...), ptrs(a.f.Defects)...)
	for i := range a.f.Risks {
		if a.f.Risks[i].Type == RiskGoingConcern {
			items = append(items, &a.f.Risks[i])
		}
	}
	cited := map[string]bool{}
	var open []*Item
	var upheld []debate.Challenge
	for n, it := range items {
		ch := debate.Challenge{
			ChallengeID:  fmt.Sprintf("ch-%02d", n+1),
			By:           roleOf(it),
			ClaimRefs:    it.Claims,
			DefectType:   it.Type,
			Severity:     it.Severity,
			Description:  it.Text,
			EvidenceRefs: append(append([]string{}, it.Calcs...), it.Documents...),
		}
		a.f.Challenges = append(a.f.Challenges, ch)
		if why := debate.Frivolous(ch); why != "" {
			a.f.Rulings = append(a.f.Rulings, debate.ArbiterDecision{RoundNumber: 1, ChallengeID: ch.ChallengeID, Ruling: "FRIVOLOUS", Reason: why})
			continue
		}
		a.f.Rulings = append(a.f.Rulings, debate.ArbiterDecision{RoundNumber: 1, ChallengeID: ch.ChallengeID, Ruling: "UPHELD", Reason: "cites claims that resolve to spans and the evidence for " + it.Type})
		upheld = append(upheld, ch)
		open = append(open, it)
		for _, id := range append(append([]string{}, it.Claims...), it.Calcs...) {
			cited[id] = true
		}
	}
	positions := a.positions(open)
	r1 := debate.Round{Number: 1, Open: upheld, NewEvidence: true, Positions: positions}
	rounds := []debate.Round{r1}
	a.f.Rounds = append(a.f.Rounds, Round{Number: 1, Open: ids(upheld), NewEvidence: true, Note: "findings heard"})
	stop := debate.Stop(rounds, MaxRounds)
	for stop == "" {
		n := len(rounds) + 1
		var still []debate.Challenge
		var stillItems []*Item
		newEvidence := false
		var notes []string
		for i, it := range open {
			ch := upheldFor(upheld, it, open)
			_ = i
			switch cure, evidence := a.review(it, cited); {
			case cure != "":
				it.Resolved = cure
				newEvidence = true
				notes = append(notes, cure)
				a.f.Rulings = append(a.f.Rulings, debate.ArbiterDecision{RoundNumber: n, ChallengeID: ch.ChallengeID, Ruling: "DISMISSED", Reason: cure})
				for _, id := range evidence {
					cited[id] = true
				}
			default:
				if len(evidence) > 0 {
					newEvidence = true
					notes = append(notes, fmt.Sprintf("%s: new evidence reconciles the figures but not the judgement between them", ch.ChallengeID))
					for _, id := range evidence {
						cited[id] = true
					}
				}
				still = append(still, ch)
				stillItems = append(stillItems, it)
			}
		}
		rounds = append(rounds, debate.Round{Number: n, Open: still, NewEvidence: newEvidence, Positions: a.positions(stillItems)})
		note := "no new evidence"
		if len(notes) > 0 {
			note = fmt.Sprint(notes)
		}
		a.f.Rounds = append(a.f.Rounds, Round{Number: n, Open: ids(still), NewEvidence: newEvidence, Note: note})
		open, upheld = stillItems, still
		stop = debate.Stop(rounds, MaxRounds)
	}
	a.f.StopReason = stop
	if stop == debate.StopStableDissent {
		a.f.Dissent = debate.PreserveDissent(rounds[len(rounds)-1])
	}
}

func ptrs(items []Item) []*Item {
	var out []*Item
	for i := range items {
		out = append(out, &items[i])
	}
	return out
}

func ids(cs []debate.Challenge) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, c.ChallengeID)
	}
	return out
}

// upheldFor finds the challenge made of an open item.
func upheldFor(upheld []debate.Challenge, it *Item, open []*Item) debate.Challenge {
	for i, o := range open {
		if o == it && i < len(upheld) {
			return upheld[i]
		}
	}
	return debate.Challenge{}
}

func roleOf(it *Item) string {
	switch it.Type {
	case TypeContradiction, TypeInconsistentArithmetic:
		return debate.RoleContradictionFinder
	case RiskGoingConcern:
		return debate.RoleRiskOfficer
	}
	return debate.RoleSanadBreaker
}

// review is round 2's look at an open item: why it is cured, if it is,
// and the claims not cited before that bear on it.
func (a *analysis) review(it *Item, cited map[string]bool) (cure string, evidence []string) {
	switch it.Type {
	case TypeInconsistentArithmetic:
		// Claims[1:] are the two figures of a growth rate; a sum that
		// does not add up (no calc) is not cured by another document.
		if len(it.Claims) < 3 || len(it.Calcs) == 0 {
			return "", nil
		}
		var found []string
		for _, id := range it.Claims[1:3] {
			fig, ok := a.claim(id)
			if !ok {
				return "", nil
			}
			c, ok := a.stated(fig, it.Documents)
			if !ok {
				return "", nil
			}
			found = append(found, c.ID)
		}
		return fmt.Sprintf("%s: both figures are stated by another document; the calc stands for the misstated rate", it.Type), found
	case TypeContradiction:
		// A document outside the contradiction that states every
		// contested figure reconciles them.
		var contested []claim.Claim
		for _, id := range it.Claims {
			if c, ok := a.claim(id); ok {
				contested = append(contested, c)
			}
		}
		for _, d := range a.deal.Docs {
			if slices.Contains(it.Documents, d.File) {
				continue
			}
			var found []string
			for _, doc := range it.Documents {
				var mine []claim.Claim
				for _, c := range contested {
					if c.Span.Document == doc {
						mine = append(mine, c)
					}
				}
				var hit string
				for _, c := range d.Claims {
					if c.Value.Metric != it.Metric || cited[c.ID] {
						continue
					}
					if agree([]claim.Claim{c}, mine) {
						hit = c.ID
						break
					}
				}
				if hit == "" {
					found = nil
					break
				}
				found = append(found, hit)
			}
			if len(found) > 0 {
				return "", found
			}
		}
	}
	return "", nil
}

func (a *analysis) claim(id string) (claim.Claim, bool) {
	if c, ok := a.f.Claims[id]; ok {
		return c, true
	}
	for _, c := range a.extra {
		if c.ID == id {
			return c, true
		}
	}
	return claim.Claim{}, false
}

// stated finds a claim of another document stating the same amount of the
// same metric.
func (a *analysis) stated(fig claim.Claim, not []string) (claim.Claim, bool) {
	for _, d := range a.deal.Docs {
		if slices.Contains(not, d.File) {
			continue
		}
		for _, c := range d.Claims {
			if c.Value.Metric != fig.Value.Metric {
				continue
			}
			if same, _ := claim.Compare(c.Value, fig.Value); same {
				return c, true
			}
		}
	}
	return claim.Claim{}, false
}

// positions are where the roles stand over the open items: the advocate
// for the deal on the claims of the figures it would rely on, the roles
// that raised them against.
func (a *analysis) positions(open []*Item) []debate.Position {
	if len(open) == 0 {
		return nil
	}
	var against, forRefs []string
	for _, it := range open {
		against = append(against, it.Claims...)
		if len(it.Claims) > 0 {
			forRefs = append(forRefs, it.Claims[0])
		}
	}
	return []debate.Position{
		{Role: debate.RoleAdvocate, AgentID: debate.RoleAdvocate, Stance: "for", Statement: "the figures presented hold", ClaimRefs: forRefs},
		{Role: roleOf(open[0]), AgentID: roleOf(open[0]), Stance: "against", Statement: open[0].Text, ClaimRefs: against},
	}
}
