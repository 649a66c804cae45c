package workflow

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/canon"
)

// appendJSON appends b as JSON, as encoding/json would write it but without
// reflection: a step event is sealed after every step, and its body holds the
// whole checkpoint. The ledger canonicalizes and validates it as it does any
// body; raw values (outputs, context and memory entries) are copied as
// they are.
func (b *StepBody) appendJSON(dst []byte) []byte {
	dst = append(dst, `{"step_id":`...)
	dst = canon.AppendString(dst, b.StepID)
	dst = append(dst, `,"step_index":`...)
	dst = strconv.AppendInt(dst, int64(b.StepIndex), 10)
	dst = append(dst, `,"agent":`...)
	dst = canon.AppendString(dst, b.Agent)
	if len(b.Output) > 0 {
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
	dst = b.Checkpoint.appendJSON(dst)
	return append(dst, '}')
}

func (c *Checkpoint) appendJSON(dst []byte) []byte {
	dst = append(dst, `{"stepIndex":`...)
	dst = strconv.AppendInt(dst, int64(c.StepIndex), 10)
	dst = append(dst, `,"completedStepId":`...)
	dst = canon.AppendString(dst, c.CompletedStepID)
	dst = append(dst, `,"stepOutputs":`...)
	dst = appendRawMap(dst, c.StepOutputs)
	dst = append(dst, `,"context":`...)
	dst = appendRawMap(dst, c.Context)
	dst = append(dst, `,"memorySnapshot":`...)
	dst = appendRawMap(dst, c.MemorySnapshot)
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
	dst = append(dst, `,"completed":`...)
	dst = appendStrings(dst, c.Completed)
	if len(c.Compensated) > 0 {
		dst = append(dst, `,"compensated":`...)
		dst = appendStrings(dst, c.Compensated)
	}
	dst = append(dst, `,"phase":`...)
	dst = canon.AppendString(dst, c.Phase)
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

func appendStrings(dst []byte, list []string) []byte {
	dst = append(dst, '[')
	for i, s := range list {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = canon.AppendString(dst, s)
	}
	return append(dst, ']')
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
