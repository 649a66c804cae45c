package policy

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/sanadhq/sanad"
)

// debateRoles are the five roles of seed 000 §2.2, in the column order of §5.
var debateRoles = []string{"advocate", "sanad_breaker", "contradiction_finder", "risk_officer", "arbiter"}

// seedMatrix is the tool permission matrix of seed 000 §5, copied from the
// seed by hand so the test does not check the YAML against itself.
var seedMatrix = map[string][5]bool{
	"lookup_claim":         {true, true, true, true, true},
	"lookup_calc":          {true, true, true, true, true},
	"search_evidence":      {false, true, true, true, true},
	"flag_defect":          {false, true, false, false, false},
	"request_human_review": {false, false, false, false, true},
	"query_enrichment":     {false, false, true, true, false},
}

func TestD11_PermissionMatrix(t *testing.T) {
	s := loadDir(t, debateDir)
	if got, want := len(s.Tools()), len(seedMatrix); got != want {
		t.Fatalf("tools: got %d (%v), want %d", got, s.Tools(), want)
	}
	for tool, row := range seedMatrix {
		for i, role := range debateRoles {
			want := row[i]
			t.Run(tool+"/"+role, func(t *testing.T) {
				p := Principal{Agent: role + "-1", Role: role, Scope: caseA}
				d := s.Decide(p, ToolCall(tool), Resource{Scope: caseA})
				if d.Allow != want {
					t.Fatalf("allow: got %v, want %v (%s)", d.Allow, want, d.Reason)
				}
				if d.Rule != RuleToolMatrix {
					t.Errorf("rule: got %s, want %s", d.Rule, RuleToolMatrix)
				}
				if !strings.Contains(d.Reason, role) || !strings.Contains(d.Reason, tool) {
					t.Errorf("reason %q does not name %s and %s", d.Reason, role, tool)
				}
				if !strings.HasPrefix(d.Source, "tools.yaml:") {
					t.Errorf("source: got %q, want tools.yaml:LINE", d.Source)
				}
			})
		}
	}
	t.Run("human role calls no tool", func(t *testing.T) {
		for tool := range seedMatrix {
			d := s.Decide(Principal{Role: "analyst", Scope: caseA}, ToolCall(tool), Resource{Scope: caseA})
			if d.Allow {
				t.Errorf("analyst may call %s, want deny", tool)
			}
		}
	})
}

// seedLanes is the lane-to-agent matrix of seed 001 §5 with the scope fields
// and prohibitions of §4, and the EXPORT lane this project adds.
var seedLanes = []struct {
	lane         string
	callers      []string
	actions      []string
	required     []string
	prohibitions []string
}{
	{"TOOL_INTERVIEW_CAPTURE", []string{"INTERVIEW_AGENT"},
		[]string{"dictation.start", "dictation.stop", "transcription.run", "transcription.status", "interview.prompt.next"},
		[]string{"case_id", "client_session_id", "run_id"},
		[]string{TagCrossCaseLookup, TagExternalExport, TagSharedKnowledgeWrite}},
	{"WRITE_INTAKE_ARTIFACTS", []string{"INTERVIEW_AGENT", "INTAKE_AGENT"},
		[]string{"append:transcripts", "append:interview_notes", "upsert:entities"},
		[]string{"case_id", "client_session_id", "run_id"},
		[]string{TagCrossCaseLookup, TagExternalExport, TagSharedKnowledgeWrite}},
	{"WRITE_MAPPING_OUTPUTS", []string{"MAPPING_AGENT"},
		[]string{"append:facts", "append:evidence_map", "append:coa_map"},
		[]string{"case_id", "run_id", "coa_version"},
		[]string{TagSharedKnowledgeWrite, TagCrossCaseLookup}},
	{"PROMOTE_SHARED_KNOWLEDGE", []string{"GOVERNANCE_AGENT", "ATTORNEY_ADMIN"},
		[]string{"append:shared_playbooks", "append:shared_heuristics"},
		[]string{"promotion_ticket_id", "run_id"},
		[]string{TagRawCaseText, TagClientIdentity, TagPrivilegedNotes}},
	{"EXPORT", []string{"EXPORT_AGENT"},
		[]string{"export.authorize", "export.assemble", "export.finalize", "package.compress", "redaction.apply", "append:export_bundles"},
		[]string{"case_id", "run_id", "export_request_id"},
		[]string{TagCrossCaseLookup, TagSharedKnowledgeWrite, TagPrivilegedNotes}},
}

func sameSet(a, b []string) bool {
	a, b = append([]string(nil), a...), append([]string(nil), b...)
	sort.Strings(a)
	sort.Strings(b)
	return fmt.Sprint(a) == fmt.Sprint(b)
}

func TestC13_LaneMatrix(t *testing.T) {
	s := loadDir(t, caseworkDir)
	if got, want := len(s.Lanes()), len(seedLanes); got != want {
		t.Fatalf("lanes: got %d (%v), want %d", got, s.Lanes(), want)
	}
	for _, want := range seedLanes {
		t.Run(want.lane, func(t *testing.T) {
			l, ok := s.Lane(want.lane)
			if !ok {
				t.Fatalf("lane %s: got none, want it declared", want.lane)
			}
			for _, c := range []struct {
				what      string
				got, want []string
			}{
				{"callers", l.Callers, want.callers},
				{"actions", l.Actions, want.actions},
				{"required_scope", l.RequiredScope, want.required},
				{"prohibitions", l.Prohibitions, want.prohibitions},
			} {
				if !sameSet(c.got, c.want) {
					t.Errorf("%s: got %v, want %v", c.what, c.got, c.want)
				}
			}
			if l.CrossCase {
				t.Errorf("cross_case: got true, want false")
			}
			scope := laneScope(l)
			for _, role := range s.Roles() {
				allowed := contains(want.callers, role)
				for _, action := range want.actions {
					p := Principal{Agent: strings.ToLower(role), Role: role, Scope: caseA}
					d := s.Decide(p, LaneAction(want.lane, action), laneResource(l, scope))
					if d.Allow != allowed {
						t.Errorf("%s %s: got allow=%v, want %v (%s)", role, action, d.Allow, allowed, d.Reason)
					}
					if d.Rule != RuleLaneCaller {
						t.Errorf("%s %s: rule got %s, want %s", role, action, d.Rule, RuleLaneCaller)
					}
				}
			}
			// An action the lane does not list is refused, even to its callers.
			for _, action := range []string{"append:claims", "delete:transcripts", "export.finalize.now", ""} {
				if contains(want.actions, action) {
					continue
				}
				p := Principal{Role: want.callers[0], Scope: caseA}
				d := s.Decide(p, LaneAction(want.lane, action), laneResource(l, scope))
				if d.Allow || d.Rule != RuleLaneAction {
					t.Errorf("action %q: got %v (%s), want deny by %s", action, d.Allow, d.Rule, RuleLaneAction)
				}
			}
		})
	}
}

// TestC13_EveryLaneAllowedAndRefused names, for each lane of seed 001 §5, one
// allowed and one refused caller, as the acceptance tests of §7 read.
func TestC13_EveryLaneAllowedAndRefused(t *testing.T) {
	s := loadDir(t, caseworkDir)
	tests := []struct {
		lane, action, allowed, refused string
	}{
		{"TOOL_INTERVIEW_CAPTURE", "transcription.run", "INTERVIEW_AGENT", "INTAKE_AGENT"},
		{"WRITE_INTAKE_ARTIFACTS", "append:transcripts", "INTERVIEW_AGENT", "MAPPING_AGENT"},
		{"WRITE_INTAKE_ARTIFACTS", "upsert:entities", "INTAKE_AGENT", "EXPORT_AGENT"},
		{"WRITE_MAPPING_OUTPUTS", "append:coa_map", "MAPPING_AGENT", "INTERVIEW_AGENT"},
		{"PROMOTE_SHARED_KNOWLEDGE", "append:shared_playbooks", "GOVERNANCE_AGENT", "MAPPING_AGENT"},
		{"PROMOTE_SHARED_KNOWLEDGE", "append:shared_heuristics", "ATTORNEY_ADMIN", "ATTORNEY"},
		{"EXPORT", "export.finalize", "EXPORT_AGENT", "ORCHESTRATOR"},
		{"EXPORT", "append:export_bundles", "EXPORT_AGENT", "GOVERNANCE_AGENT"},
	}
	for _, tt := range tests {
		t.Run(tt.lane+"/"+tt.action, func(t *testing.T) {
			l, _ := s.Lane(tt.lane)
			r := laneResource(l, laneScope(l))
			if d := s.Decide(Principal{Role: tt.allowed, Scope: caseA}, LaneAction(tt.lane, tt.action), r); !d.Allow {
				t.Errorf("%s: got deny (%s), want allow", tt.allowed, d.Reason)
			}
			d := s.Decide(Principal{Role: tt.refused, Scope: caseA}, LaneAction(tt.lane, tt.action), r)
			if d.Allow {
				t.Fatalf("%s: got allow, want deny", tt.refused)
			}
			if d.Rule != RuleLaneCaller || !strings.Contains(d.Reason, tt.refused) {
				t.Errorf("%s: got %s %q, want %s naming the role", tt.refused, d.Rule, d.Reason, RuleLaneCaller)
			}
		})
	}
}

// TestC13_Prohibitions sends every prohibition tag through every lane: a tag
// the lane prohibits is refused by name, any other tag passes.
func TestC13_Prohibitions(t *testing.T) {
	s := loadDir(t, caseworkDir)
	for _, want := range seedLanes {
		l, _ := s.Lane(want.lane)
		for _, tag := range prohibitionTags {
			prohibited := contains(want.prohibitions, tag)
			t.Run(want.lane+"/"+tag, func(t *testing.T) {
				r := laneResource(l, laneScope(l))
				r.Tags = []string{"ordinary", tag}
				p := Principal{Role: want.callers[0], Scope: caseA}
				d := s.Decide(p, LaneAction(want.lane, want.actions[0]), r)
				if d.Allow == prohibited {
					t.Fatalf("allow: got %v, want %v (%s)", d.Allow, !prohibited, d.Reason)
				}
				if prohibited && (d.Rule != RuleProhibition || !strings.Contains(d.Reason, tag)) {
					t.Errorf("got %s %q, want %s naming %s", d.Rule, d.Reason, RuleProhibition, tag)
				}
			})
		}
	}
}

func TestC11_PromotionRefusesCaseContent(t *testing.T) {
	s := loadDir(t, caseworkDir)
	l, _ := s.Lane("PROMOTE_SHARED_KNOWLEDGE")
	p := Principal{Agent: "governance", Role: "GOVERNANCE_AGENT", Scope: caseA}
	sanitized := laneResource(l, tenantWide)
	sanitized.Tags = []string{"sanitized"}
	if d := s.Decide(p, LaneAction(l.Name, "append:shared_playbooks"), sanitized); !d.Allow {
		t.Fatalf("sanitized insight: got deny (%s), want allow", d.Reason)
	}
	for _, tag := range []string{TagRawCaseText, TagClientIdentity, TagPrivilegedNotes} {
		r := laneResource(l, tenantWide)
		r.Tags = []string{tag}
		if d := s.Decide(p, LaneAction(l.Name, "append:shared_playbooks"), r); d.Allow || d.Rule != RuleProhibition {
			t.Errorf("%s: got %v by %s, want deny by %s", tag, d.Allow, d.Rule, RuleProhibition)
		}
	}
	// Promotion writes the tenant's shared plane, never another case.
	if d := s.Decide(p, LaneAction(l.Name, "append:shared_playbooks"), laneResource(l, caseB)); d.Allow {
		t.Errorf("promotion into case B: got allow, want deny")
	}
}

func TestC13_RequiredScopeFields(t *testing.T) {
	s := loadDir(t, caseworkDir)
	for _, want := range seedLanes {
		l, _ := s.Lane(want.lane)
		for _, field := range want.required {
			t.Run(want.lane+"/"+field, func(t *testing.T) {
				r := laneResource(l, laneScope(l))
				if field == "case_id" {
					r.Scope.Case = ""
				}
				delete(r.Fields, field)
				p := Principal{Role: want.callers[0], Scope: caseA}
				d := s.Decide(p, LaneAction(want.lane, want.actions[0]), r)
				if d.Allow {
					t.Fatalf("got allow, want deny for missing %s", field)
				}
				if d.Rule != RuleRequiredScope || !strings.Contains(d.Reason, field) {
					t.Errorf("got %s %q, want %s naming %s", d.Rule, d.Reason, RuleRequiredScope, field)
				}
				if !strings.HasPrefix(d.Source, "lanes.yaml:") {
					t.Errorf("source: got %q, want lanes.yaml:LINE", d.Source)
				}
			})
		}
		t.Run(want.lane+"/empty value", func(t *testing.T) {
			r := laneResource(l, laneScope(l))
			r.Fields["run_id"] = ""
			d := s.Decide(Principal{Role: want.callers[0], Scope: caseA}, LaneAction(want.lane, want.actions[0]), r)
			if d.Allow || d.Rule != RuleRequiredScope {
				t.Errorf("empty run_id: got %v by %s, want deny by %s", d.Allow, d.Rule, RuleRequiredScope)
			}
		})
	}
}

// TestC02_Isolation checks, for every tool and every lane action, with every
// role that may use it, that a principal of case A can never reach case B
// or another tenant, and that a tenant-wide principal cannot reach a case.
func TestC02_Isolation(t *testing.T) {
	type target struct {
		set    *Set
		action Action
		role   string
		res    func(sanad.Scope) Resource
	}
	var targets []target
	debate := loadDir(t, debateDir)
	for _, name := range debate.Tools() {
		tool, _ := debate.Tool(name)
		for _, role := range tool.Roles {
			targets = append(targets, target{debate, ToolCall(name), role, func(sc sanad.Scope) Resource { return Resource{Scope: sc} }})
		}
	}
	casework := loadDir(t, caseworkDir)
	for _, name := range casework.Lanes() {
		l, _ := casework.Lane(name)
		for _, role := range l.Callers {
			for _, action := range l.Actions {
				targets = append(targets, target{casework, LaneAction(name, action), role, func(sc sanad.Scope) Resource { return laneResource(l, sc) }})
			}
		}
	}
	tests := []struct {
		name      string
		principal sanad.Scope
		resource  sanad.Scope
		rule      Rule
	}{
		{"case A reads case B", caseA, caseB, RuleCaseIsolation},
		{"case A reaches another tenant's case A", caseA, otherCaseA, RuleTenantIsolation},
		{"tenant-wide principal reaches case B", tenantWide, caseB, RuleCaseIsolation},
		{"principal without tenant", sanad.Scope{Case: "case-a"}, caseA, RuleInvalidScope},
		{"resource without tenant", caseA, sanad.Scope{Case: "case-a"}, RuleInvalidScope},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, tg := range targets {
				p := Principal{Role: tg.role, Scope: tt.principal}
				d := tg.set.Decide(p, tg.action, tg.res(tt.resource))
				if d.Allow || d.Rule != tt.rule {
					t.Errorf("%s %s: got allow=%v by %s, want deny by %s", tg.role, tg.action, d.Allow, d.Rule, tt.rule)
				}
			}
		})
	}
	t.Run("own case is allowed", func(t *testing.T) {
		for _, tg := range targets {
			if l, ok := tg.set.Lane(tg.action.Lane); ok && laneScope(l) == tenantWide {
				continue // promotion targets the tenant, checked below
			}
			d := tg.set.Decide(Principal{Role: tg.role, Scope: caseA}, tg.action, tg.res(caseA))
			if !d.Allow {
				t.Errorf("%s %s in its own case: got deny (%s), want allow", tg.role, tg.action, d.Reason)
			}
		}
	})
	t.Run("case_id field disagreeing with the scope", func(t *testing.T) {
		l, _ := casework.Lane("WRITE_INTAKE_ARTIFACTS")
		r := laneResource(l, caseA)
		r.Fields["case_id"] = "case-b"
		d := casework.Decide(Principal{Role: "INTERVIEW_AGENT", Scope: caseA}, LaneAction(l.Name, "append:transcripts"), r)
		if d.Allow || d.Rule != RuleScopeMismatch {
			t.Errorf("got allow=%v by %s, want deny by %s", d.Allow, d.Rule, RuleScopeMismatch)
		}
	})
}

// crossCasePolicy has one lane that may reach across cases, and one that
// may not, to show cross-case access only where a lane says so.
var crossCasePolicy = map[string]string{
	"roles.yaml": `version: "1"
roles:
  RESEARCHER: {kind: agent}
`,
	"lanes.yaml": `version: "1"
lanes:
  PRECEDENT_SEARCH:
    kind: tool_gateway
    callers: [RESEARCHER]
    actions: [precedent.search]
    required_scope: [run_id]
    prohibitions: [raw_case_text]
    cross_case: true
  NOTES:
    kind: db_write
    callers: [RESEARCHER]
    actions: ["append:notes"]
    required_scope: [case_id]
    prohibitions: []
`,
}

func TestC02_CrossCaseOnlyWhereTheLaneAllows(t *testing.T) {
	s := mustLoadFiles(t, crossCasePolicy)
	p := Principal{Role: "RESEARCHER", Scope: caseA}
	r := Resource{Scope: caseB, Fields: map[string]string{"run_id": "r1"}}
	d := s.Decide(p, LaneAction("PRECEDENT_SEARCH", "precedent.search"), r)
	if !d.Allow || !strings.Contains(d.Reason, "cross-case") {
		t.Errorf("cross-case lane: got %v %q, want allow saying cross-case", d.Allow, d.Reason)
	}
	if d := s.Decide(p, LaneAction("NOTES", "append:notes"), r); d.Allow || d.Rule != RuleCaseIsolation {
		t.Errorf("other lane: got allow=%v by %s, want deny by %s", d.Allow, d.Rule, RuleCaseIsolation)
	}
	// Tenant isolation holds even where cross-case access is allowed.
	r.Scope = otherCaseA
	if d := s.Decide(p, LaneAction("PRECEDENT_SEARCH", "precedent.search"), r); d.Allow || d.Rule != RuleTenantIsolation {
		t.Errorf("other tenant: got allow=%v by %s, want deny by %s", d.Allow, d.Rule, RuleTenantIsolation)
	}
	// Deny wins: the lane allows the caller and the case, its prohibition still refuses.
	r = Resource{Scope: caseB, Fields: map[string]string{"run_id": "r1"}, Tags: []string{TagRawCaseText}}
	if d := s.Decide(p, LaneAction("PRECEDENT_SEARCH", "precedent.search"), r); d.Allow || d.Rule != RuleProhibition {
		t.Errorf("prohibited tag: got allow=%v by %s, want deny by %s", d.Allow, d.Rule, RuleProhibition)
	}
}

func TestDecide_UnknownNamesDeny(t *testing.T) {
	debate := loadDir(t, debateDir)
	casework := loadDir(t, caseworkDir)
	tests := []struct {
		name   string
		set    *Set
		role   string
		action Action
		rule   Rule
	}{
		{"unknown role", debate, "intern", ToolCall("lookup_claim"), RuleUnknownRole},
		{"empty role", debate, "", ToolCall("lookup_claim"), RuleUnknownRole},
		{"role of another playbook", debate, "INTERVIEW_AGENT", ToolCall("lookup_claim"), RuleUnknownRole},
		{"unknown tool", debate, "arbiter", ToolCall("delete_deal"), RuleUnknownTool},
		{"empty tool", debate, "arbiter", ToolCall(""), RuleUnknownTool},
		{"tool where there is no tools.yaml", casework, "INTERVIEW_AGENT", ToolCall("transcription.run"), RuleUnknownTool},
		{"unknown lane", casework, "INTERVIEW_AGENT", LaneAction("WRITE_EVERYTHING", "append:transcripts"), RuleUnknownLane},
		{"lane where there is no lanes.yaml", debate, "arbiter", LaneAction("EXPORT", "export.finalize"), RuleUnknownLane},
		{"unknown action", casework, "INTERVIEW_AGENT", LaneAction("TOOL_INTERVIEW_CAPTURE", "shell.exec"), RuleLaneAction},
		{"write through a tool lane", casework, "INTERVIEW_AGENT", LaneAction("TOOL_INTERVIEW_CAPTURE", "append:transcripts"), RuleLaneAction},
		{"orchestrator calls no lane", casework, "ORCHESTRATOR", LaneAction("WRITE_INTAKE_ARTIFACTS", "append:transcripts"), RuleLaneCaller},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := tt.set.Decide(Principal{Role: tt.role, Scope: caseA}, tt.action, Resource{Scope: caseA})
			if d.Allow || d.Rule != tt.rule {
				t.Errorf("got allow=%v by %s (%s), want deny by %s", d.Allow, d.Rule, d.Reason, tt.rule)
			}
			if d.Reason == "" {
				t.Error("got an empty reason, want one")
			}
		})
	}
	t.Run("hostile names stay one bounded line", func(t *testing.T) {
		d := debate.Decide(Principal{Role: "x\"\n" + strings.Repeat("y", 500)}, ToolCall("lookup_claim"), Resource{Scope: caseA})
		if strings.ContainsAny(d.Reason, "\n") || len(d.Reason) > 200 {
			t.Errorf("reason %q: want one line under 200 bytes", d.Reason)
		}
	})
}

func TestSatisfies(t *testing.T) {
	s := loadDir(t, caseworkDir)
	tests := []struct {
		role, required string
		want           bool
	}{
		{"ATTORNEY", "ATTORNEY", true},
		{"ATTORNEY_ADMIN", "ATTORNEY", true},
		{"ATTORNEY", "ATTORNEY_ADMIN", false},
		{"INTAKE_AGENT", "ATTORNEY", false},
		{"nobody", "nobody", false},
	}
	for _, tt := range tests {
		if got := s.Satisfies(tt.role, tt.required); got != tt.want {
			t.Errorf("Satisfies(%s, %s): got %v, want %v", tt.role, tt.required, got, tt.want)
		}
	}
	// includes does not leak into lanes: ATTORNEY_ADMIN may promote, ATTORNEY may not.
	l, _ := s.Lane("PROMOTE_SHARED_KNOWLEDGE")
	if d := s.Decide(Principal{Role: "ATTORNEY", Scope: tenantWide}, LaneAction(l.Name, "append:shared_playbooks"), laneResource(l, tenantWide)); d.Allow {
		t.Error("ATTORNEY promoted shared knowledge, want deny")
	}
}

// TestDecide_IsolationProperty draws principals, actions and resources at
// random: no decision ever crosses a tenant, none crosses a case in these
// playbooks (no lane allows it), and unknown roles never pass.
func TestDecide_IsolationProperty(t *testing.T) {
	sets := []*Set{loadDir(t, debateDir), loadDir(t, caseworkDir)}
	rapid.Check(t, func(t *rapid.T) {
		s := sets[rapid.IntRange(0, 1).Draw(t, "set")]
		tenants := []string{"acme", "globex", ""}
		cases := []string{"case-a", "case-b", ""}
		roles := append(s.Roles(), "intruder")
		ps := sanad.Scope{Tenant: rapid.SampledFrom(tenants).Draw(t, "ptenant"), Case: rapid.SampledFrom(cases).Draw(t, "pcase")}
		rs := sanad.Scope{Tenant: rapid.SampledFrom(tenants).Draw(t, "rtenant"), Case: rapid.SampledFrom(cases).Draw(t, "rcase")}
		var a Action
		if lanes := s.Lanes(); len(lanes) > 0 {
			l, _ := s.Lane(rapid.SampledFrom(lanes).Draw(t, "lane"))
			a = LaneAction(l.Name, rapid.SampledFrom(append(l.Actions, "other")).Draw(t, "action"))
		} else {
			a = ToolCall(rapid.SampledFrom(append(s.Tools(), "other")).Draw(t, "tool"))
		}
		fields := map[string]string{}
		for _, f := range []string{"run_id", "client_session_id", "coa_version", "promotion_ticket_id", "export_request_id"} {
			if rapid.Bool().Draw(t, f) {
				fields[f] = "x"
			}
		}
		tags := rapid.SliceOfN(rapid.SampledFrom(append(prohibitionTags[:], "public")), 0, 3).Draw(t, "tags")
		role := rapid.SampledFrom(roles).Draw(t, "role")
		d := s.Decide(Principal{Role: role, Scope: ps}, a, Resource{Scope: rs, Fields: fields, Tags: tags})
		if !d.Allow {
			if d.Reason == "" || d.Rule == "" {
				t.Fatalf("deny without rule or reason: %+v", d)
			}
			return
		}
		switch {
		case ps.Tenant == "" || ps.Tenant != rs.Tenant:
			t.Fatalf("allowed across tenants: %v → %v (%s)", ps, rs, d.Reason)
		case !ps.Contains(rs):
			t.Fatalf("allowed across cases: %v → %v (%s)", ps, rs, d.Reason)
		case role == "intruder":
			t.Fatalf("allowed an unknown role: %s", d.Reason)
		}
	})
}

func TestDecide_NoAllocations(t *testing.T) {
	debate := loadDir(t, debateDir)
	casework := loadDir(t, caseworkDir)
	l, _ := casework.Lane("WRITE_INTAKE_ARTIFACTS")
	r := laneResource(l, caseA)
	r.Tags = []string{"interview"}
	tests := []struct {
		name string
		fn   func()
	}{
		{"tool allow", func() {
			debate.Decide(Principal{Role: "arbiter", Scope: caseA}, ToolCall("lookup_claim"), Resource{Scope: caseA})
		}},
		{"tool deny", func() {
			debate.Decide(Principal{Role: "advocate", Scope: caseA}, ToolCall("flag_defect"), Resource{Scope: caseA})
		}},
		{"lane allow", func() {
			casework.Decide(Principal{Role: "INTERVIEW_AGENT", Scope: caseA}, LaneAction(l.Name, "append:transcripts"), r)
		}},
		{"lane isolation", func() {
			casework.Decide(Principal{Role: "INTERVIEW_AGENT", Scope: caseB}, LaneAction(l.Name, "append:transcripts"), r)
		}},
	}
	for _, tt := range tests {
		if got := testing.AllocsPerRun(100, tt.fn); got != 0 {
			t.Errorf("%s: got %v allocations, want 0", tt.name, got)
		}
	}
}

// BenchmarkDecide measures one decision on each path the gateway takes most:
// a tool call by the matrix, and a lane write with scope fields and tags.
func BenchmarkDecide(b *testing.B) {
	debate := loadDir(b, debateDir)
	casework := loadDir(b, caseworkDir)
	l, _ := casework.Lane("WRITE_INTAKE_ARTIFACTS")
	laneRes := laneResource(l, caseA)
	laneRes.Tags = []string{"interview", "transcript"}
	benches := []struct {
		name string
		set  *Set
		p    Principal
		a    Action
		r    Resource
	}{
		{"tool_allow", debate, Principal{Agent: "arbiter-1", Role: "arbiter", Scope: caseA}, ToolCall("search_evidence"), Resource{Scope: caseA}},
		{"tool_deny", debate, Principal{Agent: "advocate-1", Role: "advocate", Scope: caseA}, ToolCall("flag_defect"), Resource{Scope: caseA}},
		{"lane_allow", casework, Principal{Agent: "interview-1", Role: "INTERVIEW_AGENT", Scope: caseA}, LaneAction(l.Name, "append:transcripts"), laneRes},
		{"lane_deny_case", casework, Principal{Agent: "interview-1", Role: "INTERVIEW_AGENT", Scope: caseB}, LaneAction(l.Name, "append:transcripts"), laneRes},
	}
	for _, bb := range benches {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			var d Decision
			for b.Loop() {
				d = bb.set.Decide(bb.p, bb.a, bb.r)
			}
			_ = d
		})
	}
}

// TestDecide_ToolGuards shows required scope fields and prohibitions on a
// tool of tools.yaml, which work as they do on a lane.
func TestDecide_ToolGuards(t *testing.T) {
	files := goodFiles()
	files["tools.yaml"] = `version: "1"
risk_classes:
  external: {approval: critic}
tools:
  send_report:
    roles: [a]
    risk: external
    required_scope: [case_id, run_id]
    prohibitions: [privileged_notes, client_identity]
`
	s := mustLoadFiles(t, files)
	p := Principal{Role: "a", Scope: caseA}
	ok := Resource{Scope: caseA, Fields: map[string]string{"run_id": "r1"}, Tags: []string{"summary"}}
	tests := []struct {
		name string
		edit func(*Resource)
		rule Rule // "" for allow
		says string
	}{
		{"complete", func(*Resource) {}, "", ""},
		{"no run id", func(r *Resource) { r.Fields = nil }, RuleRequiredScope, "run_id"},
		{"tenant-wide resource has no case", func(r *Resource) { r.Scope = tenantWide }, RuleRequiredScope, "case_id"},
		{"privileged notes", func(r *Resource) { r.Tags = []string{TagPrivilegedNotes} }, RuleProhibition, TagPrivilegedNotes},
		{"client identity among others", func(r *Resource) { r.Tags = []string{"summary", TagClientIdentity} }, RuleProhibition, TagClientIdentity},
		{"a tag the tool does not prohibit", func(r *Resource) { r.Tags = []string{TagRawCaseText} }, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ok
			r.Fields = map[string]string{"run_id": "r1"}
			tt.edit(&r)
			d := s.Decide(p, ToolCall("send_report"), r)
			if want := tt.rule == ""; d.Allow != want {
				t.Fatalf("allow: got %v, want %v (%s)", d.Allow, want, d.Reason)
			}
			if tt.rule != "" && (d.Rule != tt.rule || !strings.Contains(d.Reason, tt.says)) {
				t.Errorf("got %s %q, want %s naming %s", d.Rule, d.Reason, tt.rule, tt.says)
			}
		})
	}
}
