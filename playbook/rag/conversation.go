package rag

import (
	"context"
	"encoding/json"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/home"
)

// Table is the domain table conversations are kept in, one record per
// session, upserted through db_write at the end of every turn.
const Table = "conversations"

// Lane is the policy lane of conversation writes.
const Lane = "WRITE_CONVERSATION"

// Message is one message of a conversation (seed 004 ConversationMessage).
type Message struct {
	Role      string    `json:"role"` // user, assistant or system
	Content   string    `json:"content"`
	Timestamp time.Time `json:"timestamp"`
}

// State is a session's conversation (seed 004 ConversationState): what was
// said, the plan and the context of the last turn, and the user's
// preferences. The user's messages are kept as the guardrails sanitised
// them: personal data redacted.
type State struct {
	SessionID          string         `json:"session_id"`
	UserID             string         `json:"user_id,omitempty"`
	History            []Message      `json:"history"`
	CurrentPlan        []PlanStep     `json:"current_plan,omitempty"`
	AccumulatedContext []ContextRef   `json:"accumulated_context"`
	UserPreferences    map[string]any `json:"user_preferences"`
	Turns              int            `json:"turns"`
	LastRun            string         `json:"last_run,omitempty"`
}

// ContextRef is a retrieved chunk kept in a conversation's state: which
// chunk of which document, and how it scored. The chunk's text stays in the
// index and in the turn's record; the state does not copy it.
type ContextRef struct {
	ChunkID        string  `json:"chunk_id"`
	SourceID       string  `json:"source_id"`
	RelevanceScore float64 `json:"relevance_score"`
}

// AddMessage appends a message to the history.
func (s *State) AddMessage(role, content string, at time.Time) {
	s.History = append(s.History, Message{Role: role, Content: content, Timestamp: at.UTC()})
}

// ClearContext forgets the last turn's plan and context.
func (s *State) ClearContext() {
	s.AccumulatedContext, s.CurrentPlan = nil, nil
}

// Questions returns the user's messages, oldest first.
func (s *State) Questions() []string {
	var out []string
	for _, m := range s.History {
		if m.Role == "user" {
			out = append(out, m.Content)
		}
	}
	return out
}

// LoadState returns the conversation of session id in scope, or a new one
// when the session has none. It reads the session's record in the
// conversations table and its content by hash, so what it returns is what
// the last turn wrote through db_write.
func LoadState(ctx context.Context, h *home.Home, scope sanad.Scope, id string) (State, error) {
	const op = "rag.load_state"
	st := State{SessionID: id, History: []Message{}, AccumulatedContext: []ContextRef{}, UserPreferences: map[string]any{}}
	if err := validSessionID(id); err != nil {
		return st, err
	}
	rows, err := h.DB.Records(ctx, scope, Table)
	if err != nil {
		return st, err
	}
	for i := len(rows) - 1; i >= 0; i-- {
		if rows[i].Key != id {
			continue
		}
		data, err := h.Artifacts.Read(rows[i].SHA256)
		if err != nil {
			return st, sanad.Wrap(err, sanad.CodeIntegrity, op, "the record of session "+id)
		}
		if err := json.Unmarshal(data, &st); err != nil {
			return st, sanad.Wrap(err, sanad.CodeIntegrity, op, "the record of session "+id)
		}
		if st.SessionID != id {
			return st, sanad.Errorf(sanad.CodeIntegrity, op, "the record of session %s names session %q", id, st.SessionID)
		}
		if st.UserPreferences == nil {
			st.UserPreferences = map[string]any{}
		}
		return st, nil
	}
	return st, nil
}

// Sessions lists the session ids with a conversation in scope, the most
// recently written last.
func Sessions(ctx context.Context, h *home.Home, scope sanad.Scope) ([]string, error) {
	rows, err := h.DB.Records(ctx, scope, Table)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		out = append(out, r.Key)
	}
	return out, nil
}

func validSessionID(id string) error {
	if id == "" || len(id) > 128 {
		return sanad.Errorf(sanad.CodeInvalidInput, "rag.session", "a session id is 1 to 128 characters")
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return sanad.Errorf(sanad.CodeInvalidInput, "rag.session", "session id %q: use letters, digits, '-', '_' and '.'", id)
		}
	}
	return nil
}
