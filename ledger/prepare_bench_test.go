package ledger

import (
	"encoding/json"
	"io"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

var benchBody = map[string]any{"run": map[string]any{
	"run_id": "ra2001d86bad834802653a75639", "root_run_id": "ra2001d86bad834802653a75639", "trace": "ra2001d86bad834802653a75639",
	"kind": "agent", "scope": map[string]any{"tenant": "bench", "case": "case-1"}, "agent": "bench-agent-1",
	"contract_version": "v1", "status": "running", "started_at": "2026-11-21T22:19:25.123456789Z",
	"request_hash": "sha256:b3ab5b99453b05aabc05050bf19d2191014c6acd6143c0d5cb8f7efc571650d4",
}}

const benchSchema = `{"type":"object","required":["run"],"properties":{"run":{"type":"object","required":["run_id","kind","scope"],
"properties":{"run_id":{"type":"string","minLength":1},"kind":{"enum":["agent","workflow"]},"scope":{"type":"object","required":["tenant"]},
"request_hash":{"type":"string","pattern":"^sha256:[0-9a-f]{64}$"}}}}}`

func BenchmarkEncodeBody(b *testing.B) {
	for b.Loop() {
		if _, err := encodeBody(benchBody); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkJSONMarshalBody(b *testing.B) {
	for b.Loop() {
		json.Marshal(benchBody)
	}
}

func BenchmarkValidateBody(b *testing.B) {
	types, err := NewTypes(Vocabulary{Types: []TypeDef{{Name: "bench.body", Schema: benchSchema}}})
	if err != nil {
		b.Fatal(err)
	}
	body, _ := encodeBody(benchBody)
	b.Run("full", func(b *testing.B) {
		for b.Loop() {
			if err := types.ValidateBody("bench.body", body); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("unmarshal-only", func(b *testing.B) {
		for b.Loop() {
			var v any
			json.Unmarshal(body, &v)
		}
	})
	b.Run("jsonschema-unmarshal", func(b *testing.B) {
		for b.Loop() {
			jsonschema.UnmarshalJSON(bytesReader(body))
		}
	})
}

func bytesReader(b []byte) *bytesR { return &bytesR{b: b} }

type bytesR struct {
	b []byte
	i int
}

func (r *bytesR) Read(p []byte) (int, error) {
	if r.i >= len(r.b) {
		return 0, errEOF
	}
	n := copy(p, r.b[r.i:])
	r.i += n
	return n, nil
}

var errEOF = io.EOF
