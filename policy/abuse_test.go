package policy

import (
	"errors"
	"strings"
	"testing"

	"github.com/sanadhq/sanad"
)

// violation returns the *Violation inside err with the given code, or fails.
func violation(tb testing.TB, err error, code sanad.Code) *Violation {
	tb.Helper()
	if err == nil {
		tb.Fatal("got no error, want a violation")
	}
	if got := sanad.ErrorCode(err); got != code {
		tb.Errorf("code: got %s, want %s", got, code)
	}
	var v *Violation
	if !errors.As(err, &v) {
		tb.Fatalf("got %v, want a *Violation inside", err)
	}
	return v
}

// validDefect is a flag_defect input that meets §6.2.
func validDefect() map[string]any {
	return map[string]any{
		"claim_id":      "c-1",
		"defect_type":   "BROKEN_CHAIN",
		"severity":      "MAJOR",
		"description":   strings.Repeat("d", 50),
		"evidence_refs": []any{"ev-1"},
		"cure_protocol": "REQUEST_SOURCE",
	}
}

func TestD13_AbuseRules(t *testing.T) {
	s := loadDir(t, debateDir)
	t.Run("per-round limits of §6.2", func(t *testing.T) {
		limits := map[string]int{"lookup_claim": 20, "lookup_calc": 10, "search_evidence": 5, "flag_defect": 3}
		for tool, limit := range limits {
			input := map[string]any{}
			if tool == "flag_defect" {
				input = validDefect()
			}
			if err := s.CheckAbuse(tool, Usage{Round: limit - 1, Run: limit - 1}, input); err != nil {
				t.Errorf("%s call %d: got %v, want allowed", tool, limit, err)
			}
			err := s.CheckAbuse(tool, Usage{Round: limit, Run: limit}, input)
			v := violation(t, err, sanad.CodeToolAbuse)
			if v.Rule != ViolationRoundLimit || v.Limit != limit || v.Tool != tool {
				t.Errorf("%s call %d: got %+v, want %s with limit %d", tool, limit+1, v, ViolationRoundLimit, limit)
			}
		}
	})
	t.Run("the 21st lookup_claim in a round is refused", func(t *testing.T) {
		for calls := 0; calls < 20; calls++ {
			if err := s.CheckAbuse("lookup_claim", Usage{Round: calls, Run: calls}, nil); err != nil {
				t.Fatalf("call %d: got %v, want allowed", calls+1, err)
			}
		}
		err := s.CheckAbuse("lookup_claim", Usage{Round: 20, Run: 20}, nil)
		if v := violation(t, err, sanad.CodeToolAbuse); !strings.Contains(v.Reason, "call 21") {
			t.Errorf("reason %q, want it to say call 21", v.Reason)
		}
	})
	t.Run("a new round resets the count", func(t *testing.T) {
		if err := s.CheckAbuse("lookup_claim", Usage{Round: 0, Run: 20}, nil); err != nil {
			t.Errorf("first call of round 2: got %v, want allowed", err)
		}
	})
	t.Run("tools without a per-round limit", func(t *testing.T) {
		for _, tool := range []string{"request_human_review", "query_enrichment"} {
			if err := s.CheckAbuse(tool, Usage{Round: 1000, Run: 1000}, nil); err != nil {
				t.Errorf("%s: got %v, want no limit", tool, err)
			}
		}
	})
	t.Run("flag_defect requirements", func(t *testing.T) {
		tests := []struct {
			name  string
			edit  func(map[string]any)
			field string // "" when the input is valid
		}{
			{"valid", func(map[string]any) {}, ""},
			{"50 characters of Arabic", func(in map[string]any) { in["description"] = strings.Repeat("ع", 50) }, ""},
			{"49 characters", func(in map[string]any) { in["description"] = strings.Repeat("d", 49) }, "description"},
			{"50 characters with padding", func(in map[string]any) { in["description"] = "  " + strings.Repeat("d", 48) + "  " }, "description"},
			{"no description", func(in map[string]any) { delete(in, "description") }, "description"},
			{"description not a string", func(in map[string]any) { in["description"] = 12345 }, "description"},
			{"no evidence refs", func(in map[string]any) { in["evidence_refs"] = []any{} }, "evidence_refs"},
			{"evidence refs missing", func(in map[string]any) { delete(in, "evidence_refs") }, "evidence_refs"},
			{"blank evidence ref", func(in map[string]any) { in["evidence_refs"] = []any{" ", nil} }, "evidence_refs"},
			{"evidence refs as strings", func(in map[string]any) { in["evidence_refs"] = []string{"ev-1"} }, ""},
			{"evidence refs not a list", func(in map[string]any) { in["evidence_refs"] = "ev-1" }, "evidence_refs"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				in := validDefect()
				tt.edit(in)
				err := s.CheckAbuse("flag_defect", Usage{}, in)
				if tt.field == "" {
					if err != nil {
						t.Fatalf("got %v, want allowed", err)
					}
					return
				}
				v := violation(t, err, sanad.CodeToolAbuse)
				if v.Rule != ViolationRequires || v.Field != tt.field {
					t.Errorf("got %s on %q, want %s on %q", v.Rule, v.Field, ViolationRequires, tt.field)
				}
			})
		}
	})
	t.Run("negative counts", func(t *testing.T) {
		if got := sanad.ErrorCode(s.CheckAbuse("lookup_claim", Usage{Round: -1}, nil)); got != sanad.CodeInvalidInput {
			t.Errorf("got %s, want %s", got, sanad.CodeInvalidInput)
		}
	})
	t.Run("undeclared tool has no rules", func(t *testing.T) {
		if err := s.CheckAbuse("transcription.run", Usage{Round: 1e6}, nil); err != nil {
			t.Errorf("got %v, want nil (Decide refuses undeclared tools)", err)
		}
	})
}

func TestD13_RunLimit(t *testing.T) {
	files := goodFiles()
	files["tools.yaml"] = `version: "1"
risk_classes:
  high: {approval: human}
tools:
  wire_funds:
    roles: [a]
    risk: high
    max_calls_per_round: 2
    max_calls_per_run: 3
`
	s := mustLoadFiles(t, files)
	if err := s.CheckAbuse("wire_funds", Usage{Round: 0, Run: 2}, nil); err != nil {
		t.Fatalf("third call of the run: got %v, want allowed", err)
	}
	v := violation(t, s.CheckAbuse("wire_funds", Usage{Round: 0, Run: 3}, nil), sanad.CodeToolAbuse)
	if v.Rule != ViolationRunLimit || v.Limit != 3 {
		t.Errorf("got %+v, want %s with limit 3", v, ViolationRunLimit)
	}
	if tool, _ := s.Tool("wire_funds"); tool.Approval != ApprovalHuman {
		t.Errorf("approval: got %s, want %s", tool.Approval, ApprovalHuman)
	}
}

func TestD14_FrivolousChallenge(t *testing.T) {
	s := loadDir(t, debateDir)
	valid := func() map[string]any {
		return map[string]any{
			"claim_refs":    []any{"claim-1"},
			"defect_type":   "UNSUPPORTED_CLAIM",
			"evidence_refs": []any{"ev-7"},
		}
	}
	if err := s.CheckChallenge(valid()); err != nil {
		t.Fatalf("valid challenge: got %v, want nil", err)
	}
	tests := []struct {
		name   string
		edit   func(map[string]any)
		reason string // the words of seed 000 §6.3
	}{
		{"no claim refs", func(c map[string]any) { delete(c, "claim_refs") }, "Challenge must reference specific claim_ids"},
		{"empty claim refs", func(c map[string]any) { c["claim_refs"] = []any{} }, "Challenge must reference specific claim_ids"},
		{"no defect type", func(c map[string]any) { c["defect_type"] = "" }, "Challenge must specify defect type"},
		{"no evidence", func(c map[string]any) { delete(c, "evidence_refs") }, "Challenge must cite evidence for claimed defect"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := valid()
			tt.edit(c)
			v := violation(t, s.CheckChallenge(c), sanad.CodeInvalidInput)
			if v.Reason != tt.reason {
				t.Errorf("reason: got %q, want %q", v.Reason, tt.reason)
			}
		})
	}
	if got := len(s.ChallengeRules()); got != 3 {
		t.Errorf("challenge rules: got %d, want 3", got)
	}
	if err := loadDir(t, caseworkDir).CheckChallenge(nil); err != nil {
		t.Errorf("policy without challenge rules: got %v, want nil", err)
	}
}
