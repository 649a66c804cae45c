package modeltest_test

import (
	"context"
	"fmt"

	"github.com/sanadhq/sanad/model"
	"github.com/sanadhq/sanad/model/anthropic"
	"github.com/sanadhq/sanad/model/modeltest"
)

// A tool loop of two turns against a fake of the Anthropic API: the model
// calls a tool, gets its result back and answers.
func ExampleSequence() {
	f := modeltest.NewAnthropic(modeltest.Sequence(
		modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "toolu_1", Name: "add", Arguments: `{"a":2,"b":3}`}}},
		modeltest.Turn{Text: "2 + 3 = 5"},
	))
	defer f.Close()
	m, err := anthropic.New(anthropic.Config{Model: "claude-sonnet-4-5", BaseURL: f.BaseURL()})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	req := model.Request{
		Messages: []model.Message{{Role: model.RoleUser, Content: "What is 2 + 3?"}},
		Tools:    []model.Tool{{Name: "add", Description: "Adds two numbers."}},
	}
	resp, err := m.Generate(ctx, req)
	if err != nil {
		panic(err)
	}
	call := resp.ToolCalls[0]
	fmt.Println(resp.FinishReason, call.Name, string(call.Arguments))

	req.Messages = append(req.Messages, resp.Message(), model.Message{Role: model.RoleTool, ToolCallID: call.ID, Content: "5"})
	if resp, err = m.Generate(ctx, req); err != nil {
		panic(err)
	}
	fmt.Println(resp.FinishReason, resp.Text)

	for _, msg := range f.Requests()[1].Messages {
		fmt.Printf("%s %q %v %q\n", msg.Role, msg.Content, msg.ToolCalls, msg.ToolCallID)
	}
	// Output:
	// tool_calls add {"a":2,"b":3}
	// stop 2 + 3 = 5
	// user "What is 2 + 3?" [] ""
	// assistant "" [{toolu_1 add {"a":2,"b":3}}] ""
	// tool "5" [] "toolu_1"
}
