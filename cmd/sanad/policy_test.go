package main

import (
	"bytes"
	"encoding/json"
	"testing"
)

// policyCheck runs `sanad policy check ARGS --json` and decodes its answer.
func policyCheck(t *testing.T, args ...string) (allow bool, reason string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(append([]string{"policy", "check", "--json"}, args...), nil, &out, &errOut)
	if code != exitOK {
		t.Fatalf("sanad policy check %v: exit %d, stderr %q", args, code, errOut.String())
	}
	var d struct {
		Allow  bool   `json:"allow"`
		Reason string `json:"reason"`
	}
	if err := json.Unmarshal(out.Bytes(), &d); err != nil {
		t.Fatalf("output %q: %v", out.String(), err)
	}
	return d.Allow, d.Reason
}

// TestD11_PolicyCheckMatrix checks every cell of seed 000 §5's tool matrix,
// both ways, through the CLI (the table is copied from the seed by hand).
func TestD11_PolicyCheckMatrix(t *testing.T) {
	roles := []string{"advocate", "sanad_breaker", "contradiction_finder", "risk_officer", "arbiter"}
	matrix := map[string][5]bool{
		"lookup_claim":         {true, true, true, true, true},
		"lookup_calc":          {true, true, true, true, true},
		"search_evidence":      {false, true, true, true, true},
		"flag_defect":          {false, true, false, false, false},
		"request_human_review": {false, false, false, false, true},
		"query_enrichment":     {false, false, true, true, false},
	}
	for tool, row := range matrix {
		for i, role := range roles {
			t.Run(tool+"/"+role, func(t *testing.T) {
				allow, reason := policyCheck(t, "--policy", "../../examples/policies/debate", "--role", role, "--tool", tool, "--case", "deal-1")
				if allow != row[i] {
					t.Fatalf("got allow %v (%s), want %v", allow, reason, row[i])
				}
			})
		}
	}
}

// TestC13_PolicyCheckLanes checks every lane of seed 001 §5 (and the EXPORT
// lane) with an allowed and a refused caller, and each lane's prohibitions.
func TestC13_PolicyCheckLanes(t *testing.T) {
	dir := "../../examples/policies/casework"
	lanes := []struct {
		lane, allowed, refused, action string
		fields                         []string
		prohibited                     string
	}{
		{"TOOL_INTERVIEW_CAPTURE", "INTERVIEW_AGENT", "MAPPING_AGENT", "transcription.run", []string{"client_session_id=s1", "run_id=r1"}, "cross_case_lookup"},
		{"WRITE_INTAKE_ARTIFACTS", "INTAKE_AGENT", "GOVERNANCE_AGENT", "append:transcripts", []string{"client_session_id=s1", "run_id=r1"}, "external_export"},
		{"WRITE_MAPPING_OUTPUTS", "MAPPING_AGENT", "INTERVIEW_AGENT", "append:facts", []string{"run_id=r1", "coa_version=v3"}, "shared_knowledge_write"},
		{"PROMOTE_SHARED_KNOWLEDGE", "ATTORNEY_ADMIN", "MAPPING_AGENT", "append:shared_playbooks", []string{"promotion_ticket_id=p1", "run_id=r1"}, "raw_case_text"},
		{"EXPORT", "EXPORT_AGENT", "INTAKE_AGENT", "export.finalize", []string{"run_id=r1", "export_request_id=x1"}, "privileged_notes"},
	}
	for _, l := range lanes {
		t.Run(l.lane, func(t *testing.T) {
			args := func(role string, extra ...string) []string {
				a := []string{"--policy", dir, "--role", role, "--lane", l.lane, "--action", l.action, "--case", "case-1"}
				for _, f := range l.fields {
					a = append(a, "--field", f)
				}
				return append(a, extra...)
			}
			if allow, reason := policyCheck(t, args(l.allowed)...); !allow {
				t.Errorf("%s: got deny (%s), want allow", l.allowed, reason)
			}
			if allow, reason := policyCheck(t, args(l.refused)...); allow {
				t.Errorf("%s: got allow (%s), want deny", l.refused, reason)
			}
			if allow, reason := policyCheck(t, args(l.allowed, "--tag", l.prohibited)...); allow {
				t.Errorf("%s with %s: got allow (%s), want deny", l.allowed, l.prohibited, reason)
			}
			if allow, _ := policyCheck(t, "--policy", dir, "--role", l.allowed, "--lane", l.lane); !allow {
				t.Errorf("%s as a caller of %s: got deny, want allow", l.allowed, l.lane)
			}
		})
	}
}

func TestPolicyCheckBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"--policy", "../../examples/policies/debate", "--role", "advocate"},
		{"--policy", "/nonexistent", "--role", "advocate", "--tool", "lookup_claim"},
		{"--policy", "../../examples/policies/debate", "--role", "advocate", "--tool", "x", "--lane", "y"},
		{"--policy", "../../examples/policies/casework", "--role", "INTAKE_AGENT", "--lane", "EXPORT", "--field", "novalue"},
	} {
		var out, errOut bytes.Buffer
		if code := run(append([]string{"policy", "check"}, args...), nil, &out, &errOut); code != exitUsage {
			t.Errorf("policy check %v: got exit %d, want %d (stderr %q)", args, code, exitUsage, errOut.String())
		}
	}
}
