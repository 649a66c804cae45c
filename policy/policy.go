package policy

import (
	"sort"
	"unicode/utf8"

	"github.com/sanadhq/sanad"
)

// Principal is who asks: an agent (or a person) acting in a role, confined to
// a scope. The role is what policy judges; the agent id is kept for the record.
type Principal struct {
	Agent string
	Role  string
	Scope sanad.Scope
}

// Action is what a principal asks to do. With Lane empty, Name is a tool
// judged by the tool matrix of tools.yaml. With Lane set, Name is an action of
// that lane in lanes.yaml: a tool action such as "transcription.run", or a
// write such as "append:transcripts" or "upsert:entities".
type Action struct {
	Lane string
	Name string
}

// ToolCall returns the action of calling tool, judged by the tool matrix.
func ToolCall(tool string) Action { return Action{Name: tool} }

// LaneAction returns the action name taken through lane.
func LaneAction(lane, name string) Action { return Action{Lane: lane, Name: name} }

// String returns "tool NAME" or "lane LANE NAME", for logs.
func (a Action) String() string {
	if a.Lane == "" {
		return "tool " + a.Name
	}
	return "lane " + a.Lane + " " + a.Name
}

// Resource is what an action touches.
//
// Scope is the tenant and case the data belongs to; an empty Case means
// tenant-wide data such as shared knowledge. Fields are the scope fields the
// request provides (run_id, client_session_id, coa_version,
// promotion_ticket_id, ...): a lane's required_scope names the ones it needs.
// The fields case_id and tenant_id are read from Scope; if Fields repeats them
// they must agree with it. Tags label the content (raw_case_text,
// client_identity, ...): a tag the lane or tool prohibits denies the action.
type Resource struct {
	Scope  sanad.Scope
	Fields map[string]string
	Tags   []string
}

// The prohibition tags of contract v1. A lane (or tool) lists the ones it
// prohibits; a resource carrying one of them is refused there.
const (
	TagCrossCaseLookup      = "cross_case_lookup"
	TagExternalExport       = "external_export"
	TagSharedKnowledgeWrite = "shared_knowledge_write"
	TagRawCaseText          = "raw_case_text"
	TagClientIdentity       = "client_identity"
	TagPrivilegedNotes      = "privileged_notes"
)

// prohibitionTags lists the tags in the order of their bit in a mask.
var prohibitionTags = [...]string{
	TagCrossCaseLookup, TagExternalExport, TagSharedKnowledgeWrite,
	TagRawCaseText, TagClientIdentity, TagPrivilegedNotes,
}

// tagBit returns the mask bit of a prohibition tag, or 0 for any other tag.
func tagBit(tag string) (uint8, int) {
	switch tag {
	case TagCrossCaseLookup:
		return 1 << 0, 0
	case TagExternalExport:
		return 1 << 1, 1
	case TagSharedKnowledgeWrite:
		return 1 << 2, 2
	case TagRawCaseText:
		return 1 << 3, 3
	case TagClientIdentity:
		return 1 << 4, 4
	case TagPrivilegedNotes:
		return 1 << 5, 5
	}
	return 0, -1
}

// Rule names the check that decided a [Decision]. Callers may branch on it;
// the text is stable.
type Rule string

// The rules, in the order Decide applies them. The first that denies decides;
// an action is allowed only when none denies.
const (
	RuleUnknownRole     Rule = "unknown_role"     // the principal's role is not in roles.yaml
	RuleUnknownTool     Rule = "unknown_tool"     // the tool is not in tools.yaml (or there is no tools.yaml)
	RuleUnknownLane     Rule = "unknown_lane"     // the lane is not in lanes.yaml (or there is no lanes.yaml)
	RuleToolMatrix      Rule = "tool_matrix"      // the role × tool matrix of tools.yaml allows or denies
	RuleLaneCaller      Rule = "lane_caller"      // the lane's callers allow or deny the role
	RuleLaneAction      Rule = "lane_action"      // the lane does not list the action
	RuleInvalidScope    Rule = "invalid_scope"    // the principal or the resource names no tenant
	RuleTenantIsolation Rule = "tenant_isolation" // the resource belongs to another tenant; nothing overrides this
	RuleCaseIsolation   Rule = "case_isolation"   // the resource is in another case and the lane does not allow cross-case access
	RuleScopeMismatch   Rule = "scope_mismatch"   // a case_id or tenant_id field disagrees with the resource scope
	RuleProhibition     Rule = "prohibition"      // the resource carries a tag the lane or tool prohibits
	RuleRequiredScope   Rule = "required_scope"   // a scope field the lane or tool requires is missing
)

// Decision is the answer of [Set.Decide]: allow or deny, the rule that
// decided, a reason a person can read, and where the deciding rule is written
// ("tools.yaml:41"), empty for rules built into Decide.
type Decision struct {
	Allow  bool
	Rule   Rule
	Reason string
	Source string
}

// String returns "allow: reason" or "deny: reason".
func (d Decision) String() string {
	if d.Allow {
		return "allow: " + d.Reason
	}
	return "deny: " + d.Reason
}

// Set is a loaded policy: the roles, tools and lanes of one playbook. A Set
// never changes after Load and is safe for concurrent use.
type Set struct {
	versions map[string]sanad.PolicyVersion

	roles     map[string]*role
	roleNames []string // sorted

	hasTools   bool
	tools      map[string]*tool
	challenges []FieldRule

	hasLanes bool
	lanes    map[string]*lane
}

// role is a role with what Decide needs precomputed.
type role struct {
	idx       int
	info      Role
	satisfies map[string]bool // itself and every role it includes, transitively
}

// guard holds the checks a tool and a lane share: required scope fields and
// prohibited tags, with their reasons written at load time.
type guard struct {
	required      []string
	missingReason []string // parallel to required
	prohibited    uint8
	tagReason     [len(prohibitionTags)]string
	fieldSource   string // where required_scope is written
	tagSource     string // where prohibitions is written
}

// tool is a tools.yaml entry with its matrix row precomputed per role index.
type tool struct {
	info        Tool
	allow       []bool
	allowReason []string
	denyReason  []string
	source      string // where the roles list is written
	guard
}

// lane is a lanes.yaml entry with its callers and actions precomputed.
type lane struct {
	info        Lane
	callers     []bool
	denyReason  []string       // per role index
	actions     map[string]int // action → index
	allowReason [][]string     // [role index][action index]
	source      string         // where the callers list is written
	crossCase   bool
	caseReason  string
	guard
}

// Reasons used on every call, written once.
const (
	reasonNoPrincipalTenant = "the principal's scope names no tenant"
	reasonNoResourceTenant  = "the resource's scope names no tenant"
	reasonTenant            = "tenant isolation: the resource belongs to another tenant"
	reasonCase              = "case isolation: the resource is outside the principal's case"
	reasonCaseIDMismatch    = "the request's case_id field disagrees with the resource's case"
	reasonTenantIDMismatch  = "the request's tenant_id field disagrees with the resource's tenant"
)

// Decide judges whether p may take action a on r. It is pure: no I/O, no
// clock, no state; the same inputs give the same Decision. Deny wins: the
// action is allowed only if every rule allows it, and anything the policy
// does not name (role, tool, lane, action) is denied. The rules are applied
// in the order of the [Rule] constants.
//
// Isolation: the resource must belong to the principal's tenant, always. It
// must be in the principal's case or tenant-wide ([sanad.Scope.Contains]),
// unless the action goes through a lane declared with cross_case: true.
func (s *Set) Decide(p Principal, a Action, r Resource) Decision {
	ro, ok := s.roles[p.Role]
	if !ok {
		return Decision{Rule: RuleUnknownRole, Reason: "unknown role " + quote(p.Role) + ": roles.yaml does not declare it"}
	}
	if a.Lane == "" {
		return s.decideTool(ro, p, a.Name, r)
	}
	return s.decideLane(ro, p, a, r)
}

func (s *Set) decideTool(ro *role, p Principal, name string, r Resource) Decision {
	t, ok := s.tools[name]
	if !ok {
		if !s.hasTools {
			return Decision{Rule: RuleUnknownTool, Reason: "unknown tool " + quote(name) + ": this policy has no tools.yaml"}
		}
		return Decision{Rule: RuleUnknownTool, Reason: "unknown tool " + quote(name) + ": tools.yaml does not declare it"}
	}
	if !t.allow[ro.idx] {
		return Decision{Rule: RuleToolMatrix, Reason: t.denyReason[ro.idx], Source: t.source}
	}
	if d, ok := isolate(p.Scope, r, false, ""); !ok {
		return d
	}
	if d, ok := t.guard.check(r); !ok {
		return d
	}
	return Decision{Allow: true, Rule: RuleToolMatrix, Reason: t.allowReason[ro.idx], Source: t.source}
}

func (s *Set) decideLane(ro *role, p Principal, a Action, r Resource) Decision {
	l, ok := s.lanes[a.Lane]
	if !ok {
		if !s.hasLanes {
			return Decision{Rule: RuleUnknownLane, Reason: "unknown lane " + quote(a.Lane) + ": this policy has no lanes.yaml"}
		}
		return Decision{Rule: RuleUnknownLane, Reason: "unknown lane " + quote(a.Lane) + ": lanes.yaml does not declare it"}
	}
	if !l.callers[ro.idx] {
		return Decision{Rule: RuleLaneCaller, Reason: l.denyReason[ro.idx], Source: l.source}
	}
	ai, ok := l.actions[a.Name]
	if !ok {
		return Decision{Rule: RuleLaneAction, Reason: "lane " + l.info.Name + " has no action " + quote(a.Name), Source: l.source}
	}
	if d, ok := isolate(p.Scope, r, l.crossCase, l.caseReason); !ok {
		return d
	}
	if d, ok := l.guard.check(r); !ok {
		return d
	}
	return Decision{Allow: true, Rule: RuleLaneCaller, Reason: l.allowReason[ro.idx][ai], Source: l.source}
}

// isolate applies tenant and case isolation. caseReason, when not empty,
// replaces the generic case-isolation reason.
func isolate(ps sanad.Scope, r Resource, crossCase bool, caseReason string) (Decision, bool) {
	switch {
	case ps.Tenant == "":
		return Decision{Rule: RuleInvalidScope, Reason: reasonNoPrincipalTenant}, false
	case r.Scope.Tenant == "":
		return Decision{Rule: RuleInvalidScope, Reason: reasonNoResourceTenant}, false
	case ps.Tenant != r.Scope.Tenant:
		return Decision{Rule: RuleTenantIsolation, Reason: reasonTenant}, false
	}
	if r.Scope.Case != "" && r.Scope.Case != ps.Case && !crossCase {
		if caseReason == "" {
			caseReason = reasonCase
		}
		return Decision{Rule: RuleCaseIsolation, Reason: caseReason}, false
	}
	if len(r.Fields) > 0 {
		if v, ok := r.Fields["case_id"]; ok && v != r.Scope.Case {
			return Decision{Rule: RuleScopeMismatch, Reason: reasonCaseIDMismatch}, false
		}
		if v, ok := r.Fields["tenant_id"]; ok && v != r.Scope.Tenant {
			return Decision{Rule: RuleScopeMismatch, Reason: reasonTenantIDMismatch}, false
		}
	}
	return Decision{}, true
}

// check applies the prohibitions, then the required scope fields.
func (g *guard) check(r Resource) (Decision, bool) {
	if g.prohibited != 0 {
		for _, tag := range r.Tags {
			if bit, i := tagBit(tag); bit&g.prohibited != 0 {
				return Decision{Rule: RuleProhibition, Reason: g.tagReason[i], Source: g.tagSource}, false
			}
		}
	}
	for i, f := range g.required {
		if !hasField(r, f) {
			return Decision{Rule: RuleRequiredScope, Reason: g.missingReason[i], Source: g.fieldSource}, false
		}
	}
	return Decision{}, true
}

// hasField reports whether the resource provides the scope field f.
func hasField(r Resource, f string) bool {
	switch f {
	case "case_id":
		return r.Scope.Case != ""
	case "tenant_id":
		return r.Scope.Tenant != ""
	}
	return r.Fields[f] != ""
}

// quote quotes a name taken from a request for a reason, bounded so a hostile
// name cannot fill a record.
func quote(s string) string {
	const max = 64
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return "\"" + sanitize(s) + "\""
}

// sanitize replaces control characters and quotes, so a name from a request
// cannot forge lines or fields in a log.
func sanitize(s string) string {
	clean := true
	for _, c := range s {
		if c < 0x20 || c == 0x7f || c == '"' || c == '\\' {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	out := make([]rune, 0, len(s))
	for _, c := range s {
		if c < 0x20 || c == 0x7f || c == '"' || c == '\\' {
			c = '?'
		}
		out = append(out, c)
	}
	return string(out)
}

// Versions returns the pinned version of each policy file the Set was loaded
// from, keyed "roles", "tools" and "lanes" (only the files present). A run
// records it in sanad.Run.PolicyVersions. The map is a copy.
func (s *Set) Versions() map[string]sanad.PolicyVersion {
	out := make(map[string]sanad.PolicyVersion, len(s.versions))
	for k, v := range s.versions {
		out[k] = v
	}
	return out
}

// Roles returns the declared role names, sorted.
func (s *Set) Roles() []string { return append([]string(nil), s.roleNames...) }

// Role returns what roles.yaml says about name.
func (s *Set) Role(name string) (Role, bool) {
	r, ok := s.roles[name]
	if !ok {
		return Role{}, false
	}
	return r.info.clone(), true
}

// Satisfies reports whether a principal in role may act where required is
// the role asked for, such as the approver of a human gate: role is required,
// or includes it (transitively) in roles.yaml. Unknown roles satisfy nothing.
// The tool matrix and lane callers do not use includes: they name roles
// exactly, so a grant is never inherited by accident.
func (s *Set) Satisfies(role, required string) bool {
	r, ok := s.roles[role]
	return ok && r.satisfies[required]
}

// Tools returns the tools declared in tools.yaml, sorted.
func (s *Set) Tools() []string { return sortedKeys(s.tools) }

// Tool returns what tools.yaml says about name.
func (s *Set) Tool(name string) (Tool, bool) {
	t, ok := s.tools[name]
	if !ok {
		return Tool{}, false
	}
	return t.info.clone(), true
}

// Lanes returns the lanes declared in lanes.yaml, sorted.
func (s *Set) Lanes() []string { return sortedKeys(s.lanes) }

// Lane returns what lanes.yaml says about name.
func (s *Set) Lane(name string) (Lane, bool) {
	l, ok := s.lanes[name]
	if !ok {
		return Lane{}, false
	}
	return l.info.clone(), true
}

// ChallengeRules returns the rules of tools.yaml's challenges section: what a
// challenge must carry to be more than frivolous (debate §6.3).
func (s *Set) ChallengeRules() []FieldRule { return append([]FieldRule(nil), s.challenges...) }

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
