// Package casework is the legal casework of contract v1 (seed 001): a small
// firm opens a matter from a client's intake form, interviews the client,
// adds the matter's documents, maps the facts to causes of action, promotes
// sanitized insight into the firm's shared knowledge, and exports the case.
//
// Each of those is a playbook whose workflow run is the ORCHESTRATOR's root
// run (§4.1): it starts one agent child run (INTAKE_AGENT, INTERVIEW_AGENT,
// MAPPING_AGENT, GOVERNANCE_AGENT or EXPORT_AGENT) and ends with the workflow
// summary. The agents do their analysis offline with the casework packages
// (intake, interview, coa, promote, redact) and act on the world only through
// the tool gateway: interview capture and export through their lanes, every
// domain write through db.write as a db_write child run under the lane of
// lanes.yaml, which refuses whatever the lane-to-agent matrix of §5 does not
// allow. Every tool reads and writes the case of the run that calls it and
// nothing else.
package casework

import (
	"context"
	"encoding/json"
	"io/fs"
	"slices"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/agent"
	"github.com/sanadhq/sanad/casework/coa"
	"github.com/sanadhq/sanad/casework/interview"
	"github.com/sanadhq/sanad/examples"
	"github.com/sanadhq/sanad/playbook"
	"github.com/sanadhq/sanad/policy"
	"github.com/sanadhq/sanad/tool"
	"github.com/sanadhq/sanad/workflow"
)

// ContractVersion is the contract the agents implement.
const ContractVersion = "v1"

// Names of the playbooks, one per kind of case request.
const (
	Open      = "case-open"
	Interview = "case-interview"
	Map       = "case-map"
	Promote   = "case-promote"
	Export    = "case-export"
)

// Roles of contract v1 §3.
const (
	RoleOrchestrator = "ORCHESTRATOR"
	RoleIntake       = "INTAKE_AGENT"
	RoleInterview    = "INTERVIEW_AGENT"
	RoleMapping      = "MAPPING_AGENT"
	RoleGovernance   = "GOVERNANCE_AGENT"
	RoleExport       = "EXPORT_AGENT"
	// RoleAttorney confirms a triage; RoleAttorneyAdmin approves promotions.
	RoleAttorney      = "ATTORNEY"
	RoleAttorneyAdmin = "ATTORNEY_ADMIN"
)

// Agent ids.
const (
	AgentOrchestrator = "orchestrator"
	AgentIntake       = "intake-agent"
	AgentInterview    = "interview-agent"
	AgentMapping      = "mapping-agent"
	AgentGovernance   = "governance-agent"
	AgentExport       = "export-agent"
)

// Lanes of lanes.yaml.
const (
	LaneInterview = "TOOL_INTERVIEW_CAPTURE"
	LaneIntake    = "WRITE_INTAKE_ARTIFACTS"
	LaneMapping   = "WRITE_MAPPING_OUTPUTS"
	LanePromote   = "PROMOTE_SHARED_KNOWLEDGE"
	LaneExport    = "EXPORT"
)

// Tasks of the steps.
const (
	taskIntake    = "Assess the client's intake form"
	taskTriage    = "Have an attorney confirm the triage"
	taskInterview = "Capture the client interview"
	taskMap       = "Map the case's facts to causes of action"
	taskCheck     = "Check the ticket's candidates against the case"
	taskPublish   = "Publish the approved candidates"
	taskExport    = "Assemble the export"
	taskSummary   = "Summarise the case request"
)

// Config is what the playbooks are built with.
type Config struct {
	// Transcriber transcribes audio through an OpenAI-compatible
	// /v1/audio/transcriptions server; nil refuses audio with
	// DEPENDENCY_DOWN (transcript files need none).
	Transcriber *interview.Transcriber
	// COA is the causes-of-action taxonomy (coa.Default() when nil).
	COA *coa.Taxonomy
	// Now is the clock of intake's limitation periods (time.Now when nil).
	Now func() time.Time
}

// Policy returns the casework policy of examples/policies/casework.
func Policy() (*policy.Set, error) {
	sub, err := fs.Sub(examples.FS, "policies/casework")
	if err != nil {
		return nil, err
	}
	return policy.LoadFS(sub)
}

// Agents returns the profiles of the six agents of §3.
func Agents() []agent.Profile {
	p := func(id, name, role, desc string, tools ...string) agent.Profile {
		return agent.Profile{ID: id, Name: name, Role: role, ModelClass: "none", Description: desc,
			PermittedTools: tools, Enabled: true, Version: "1.0.0"}
	}
	// Intake and mapping classify with a reasoning model when one is
	// configured; offline they spot and map by rules.
	withModel := func(pr agent.Profile) agent.Profile {
		pr.ModelClass = "reasoning"
		return pr
	}
	return []agent.Profile{
		p(AgentOrchestrator, "Orchestrator", RoleOrchestrator, "Coordinates a case request: starts the agent runs and writes the workflow summary; calls no lane (§4.1)."),
		withModel(p(AgentIntake, "Intake", RoleIntake, "Triage of the client's intake form: summary, checklist, conflict check and a triage for an attorney to confirm (§4.2).",
			ToolWrite, ToolConfirmTriage)),
		p(AgentInterview, "Interview", RoleInterview, "Transcribes the client interview and writes the transcript, notes and entities (§4.3).",
			ToolTranscribe, ToolTranscriptionStatus, ToolPromptNext, ToolWrite),
		withModel(p(AgentMapping, "Mapping", RoleMapping, "Maps the case's facts to the elements of causes of action and names the gaps (§4.4).",
			ToolSources, ToolWrite)),
		p(AgentGovernance, "Governance", RoleGovernance, "Promotes sanitized insight into shared knowledge under an approved ticket (§4.5).",
			ToolPromotionCheck, ToolPublish, ToolWrite),
		p(AgentExport, "Export", RoleExport, "Assembles a redacted, verifiable export of a case (§4.6).",
			ToolExportAuthorize, ToolRedact, ToolExportAssemble, ToolExportFinalize, ToolWrite),
	}
}

// Playbooks returns the five casework playbooks, sharing their agents,
// policy and tools.
func Playbooks(cfg Config) ([]*playbook.Playbook, error) {
	pol, err := Policy()
	if err != nil {
		return nil, err
	}
	if cfg.COA == nil {
		cfg.COA = coa.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	nodes := map[string]playbook.NodeFunc{
		AgentOrchestrator: func(p agent.Profile) agent.Node { return agent.Func(p, summarize) },
		AgentIntake:       func(p agent.Profile) agent.Node { return agent.Func(p, intakeNode(cfg)) },
		AgentInterview:    func(p agent.Profile) agent.Node { return agent.Func(p, capture) },
		AgentMapping:      func(p agent.Profile) agent.Node { return agent.Func(p, mapFacts(cfg)) },
		AgentGovernance:   func(p agent.Profile) agent.Node { return agent.Func(p, govern) },
		AgentExport:       func(p agent.Profile) agent.Node { return agent.Func(p, export) },
	}
	toolkit := func(env playbook.Env) ([]tool.Spec, error) {
		if env.Home == nil {
			return nil, sanad.Errorf(sanad.CodeInvalidInput, "casework", "the casework playbooks need a home")
		}
		return tools(env.Home, pol, cfg), nil
	}
	step := func(id, agent, task string, deps ...string) workflow.Step {
		return workflow.Step{ID: id, Agent: agent, Task: task, DependsOn: deps}
	}
	var out []*playbook.Playbook
	for _, w := range []struct {
		name, desc string
		steps      []workflow.Step
	}{
		{Open, "Open a matter from the client's intake form: an assessment, and its triage confirmed by an attorney.",
			[]workflow.Step{step("intake", AgentIntake, taskIntake), step("triage", AgentIntake, taskTriage, "intake")}},
		{Interview, "Transcribe a client interview and write its transcript, notes and entities.",
			[]workflow.Step{step("interview", AgentInterview, taskInterview)}},
		{Map, "Map the case's documents and transcripts to causes of action, with the gaps.",
			[]workflow.Step{step("map", AgentMapping, taskMap)}},
		{Promote, "Check a ticket's candidates against the case, then publish those an attorney admin approves.",
			[]workflow.Step{step("check", AgentGovernance, taskCheck), step("publish", AgentGovernance, taskPublish, "check")}},
		{Export, "Export a case, redacted per profile, as a verifiable bundle.",
			[]workflow.Step{step("export", AgentExport, taskExport)}},
	} {
		var ids []string
		for _, s := range w.steps {
			ids = append(ids, s.ID)
		}
		def := &workflow.Definition{Name: w.name, Version: "1.0.0", Agent: AgentOrchestrator, Description: w.desc,
			Steps: append(w.steps, step("summary", AgentOrchestrator, taskSummary, ids...))}
		out = append(out, &playbook.Playbook{Name: w.name, Description: w.desc, Agents: Agents(), Nodes: nodes,
			Policy: pol, Workflow: def, Toolkit: toolkit})
	}
	return out, nil
}

// Summary is the orchestrator's workflow summary artifact (§4.1).
type Summary struct {
	ContractVersion string        `json:"contract_version"`
	Request         string        `json:"request"`
	Steps           []StepSummary `json:"steps"`
}

// StepSummary is one agent step of a request.
type StepSummary struct {
	Step    string `json:"step"`
	Agent   string `json:"agent"`
	Outcome string `json:"outcome"`
}

// summarize is the orchestrator's node: it writes nothing but its summary
// of the agent step (the runs themselves are in the record).
func summarize(_ context.Context, in agent.Input) (agent.Output, error) {
	s := Summary{ContractVersion: ContractVersion}
	ids := make([]string, 0, len(in.Inputs))
	for id := range in.Inputs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		var o Outcome
		if err := json.Unmarshal(in.Inputs[id], &o); err != nil {
			return agent.Output{}, sanad.Wrap(err, sanad.CodeInternal, "casework", "the output of step "+id)
		}
		s.Request = o.Request
		s.Steps = append(s.Steps, StepSummary{Step: id, Agent: o.Agent, Outcome: o.Outcome})
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return agent.Output{}, err
	}
	return agent.Output{Content: raw, Summary: s.Request + " summarised"}, nil
}
