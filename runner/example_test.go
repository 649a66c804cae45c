package runner_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/sanadhq/sanad/agent"
	"github.com/sanadhq/sanad/playbook"
	"github.com/sanadhq/sanad/runner"
	"github.com/sanadhq/sanad/tool"
	"github.com/sanadhq/sanad/workflow"
)

// Greeting is the input of the greet tool; Greeted its output.
type Greeting struct {
	Name string `json:"name" jsonschema:"who to greet"`
}
type Greeted struct {
	Text string `json:"text"`
}

// Your own tool and agent, registered as a playbook, run, and read back
// from the record: the agent calls the tool through the governed gateway.
func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "sanad-example")
	defer os.RemoveAll(dir)

	greet := tool.MustDefine(tool.Spec{Name: "greet", Description: "Greets someone by name.", SideEffect: tool.SideEffectNone},
		func(_ context.Context, _ tool.Call, in Greeting) (Greeted, error) {
			return Greeted{Text: "Hello, " + in.Name + "!"}, nil
		})
	greeter := agent.Profile{ID: "greeter", Name: "Greeter", Description: "Greets people.", Role: "greeter",
		PermittedTools: []string{"greet"}, Enabled: true, Version: "1"}
	flow, _ := workflow.Parse("hello.yaml", []byte("name: hello\nsteps:\n  - {id: hi, agent: greeter, task: Greet the guest}\n"))

	r, err := runner.Open(ctx, runner.Config{Dir: dir})
	if err != nil {
		panic(err)
	}
	defer r.Close()
	err = r.Register(&playbook.Playbook{Name: "hello", Agents: []agent.Profile{greeter}, Tools: []tool.Spec{greet}, Workflow: flow,
		Nodes: map[string]playbook.NodeFunc{"greeter": func(p agent.Profile) agent.Node {
			return agent.Func(p, func(ctx context.Context, in agent.Input) (agent.Output, error) {
				var input Greeting
				json.Unmarshal(in.Input, &input)
				out, err := in.Tools.Call(ctx, "greet", json.RawMessage(`{"name":"`+input.Name+`"}`))
				return agent.Output{Content: out, Summary: "greeted " + input.Name}, err
			})
		}}})
	if err != nil {
		panic(err)
	}
	res, err := r.Run(ctx, "hello", Greeting{Name: "Ada"}, runner.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Status, string(res.Outputs["hi"]))

	view, _ := r.Show(ctx, res.Run)
	for _, c := range view.Children {
		fmt.Println(c.Kind, c.Agent, c.Status)
	}
	// Output:
	// completed {"text":"Hello, Ada!"}
	// tool_gateway greeter completed
}
