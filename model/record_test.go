package model_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/sanadhq/sanad/model"
)

func ExampleRequestJSON() {
	prompt, _ := model.RequestJSON(model.Request{
		System:   "You are an analyst.",
		Messages: []model.Message{{Role: model.RoleUser, Content: "Reply with OK"}},
	})
	fmt.Println(string(prompt))
	// Output:
	// {"messages":[{"content":"Reply with OK","role":"user"}],"system":"You are an analyst."}
}

// FuzzParseResponse: ParseResponse reads anything without panicking, and
// what it reads writes back to a response it reads the same.
func FuzzParseResponse(f *testing.F) {
	for _, r := range []model.Response{
		{Text: "OK", FinishReason: model.FinishStop, Usage: model.Usage{InputTokens: 12, OutputTokens: 1, TotalTokens: 13}, Model: "gpt-test", ID: "chatcmpl-1"},
		{ToolCalls: []model.ToolCall{{ID: "c1", Name: "lookup", Arguments: json.RawMessage(`{"q":"acme"}`)}}, FinishReason: model.FinishToolCalls},
		{Text: `{"a":1}`, Output: json.RawMessage(`{"a":1}`), Provider: model.ProviderAnthropic, RequestID: "req_1"},
	} {
		data, err := model.ResponseJSON(r)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"text":1}`))
	f.Add([]byte(`{"tool_calls":[{"arguments":"x"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := model.ParseResponse(data)
		if err != nil {
			return
		}
		again, err := model.ResponseJSON(r)
		if err != nil {
			return // a field holding JSON that is not valid
		}
		r2, err := model.ParseResponse(again)
		if err != nil {
			t.Fatalf("ParseResponse of ResponseJSON(%+v): got error %v, want nil", r, err)
		}
		again2, err := model.ResponseJSON(r2)
		if err != nil || string(again2) != string(again) || !reflect.DeepEqual(r2.Usage, r.Usage) {
			t.Fatalf("round trip: got %s, want %s", again2, again)
		}
	})
}
