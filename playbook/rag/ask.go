package rag

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/guard"
	"github.com/sanadhq/sanad/guard/pii"
	"github.com/sanadhq/sanad/memory"
	"github.com/sanadhq/sanad/runner"
	"github.com/sanadhq/sanad/tailor"
)

// Service answers questions with the rag playbook of a runner. It is safe
// for concurrent use by different sessions; turns of one session must not
// overlap.
type Service struct {
	runner *runner.Runner
	guard  *guard.Guard
}

// Register registers the rag playbook with r and returns the service that
// asks it questions.
func Register(r *runner.Runner, cfg Config) (*Service, error) {
	if cfg.Guard == nil {
		g, err := DefaultGuard()
		if err != nil {
			return nil, err
		}
		cfg.Guard = g
	}
	pb, err := New(cfg)
	if err != nil {
		return nil, err
	}
	if err := r.Register(pb); err != nil {
		return nil, err
	}
	return &Service{runner: r, guard: cfg.Guard}, nil
}

// Question is one question of a session.
type Question struct {
	Text string
	// SessionID continues a conversation; empty starts a new one.
	SessionID string
	UserID    string
	// Persona is Technical, Executive or General (the session's last
	// persona, else General, when empty).
	Persona string
	// Scope is the tenant and case whose documents are searched ({default,
	// default} when zero).
	Scope        sanad.Scope
	TopK         int
	MinRelevance float64
	Filters      map[string]any
}

// Reply is the answer to a question, as `sanad ask --json` prints it.
type Reply struct {
	Answer     string            `json:"answer"`
	Citations  []tailor.Citation `json:"citations"`
	Sentences  []tailor.Sentence `json:"sentences"`
	Refused    bool              `json:"refused"`
	Code       sanad.Code        `json:"code,omitempty"`
	Confidence float64           `json:"confidence_score"`
	Mode       string            `json:"mode"`
	Persona    string            `json:"persona"`
	SessionID  string            `json:"session_id"`
	Trace      string            `json:"trace"`
	Run        string            `json:"run"`
	Intent     string            `json:"intent"`
	// Question is the question as answered: redacted, and resolved
	// against the conversation when it was a follow-up.
	Question  string     `json:"question"`
	FollowUps []string   `json:"follow_up_suggestions"`
	SetAside  []SetAside `json:"set_aside"`
	Plan      []PlanStep `json:"execution_plan"`
	// TookMS is the time the turn took, end to end.
	TookMS float64 `json:"processing_time_total_ms"`
	// Passages are the passages the answer was written from (in the
	// record as the memory agent's output; left out of the JSON).
	Passages []memory.Result `json:"-"`
}

// Ask answers q as one run of the rag playbook and saves the turn in the
// session's conversation. The question is redacted of personal data before
// anything is recorded. The error is for a turn that could not run; a
// refusal is a Reply.
func (s *Service) Ask(ctx context.Context, q Question) (Reply, error) {
	const op = "rag.ask"
	start := time.Now()
	scope := q.Scope
	if scope == (sanad.Scope{}) {
		scope = sanad.Scope{Tenant: "default", Case: "default"}
	}
	if strings.TrimSpace(q.Text) == "" {
		return Reply{}, sanad.Errorf(sanad.CodeInvalidInput, op, "the question is empty")
	}
	if q.SessionID == "" {
		q.SessionID = NewSessionID()
	}
	st, err := LoadState(ctx, s.runner.Home(), scope, q.SessionID)
	if err != nil {
		return Reply{}, err
	}
	clean, err := s.guard.Check(guard.Input{Content: q.Text, CheckType: guard.InputValidation})
	if err != nil {
		return Reply{}, err
	}
	p := q.Persona
	if p == "" {
		p, _ = st.UserPreferences["persona"].(string)
	}
	history := st.History
	if len(history) > DefaultHistory {
		history = history[len(history)-DefaultHistory:]
	}
	in := Input{Question: clean.SanitizedContent, SessionID: q.SessionID, UserID: q.UserID, Persona: persona(p),
		History: history, Preferences: st.UserPreferences, Turns: st.Turns, TopK: q.TopK, MinRelevance: q.MinRelevance,
		Filters: q.Filters, At: start.UTC().Truncate(time.Millisecond)}
	for _, f := range clean.Findings {
		if !slices.Contains(in.Redacted, f.Kind) && clean.SanitizedContent != q.Text && isPII(f.Kind) {
			in.Redacted = append(in.Redacted, f.Kind)
		}
	}
	res, err := s.runner.Run(ctx, Name, in, runner.Options{Scope: scope, Caller: "user:" + cmpOr(q.UserID, "anonymous"), Reason: "a question asked in session " + q.SessionID})
	if err != nil {
		return Reply{}, err
	}
	if err := res.Err(); err != nil {
		return Reply{Trace: res.Trace, Run: res.Run, SessionID: q.SessionID}, err
	}
	var out Outcome
	if err := json.Unmarshal(res.Outputs["remember"], &out); err != nil {
		return Reply{}, sanad.Wrap(err, sanad.CodeInternal, op, "the outcome of run "+res.Run)
	}
	a := out.FinalResponse
	var r Retrieved
	if err := json.Unmarshal(res.Outputs["retrieve"], &r); err != nil {
		return Reply{}, sanad.Wrap(err, sanad.CodeInternal, op, "the retrieval of run "+res.Run)
	}
	return Reply{Passages: r.Context,
		Answer: a.Content, Citations: a.Citations, Sentences: a.Sentences, Refused: a.Refused, Code: a.Code,
		Confidence: a.ConfidenceScore, Mode: a.Mode, Persona: in.Persona, SessionID: q.SessionID, Trace: res.Trace, Run: res.Run,
		Intent: out.Intent, Question: out.Question, FollowUps: a.FollowUpSuggestions, SetAside: a.SetAside,
		Plan: out.ExecutionPlan, TookMS: float64(time.Since(start).Microseconds()) / 1000,
	}, nil
}

// isPII says whether a finding's kind is a kind of personal data, not an
// injection rule or the classifier.
func isPII(kind string) bool {
	return slices.Contains(pii.BuiltinTypes(), kind) || strings.ToUpper(kind) == kind
}

// NewSessionID returns a fresh random session id.
func NewSessionID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "s-" + hex.EncodeToString(b[:])
}
