package diligence

import (
	"fmt"
	"sort"
	"strings"

	"github.com/sanadhq/sanad/claim"
	"github.com/sanadhq/sanad/playbook/debate"
)

// Evidence returns what the Muḥāsabah gate knows of a deal's evidence:
// each claim's grade and whether one source alone carries it, and the
// calcs of its analysis.
func Evidence(d Deal, f Findings) debate.Evidence {
	ev := debate.Evidence{Claims: map[string]debate.ClaimInfo{}, Calcs: map[string]bool{}}
	for _, fa := range d.Facts {
		for _, c := range fa.Claims {
			ev.Claims[c.ID] = debate.ClaimInfo{Grade: string(c.Grade), Ahad: fa.Ahad}
		}
	}
	// Claims the analysis read itself (a sentence of risk) stand alone.
	for id, c := range f.Claims {
		if _, ok := ev.Claims[id]; !ok {
			g := claim.GradeD
			if doc := d.Doc(c.Span.Document); doc != nil {
				g = doc.Source.Grade
			}
			ev.Claims[id] = debate.ClaimInfo{Grade: string(g), Ahad: true}
		}
	}
	for _, r := range f.Calcs {
		ev.Calcs[r.CalcID] = true
	}
	return ev
}

// Outputs are the roles' outputs of every round of the analysis, each with
// its Muḥāsabah record: what it rests on, what would prove it wrong, what
// it is unsure of and how sure it is. They pass the gate like a model's
// would (debate.Gate).
func Outputs(d Deal, f Findings) []debate.Output {
	ev := Evidence(d, f)
	var out []debate.Output
	rounds := len(f.Rounds)
	if rounds == 0 {
		rounds = 1
	}
	for r := 1; r <= rounds; r++ {
		out = append(out,
			say(ev, r, debate.RoleAdvocate, thesis(d, f), keyClaims(d)),
			say(ev, r, debate.RoleContradictionFinder, list("contradiction", f.Contradictions), itemClaims(f.Contradictions)),
			say(ev, r, debate.RoleSanadBreaker, list("defect", f.Defects), itemClaims(f.Defects)),
			say(ev, r, debate.RoleRiskOfficer, list("risk", f.Risks), itemClaims(f.Risks)),
			say(ev, r, debate.RoleArbiter, ruling(f, r), upheldClaims(f)),
		)
		for i := range out[len(out)-5:] {
			o := &out[len(out)-5+i]
			o.CalcRefs = calcRefs(f, o.Role)
			o.Muhasabah.SupportedCalcIDs = o.CalcRefs
		}
	}
	return out
}

// say writes a role's output for a round with the record its evidence
// calls for: the claims cited; a falsifiability test when it is more than
// even sure; an uncertainty for every weak or single-source claim; and a
// counter-hypothesis when it is very sure.
func say(ev debate.Evidence, round int, role, content string, claims []string) debate.Output {
	o := debate.Output{AgentID: role, Role: role, RoundNumber: round, Content: content, ClaimRefs: claims}
	rec := debate.MuhasabahRecord{SupportedClaimIDs: claims, Confidence: 0.5,
		EvidenceSummary: fmt.Sprintf("%d claims of the data room, each with its span", len(claims))}
	var weak []string
	for _, id := range claims {
		if c, ok := ev.Claims[id]; ok && c.Weak() {
			weak = append(weak, id)
		}
	}
	if len(claims) > 0 {
		rec.Confidence = 0.75
		rec.FalsifiabilityTests = []debate.FalsifiabilityTest{{
			TestDescription:  "A source of a better grade states a different value for a cited fact.",
			RequiredEvidence: "audited statements or bank data for the same metric and period",
			PassFailRule:     "the values differ beyond the rounding they are written with",
		}}
		rec.CounterHypothesis = "The documents measure the figures on different bases (scope, period end, adjustments)."
	}
	if len(weak) > 0 {
		rec.Confidence = 0.6
		rec.Uncertainties = []debate.Uncertainty{{
			Uncertainty: fmt.Sprintf("%d of the cited claims rest on a source below grade A or on one source alone", len(weak)),
			Impact:      "a figure may be restated when better evidence arrives",
			Mitigation:  "ask for audited statements or bank data",
		}}
	}
	rec.ConfidenceJustification = fmt.Sprintf("%d claims cited, %d of them weak", len(claims), len(weak))
	o.Muhasabah = rec
	return o
}

func thesis(d Deal, f Findings) string {
	return fmt.Sprintf("The case for %s rests on its key metrics as the best-graded sources state them; %d contradictions, %d defects and %d risks were raised against it.",
		d.Manifest.Company, len(f.Contradictions), len(f.Defects), len(f.Risks))
}

func list(kind string, items []Item) string {
	if len(items) == 0 {
		return "No " + kind + " found in the evidence."
	}
	var parts []string
	for _, it := range items {
		s := strings.ReplaceAll(it.Type, "_", " ")
		if it.Metric != "" {
			s += " of " + strings.ReplaceAll(it.Metric, "_", " ")
			if it.Period != "" {
				s += " for " + it.Period
			}
		}
		if len(it.Documents) > 0 {
			s += " in " + strings.Join(it.Documents, " and ")
		}
		parts = append(parts, s)
	}
	return fmt.Sprintf("Found %d: %s.", len(items), strings.Join(parts, "; "))
}

func ruling(f Findings, round int) string {
	upheld, dismissed := 0, 0
	for _, r := range f.Rulings {
		if r.RoundNumber != 0 && r.RoundNumber != round {
			continue
		}
		if r.Ruling == "UPHELD" {
			upheld++
		} else {
			dismissed++
		}
	}
	s := fmt.Sprintf("Round %d: %d challenges upheld, %d not.", round, upheld, dismissed)
	if round == len(f.Rounds) || len(f.Rounds) == 0 {
		s += " The debate stops: " + f.StopReason + "."
	}
	return s
}

func itemClaims(items []Item) []string {
	seen := map[string]bool{}
	var out []string
	for _, it := range items {
		for _, id := range it.Claims {
			if !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	return out
}

func upheldClaims(f Findings) []string {
	up := map[string]bool{}
	for _, r := range f.Rulings {
		if r.Ruling == "UPHELD" {
			up[r.ChallengeID] = true
		}
	}
	seen := map[string]bool{}
	var out []string
	for _, c := range f.Challenges {
		if !up[c.ChallengeID] {
			continue
		}
		for _, id := range append(append([]string{}, c.ClaimRefs...), c.EvidenceRefs...) {
			if _, ok := f.Claims[id]; ok && !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	return out
}

// keyClaims are the claims of the deal's headline facts, best graded.
func keyClaims(d Deal) []string {
	var out []string
	for _, fa := range d.Facts {
		if len(fa.Qualifiers) > 0 || len(fa.Claims) == 0 {
			continue
		}
		switch fa.Metric {
		case "revenue", "arr", "ebitda", "cash", "customers":
		default:
			continue
		}
		best := fa.Claims[0]
		for _, c := range fa.Claims {
			if c.Grade < best.Grade {
				best = c
			}
		}
		out = append(out, best.ID)
	}
	sort.Strings(out)
	return out
}

func calcRefs(f Findings, role string) []string {
	if role != debate.RoleRiskOfficer && role != debate.RoleAdvocate {
		return nil
	}
	var out []string
	for _, r := range f.Calcs {
		out = append(out, r.CalcID)
	}
	return out
}
