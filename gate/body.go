package gate

import (
	"encoding/json"
	"fmt"

	"github.com/sanadhq/sanad/ledger"
)

func gateID(e *ledger.Event) (string, error) {
	var b struct {
		GateID string `json:"gate_id"`
	}
	if err := json.Unmarshal(e.Body, &b); err != nil || b.GateID == "" {
		return "", fmt.Errorf("%s without a gate_id", e.Type)
	}
	return b.GateID, nil
}

// Project builds a gate from its gate.created event and, if resolved, its
// gate.resolved event (nil otherwise).
func Project(created, resolved *ledger.Event) (Gate, error) {
	var g Gate
	if err := json.Unmarshal(created.Body, &g.Created); err != nil {
		return g, fmt.Errorf("gate: created body: %w", err)
	}
	g.Trace, g.Run, g.Scope, g.Status, g.OpenedAt = created.Trace, created.Run, created.Scope, StatusOpen, created.Time
	if resolved != nil {
		var r Resolved
		if err := json.Unmarshal(resolved.Body, &r); err != nil {
			return g, fmt.Errorf("gate: resolved body: %w", err)
		}
		g.Status, g.Resolved = r.Decision, &r
	}
	return g, nil
}
