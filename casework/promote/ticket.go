package promote

import (
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/sanadhq/sanad"
)

// Scopes of a promotion ticket: the shared table it may append to.
const (
	ScopePlaybooks  = "shared_playbooks"
	ScopeHeuristics = "shared_heuristics"
)

// Approver roles, as examples/policies/casework/roles.yaml names them: an
// ATTORNEY_ADMIN administers shared knowledge; an ATTORNEY approves the
// human gates of a case, and a promotion from a case is one.
const (
	RoleAttorneyAdmin = "ATTORNEY_ADMIN"
	RoleAttorney      = "ATTORNEY"
)

// Decisions of a [Receipt].
const (
	DecisionPromoted = "promoted"
	DecisionRefused  = "refused"
)

// CheckTicket is the name of the ticket's outcome in a [Receipt].
const CheckTicket = "ticket"

// MaxReasonBytes bounds Ticket.Reason.
const MaxReasonBytes = 1024

// idPattern is the form of ticket and candidate ids.
var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$`)

// Ticket is a human's approval to promote named candidates into one shared
// table: the promotion_ticket of seed 001 §4.5.
type Ticket struct {
	ID           string   `json:"id"`
	Approver     string   `json:"approver"`
	ApproverRole string   `json:"approver_role"` // RoleAttorneyAdmin or RoleAttorney
	Scope        string   `json:"scope"`         // ScopePlaybooks or ScopeHeuristics
	CandidateIDs []string `json:"candidate_ids"`
	Reason       string   `json:"reason,omitempty"`
	// ApprovedAt is when the approver signed, RFC 3339; optional.
	ApprovedAt string `json:"approved_at,omitempty"`
}

// Validate reports whether t is a well-formed ticket: an id of letters,
// digits and "_.:-", an approver, an approver role allowed to promote, a
// known scope, at least one candidate id and no duplicate, a bounded
// reason and, if set, an RFC 3339 approval time. It fails with
// CodeInvalidInput naming the field.
func (t Ticket) Validate() error {
	const op = "promote.Ticket.Validate"
	switch {
	case !idPattern.MatchString(t.ID):
		return sanad.Errorf(sanad.CodeInvalidInput, op, "ticket id %q: want 1-128 letters, digits and _.:- starting with a letter or digit", bounded(t.ID))
	case strings.TrimSpace(t.Approver) == "":
		return sanad.Errorf(sanad.CodeInvalidInput, op, "ticket %s: approver is missing", t.ID)
	case t.ApproverRole != RoleAttorneyAdmin && t.ApproverRole != RoleAttorney:
		return sanad.Errorf(sanad.CodeInvalidInput, op, "ticket %s: approver_role %q may not approve a promotion; want %s or %s", t.ID, bounded(t.ApproverRole), RoleAttorneyAdmin, RoleAttorney)
	case t.Scope != ScopePlaybooks && t.Scope != ScopeHeuristics:
		return sanad.Errorf(sanad.CodeInvalidInput, op, "ticket %s: scope %q: want %s or %s", t.ID, bounded(t.Scope), ScopePlaybooks, ScopeHeuristics)
	case len(t.CandidateIDs) == 0:
		return sanad.Errorf(sanad.CodeInvalidInput, op, "ticket %s: candidate_ids is empty", t.ID)
	case len(t.Reason) > MaxReasonBytes:
		return sanad.Errorf(sanad.CodeInvalidInput, op, "ticket %s: reason is longer than %d bytes", t.ID, MaxReasonBytes)
	}
	for i, id := range t.CandidateIDs {
		if !idPattern.MatchString(id) {
			return sanad.Errorf(sanad.CodeInvalidInput, op, "ticket %s: candidate_ids[%d] %q is not an id", t.ID, i, bounded(id))
		}
		if slices.Contains(t.CandidateIDs[:i], id) {
			return sanad.Errorf(sanad.CodeInvalidInput, op, "ticket %s: candidate_ids lists %s twice", t.ID, id)
		}
	}
	if t.ApprovedAt != "" {
		if _, err := time.Parse(time.RFC3339, t.ApprovedAt); err != nil {
			return sanad.Wrap(err, sanad.CodeInvalidInput, op, "ticket "+t.ID+": approved_at is not an RFC 3339 time")
		}
	}
	return nil
}

// Covers reports whether t approves promoting c: t is valid, lists c's id,
// and its scope is the table of c's kind. A valid ticket that does not
// cover c fails with CodePolicyDenied.
func (t Ticket) Covers(c Candidate) error {
	const op = "promote.Ticket.Covers"
	if err := t.Validate(); err != nil {
		return err
	}
	if !slices.Contains(t.CandidateIDs, c.ID) {
		return sanad.Errorf(sanad.CodePolicyDenied, op, "ticket %s does not list candidate %q", t.ID, bounded(c.ID))
	}
	if want := ScopeOf(c.Kind); want != t.Scope {
		return sanad.Errorf(sanad.CodePolicyDenied, op, "ticket %s approves %s, but candidate %s is a %q", t.ID, t.Scope, c.ID, bounded(c.Kind))
	}
	return nil
}

// ScopeOf returns the ticket scope of a candidate kind, "" for an unknown
// kind.
func ScopeOf(kind string) string {
	switch kind {
	case KindPlaybook:
		return ScopePlaybooks
	case KindHeuristic:
		return ScopeHeuristics
	}
	return ""
}

// CheckOutcome is one check's outcome in a [Receipt].
type CheckOutcome struct {
	Check  string `json:"check"`
	Passed bool   `json:"passed"`
	Detail string `json:"detail"`
}

// Receipt is the human-auditable record of one promotion decision (seed
// 001 §4.5 promotion_receipt). It holds hashes, ids and the checks'
// details and locations, never a quote: no case text and no identifier
// reaches it.
type Receipt struct {
	TicketID        string         `json:"ticket_id"`
	CandidateID     string         `json:"candidate_id"`
	CandidateSHA256 string         `json:"candidate_sha256"`
	Decision        string         `json:"decision"` // DecisionPromoted or DecisionRefused
	Checks          []CheckOutcome `json:"checks"`
	Approver        string         `json:"approver"`
	ApproverRole    string         `json:"approver_role"`
	ApprovedAt      string         `json:"approved_at,omitempty"`
	// SourceCase is the id of the case the insight comes from, never its
	// text.
	SourceCase string `json:"source_case,omitempty"`
}

// NewReceipt records the decision on c: promoted when the ticket covers c
// (see [Ticket.Covers]) and every check of r passed, refused otherwise. Its
// checks are the ticket's and then those of [Checks], each with its
// findings' details and locations.
func NewReceipt(ticket Ticket, c Candidate, r Result) Receipt {
	rc := Receipt{
		TicketID:        ticket.ID,
		CandidateID:     c.ID,
		CandidateSHA256: r.CandidateSHA256,
		Approver:        ticket.Approver,
		ApproverRole:    ticket.ApproverRole,
		ApprovedAt:      ticket.ApprovedAt,
		SourceCase:      c.SourceCase,
	}
	if rc.CandidateSHA256 == "" {
		rc.CandidateSHA256 = CandidateSHA256(c)
	}
	passed := true
	if err := ticket.Covers(c); err != nil {
		passed = false
		rc.Checks = append(rc.Checks, CheckOutcome{Check: CheckTicket, Detail: sanad.ErrorMessage(err)})
	} else {
		rc.Checks = append(rc.Checks, CheckOutcome{Check: CheckTicket, Passed: true, Detail: "approved by " + ticket.ApproverRole})
	}
	for _, check := range Checks {
		var details []string
		for _, f := range r.Findings {
			if f.Check == check {
				details = append(details, f.Detail+" at "+f.Where)
			}
		}
		o := CheckOutcome{Check: check, Passed: len(details) == 0, Detail: "passed"}
		if !o.Passed {
			passed = false
			o.Detail = strings.Join(details, "; ")
		}
		rc.Checks = append(rc.Checks, o)
	}
	if rc.CandidateSHA256 != CandidateSHA256(c) {
		passed = false
		rc.Checks = append(rc.Checks, CheckOutcome{Check: "candidate_sha256", Detail: "the result is of another version of the candidate"})
	}
	rc.Decision = DecisionRefused
	if passed {
		rc.Decision = DecisionPromoted
	}
	return rc
}

// bounded cuts s to 64 bytes for an error message.
func bounded(s string) string { return cut(s, 64) }
