package runner_test

import (
	"context"
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
	ctx, dir := context.Background(), tempHome()
	defer os.RemoveAll(dir)
	r, _ := runner.Open(ctx, runner.Config{Dir: dir})
	defer r.Close()
	greet := tool.MustDefine(tool.Spec{Name: "greet", Description: "Greets someone.", SideEffect: tool.SideEffectNone},
		func(_ context.Context, _ tool.Call, in Greeting) (Greeted, error) {
			return Greeted{"Hello, " + in.Name + "!"}, nil
		})
	greeter := agent.Profile{ID: "greeter", Name: "Greeter", Description: "Greets people.", Role: "greeter", PermittedTools: []string{"greet"}, Enabled: true, Version: "1"}
	flow, _ := workflow.Parse("hello.yaml", []byte("name: hello\nsteps: [{id: hi, agent: greeter, task: Greet the guest}]"))
	r.Register(&playbook.Playbook{Name: "hello", Agents: []agent.Profile{greeter}, Tools: []tool.Spec{greet}, Workflow: flow,
		Nodes: map[string]playbook.NodeFunc{"greeter": func(p agent.Profile) agent.Node {
			return agent.Func(p, func(ctx context.Context, in agent.Input) (agent.Output, error) {
				out, err := in.Tools.Call(ctx, "greet", in.Input) // through the gateway, recorded
				return agent.Output{Content: out}, err
			})
		}}})
	res, _ := r.Run(ctx, "hello", Greeting{Name: "Ada"}, runner.Options{})
	fmt.Println(res.Status, string(res.Outputs["hi"]))
	view, _ := r.Show(ctx, res.Run)
	fmt.Println(view.Children[0].Kind, view.Children[0].Agent, view.Children[0].Status)
	// Output:
	// completed {"text":"Hello, Ada!"}
	// agent greeter completed
}

// tempHome returns a new, empty folder for a home.
func tempHome() string {
	dir, err := os.MkdirTemp("", "sanad-example")
	if err != nil {
		panic(err)
	}
	return dir
}
