package canon_test

import (
	"fmt"

	"github.com/sanadhq/sanad/canon"
)

func ExampleTransform() {
	out, err := canon.Transform([]byte(`{"b": 2.50, "a": [1e3, "\u00e9"], "c": -0}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(string(out))
	// Output: {"a":[1000,"é"],"b":2.5,"c":0}
}

func ExampleRequestHash() {
	a, _ := canon.RequestHash(map[string]any{"agent_name": "INTAKE_AGENT", "run_id": "r1", "parameters": map[string]any{"form": "f-9"}})
	b, _ := canon.RequestHash(map[string]any{"parameters": map[string]any{"form": "f-9"}, "agent_name": "INTAKE_AGENT", "run_id": "r2"})
	fmt.Println(a == b)
	// Output: true
}
