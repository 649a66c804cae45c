package workflow

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/canon"
)

// appendJSON appends b as JSON, as encoding/json would write it but without
// reflection: a step event is sealed after every step. The ledger
// canonicalizes and validates it as it does any body; raw values (the
// output, context and memory entries) are copied as they are.
func (b *StepBody) appendJSON(dst []byte) []byte {
	return b.appendFields(dst, true)
}

// appendFields appends b, with its output and its checkpoint's state only
// when whole is set: without them, it is what a step's state hashes.
func (b *StepBody) appendFields(dst []byte, whole bool) []byte {
	dst = append(dst, `{"step_id":`...)
	dst = canon.AppendString(dst, b.StepID)
	dst = append(dst, `,"step_index":`...)
	dst = strconv.AppendInt(dst, int64(b.StepIndex), 10)
	dst = append(dst, `,"agent":`...)
	dst = canon.AppendString(dst, b.Agent)
	if whole && len(b.Output) > 0 {
		dst = append(dst, `,"output":`...)
		dst = append(dst, b.Output...)
	}
	if b.OutputHash != "" {
		dst = append(dst, `,"output_hash":`...)
		dst = canon.AppendString(dst, b.OutputHash)
	}
	if b.Error != nil {
		dst = append(dst, `,"error":`...)
		dst = appendRunError(dst, *b.Error)
	}
	dst = append(dst, `,"checkpoint":`...)
	dst = b.Checkpoint.appendJSON(dst, whole)
	return append(dst, '}')
}

func (c *CheckpointDelta) appendJSON(dst []byte, withState bool) []byte {
	dst = append(dst, `{"stepIndex":`...)
	dst = strconv.AppendInt(dst, int64(c.StepIndex), 10)
	dst = append(dst, `,"completedStepId":`...)
	dst = canon.AppendString(dst, c.CompletedStepID)
	if len(c.Context) > 0 {
		dst = append(dst, `,"context":`...)
		dst = appendRawMap(dst, c.Context)
	}
	if len(c.MemorySnapshot) > 0 {
		dst = append(dst, `,"memorySnapshot":`...)
		dst = appendRawMap(dst, c.MemorySnapshot)
	}
	if len(c.FailedSteps) > 0 {
		dst = append(dst, `,"failedSteps":{`...)
		for i, k := range sortedKeys(c.FailedSteps) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = canon.AppendString(dst, k)
			dst = append(dst, ':')
			dst = appendRunError(dst, c.FailedSteps[k])
		}
		dst = append(dst, '}')
	}
	dst = append(dst, `,"phase":`...)
	dst = canon.AppendString(dst, c.Phase)
	if withState {
		dst = append(dst, `,"state":`...)
		dst = canon.AppendString(dst, c.State)
	}
	return append(dst, '}')
}

func appendRawMap(dst []byte, m map[string]json.RawMessage) []byte {
	dst = append(dst, '{')
	for i, k := range sortedKeys(m) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = canon.AppendString(dst, k)
		dst = append(dst, ':')
		if v := m[k]; len(v) > 0 {
			dst = append(dst, v...)
		} else {
			dst = append(dst, "null"...)
		}
	}
	return append(dst, '}')
}

func appendRunError(dst []byte, e sanad.RunError) []byte {
	b, _ := json.Marshal(e) // rare: failures only
	return append(dst, b...)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
